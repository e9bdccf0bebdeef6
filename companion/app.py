"""The composition root: the one module that wires camera, vision, games, store, button and web.

``Companion`` is the running table: each camera frame goes through settle detection;
a new throw at rest is read by the recogniser for the active game, drawn as an
annotated picture for the dashboard, and counted by the turn tracker. The turn
button (or ``confirm()``) records what the tracker proposes; a long press undoes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from companion.config import Settings
from companion.games import GameError
from companion.hardware.camera import CameraError, FrameError, FrameSource
from companion.turns import Proposal, TurnTracker, reading_to_dict
from companion.vision.annotate import annotate, to_jpeg
from companion.vision.settle import AT_REST, SettleDetector
from companion.vision.types import Reading, VisionError

log = logging.getLogger("companion")

BUTTON = "button"


class Recognizer(Protocol):
    """Anything that reads one frame into a ``Reading``."""

    def read(self, frame: Any) -> Reading:
        """Read the dice in a BGR frame."""


@dataclass(frozen=True)
class Outcome:
    """What one button press did: ``recorded`` is the stored action, else ``message`` says why."""

    recorded: dict[str, Any] | None
    message: str


class Companion:
    """The running companion; everything it needs is handed in (see :func:`build`)."""

    def __init__(
        self,
        table: Any,
        recognizers: Mapping[str, Recognizer],
        settle: SettleDetector,
        tracker: TurnTracker | None = None,
    ) -> None:
        self.table = table
        self.recognizers = dict(recognizers)
        self.settle = settle
        self.tracker = tracker or TurnTracker()
        self._lock = threading.Lock()
        self.frames = 0
        self.bad_frames = 0

    def _active(self) -> tuple[int, dict[str, Any]] | None:
        game_id = self.table.active_game_id()
        if game_id is None:
            return None
        return game_id, self.table.snapshot(game_id)

    def process(self, image: Any, timestamp: float) -> Reading | None:
        """Feed one frame; return the reading when it was a new throw at rest."""
        with self._lock:
            self.frames += 1
            event = self.settle.update(image, timestamp)
            if event is None or event.state != AT_REST or not event.new_throw:
                return None
            active = self._active()
            if active is None:
                return None
            game_id, snap = active
            recognizer = self.recognizers.get(snap["game"])
            if recognizer is None:
                return None  # a game without dice (Wacken): nothing to read
            reading = recognizer.read(image)
            self.tracker.observe(reading, (game_id, snap["version"]))
            proposal = self.tracker.proposal(snap["game"], snap["view"])
            picture = to_jpeg(annotate(image, reading))
            self.table.publish_picture(picture, self._picture_info(game_id, reading, proposal))
            return reading

    def _picture_info(
        self, game_id: int, reading: Reading, proposal: Proposal | None
    ) -> dict[str, Any]:
        return {
            **reading_to_dict(reading),
            "annotated": True,  # outlines and values are drawn into the JPEG itself
            "game_id": game_id,
            "throws": self.tracker.throws,
            "hand": self.tracker.hand,
            "proposal": None if proposal is None else {
                "action": proposal.action,
                "text": {"en": proposal.text, "de": proposal.text_de},
            },
        }

    def use_recognizers(self, recognizers: Mapping[str, Recognizer]) -> None:
        """Read with ``recognizers`` from the next frame on (a new calibration)."""
        with self._lock:
            self.recognizers = dict(recognizers)

    def confirm(self) -> Outcome:
        """Record what the camera read for the player whose turn it is (a short press)."""
        with self._lock:
            active = self._active()
            if active is None:
                return Outcome(None, "no game is running")
            game_id, snap = active
            if self.tracker.turn_key != (game_id, snap["version"]):
                return Outcome(None, "no throw seen since the last entry")
            proposal = self.tracker.proposal(snap["game"], snap["view"])
            if proposal is None or proposal.action is None:
                return Outcome(None, proposal.text if proposal else "nothing to record")
            try:
                self.table.submit(game_id, proposal.action, BUTTON)
            except GameError as exc:
                return Outcome(None, str(exc))
            return Outcome(proposal.action, proposal.text)

    def undo(self) -> Outcome:
        """Take back the last entry of the active game (a long press)."""
        with self._lock:
            game_id = self.table.active_game_id()
            if game_id is None:
                return Outcome(None, "no game is running")
            try:
                self.table.undo(game_id, BUTTON)
            except GameError as exc:
                return Outcome(None, str(exc))
            return Outcome({"action": "undo"}, "last entry undone")

    def run_camera(self, source: FrameSource, stop: threading.Event) -> None:
        """Read frames until ``stop`` is set or a finite source ends; bad frames are skipped."""
        while not stop.is_set():
            try:
                frame = source.read()
            except FrameError as exc:
                self.bad_frames += 1
                log.warning("skipped a frame: %s", exc)
                continue
            if frame is None:
                return
            try:
                self.process(frame.image, frame.timestamp)
            except VisionError as exc:
                self.bad_frames += 1
                log.warning("could not read a frame: %s", exc)


def camera_loop(
    companion: Companion,
    open_source: Callable[[], FrameSource],
    stop: threading.Event,
    retry_seconds: float = 5.0,
    finite: bool = False,
) -> None:
    """Keep the camera running: reopen it after a fault (a webcam pulled out and put back),
    so the evening goes on; manual entry on the phones works meanwhile."""
    while not stop.is_set():
        try:
            source = open_source()
        except CameraError as exc:
            log.error("camera: %s; trying again in %g s", exc, retry_seconds)
            stop.wait(retry_seconds)
            continue
        try:
            companion.run_camera(source, stop)
        except CameraError as exc:
            log.error("camera: %s; reopening in %g s", exc, retry_seconds)
        finally:
            source.close()
        if finite:
            return  # recorded frames played out
        stop.wait(retry_seconds)


def default_recognizers(settings: Settings) -> dict[str, Recognizer]:
    """The pip and Rock the Bock recognisers, with the calibration profile when one is set."""
    from companion.vision import enrol, recognizer

    path = None if settings.calibration is None else str(settings.calibration)
    return {
        "schocken": recognizer.load_recognizer(path),
        "rockthebock": enrol.load_recognizer(path),
    }


def tray_setup(settings: Settings, companion: Companion) -> Any:
    """The dashboard's tray calibration for ``companion``: it writes the configured
    calibration file (``data_dir/calibration.json`` when none is configured) and rebuilds
    the recognisers with each saved profile."""
    from dataclasses import replace

    from companion.tray_setup import TraySetup

    path = settings.calibration or settings.data_dir / "calibration.json"

    def apply(_profile: object) -> None:
        companion.use_recognizers(default_recognizers(replace(settings, calibration=path)))
        log.info("tray calibration saved to %s; recognisers rebuilt", path)

    return TraySetup(path, apply)


def run(settings: Settings, *, open_source: Callable[..., FrameSource] | None = None) -> int:
    """Start everything the settings ask for and serve until interrupted."""
    from companion.hardware.camera import open_source as open_camera
    from companion.store import Store
    from companion.table import Table
    from companion.web import create_app
    from companion.web.server import serve

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    stop = threading.Event()
    with Store(settings.database) as store:
        table = Table(store)
        companion = Companion(
            table, default_recognizers(settings), SettleDetector(settings.settle_seconds)
        )
        threads: list[threading.Thread] = []
        button = None
        try:
            if settings.camera != "none":
                opener = open_source or open_camera
                setup = tray_setup(settings, companion)
                table.attach_tray_setup(setup)
                threads.append(threading.Thread(
                    target=camera_loop,
                    args=(companion, lambda: setup.watch(opener(settings.camera)), stop),
                    kwargs={"finite": settings.camera.startswith("replay:")},
                    name="camera", daemon=True,
                ))
            if settings.button_pin is not None:
                from companion.hardware.button import TurnButton

                button = TurnButton(
                    settings.button_pin,
                    lambda: log.info("button: %s", companion.confirm().message),
                    lambda: log.info("button held: %s", companion.undo().message),
                    on_error=lambda exc: log.error("button: %s", exc),
                )
            for thread in threads:
                thread.start()
            serve(create_app(table, settings), settings)
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=5)
            if button is not None:
                button.close()
            table.close()
    return 0
