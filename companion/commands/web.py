"""``companion serve`` and ``companion demo``: the dashboard, with or without sample games.

``serve`` shows the games of the configured database. ``demo`` starts on a
temporary database with one sample game per kind taken from ``fixtures/games/``:
each game starts empty and a background thread records the logged actions one by
one, so open pages visibly change; the games stay when the logs are played out.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from companion.commands import whole
from companion.config import Settings, load_settings, validate
from companion.games import GAME_NAMES

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "games"
DEMO_PIN = "1234"
DEMO_WHO = "demo"
DEMO_PAUSE_STEPS = 10  # the finished games stay on show this many steps before the replay
SECONDS_PER_STEP = 2.0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``serve`` and ``demo``."""
    serve = sub.add_parser("serve", help="run the dashboard on the configured database")
    _server_options(serve)
    serve.set_defaults(func=run_serve)
    demo = sub.add_parser(
        "demo", help="run the dashboard with sample games played out live",
        description="Start the dashboard with a Schocken, a Rock the Bock and a Kacken auf "
        "Wacken game from fixtures/games/, played out step by step. Open the printed address; "
        f"the demo PIN ({DEMO_PIN}) makes you the scorekeeper.")
    demo.add_argument("--host", default="127.0.0.1",
                      help="address to listen on (default 127.0.0.1; 0.0.0.0 lets phones on "
                      "the network join)")
    demo.add_argument("--port", type=whole, help="port (default: from the settings, 8080)")
    demo.add_argument("--data", type=Path,
                      help="data directory (default: a temporary one, removed at exit)")
    demo.add_argument("--speed", type=_positive, default=1.0,
                      help=f"playback speed; 1 = one step every {SECONDS_PER_STEP:g} s "
                      "(default 1)")
    demo.add_argument("--fixtures", type=Path, default=FIXTURES,
                      help="folder with the game logs to play (default: fixtures/games)")
    demo.add_argument("--no-camera", dest="camera", action="store_false",
                      help="leave out the Schocken game played through the camera pipeline "
                      "on rendered throws")
    demo.set_defaults(func=run_demo)


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value <= 1000:
        raise argparse.ArgumentTypeError("the speed must be above 0 and at most 1000")
    return value


def _server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", help="address to listen on (default: from the settings; "
                        "0.0.0.0 lets phones on the network connect)")
    parser.add_argument("--port", type=whole, help="port (default: from the settings, 8080)")


def _settings(args: argparse.Namespace, **overrides: Any) -> Settings:
    settings = load_settings(Path(args.config) if getattr(args, "config", None) else None)
    if args.host:
        overrides["host"] = args.host
    if args.port is not None:
        overrides["port"] = args.port
    return validate(replace(settings, **overrides))


def run_serve(args: argparse.Namespace) -> int:
    """Serve the dashboard over the configured database until interrupted."""
    from companion.store import Store
    from companion.table import Table
    from companion.web import create_app
    from companion.web.server import serve

    settings = _settings(args)
    with Store(settings.database) as store:
        table = Table(store)
        try:
            serve(create_app(table, settings), settings)
        finally:
            table.close()
    return 0


def demo_logs(folder: Path) -> dict[str, Path]:
    """One log per game kind from ``folder``: the longest, as it shows the most."""
    found: dict[str, Path] = {}
    for name in GAME_NAMES:
        logs = sorted(folder.glob(f"{name}-*.jsonl"))
        if logs:
            found[name] = max(logs, key=lambda p: (len(p.read_text(encoding="utf-8")), p.name))
    if not found:
        raise ValueError(
            f"no game logs (<game>-*.jsonl) in {folder}; run the demo from a clone of the "
            "repository or pass --fixtures DIR"
        )
    return found


class DemoPlayer:
    """Records the actions of several game logs into a Table, one step per game per tick.

    Every game is created empty from its log's header line, so the pages show the
    game from its first throw. ``wait`` is called between ticks; it returns True to
    stop early (the server is shutting down).
    """

    def __init__(self, table: Any, logs: dict[str, Path], pin: str = DEMO_PIN) -> None:
        from companion.domain.gamelog import read_log

        self.table = table
        self.pin = pin
        self.headers: list[str] = []
        self.games: list[tuple[int, list[dict[str, Any]]]] = []
        self.position = 0
        for path in logs.values():
            text = path.read_text(encoding="utf-8")
            read_log(text)  # a bad log stops the demo now, with its line number
            lines = [line for line in text.splitlines() if line.strip()]
            self.headers.append(lines[0] + "\n")
            game_id = table.import_log(lines[0] + "\n", pin)
            self.games.append((game_id, [json.loads(line) for line in lines[1:]]))

    @property
    def game_ids(self) -> list[int]:
        """The ids of the demo games, in the order of the logs."""
        return [game_id for game_id, _ in self.games]

    def step(self) -> bool:
        """Record the next action of every log that has one; False when all are played out."""
        played = False
        for game_id, actions in self.games:
            if self.position >= len(actions):
                continue
            action = actions[self.position]
            if action.get("action") == "undo":
                self.table.undo(game_id, DEMO_WHO)
            elif action.get("action") == "correct":
                self.table.correct(game_id, action["version"], action["event"], DEMO_WHO)
            else:
                self.table.submit(game_id, action, DEMO_WHO)
            played = True
        self.position += 1
        return played

    def restart(self) -> None:
        """Take the played-out games off the list and start every log again from empty.

        A newcomer who opens the demo late still sees games move; the game that was at
        the table is replaced at the table by its fresh copy.
        """
        active = self.table.active_game_id()
        games = []
        for header, (old, actions) in zip(self.headers, self.games, strict=True):
            game_id = self.table.import_log(header, self.pin)
            if old == active:
                self.table.activate(game_id)
            self.table.hide(old)
            games.append((game_id, actions))
        self.games = games
        self.position = 0

    def run(self, wait: Callable[[], bool], *, loop: bool = False, pause: int = 0) -> None:
        """Play every log to its end, calling ``wait`` before each step (True stops).

        With ``loop`` the finished games stay on show for ``pause`` more waits, then
        :meth:`restart` begins them again, until ``wait`` says stop.
        """
        while not wait():
            if self.step():
                continue
            if not loop:
                return
            for _ in range(pause):
                if wait():
                    return
            self.restart()


def camera_game(table: Any, settings: Settings) -> Any:
    """A Schocken game, made the table's active one, that rendered throws play through the
    camera path: settle detection, the pip recogniser, the turn tracker and the button."""
    from companion.app import Companion, default_recognizers
    from companion.camera_demo import DEMO_PLAYERS, CameraDemo
    from companion.vision.settle import SettleDetector

    game_id = table.create_game(
        "schocken", {"players": list(DEMO_PLAYERS), "starter": DEMO_PLAYERS[0]}, DEMO_PIN
    )
    companion = Companion(
        table, default_recognizers(settings), SettleDetector(settings.settle_seconds)
    )
    return CameraDemo(table, companion, game_id, size=(960, 720),
                      settle_seconds=settings.settle_seconds)


def run_demo(args: argparse.Namespace) -> int:
    """Start the dashboard with sample games played out live; print address, QR and PIN."""
    from companion.store import Store
    from companion.table import Table
    from companion.web import create_app
    from companion.web.server import serve

    logs = demo_logs(args.fixtures)
    temporary = args.data is None
    data_dir = Path(tempfile.mkdtemp(prefix="companion-demo-")) if temporary else args.data
    settings = _settings(args, data_dir=data_dir)
    stop = threading.Event()
    try:
        with Store(settings.database) as store:
            table = Table(store)
            player = DemoPlayer(table, logs)
            table.activate(player.game_ids[0])
            delay = SECONDS_PER_STEP / args.speed
            threads = [threading.Thread(target=player.run, args=(lambda: stop.wait(delay),),
                                        kwargs={"loop": True, "pause": DEMO_PAUSE_STEPS},
                                        name="demo-player", daemon=True)]
            if args.camera:
                threads.append(threading.Thread(
                    target=camera_game(table, settings).run,
                    args=(lambda: stop.wait(delay),), name="demo-camera", daemon=True,
                ))
            for thread in threads:
                thread.start()
            print(f"Demo games: {', '.join(logs)} (from {args.fixtures})"
                  f"{' and a Schocken game read by the camera pipeline' if args.camera else ''};"
                  f" scorekeeper PIN {DEMO_PIN}", file=sys.stderr)
            try:
                serve(create_app(table, settings), settings, pin=DEMO_PIN)
            finally:
                stop.set()
                for thread in threads:
                    thread.join(timeout=10)
                table.close()
    finally:
        if temporary:
            shutil.rmtree(data_dir, ignore_errors=True)
    return 0
