"""Restore a backup without losing what was there: the database as it was is kept first.

The backup is checked (:func:`~companion.backup.check_backup`), the live database is
copied to a dated file (``before-restore-YYYYmmdd-HHMMSS.sqlite3``, numbered when taken),
and only then replaced, after ``verify`` accepted the checked copy.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.backup import check_backup, restore, write_backup
from companion.store import Store

__all__ = ["restore_keeping"]


def restore_keeping(store: Store, path: str | Any, now: float, keep_dir: Any | None,
                    verify: Callable[[Store], None]) -> str | None:
    """Replace ``store``'s database with the backup at ``path``; return the kept copy's path.

    The copy goes to ``keep_dir`` (default: ``backups`` beside the event log), named by
    ``now``; an in-memory store keeps none (None). Raises StoreError, changing nothing,
    for a file that is not a backup or that ``verify`` refuses.
    """
    check_backup(path)
    kept = None
    if str(store.path) != ":memory:":
        folder = Path(keep_dir) if keep_dir else store.path.parent / "backups"
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now))
        target = folder / f"before-restore-{stamp}.sqlite3"
        number = 1
        while target.exists():
            number += 1
            target = folder / f"before-restore-{stamp}-{number}.sqlite3"
        write_backup(store, target)
        kept = str(target)
    restore(store, path, verify=verify)
    return kept
