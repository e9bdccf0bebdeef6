"""The camera pipeline at the table: frames -> reading -> proposal -> entry.

``Companion`` is the running table: each camera frame goes to the throw watcher
(settle detection with the tray's occlusion check, a rest read from several frames and
compared with the last one); a new throw is read by the recogniser for the active game,
drawn as an annotated picture for the dashboard, and counted by the turn tracker; a
hand, cup or coaster in the tray is shown as "blocked" on the camera page. The turn
button (or ``confirm()``) records what the tracker proposes; a long press undoes.
:func:`camera_loop` keeps a frame source running and reopens it after a fault.
Everything it needs is handed in by the composition root (:mod:`companion.app`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from companion.games import GameError
from companion.games.phrase import Phrase
from companion.hardware.camera import CameraError, FrameError, FrameSource
from companion.hardware.feedback import (
    BUSY,
    CAMERA_DOWN,
    IDLE,
    RECORDED,
    REFUSED,
    UNDONE,
)
from companion.registry import GAMES
from companion.turns import Proposal, TurnTracker, reading_to_dict
from companion.vision.annotate import annotate, to_jpeg
from companion.vision.settle import AT_REST, SettleDetector
from companion.vision.tray import TrayProfile
from companion.vision.types import Reading
from companion.vision.watch import BLOCKED, COVERED, SAME, THROW, ThrowWatcher, WatchEvent
from companion.wording import refusal, say

log = logging.getLogger("companion")

BUTTON = "button"
# A source failing this many reads in a row (not a bad file: an exception of its own)
# is treated as a camera fault, so camera_loop reopens it instead of spinning.
MAX_FAILED_READS = 25


class Recognizer(Protocol):
    """Anything that reads one frame into a ``Reading``."""

    def read(self, frame: Any) -> Reading:
        """Read the dice in a BGR frame."""


@runtime_checkable
class FollowsTray(Protocol):
    """A recogniser that reads in a calibrated tray, and follows it when knocked."""

    def follow_tray(self, knocked: tuple[float, float]) -> None:
        """Read in the calibrated tray moved by ``knocked`` (shares of the frame)."""


@runtime_checkable
class FindsTray(Protocol):
    """A recogniser that finds the tray in a frame when no calibration gives one."""

    def found_tray(self, frame: Any, look: bool = False) -> TrayProfile | None:
        """The tray found in frames like ``frame`` as a calibration has it, or None;
        ``look``: look at ``frame`` now."""

    def seen_tray(self, frame_size: tuple[int, int]) -> Any:
        """The outline the last look saw in frames of ``frame_size`` without dice to
        confirm it, or None."""

    def forget_tray(self, frame_size: tuple[int, int]) -> None:
        """Forget the tray found in frames of ``frame_size``: look for it afresh."""


@dataclass(frozen=True)
class Outcome:
    """What one button press did: ``recorded`` is the stored action, else ``message`` says why."""

    recorded: dict[str, Any] | None
    message: str
    message_de: str = ""

    @property
    def german(self) -> str:
        """The message in German (the English one where no translation exists)."""
        return self.message_de or self.message


def _outcome(recorded: dict[str, Any] | None, said: Phrase | Proposal | GameError) -> Outcome:
    """An outcome whose message is said in English and German from the catalogue: a
    phrase of the button's own, a proposal's text, or a refusal of the table."""
    if isinstance(said, Proposal):
        return Outcome(recorded, said.text, said.text_de)
    if isinstance(said, GameError):
        return Outcome(recorded, refusal(said, "en"), refusal(said, "de"))
    return Outcome(recorded, say(said, "en"), say(said, "de"))


class Companion:
    """The running companion; everything it needs is handed in (see :func:`companion.app.build`)."""

    def __init__(
        self,
        table: Any,
        recognizers: Mapping[str, Recognizer],
        settle: SettleDetector,
        tracker: TurnTracker | None = None,
        frames_to_read: int = 3,
    ) -> None:
        self.table = table
        self.recognizers = dict(recognizers)
        self.settle = settle
        self.watcher = ThrowWatcher(self._read, settle, frames_to_read, follow=self._follow_tray,
                                    find=self._found_tray, forget=self._forget_tray,
                                    seen=self._seen_tray)
        self.tracker = tracker or TurnTracker(proposers=GAMES.proposers())
        self._lock = threading.Lock()
        self.frames = 0
        self.bad_frames = 0
        # The button's light and sound (companion.hardware.feedback.Feedback), or None.
        self.feedback: Any = None
        self.camera_up: bool | None = None  # None: no camera asked for (yet)

    def _active(self) -> tuple[int, dict[str, Any]] | None:
        game_id = self.table.active_game_id()
        if game_id is None:
            return None
        return game_id, self.table.snapshot(game_id)

    def _follow_tray(self, knocked: tuple[float, float]) -> None:
        """The camera or the tray was knocked: every recogniser reads in the moved tray."""
        if knocked != (0.0, 0.0):
            log.info("the picture moved by %.1f %% x %.1f %% of the frame (a knock): the"
                     " calibrated tray follows it", 100 * knocked[0], 100 * knocked[1])
        for recognizer in self.recognizers.values():
            if isinstance(recognizer, FollowsTray):
                recognizer.follow_tray(knocked)

    def _recognizer(self) -> Recognizer | None:
        """The active game's recogniser; None without a game, or for a game without dice."""
        active = self._active()
        return None if active is None else self.recognizers.get(active[1]["game"])

    def _found_tray(self, image: Any, look: bool = False) -> TrayProfile | None:
        """The tray the active game's recogniser finds in ``image`` (no calibration)."""
        recognizer = self._recognizer()
        if not isinstance(recognizer, FindsTray):
            return None
        return recognizer.found_tray(image, look)

    def _seen_tray(self, frame_size: tuple[int, int]) -> Any:
        """The outline the active game's recogniser last saw without dice in it."""
        recognizer = self._recognizer()
        return recognizer.seen_tray(frame_size) if isinstance(recognizer, FindsTray) else None

    def _forget_tray(self, frame_size: tuple[int, int]) -> None:
        """The active game's recogniser forgets the tray it found (the watcher doubts it)."""
        recognizer = self._recognizer()
        if isinstance(recognizer, FindsTray):
            recognizer.forget_tray(frame_size)

    def _read(self, image: Any) -> Reading:
        """Read a still frame with the active game's recogniser; no dice without one."""
        recognizer = self._recognizer()
        if recognizer is None:
            # No game, or a game without dice (Wacken): nothing to read.
            return Reading("none", (), (image.shape[1], image.shape[0]))
        return recognizer.read(image)

    def process(self, image: Any, timestamp: float, lores: Any = None) -> Reading | None:
        """Feed one frame (and its small copy, if the camera made one); return the reading
        when it was a new throw at rest."""
        with self._lock:
            self.frames += 1
            event = self.watcher.update(image, timestamp, lores=lores)
            self._show_state(event)
            if event is None:
                return None
            active = self._active()
            if active is None:
                return None
            game_id, snap = active
            key = (game_id, snap["version"])
            if event.kind == THROW and event.reading is not None:
                self.tracker.observe(event.reading, key)
            elif event.kind == SAME and event.reading is not None:
                self.tracker.moved(event.reading, key)
                return None
            elif event.kind == COVERED:
                self.tracker.cover(key)
            elif event.kind != BLOCKED:
                return None
            self._publish(image, event, game_id, snap)
            return event.reading if event.kind == THROW else None

    def _show_state(self, event: WatchEvent | None) -> None:
        """Amber at the button while the dice move or the camera is unsure, else dark."""
        if self.feedback is None:
            return
        if self.watcher.state != AT_REST:
            self.feedback.set_mode(BUSY)
        elif event is not None and event.kind in (THROW, SAME):
            unsure = event.reading is not None and event.reading.uncertain
            self.feedback.set_mode(BUSY if unsure else IDLE)
        elif event is not None:
            self.feedback.set_mode(IDLE)

    def _publish(self, image: Any, event: WatchEvent, game_id: int, snap: dict) -> None:
        """Send the picture of a throw (annotated) or of a blocked tray to the dashboard."""
        proposal = self.tracker.proposal(snap["game"], snap["view"])
        if event.kind == THROW and event.reading is not None:
            info = self._picture_info(game_id, event.reading, proposal)
            picture = to_jpeg(annotate(image, event.reading, labels=info["labelled"]))
        else:
            info = {
                "kind": "none",
                "frame_size": [image.shape[1], image.shape[0]],
                "dice": [],
                "timings_ms": {},
                "annotated": False,
                "game_id": game_id,
                "throws": self.tracker.throws,
                "hand": self.tracker.hand,
                "proposal": _proposal_dict(proposal),
            }
            picture = to_jpeg(image)
        info["blocked"] = event.reason if event.kind in (BLOCKED, COVERED) else None
        # The proposal fits this version of the game only; the dashboard offers it to
        # record in one tap while the game is still there.
        info["version"] = snap["version"]
        self.table.publish_picture(picture, info)

    def _picture_info(
        self, game_id: int, reading: Reading, proposal: Proposal | None
    ) -> dict[str, Any]:
        return {
            **reading_to_dict(reading),
            "annotated": True,  # outlines are drawn into the JPEG itself
            # and pip values; a face's name is the page's to write, in its language
            "labelled": reading.kind != "bock",
            "game_id": game_id,
            "throws": self.tracker.throws,
            "hand": self.tracker.hand,
            "proposal": _proposal_dict(proposal),
        }

    def use_recognizers(
        self, recognizers: Mapping[str, Recognizer], settle: SettleDetector | None = None
    ) -> None:
        """Read with ``recognizers`` from the next frame on (a new calibration); with
        ``settle``, watch the tray with it too (the occlusion check knows the tray)."""
        with self._lock:
            self.recognizers = dict(recognizers)
            if settle is not None:
                self.settle = settle
                self.watcher = ThrowWatcher(self._read, settle, self.watcher.frames_to_read,
                                            follow=self._follow_tray, find=self._found_tray,
                                            forget=self._forget_tray, seen=self._seen_tray)
            elif self.settle.occlusion is not None:
                # The same tray, maybe knocked since it was calibrated.
                self._follow_tray(self.settle.occlusion.knocked)

    def confirm(self) -> Outcome:
        """Record what the camera read for the player whose turn it is (a short press)."""
        with self._lock:
            active = self._active()
            if active is None:
                return _outcome(None, Phrase("button_no_game"))
            game_id, snap = active
            if self.tracker.turn_key != (game_id, snap["version"]):
                return _outcome(None, Phrase("button_no_throw"))
            proposal = self.tracker.proposal(snap["game"], snap["view"])
            if proposal is None:
                return _outcome(None, Phrase("button_nothing"))
            if proposal.action is None:
                return _outcome(None, proposal)
            try:
                self.table.submit(game_id, proposal.action, BUTTON)
            except GameError as exc:
                return _outcome(None, exc)
            return _outcome(proposal.action, proposal)

    def undo(self) -> Outcome:
        """Take back the last entry of the active game (a long press)."""
        with self._lock:
            game_id = self.table.active_game_id()
            if game_id is None:
                return _outcome(None, Phrase("button_no_game"))
            try:
                self.table.undo(game_id, BUTTON)
            except GameError as exc:
                return _outcome(None, exc)
            return _outcome({"action": "undo"}, Phrase("button_undone"))

    def press(self) -> Outcome:
        """The button pressed: record, then show and announce what happened."""
        outcome = self.confirm()
        self._announce(RECORDED if outcome.recorded is not None else REFUSED, outcome)
        return outcome

    def hold(self) -> Outcome:
        """The button held: undo, then show and announce what happened."""
        outcome = self.undo()
        self._announce(UNDONE if outcome.recorded is not None else REFUSED, outcome)
        return outcome

    def _announce(self, kind: str, outcome: Outcome) -> None:
        log.info("button %s: %s", kind, outcome.message)
        if self.feedback is not None:
            self.feedback.signal(kind)
        publish = getattr(self.table, "publish_button", None)
        if publish is not None:
            publish(kind, outcome.message, outcome.german)

    def run_camera(self, source: FrameSource, stop: threading.Event) -> None:
        """Read frames until ``stop`` is set or a finite source ends.

        Nothing that goes wrong with one frame stops the evening: a bad frame is skipped,
        and any exception while reading a frame (the recogniser, the table, a bug) is
        logged and the loop goes on. A camera fault (``CameraError``, or a source that
        fails ``MAX_FAILED_READS`` reads in a row) ends the loop so it can be reopened.
        """
        failed = 0
        while not stop.is_set():
            try:
                frame = source.read()
            except FrameError as exc:
                self.bad_frames += 1
                log.warning("skipped a frame: %s", exc)
                continue
            except CameraError:
                raise
            except Exception as exc:
                self.bad_frames += 1
                failed += 1
                log.exception("camera: reading a frame failed")
                if failed >= MAX_FAILED_READS:
                    raise CameraError(f"{failed} frames in a row failed: {exc}") from exc
                continue
            failed = 0
            if frame is None:
                return
            take = getattr(self.table, "take_remeasure", None)
            if take is not None and take() and hasattr(source, "remeasure"):
                log.info("camera: measuring exposure and white balance again")
                source.remeasure()
            try:
                self.process(frame.image, frame.timestamp, getattr(frame, "lores", None))
            except Exception:
                self.bad_frames += 1
                log.exception("could not process frame %s; going on", frame.name or "?")


def _proposal_dict(proposal: Proposal | None) -> dict[str, Any] | None:
    if proposal is None:
        return None
    return {"action": proposal.action, "draft": proposal.draft,
            "text": {"en": proposal.text, "de": proposal.text_de}}


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
            companion.camera_up = False
            _mode(companion, CAMERA_DOWN)
            stop.wait(retry_seconds)
            continue
        companion.camera_up = True
        _mode(companion, IDLE)
        try:
            companion.run_camera(source, stop)
        except CameraError as exc:
            log.error("camera: %s; reopening in %g s", exc, retry_seconds)
        except Exception:
            log.exception("camera loop failed; reopening in %g s", retry_seconds)
        finally:
            source.close()
        if finite:
            return  # recorded frames played out
        companion.camera_up = False
        _mode(companion, CAMERA_DOWN)
        stop.wait(retry_seconds)


def _mode(companion: Companion, mode: str) -> None:
    if companion.feedback is not None:
        companion.feedback.set_mode(mode)
