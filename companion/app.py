"""The composition root: the one module that wires camera, vision, games, store, button and web.

:func:`build` puts one companion together for ``companion serve`` (the dashboard),
``companion run`` (with the camera, turn button and light the settings name) and
``companion demo`` (with the demo's scripted scorekeepers and its frame source); the
camera pipeline it wires is :class:`companion.pipeline.Companion`.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.config import Settings
from companion.hardware.camera import FrameSource
from companion.pipeline import Companion, Recognizer, camera_loop
from companion.registry import GAMES, Recognition, Registry
from companion.store_file import UnknownGame
from companion.turns import TurnTracker
from companion.vision.settle import SettleDetector
from companion.vision.types import Reading

log = logging.getLogger("companion")


# The kind of dice whose recogniser reads the enrolled faces of the calibration file.
FACES_KIND = "bock"


def load_recognizer(settings: Settings, recognition: Recognition) -> Recognizer:
    """The recogniser of one kind of dice (``pips`` or ``bock``), with the calibration
    profile when one is set."""
    calibration = settings.calibration_file
    path = None if calibration is None else str(calibration)
    # Each kind imports its own modules only: a Schocken evening never loads the Rock
    # the Bock face models (nor the other way round), which a Pi Zero's memory notices.
    if recognition.kind == "pips":
        from companion.vision import recognizer

        return recognizer.load_recognizer(path, max_dice=recognition.max_dice)
    if recognition.kind == FACES_KIND:
        from companion.vision import enrol

        return enrol.load_recognizer(path)
    raise ValueError(f"no recogniser reads dice of kind {recognition.kind!r}; "
                     "the kinds are pips and bock")


class LazyRecognizer:
    """A recogniser loaded on its first read (or :meth:`load`), once, by whichever thread
    asks first; a load that failed is tried again (and raises again) at the next read."""

    def __init__(self, settings: Settings, recognition: Recognition) -> None:
        self.settings = settings
        self.recognition = recognition
        self._loaded: Recognizer | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        """Whether the models are in memory."""
        return self._loaded is not None

    def load(self) -> Recognizer:
        """The recogniser itself, loading it now if no read did yet."""
        with self._lock:
            if self._loaded is None:
                self._loaded = load_recognizer(self.settings, self.recognition)
                log.info("loaded the %s recogniser", self.recognition.kind)
            return self._loaded

    def read(self, frame: Any) -> Reading:
        """Read the dice in a BGR frame (loading the recogniser first if need be)."""
        return self.load().read(frame)

    def __repr__(self) -> str:
        state = "loaded" if self.loaded else "not loaded"
        return f"LazyRecognizer({self.recognition!r}, {state})"


def default_recognizers(
    settings: Settings, games: Registry = GAMES
) -> dict[str, LazyRecognizer]:
    """The recogniser of every game the camera reads, by game name: one per kind of dice,
    each loaded when a game of its kind is first read (see :func:`preload`)."""
    shared: dict[Recognition, LazyRecognizer] = {}
    by_game = {}
    for game in games:
        if game.recognition is not None:
            if game.recognition not in shared:
                shared[game.recognition] = LazyRecognizer(settings, game.recognition)
            by_game[game.name] = shared[game.recognition]
    return by_game


def preload(recognizers: Mapping[str, Any], game: str | None) -> None:
    """Load the recogniser of ``game`` (the active game) now, so that its first throw is
    not read late; a loader's failure is logged and left to the first read to report."""
    recognizer = None if game is None else recognizers.get(game)
    if isinstance(recognizer, LazyRecognizer):
        try:
            recognizer.load()
        except Exception:
            log.exception("loading the %s recogniser failed", recognizer.recognition.kind)


def _open_button(pin: int, companion: Companion, notices: list[str]) -> Any:
    """The turn button on ``pin``; without a GPIO backend None, and a notice says so.

    A missing button must not cost the evening its dashboard: the scorekeeper can
    record every throw on a phone.
    """
    from companion.hardware.button import TurnButton

    try:
        return TurnButton(
            pin,
            companion.press,
            companion.hold,
            on_error=lambda exc: log.error("button: %s", exc),
        )
    except Exception as exc:  # gpiozero raises its own kinds (BadPinFactory, PinInvalidPin…)
        message = (f"The turn button (GPIO {pin}) is not available ({type(exc).__name__}: "
                   f"{exc}); record throws on the phone.")
        log.warning("running without the turn button: %s", message)
        notices.append(message)
        return None


def _open_feedback(settings: Settings, notices: list[str]) -> Any:
    """The button's LED and buzzer; None when none is configured, False when they failed.

    Like the button: a missing light must not cost the evening its dashboard.
    """
    if settings.led_pin is None and settings.rgb_pins is None and settings.buzzer_pin is None:
        return None
    from companion.hardware.feedback import Feedback

    try:
        return Feedback(led_pin=settings.led_pin, rgb_pins=settings.rgb_pins,
                        buzzer_pin=settings.buzzer_pin)
    except Exception as exc:  # gpiozero's own kinds, as for the button
        message = (f"The button's light and buzzer are not available ({type(exc).__name__}: "
                   f"{exc}); the phones still say what the button did.")
        log.warning("running without button feedback: %s", message)
        notices.append(message)
        return False


def default_settle(settings: Settings) -> SettleDetector:
    """Settle detection with the occlusion check, on the calibration profile when one is set."""
    from companion.vision.occlusion import OcclusionDetector
    from companion.vision.tray import load_tray

    calibration = settings.calibration_file
    profile = None if calibration is None else load_tray(calibration)
    return SettleDetector(settings.settle_seconds, occlusion=OcclusionDetector(profile))


def tray_setup(settings: Settings, companion: Companion) -> Any:
    """The dashboard's tray calibration for ``companion``: it writes the configured
    calibration file (``data_dir/calibration.json`` when none is configured, read from
    there at the next start too: ``Settings.calibration_file``) and rebuilds the
    recognisers with each saved profile. Settle detection and the pip recogniser start
    afresh only when the tray changed: a face enrolled mid-evening (the same file,
    ``TraySetup.faces``) keeps the tray as watched (its reference, a knock followed), not
    its start-up checks again, and the pip dice as measured (their size, a tray found in
    the frame); only the Rock the Bock recogniser, which reads the faces, is rebuilt."""
    from dataclasses import replace

    from companion.tray_setup import TraySetup
    from companion.vision.tray import TrayProfile

    path = settings.calibration or settings.saved_calibration

    def apply(profile: TrayProfile | None) -> None:
        calibrated = replace(settings, calibration=path)
        recognizers = default_recognizers(calibrated, companion.table.games)
        occlusion = companion.settle.occlusion
        watched = None if occlusion is None else occlusion.calibrated
        settle = None if profile == watched else default_settle(calibrated)
        use: Mapping[str, Any] = recognizers
        if settle is None:
            # The same tray: what reads no faces reads on as it was.
            use = {
                game: companion.recognizers.get(game, fresh)
                if fresh.recognition.kind != FACES_KIND else fresh
                for game, fresh in recognizers.items()
            }
        preload(use, _active_game(companion.table))
        companion.use_recognizers(use, settle)
        log.info("calibration saved to %s; %s", path,
                 "the faces' recogniser rebuilt" if settle is None
                 else "recognisers rebuilt, the tray watched afresh")

    return TraySetup(path, apply)


@dataclass
class Demo:
    """What ``companion demo`` hands the builder: scripted scorekeepers and a camera game.

    ``setup(table)`` puts the demo's games on the table and returns its scorekeepers,
    each played on its own thread with the stop event until it is set. ``camera(table,
    companion, stop)`` starts the camera game and returns the opener of its frame source
    (the demo's camera), read through the same camera loop as a real camera. ``settle``
    is the settle detection for it (rendered throws need no occlusion check).
    """

    setup: Callable[[Any], Sequence[Callable[[threading.Event], None]]]
    camera: Callable[[Any, Companion, threading.Event], Callable[[], FrameSource]] | None = None
    settle: SettleDetector | None = None
    join_seconds: float = 10.0


@dataclass
class Assembly:
    """One companion put together by :func:`build`; :meth:`serve` runs it until interrupted."""

    settings: Settings
    table: Any
    app: Any = None
    companion: Companion | None = None
    threads: list[threading.Thread] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    closers: list[Callable[[], None]] = field(default_factory=list)
    join_seconds: float = 5.0

    def start(self) -> None:
        """Start the background threads (camera, scripted scorekeepers)."""
        for thread in self.threads:
            thread.start()

    def serve(self, pin: str | None = None) -> None:
        """Start the threads and serve the dashboard until interrupted; then close."""
        from companion.web.server import serve

        try:
            self.start()
            serve(self.app, self.settings, pin=pin)
        finally:
            self.close()

    def close(self) -> None:
        """Stop the threads, release the button and light, close the table's subscriptions."""
        self.stop.set()
        for thread in self.threads:
            if thread.is_alive():
                thread.join(timeout=self.join_seconds)
        for close in self.closers:
            close()
        self.closers.clear()
        self.table.close()


def build(
    settings: Settings,
    store: Any,
    *,
    hardware: bool = False,
    open_source: Callable[..., FrameSource] | None = None,
    demo: Demo | None = None,
    games: Registry = GAMES,
) -> Assembly:
    """Put one companion together over ``store``: the composition root.

    ``companion serve`` asks for the dashboard alone; ``companion run`` adds the
    ``hardware`` the settings name (camera -- ``open_source`` opens it, by default
    :func:`companion.hardware.camera.open_source` --, turn button, light and buzzer, and
    the health checks); ``companion demo`` hands in a :class:`Demo`. ``games`` is the
    registry of the games it knows.
    """
    from companion.keepers import FILE_NAME as KEEPERS_FILE
    from companion.keepers import KeeperStore
    from companion.table import Table
    from companion.timesync import clock_synced
    from companion.web import create_app

    # A Pi has no clock of its own: entries recorded before NTP set it are marked.
    assembly = Assembly(settings, Table(store, games=games, clock_synced=clock_synced))
    try:
        notices: list[str] = []
        if hardware:
            _wire_hardware(assembly, open_source, notices)
        if demo is not None:
            _wire_demo(assembly, demo)
        # Scorekeepers stay scorekeepers across a restart (a power cut at the table).
        keepers = KeeperStore(settings.data_dir / KEEPERS_FILE,
                              stamp=functools.partial(_game_created, store))
        assembly.closers.append(keepers.close)
        assembly.app = create_app(assembly.table, settings,
                                  {"NOTICES": tuple(notices), "KEEPER_STORE": keepers})
    except BaseException:
        assembly.close()
        raise
    return assembly


def _game_created(store: Any, game_id: int) -> float | None:
    """When game ``game_id`` of ``store`` was created; None when there is no such game."""
    try:
        return float(store.game(game_id).created)
    except UnknownGame:
        return None


def _active_game(table: Any) -> str | None:
    """The name of the game at the table (``"schocken"``…), or None."""
    game_id = table.active_game_id()
    return None if game_id is None else str(table.snapshot(game_id)["game"])


def _companion(assembly: Assembly, settle: SettleDetector) -> Companion:
    """The camera pipeline over the assembly's table, for the games its registry reads."""
    games = assembly.table.games
    return Companion(assembly.table, default_recognizers(assembly.settings, games), settle,
                     tracker=TurnTracker(proposers=games.proposers()))


def _wire_hardware(
    assembly: Assembly, open_source: Callable[..., FrameSource] | None, notices: list[str]
) -> None:
    from companion.doctor import live_checks
    from companion.hardware.camera import open_source as open_camera

    settings, table = assembly.settings, assembly.table
    companion = _companion(assembly, default_settle(settings))
    assembly.companion = companion
    if settings.camera != "none":
        opener = open_source or open_camera
        setup = tray_setup(settings, companion)
        table.attach_tray_setup(setup)

        def open_camera_source() -> FrameSource:
            # On the camera's thread, before its first frame: the dashboard is up at
            # once, and the first throw of the active game is read without loading.
            preload(companion.recognizers, _active_game(table))
            return setup.watch(opener(settings.camera, max_exposure_us=settings.max_exposure_us))

        assembly.threads.append(threading.Thread(
            target=camera_loop,
            args=(companion, open_camera_source, assembly.stop),
            kwargs={"finite": settings.camera.startswith("replay:")},
            name="camera", daemon=True,
        ))
    button = None
    if settings.button_pin is not None:
        button = _open_button(settings.button_pin, companion, notices)
        if button is not None:
            assembly.closers.append(button.close)
    feedback = _open_feedback(settings, notices)
    if feedback:
        assembly.closers.append(feedback.close)
    companion.feedback = feedback or None
    table.provide_status(lambda: [c.to_dict() for c in live_checks(
        settings, companion,
        None if settings.button_pin is None else button is not None,
        None if feedback is None else (feedback.parts if feedback else ()),
    )])


def _wire_demo(assembly: Assembly, demo: Demo) -> None:
    assembly.join_seconds = demo.join_seconds
    for number, player in enumerate(demo.setup(assembly.table), start=1):
        assembly.threads.append(threading.Thread(
            target=player, args=(assembly.stop,), name=f"demo-player-{number}", daemon=True,
        ))
    if demo.camera is not None:
        settings = assembly.settings
        companion = _companion(assembly, demo.settle or default_settle(settings))
        assembly.companion = companion
        opener = demo.camera(assembly.table, companion, assembly.stop)
        assembly.threads.append(threading.Thread(
            target=camera_loop, args=(companion, opener, assembly.stop),
            kwargs={"finite": True}, name="demo-camera", daemon=True,
        ))


def run(settings: Settings, *, open_source: Callable[..., FrameSource] | None = None) -> int:
    """``companion run``: everything the settings ask for, served until interrupted."""
    from companion.store import Store

    with Store(settings.database) as store:  # makes data_dir, or says why it cannot
        build(settings, store, hardware=True, open_source=open_source).serve()
    return 0
