"""Who may change what: the CSRF token on every POST and the scorekeeper PIN per game.

Everyone at the table may look; only a browser session that entered a game's PIN may
change that game. The PIN is checked by the Table (it stores only a salted hash); the
session (a signed cookie) remembers which games this browser has unlocked.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import TypeVar

from flask import Flask, abort, current_app, request, session

CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
_UNLOCKED = "unlocked_games"

F = TypeVar("F", bound=Callable[..., object])


def secret_key(configured: str | None, data_dir: Path) -> str:
    """The session-signing key: the configured one, else one kept in ``data_dir``.

    Never a fixed fallback: a well-known key would let anyone forge an "unlocked"
    session. The generated key is written once (owner-only) so sessions survive a restart.
    """
    if configured:
        return configured
    path = Path(data_dir) / "secret_key"
    try:
        return path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    try:
        # O_EXCL via mode "x": when two processes race, one writes and both read the same key.
        with open(path, "x", encoding="ascii") as fh:
            fh.write(key)
        path.chmod(0o600)
    except FileExistsError:
        return path.read_text(encoding="ascii").strip()
    return key


def csrf_token() -> str:
    """This session's CSRF token (created on first use)."""
    token = session.get(CSRF_FIELD)
    if not token:
        token = secrets.token_urlsafe(32)
        session[CSRF_FIELD] = token
    return token


def _check_csrf() -> None:
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return
    expected = session.get(CSRF_FIELD)
    sent = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD) or ""
    if not expected or not hmac.compare_digest(str(expected), str(sent)):
        abort(400, description="csrf")


def is_unlocked(game_id: int) -> bool:
    """Whether this browser session entered the PIN of ``game_id``."""
    return int(game_id) in session.get(_UNLOCKED, [])


def remember_unlocked(game_id: int) -> None:
    """Mark ``game_id`` as unlocked for this browser session."""
    unlocked = [g for g in session.get(_UNLOCKED, []) if g != int(game_id)]
    session[_UNLOCKED] = [*unlocked, int(game_id)][-20:]  # a cookie has little room


def forget_unlocked(game_id: int) -> None:
    """Lock ``game_id`` again in this browser session."""
    session[_UNLOCKED] = [g for g in session.get(_UNLOCKED, []) if g != int(game_id)]


def scorekeeper_required(view: F) -> F:
    """Refuse (403) unless the session unlocked the game named by the ``game_id`` argument."""

    @wraps(view)
    def wrapped(*args: object, **kwargs: object) -> object:
        if not is_unlocked(int(kwargs["game_id"])):
            abort(403, description="pin_required")
        return view(*args, **kwargs)

    return wrapped  # type: ignore[return-value]


class PinThrottle:
    """Slows down PIN guessing: after a few wrong PINs a client waits before trying again.

    A 4-digit PIN has only 10 000 values, so without this a script could try them all
    in minutes. Kept in memory per client address; a restart forgets, which is fine
    at a pub table.
    """

    def __init__(self, free_tries: int = 5, lockout_seconds: float = 30.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._free = free_tries
        self._lockout = lockout_seconds
        self._clock = clock
        self._failures: dict[str, tuple[int, float]] = {}
        self._lock = threading.Lock()

    def wait_seconds(self, client: str) -> float:
        """Seconds ``client`` must still wait before the next try (0 when it may try)."""
        with self._lock:
            count, last = self._failures.get(client, (0, 0.0))
            if count < self._free:
                return 0.0
            return max(0.0, last + self._lockout - self._clock())

    def failed(self, client: str) -> None:
        """Record a wrong PIN from ``client``."""
        with self._lock:
            count, _ = self._failures.get(client, (0, 0.0))
            self._failures[client] = (count + 1, self._clock())

    def succeeded(self, client: str) -> None:
        """Forget the wrong tries of ``client``."""
        with self._lock:
            self._failures.pop(client, None)


def init_app(app: Flask) -> None:
    """Check the CSRF token before every state-changing request; offer it to templates."""
    app.before_request(_check_csrf)
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.jinja_env.globals["is_unlocked"] = is_unlocked
    app.extensions["pin_throttle"] = PinThrottle(
        free_tries=app.config.get("PIN_FREE_TRIES", 5),
        lockout_seconds=app.config.get("PIN_LOCKOUT_SECONDS", 30.0),
    )


def pin_throttle() -> PinThrottle:
    """The app's PIN throttle."""
    return current_app.extensions["pin_throttle"]
