"""``companion backup FILE`` and ``companion restore FILE``: the whole database at once.

``backup`` may run while the companion records games: SQLite's online backup API copies
a consistent snapshot. ``restore`` checks that FILE is a companion database whose every
game can be rebuilt, keeps the current database in ``backups/`` beside it, then replaces
it in one transaction. Restore into a stopped companion (or use the dashboard's restore,
which the running companion carries out itself).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.backup import write_backup
from companion.config import load_settings
from companion.store import Store, StoreError
from companion.table import Table


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``backup`` and ``restore``."""
    backup = sub.add_parser(
        "backup", help="write a consistent copy of the whole database (also while running)",
        description="Copy every game, the roster and the tab into FILE (one SQLite file), "
        "consistent even while games are being recorded.",
    )
    backup.add_argument("file", metavar="FILE", type=Path, help="the backup file to write")
    backup.add_argument("--db", type=Path,
                        help="event log database (default: companion.sqlite3 in data_dir)")
    backup.set_defaults(func=run_backup)

    restore = sub.add_parser(
        "restore", help="replace the whole database with a backup",
        description="Check that FILE is a companion backup, keep the current database in "
        "backups/ beside it, then replace it with FILE in one transaction. Stop the "
        "companion first (the dashboard's restore works while it runs).",
    )
    restore.add_argument("file", metavar="FILE", type=Path, help="a file `companion backup` wrote")
    restore.add_argument("--db", type=Path,
                         help="event log database (default: companion.sqlite3 in data_dir)")
    restore.set_defaults(func=run_restore)


def _database(args: argparse.Namespace) -> Path:
    if args.db is not None:
        return Path(args.db)
    config = Path(args.config) if getattr(args, "config", None) else None
    return Path(load_settings(config).database)


def run_backup(args: argparse.Namespace) -> int:
    """Write the backup; one line on stderr says where."""
    path = _database(args)
    if args.file.resolve() == path.resolve():
        raise StoreError("the backup file cannot be the database itself; name another file")
    with Store(path, readonly=True) as store:
        write_backup(store, args.file)
        games = len(store.games())
    print(f"backed up {games} games from {path} to {args.file}", file=sys.stderr)
    return 0


def run_restore(args: argparse.Namespace) -> int:
    """Restore the backup; one line on stderr says what happened and where the old copy is."""
    path = _database(args)
    if not args.file.is_file():
        raise StoreError(f"there is no backup file {args.file}; nothing was restored")
    if path.exists() and args.file.resolve() == path.resolve():
        raise StoreError("the backup file is the database itself; nothing to restore")
    with Store(path) as store:
        kept = Table(store).restore(args.file)
        games = len(store.games())
    print(f"restored {games} games into {path} from {args.file}; the database as it was is "
          f"kept in {kept}", file=sys.stderr)
    return 0
