"""``companion replay``, ``companion export`` and ``companion games``: recorded games.

``replay LOG`` folds a game log file (format: ``fixtures/games/README.md``) and
prints the standings; the first illegal line stops it with its number and the
reason (exit 2). ``export`` and ``games`` read the event log database (default:
the one in the settings' data directory) and never create one.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from companion.commands import whole
from companion.config import load_settings
from companion.domain.csvexport import iso_time
from companion.domain.gamelog import read_log
from companion.registry import GAMES
from companion.report import standings_text, table
from companion.store import Store, StoreError
from companion.table import Table


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``replay``, ``export`` and ``games``."""
    replay = sub.add_parser(
        "replay",
        help="replay a game log file and print the standings",
        description="Replay a game log (JSON lines: a setup line, then one action per line) "
        "and print the standings. An illegal line stops the replay with its line number.",
    )
    replay.add_argument("log", metavar="LOG", help="game log file (.jsonl), or - for stdin")
    replay.add_argument("--json", action="store_true", help="print the standings as JSON")
    replay.set_defaults(func=run_replay)

    export = sub.add_parser(
        "export",
        help="write a stored game as a game log or CSV",
        description="Write a stored game as a game log (jsonl, the format `companion replay` "
        "reads) or as CSV (one row per entry, then the standings block).",
    )
    export.add_argument("game_id", metavar="GAME_ID", type=whole, help="id from `companion games`")
    _db_option(export)
    export.add_argument("--format", choices=("jsonl", "csv"), default="jsonl")
    export.add_argument("--out", type=Path, help="write to this file instead of stdout")
    export.set_defaults(func=run_export)

    games = sub.add_parser("games", help="list the stored games")
    _db_option(games)
    games.add_argument("--json", action="store_true", help="print the list as JSON")
    games.set_defaults(func=run_games)


def _db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db", type=Path, help="event log database (default: companion.sqlite3 in data_dir)"
    )


def run_replay(args: argparse.Namespace) -> int:
    """Fold the log and print its standings (text or JSON)."""
    try:
        text = sys.stdin.read() if args.log == "-" else Path(args.log).read_text(encoding="utf-8")
    except OSError as exc:
        print(f"companion replay: error: cannot read {args.log}: {exc.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print(f"companion replay: error: {args.log} is not UTF-8 text", file=sys.stderr)
        return 2
    fold = read_log(text, GAMES.rules)  # a LogError (ValueError) is printed by cli.main, exit 2
    standings = fold.module.standings(fold.state)
    if args.json:
        print(json.dumps(standings, indent=2, ensure_ascii=False))
    else:
        print(standings_text(GAMES.find(fold.module.NAME).report, standings,
                             fold.setup.to_dict()))
    return 0


def _open_store(args: argparse.Namespace) -> Store:
    path = args.db
    if path is None:
        config = Path(args.config) if getattr(args, "config", None) else None
        path = load_settings(config).database
    if not Path(path).is_file():
        raise StoreError(
            f"there is no event log at {path}; give --db or set data_dir "
            "(the dashboard creates it when the first game starts)"
        )
    return Store(path, readonly=True)


def run_export(args: argparse.Namespace) -> int:
    """Write one stored game as jsonl or csv to stdout or ``--out``."""
    with _open_store(args) as store:
        table_ = Table(store)
        text = (
            table_.export_csv(args.game_id)
            if args.format == "csv"
            else table_.export_log(args.game_id)
        )
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        args.out.write_text(text, encoding="utf-8", newline="")
    except OSError as exc:
        print(f"companion export: error: cannot write {args.out}: {exc.strerror}", file=sys.stderr)
        return 2
    print(f"wrote game {args.game_id} ({args.format}) to {args.out}", file=sys.stderr)
    return 0


def run_games(args: argparse.Namespace) -> int:
    """List every stored game."""
    with _open_store(args) as store:
        games = Table(store).list_games()
    if args.json:
        print(json.dumps(games, indent=2, ensure_ascii=False))
        return 0
    if not games:
        print("no games stored yet")
        return 0
    rows = [
        [
            g["id"],
            g["game"],
            ", ".join(g["players"]),
            g["status"],
            g["version"],
            ("yes" if g["over"] else "no") if "error" not in g else "unreadable",
            iso_time(g["created"]),
        ]
        for g in games
    ]
    print(table(["id", "game", "players", "status", "version", "over", "created (UTC)"], rows))
    for g in games:
        if "error" in g:
            print(f"game {g['id']}: {g['error']}", file=sys.stderr)
    return 0
