"""A Schocken game played through the real camera pipeline on rendered throws.

For the demo and for tests without a camera: each turn is rendered as frames a camera
would deliver (dice tumbling, then lying still), handed to ``Companion.run_camera``
through the ``FrameSource`` protocol, read by the recogniser, and recorded by a
simulated press of the turn button. When the camera could not read a throw with
confidence, the demo's scorekeeper enters the true dice by hand -- as a person at the
table would -- and when it read one wrongly, the scorekeeper corrects the entry.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from companion.app import Companion
from companion.games import GameError
from companion.hardware.camera import Frame
from companion.vision.render import render_throw

SCOREKEEPER = "scorekeeper (demo)"
DEMO_PLAYERS = ("Anna", "Ben", "Carl")


class RenderedThrowSource:
    """A finite ``FrameSource``: two frames of dice in motion, then the dice at rest."""

    def __init__(self, moving: list[np.ndarray], still: np.ndarray, still_frames: int,
                 start: float, interval: float) -> None:
        self._frames = [*moving, *[still] * still_frames]
        self._start = start
        self._interval = interval
        self._index = 0

    def read(self) -> Frame | None:
        """The next frame, timestamped as a camera running at 1 / interval fps would."""
        if self._index >= len(self._frames):
            return None
        image = self._frames[self._index]
        stamp = self._start + self._index * self._interval
        self._index += 1
        return Frame(image, stamp, f"render-{self._index}")

    def close(self) -> None:
        """Nothing to release."""


@dataclass
class TurnResult:
    """What happened to one rendered throw."""

    player: str
    truth: list[int]
    read: list[int] | None
    by: str  # "button", "scorekeeper" (entered by hand) or "corrected"


class CameraDemo:
    """Drives one Schocken game on ``table`` through ``companion``'s camera path."""

    def __init__(
        self,
        table: object,
        companion: Companion,
        game_id: int,
        seed: int = 2026,
        size: tuple[int, int] = (1280, 960),
        settle_seconds: float = 0.6,
    ) -> None:
        self.table = table
        self.companion = companion
        self.game_id = game_id
        self.size = size
        self._rng = np.random.default_rng(seed)
        self._clock = 0.0
        self._interval = settle_seconds / 3
        self.results: list[TurnResult] = []

    def _frames(self, dice: list[int]) -> RenderedThrowSource:
        seeds = self._rng.integers(0, 2**31, size=3)
        moving = [render_throw(int(s), 3, size=self.size).image for s in seeds[:2]]
        still = render_throw(int(seeds[2]), 3, size=self.size, faces=dice).image
        source = RenderedThrowSource(moving, still, 5, self._clock, self._interval)
        self._clock += 10.0
        return source

    def step(self) -> TurnResult | None:
        """Play the next turn; None when the game is over or the demo game is not active."""
        snap = self.table.snapshot(self.game_id)
        view = snap["view"]
        if snap["over"] or self.table.active_game_id() != self.game_id:
            return None
        player = view.get("awaiting_reveal") or view.get("to_throw")
        if player is None:
            return None
        dice = sorted((int(v) for v in self._rng.integers(1, 7, size=3)), reverse=True)
        self.companion.run_camera(self._frames(dice), threading.Event())
        reading = self.companion.tracker.reading
        read = None if reading is None else sorted(
            (int(d.value) for d in reading.dice if d.value is not None), reverse=True
        )
        outcome = self.companion.confirm()
        if outcome.recorded is None:
            action = {"action": "throw", "player": player, "dice": dice, "throws": 1,
                      "hand": True}
            if view.get("awaiting_reveal"):
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

    def run(self, wait: Callable[[], bool]) -> None:
        """Play turns until the game ends; ``wait()`` pauses between turns, True stops."""
        while not wait():
            try:
                if self.step() is None:
                    return
            except GameError:
                return  # the table changed the game under us (archived, undone): stop quietly
