"""The scorekeeper's turn button: a short press moves on, a long press undoes.

gpiozero is imported when a button is made, and its pin factory is passed in:
the same code drives a real pin on the Pi and gpiozero's ``MockFactory`` in tests.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


class TurnButton:
    """A push button between a GPIO pin and ground (the internal pull-up is used).

    ``on_press`` runs when the button is released after a short press;
    ``on_hold`` runs once when it has been held for ``hold_seconds`` (and the
    release that follows is then not a press). A callback that raises is reported
    through ``on_error`` and never stops the button.
    """

    def __init__(
        self,
        pin: int,
        on_press: Callable[[], object],
        on_hold: Callable[[], object] | None = None,
        *,
        hold_seconds: float = 2.0,
        bounce_seconds: float = 0.05,
        pin_factory: Any = None,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        from gpiozero import Button  # type: ignore[import-untyped]

        if hold_seconds <= 0:
            raise ValueError("hold_seconds must be positive")
        self._on_press = on_press
        self._on_hold = on_hold
        self._on_error = on_error
        self._lock = threading.Lock()
        self._held = False
        self._button = Button(
            pin,
            pull_up=True,
            bounce_time=bounce_seconds,
            hold_time=hold_seconds,
            pin_factory=pin_factory,
        )
        self._button.when_pressed = self._pressed
        self._button.when_held = self._hold
        self._button.when_released = self._released

    @property
    def is_pressed(self) -> bool:
        """True while the button is down."""
        return bool(self._button.is_pressed)

    def _call(self, callback: Callable[[], object] | None) -> None:
        if callback is None:
            return
        try:
            callback()
        except Exception as exc:  # the button must keep working after a bad callback
            if self._on_error is not None:
                self._on_error(exc)

    def _pressed(self) -> None:
        with self._lock:
            self._held = False

    def _hold(self) -> None:
        with self._lock:
            self._held = True
        self._call(self._on_hold)

    def _released(self) -> None:
        with self._lock:
            was_held = self._held
            self._held = False
        if not was_held:
            self._call(self._on_press)

    def close(self) -> None:
        """Release the pin."""
        self._button.close()
