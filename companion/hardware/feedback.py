"""Light and sound at the turn button: an LED (or RGB LED) and a buzzer, each optional.

What the table sees and hears:

- **recorded**: a short green flash with one short beep;
- **refused**: three red blinks with three beeps (the phone says why);
- **undone**: one long blue light and two short ones, with one long beep;
- **busy** (dice moving, the camera unsure): amber, steady, silent;
- **camera down**: a red heartbeat (two short pulses every 1.5 s), silent.

A single-colour LED shows every colour as "on", so its patterns differ by rhythm alone.
gpiozero is imported when the parts are made and its pin factory is passed in, like
:class:`companion.hardware.button.TurnButton`: the same code drives real pins on the Pi
and gpiozero's ``MockFactory`` in tests. One thread plays the patterns; a new signal
cuts the one playing short, and the steady light (idle, busy, camera down) comes back
after every signal.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

OFF = (0, 0, 0)
RED = (1, 0, 0)
GREEN = (0, 1, 0)
BLUE = (0, 0, 1)
AMBER = (1, 1, 0)  # red and green together on a common RGB LED

IDLE, BUSY, CAMERA_DOWN = "idle", "busy", "camera_down"
RECORDED, REFUSED, UNDONE = "recorded", "refused", "undone"


@dataclass(frozen=True)
class Step:
    """One part of a pattern: a colour, the buzzer on or off, for ``seconds``."""

    colour: tuple[int, int, int]
    buzz: bool
    seconds: float


@dataclass(frozen=True)
class Pattern:
    """Steps played in order; a ``loop`` pattern starts again until something else comes."""

    steps: tuple[Step, ...]
    loop: bool = False


def _blinks(colour: tuple[int, int, int], times: int, on: float, off: float) -> tuple[Step, ...]:
    steps: list[Step] = []
    for _ in range(times):
        steps += [Step(colour, True, on), Step(OFF, False, off)]
    return tuple(steps)


SIGNALS: dict[str, Pattern] = {
    RECORDED: Pattern((Step(GREEN, True, 0.08), Step(GREEN, False, 0.32), Step(OFF, False, 0.1))),
    REFUSED: Pattern(_blinks(RED, 3, 0.15, 0.15)),
    UNDONE: Pattern((
        Step(BLUE, True, 0.6), Step(OFF, False, 0.15),
        Step(BLUE, False, 0.12), Step(OFF, False, 0.12),
        Step(BLUE, False, 0.12), Step(OFF, False, 0.15),
    )),
}

STEADY: dict[str, Pattern] = {
    IDLE: Pattern((Step(OFF, False, 0.0),)),
    BUSY: Pattern((Step(AMBER, False, 0.0),)),
    CAMERA_DOWN: Pattern(
        (Step(RED, False, 0.1), Step(OFF, False, 0.15), Step(RED, False, 0.1),
         Step(OFF, False, 1.15)),
        loop=True,
    ),
}


class Feedback:
    """The button's light and sound; any part may be missing (then it is simply not shown).

    ``led_pin`` is a one-colour LED, ``rgb_pins`` (red, green, blue) an RGB LED with a
    common cathode (``active_high=False`` for a common anode), ``buzzer_pin`` an active
    buzzer. All pins are BCM numbers.
    """

    def __init__(
        self,
        *,
        led_pin: int | None = None,
        rgb_pins: Sequence[int] | None = None,
        buzzer_pin: int | None = None,
        active_high: bool = True,
        pin_factory: Any = None,
    ) -> None:
        if led_pin is not None and rgb_pins is not None:
            raise ValueError("give either led_pin or rgb_pins, not both")
        if rgb_pins is not None and len(rgb_pins) != 3:
            raise ValueError(f"rgb_pins needs three pins (red, green, blue), got {list(rgb_pins)}")
        self._parts: list[Any] = []
        self._led: Any = None
        self._rgb: Any = None
        self._buzzer: Any = None
        try:
            if led_pin is not None:
                from gpiozero import LED

                self._led = LED(led_pin, active_high=active_high, pin_factory=pin_factory)
                self._parts.append(self._led)
            if rgb_pins is not None:
                from gpiozero import RGBLED

                r, g, b = rgb_pins
                # Digital pins: every Pi pin can switch, not every backend can do PWM.
                self._rgb = RGBLED(r, g, b, active_high=active_high, pwm=False,
                                   pin_factory=pin_factory)
                self._parts.append(self._rgb)
            if buzzer_pin is not None:
                from gpiozero import Buzzer

                self._buzzer = Buzzer(buzzer_pin, pin_factory=pin_factory)
                self._parts.append(self._buzzer)
        except BaseException:
            self._close_parts()
            raise
        self._cond = threading.Condition()
        self._mode = IDLE
        self._pending: str | None = None
        self._generation = 0
        self._closed = False
        self.shown: list[str] = []  # every signal and mode change, oldest first (for status)
        self._thread = threading.Thread(target=self._run, name="feedback", daemon=True)
        self._thread.start()

    @property
    def parts(self) -> tuple[str, ...]:
        """Which parts are connected: ``led``, ``rgb``, ``buzzer``."""
        names = []
        if self._led is not None:
            names.append("led")
        if self._rgb is not None:
            names.append("rgb")
        if self._buzzer is not None:
            names.append("buzzer")
        return tuple(names)

    @property
    def mode(self) -> str:
        """The steady state shown between signals."""
        return self._mode

    def signal(self, kind: str) -> None:
        """Play ``recorded``, ``refused`` or ``undone`` once (cutting short what plays now)."""
        if kind not in SIGNALS:
            raise ValueError(f"unknown signal {kind!r}; use one of {', '.join(SIGNALS)}")
        with self._cond:
            self._pending = kind
            self._generation += 1
            self.shown.append(kind)
            del self.shown[:-50]
            self._cond.notify_all()

    def set_mode(self, mode: str) -> None:
        """Show ``idle``, ``busy`` or ``camera_down`` between signals; a repeat changes nothing."""
        if mode not in STEADY:
            raise ValueError(f"unknown mode {mode!r}; use one of {', '.join(STEADY)}")
        with self._cond:
            if mode == self._mode:
                return
            self._mode = mode
            self._generation += 1
            self.shown.append(mode)
            del self.shown[:-50]
            self._cond.notify_all()

    def _show(self, step: Step) -> None:
        if self._led is not None:
            self._led.value = 1 if any(step.colour) else 0
        if self._rgb is not None:
            self._rgb.value = step.colour
        if self._buzzer is not None:
            self._buzzer.value = 1 if step.buzz else 0

    def _run(self) -> None:
        while True:
            with self._cond:
                if self._closed:
                    return
                generation = self._generation
                if self._pending is not None:
                    pattern, self._pending = SIGNALS[self._pending], None
                    # Taking a signal is a change of its own: a newer one cuts it short.
                    one_shot = True
                else:
                    pattern, one_shot = STEADY[self._mode], False
            if not self._play(pattern, generation) or one_shot:
                continue
            if not pattern.loop:
                with self._cond:  # a steady light: hold it until something changes
                    self._cond.wait_for(self._changed_since(generation))

    def _changed_since(self, generation: int) -> Callable[[], bool]:
        """Whether the feedback was closed or given something new since ``generation``."""
        return lambda: self._closed or self._generation != generation

    def _play(self, pattern: Pattern, generation: int) -> bool:
        """Show the steps; False as soon as something newer arrived."""
        for step in pattern.steps:
            self._show(step)
            if step.seconds <= 0:
                continue
            with self._cond:
                if self._cond.wait_for(self._changed_since(generation), step.seconds):
                    return False
        return True

    def _close_parts(self) -> None:
        for part in self._parts:
            part.close()
        self._parts.clear()

    def close(self) -> None:
        """Stop the patterns, switch everything off and release the pins."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout=2)
        self._show(Step(OFF, False, 0.0))
        self._close_parts()
