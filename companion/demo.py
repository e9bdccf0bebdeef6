"""The demo's scorekeepers: sample game logs played into the table, and a Schocken game
thrown in front of the demo's camera.

:class:`DemoPlayer` records the actions of logged games one step at a time, so open pages
visibly change. :class:`CameraDemo` is the scorekeeper of a game read by the camera: it
throws (rendered) dice for whoever's turn it is, lets the companion read them through the
real camera path (:class:`~companion.hardware.demo.ThrowSource`), presses the turn button,
enters by hand what the camera could not read with confidence and corrects what it read
wrongly -- as a person at the table would. Both keep playing: finished games are followed
by fresh ones, so a newcomer who opens the demo late still sees it live.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from companion.games import GameError
from companion.hardware.demo import Throw, ThrowSource
from companion.registry import GAMES

if TYPE_CHECKING:  # the renderer is imported when the demo first throws
    from companion.synth.writer import Writer

DEMO_PIN = "1234"
DEMO_WHO = "demo"
SCOREKEEPER = "scorekeeper (demo)"
DEMO_PLAYERS = ("Anna", "Ben", "Carl")


def demo_logs(folder: Path) -> dict[str, Path]:
    """One log per game kind from ``folder``: the longest, as it shows the most."""
    found: dict[str, Path] = {}
    for name in GAMES.names():
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
            # A bad log stops the demo now, with its line number.
            read_log(text, table.games.rules)
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



@dataclass
class TurnResult:
    """What happened to one rendered throw."""

    player: str
    truth: list[int]
    read: list[int] | None
    by: str  # "button", "scorekeeper" (entered by hand) or "corrected"


class CameraDemo:
    """The scorekeeper of one Schocken game on ``table`` that ``companion``'s camera reads.

    :meth:`step` plays one whole turn (for tests); :meth:`source` is the demo's camera for
    the companion's camera loop, where each turn is finished when the next throw is asked
    for. ``wait()`` pauses between turns (True stops). With ``loop``, a game that ends
    stays on show for ``pause`` more waits, then a fresh game with the same players takes
    its place at the table (:meth:`restart`). The demo stops when its game is no longer
    the one at the table (a person switched games).
    """

    def __init__(
        self,
        table: Any,
        companion: Any,
        game_id: int,
        seed: int = 2026,
        size: tuple[int, int] = (1280, 960),
        settle_seconds: float = 0.6,
        *,
        pin: str = DEMO_PIN,
        wait: Callable[[], bool] = lambda: False,
        loop: bool = False,
        pause: int = 0,
    ) -> None:
        self.table = table
        self.companion = companion
        self.game_id = game_id
        self.size = size
        self.results: list[TurnResult] = []
        self.games = 1
        self._pin = pin
        self._wait = wait
        self._loop = loop
        self._pause = pause
        self._rng = np.random.default_rng(seed)
        self._seed = seed
        # The rendered tray the throws land in, made on first use.
        self._writer: Writer | None = None
        self._clock = 0.0
        self._interval = settle_seconds / 3
        # The turn thrown but not yet recorded: player, dice, whether it is a reveal.
        self._turn: tuple[str, list[int], bool] | None = None

    def _render(self, dice: list[int]) -> Throw:
        """The throw of ``dice`` as the camera sees it: a hand throwing them into the same
        rendered tray as every throw before (``synth.writer.Writer``), then the dice at
        rest. A tray that changed as a whole between throws would be taken for something
        lying in it, and the camera would never read a throw."""
        if self._writer is None:
            from companion.synth.stage import render_stage
            from companion.synth.writer import Writer

            stage = render_stage(self._seed, self.size)
            self._writer = Writer(stage, self._rng, 1.0 / self._interval)
        writer = self._writer
        writer.frames.clear()
        writer.throw(values=dice)
        moving = list(writer.frames)
        writer.hold(1.0 / writer.fps)
        still = writer.frames[-1]
        writer.frames.clear()
        return Throw(moving, still)

    def _throw(self) -> Throw | None:
        """Dice for whoever's turn it is; None when the game is over or not at the table."""
        snap = self.table.snapshot(self.game_id)
        view = snap["view"]
        if snap["over"] or self.table.active_game_id() != self.game_id:
            return None
        player = view.get("awaiting_reveal") or view.get("to_throw")
        if player is None:
            return None
        dice = sorted((int(v) for v in self._rng.integers(1, 7, size=3)), reverse=True)
        self._turn = (player, dice, bool(view.get("awaiting_reveal")))
        return self._render(dice)

    def _record(self) -> TurnResult:
        """Press the button for the turn just read; enter or correct by hand where needed."""
        assert self._turn is not None
        player, dice, reveal = self._turn
        self._turn = None
        reading = self.companion.tracker.reading
        read = None if reading is None else sorted(
            (int(d.value) for d in reading.dice if d.value is not None), reverse=True
        )
        outcome = self.companion.confirm()
        if outcome.recorded is None:
            action = {"action": "throw", "player": player, "dice": dice, "throws": 1,
                      "hand": True}
            if reveal:
                action = {"action": "reveal", "player": player, "dice": dice, "hand": True}
            self.table.submit(self.game_id, action, SCOREKEEPER)
            result = TurnResult(player, dice, read, "scorekeeper")
        elif outcome.recorded["dice"] != dice:
            version = self.table.snapshot(self.game_id)["version"]
            self.table.correct(self.game_id, version, {**outcome.recorded, "dice": dice},
                               SCOREKEEPER)
            result = TurnResult(player, dice, read, "corrected")
        else:
            result = TurnResult(player, dice, read, "button")
        self.results.append(result)
        return result

    def step(self) -> TurnResult | None:
        """Play the next turn; None when the game is over or the demo game is not active."""
        throw = self._throw()
        if throw is None:
            return None
        throws: Iterator[Throw] = iter([throw])
        source = ThrowSource(lambda: next(throws, None), still_frames=5,
                             interval=self._interval, start=self._clock)
        self._clock += 10.0
        self.companion.run_camera(source, threading.Event())
        return self._record()

    def restart(self) -> None:
        """A fresh game with the same players at the table; the finished one leaves the list."""
        old = self.game_id
        setup = self.table.snapshot(old)["setup"]
        self.game_id = self.table.create_game("schocken", setup, self._pin)
        self.table.hide(old)
        self.games += 1

    def next_throw(self) -> Throw | None:
        """Record the turn just read, wait, then the next throw; None stops the demo camera."""
        try:
            if self._turn is not None:
                self._record()
            if self._wait():
                return None
            throw = self._throw()
            while throw is None:
                snap = self.table.snapshot(self.game_id)
                if not (self._loop and snap["over"]
                        and self.table.active_game_id() == self.game_id):
                    return None
                for _ in range(self._pause):
                    if self._wait():
                        return None
                self.restart()
                throw = self._throw()
            return throw
        except GameError:
            return None  # the table changed the game under us (archived, undone): stop quietly

    def source(self) -> ThrowSource:
        """The demo's camera: throws made by :meth:`next_throw`, timed for the settle detector."""
        return ThrowSource(self.next_throw, still_frames=5, interval=self._interval,
                           start=self._clock)


def demo_parts(settings: Any, logs: dict[str, Path], *, seconds_per_step: float, pause: int,
               camera: bool = True) -> Any:
    """The :class:`~companion.app.Demo` the builder runs: the logged games played step by
    step and, with ``camera``, a Schocken game thrown in front of the demo's camera; both
    loop, finished games staying on show for ``pause`` steps."""
    from companion.app import Demo, default_settle

    def setup(table: Any) -> list[Callable[[threading.Event], None]]:
        player = DemoPlayer(table, logs)
        table.activate(player.game_ids[0])

        def play(stop: threading.Event) -> None:
            player.run(lambda: stop.wait(seconds_per_step), loop=True, pause=pause)

        return [play]

    def camera_game(table: Any, companion: Any, stop: threading.Event) -> Callable[[], Any]:
        # Made the table's active game: rendered throws play it through settle
        # detection, the pip recogniser, the turn tracker and the button.
        game_id = table.create_game(
            "schocken", {"players": list(DEMO_PLAYERS), "starter": DEMO_PLAYERS[0]}, DEMO_PIN
        )
        scorekeeper = CameraDemo(table, companion, game_id, size=(960, 720),
                                 settle_seconds=settings.settle_seconds,
                                 wait=lambda: stop.wait(seconds_per_step), loop=True,
                                 pause=pause)
        return scorekeeper.source

    # The demo's camera is settled as the Pi's is: with the check that nothing but dice
    # lies in the tray.
    return Demo(setup, camera_game if camera else None,
                default_settle(settings) if camera else None)
