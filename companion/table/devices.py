"""The running companion's devices as the dashboard sees them: the camera's latest picture
and reading, what the turn button did, the health checks, and what the dashboard
asks of the camera (measure again, calibrate the tray).

Kept in memory only; each new picture or button press is announced as a change notice.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import Any

from companion.table.checks import TableError

__all__ = ["Devices"]

_JPEG_START = b"\xff\xd8"


class Devices:
    """Pictures, button outcomes, status checks and camera requests for one table.

    ``publish(game_id, version, kind, extra)`` announces a change; ``active_game_id()``
    names the game at the table; ``lock`` is the table's lock, held while a picture or
    press is kept and announced so notices follow the table's own order.
    """

    def __init__(
        self,
        publish: Callable[..., None],
        active_game_id: Callable[[], int | None],
        lock: AbstractContextManager[Any],
    ) -> None:
        self._publish = publish
        self._active_game_id = active_game_id
        self._lock = lock
        self._picture: tuple[bytes, dict[str, Any]] | None = None
        self._pictures = 0
        self._presses = 0
        self._status: Callable[[], list[dict[str, Any]]] | None = None
        self._remeasure = threading.Event()
        # The running companion's ``TraySetup`` (companion/tray_setup.py), when a camera runs.
        self._tray_setup: Any = None

    def publish_picture(self, jpeg: bytes, reading: Mapping[str, Any]) -> None:
        """Keep the camera's latest picture (JPEG) and reading in memory and announce it."""
        if not isinstance(jpeg, bytes | bytearray) or not bytes(jpeg[:2]) == _JPEG_START:
            raise TableError("the camera picture must be JPEG bytes (starting with FF D8)")
        if not isinstance(reading, Mapping):
            raise TableError("the camera reading must be a dict")
        with self._lock:
            self._pictures += 1
            self._picture = (bytes(jpeg), dict(reading))
            self._publish(self._active_game_id(), self._pictures, "picture")

    def publish_button(
        self, outcome: str, text_en: str, text_de: str, game_id: int | None = None
    ) -> None:
        """Announce what the turn button did (``recorded``, ``refused``, ``undone``) and why.

        The notice (kind and type ``button``, for ``game_id``: the active game unless
        given) carries ``{"outcome", "ok", "text": {"en", "de"}}`` so every scorekeeper's
        page of that game can say what the table's light just showed; its ``version``
        counts presses and is never a point to resume from.
        """
        if outcome not in ("recorded", "refused", "undone"):
            raise TableError(f"unknown button outcome {outcome!r}")
        text = {"en": str(text_en), "de": str(text_de)}
        button = {"outcome": outcome, "text": text}
        with self._lock:
            self._presses += 1
            game = self._active_game_id() if game_id is None else game_id
            self._publish(game, self._presses, "button", {
                "type": "button", "button": button, "outcome": outcome,
                "ok": outcome != "refused", "text": text,
            })

    def provide_status(self, checks: Callable[[], list[dict[str, Any]]]) -> None:
        """Let the running companion say how it is (``companion doctor``'s checks)."""
        self._status = checks

    def status(self) -> list[dict[str, Any]]:
        """The pre-flight checks as dicts (name, level, detail, fix); empty without a provider."""
        return [] if self._status is None else list(self._status())

    def request_remeasure(self) -> None:
        """Ask the camera to measure exposure and white balance again (from the dashboard)."""
        self._remeasure.set()

    def take_remeasure(self) -> bool:
        """Whether a re-measure was asked for since the last call (the camera loop asks)."""
        if self._remeasure.is_set():
            self._remeasure.clear()
            return True
        return False

    def latest_picture(self) -> tuple[bytes, dict[str, Any]] | None:
        """The latest camera picture and its reading, or None before the first."""
        with self._lock:
            if self._picture is None:
                return None
            jpeg, reading = self._picture
            return jpeg, dict(reading)

    def attach_tray_setup(self, setup: Any) -> None:
        """Let the dashboard calibrate the tray through ``setup`` (a ``TraySetup``)."""
        self._tray_setup = setup

    def tray_setup(self) -> Any | None:
        """The companion's tray calibration (latest raw frame, proposal, save), or None
        when no camera runs."""
        return self._tray_setup
