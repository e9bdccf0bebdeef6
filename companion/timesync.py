"""Whether the wall clock has been set from the network yet (a Pi has no clock of its own).

A Raspberry Pi has no battery-backed real-time clock: it boots with the time fake-hwclock
saved last (at the last clean shutdown, or up to an hour before a power cut) and counts on
from there until NTP sets it, so a time read before that can be hours or days off.
systemd-timesyncd touches ``/run/systemd/timesync/synchronized`` on each successful
synchronisation (systemd-timesyncd.service(8)); the file lives in ``/run``, so it is gone
after every boot until the first synchronisation of that boot.

The composition root hands :func:`clock_synced` to the table, which marks the entries
recorded while it says no; tests hand in a fake.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["TIMESYNC_MARKER", "clock_synced"]

TIMESYNC_MARKER = Path("/run/systemd/timesync/synchronized")


def clock_synced(marker: Path | None = None) -> bool:
    """Whether systemd-timesyncd has synchronised the clock since this boot.

    ``marker`` defaults to :data:`TIMESYNC_MARKER`, looked up at each call.
    """
    try:
        return (TIMESYNC_MARKER if marker is None else marker).exists()
    except OSError:
        return False
