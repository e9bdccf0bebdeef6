"""Who may change what: the CSRF token on every POST and the scorekeeper PIN per game.

Everyone at the table may look; only a browser session that entered a game's PIN may
change that game. The PIN is checked by the Table (it stores only a salted hash); the
server remembers which sessions unlocked which game (:class:`Grants`), the signed
cookie only names the session. Every answer carries headers that forbid framing,
sniffing and foreign scripts.
"""

from __future__ import annotations

import contextlib
import hmac
import os
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

from flask import Flask, Response, abort, current_app, g, request, session

from companion.config import ConfigError
from companion.keepers import KeeperStore, session_hash

CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
_SID = "sid"

F = TypeVar("F", bound=Callable[..., object])


_KEY = re.compile(r"[0-9a-f]{64}")


def secret_key(configured: str | None, data_dir: Path) -> str:
    """The session-signing key: the configured one, else one kept in ``data_dir``.

    Never a fixed fallback: a well-known key would let anyone forge a session. The
    generated key is written once (owner-only, fsynced, moved into place whole) so
    sessions survive a restart; a file a power cut left empty or cut short is replaced.
    """
    if configured:
        return configured
    path = Path(data_dir) / "secret_key"
    key = _read_key(path)
    if key is not None:
        return key
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fresh = path.with_name(f".secret_key.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, secrets.token_hex(32).encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        if path.exists():
            # Empty or corrupt: replace it. Else two processes starting together: the
            # first link wins and both read the same key below.
            if _read_key(path) is None:
                os.replace(fresh, path)
            else:
                fresh.unlink()
        else:
            with contextlib.suppress(FileExistsError):
                os.link(fresh, path)
            fresh.unlink()
        _fsync_dir(path.parent)
    except OSError as exc:
        raise ConfigError(
            f"cannot write the session key {path}: {exc.strerror}; check data_dir"
        ) from None
    key = _read_key(path)
    if key is None:
        raise ConfigError(f"the session key {path} cannot be read back; check data_dir")
    return key


def _read_key(path: Path) -> str | None:
    try:
        text = path.read_bytes().decode("ascii", errors="replace").strip()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(
            f"cannot read the session key {path}: {exc.strerror}; check data_dir"
        ) from None
    return text if _KEY.fullmatch(text) else None


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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


class Grants:
    """Which browser sessions may change which game, kept on the server.

    The cookie only carries a random session id: "lock" revokes the rights of every
    copy of that cookie, which a right stored in the cookie itself could not. ``known``
    remembers the sessions that ever unlocked a game: the scorekeeper's own phone, which
    the PIN throttle lets through when strangers have locked the game out. Bounded: the
    oldest sessions are forgotten first. With a ``store``
    (:class:`companion.keepers.KeeperStore`) every change is written through and the
    grants are read back at the start, so a restart keeps the scorekeepers; without one
    they last as long as the process. Sessions are held by the hash of their id only.
    """

    def __init__(self, limit: int = 2000, store: KeeperStore | None = None) -> None:
        self._limit = limit
        self._store = store
        self._games: OrderedDict[str, set[int]] = OrderedDict()
        self._known: OrderedDict[str, set[int]] = OrderedDict()
        self._lock = threading.Lock()
        self._load()

    def _load(self) -> None:
        if self._store is not None:
            for row in self._store.rows():  # oldest first, as grant() orders them
                self._remember(self._known, row.session, row.game_id)
                if row.unlocked:
                    self._remember(self._games, row.session, row.game_id)

    def reload(self) -> None:
        """After the games were replaced (a restore): keep only the grants of games that
        are still the same games; without a store, none."""
        with self._lock:
            self._games.clear()
            self._known.clear()
            if self._store is not None:
                self._store.retain()
                self._load()

    def allows(self, sid: str | None, game_id: int) -> bool:
        """Whether session ``sid`` may change ``game_id`` now."""
        with self._lock:
            return sid is not None and game_id in self._games.get(session_hash(sid), ())

    def known(self, sid: str | None, game_id: int) -> bool:
        """Whether session ``sid`` has ever unlocked ``game_id``."""
        with self._lock:
            return sid is not None and game_id in self._known.get(session_hash(sid), ())

    def grant(self, sid: str, game_id: int) -> None:
        """Let ``sid`` change ``game_id``."""
        key = session_hash(sid)
        with self._lock:
            if self._store is not None:
                self._store.put(key, game_id, unlocked=True)
            for table in (self._games, self._known):
                self._remember(table, key, game_id)

    def _remember(self, table: OrderedDict[str, set[int]], key: str, game_id: int) -> None:
        table.setdefault(key, set()).add(game_id)
        table.move_to_end(key)
        while len(table) > self._limit:
            old, _ = table.popitem(last=False)
            if table is self._known and self._store is not None:
                self._store.forget(old)

    def revoke(self, sid: str | None, game_id: int) -> None:
        """Take the right to change ``game_id`` from ``sid`` (and every copy of its cookie)."""
        if sid is None:
            return
        key = session_hash(sid)
        with self._lock:
            if self._store is not None and game_id in self._known.get(key, ()):
                self._store.put(key, game_id, unlocked=False)
            self._games.get(key, set()).discard(game_id)


def grants() -> Grants:
    """The app's server-side record of unlocked sessions."""
    return current_app.extensions["pin_grants"]


def session_id(create: bool = False) -> str | None:
    """This browser session's random id (made when ``create`` and missing)."""
    sid = session.get(_SID)
    if not isinstance(sid, str) and create:
        sid = secrets.token_urlsafe(24)
        session[_SID] = sid
    return sid if isinstance(sid, str) else None


def is_unlocked(game_id: int) -> bool:
    """Whether this browser session entered the PIN of ``game_id`` and did not lock it."""
    return grants().allows(session_id(), int(game_id))


def is_known(game_id: int) -> bool:
    """Whether this browser session ever unlocked ``game_id`` (the scorekeeper's phone)."""
    return grants().known(session_id(), int(game_id))


def remember_unlocked(game_id: int) -> None:
    """Mark ``game_id`` as unlocked for this browser session."""
    grants().grant(session_id(create=True) or "", int(game_id))


def forget_unlocked(game_id: int) -> None:
    """Lock ``game_id`` again for this session and every copy of its cookie."""
    grants().revoke(session_id(), int(game_id))


def scorekeeper_required(view: F) -> F:
    """Refuse (403) unless the session unlocked the game named by the ``game_id`` argument."""

    @wraps(view)
    def wrapped(*args: object, **kwargs: Any) -> object:
        # Flask's <int:game_id> converter hands the view an int.
        if not is_unlocked(int(kwargs["game_id"])):
            abort(403, description="pin_required")
        return view(*args, **kwargs)

    return wrapped  # type: ignore[return-value]


class PinThrottle:
    """Slows down PIN guessing, per client and per game across all clients.

    A 4-digit PIN has only 10 000 values. Every try is counted *before* the PIN is
    checked, under one lock, so guesses sent in parallel cannot slip past the count.
    A client (an address) has ``free_tries``; then it waits ``lockout_seconds``,
    doubling with each further wrong try up to ``max_lockout_seconds``. A game has
    ``game_free_tries`` over all clients (many addresses must not add up to a fast
    attack); then one try per ``game_interval_seconds``, doubling likewise. A right PIN
    clears both counts.

    The scorekeeper's own phone (a session that unlocked the game before) is judged
    by its own count only, so strangers locking the game out, or a guest behind the
    same shared address, cannot keep it out. Kept in memory; bounded in size.
    """

    def __init__(self, free_tries: int = 5, lockout_seconds: float = 30.0,
                 clock: Callable[[], float] = time.monotonic, *,
                 game_free_tries: int = 10, game_interval_seconds: float = 30.0,
                 max_lockout_seconds: float = 300.0, limit: int = 4096) -> None:
        self._free = free_tries
        self._lockout = lockout_seconds
        self._game_free = game_free_tries
        self._game_interval = game_interval_seconds
        self._max = max_lockout_seconds
        self._clock = clock
        self._limit = limit
        # key -> (tries counted since the last right PIN, when the next try is allowed)
        self._counts: OrderedDict[str, tuple[int, float]] = OrderedDict()
        self._lock = threading.Lock()

    def begin(self, game_id: int, client: str, *, known_session: str | None = None) -> float:
        """Count one try of ``client`` at ``game_id``; 0 means check the PIN now.

        Otherwise nothing is counted and the result is how many seconds to wait.
        ``known_session`` names the scorekeeper's session when it unlocked the game
        before: then only that session's own count applies.
        """
        keys = ([(f"session:{known_session}", self._free, self._lockout)]
                if known_session is not None else
                [(f"client:{client}", self._free, self._lockout),
                 (f"game:{game_id}", self._game_free, self._game_interval)])
        with self._lock:
            now = self._clock()
            wait = max(self._counts.get(key, (0, 0.0))[1] - now for key, _, _ in keys)
            if wait > 0:
                return wait
            for key, free, pause in keys:
                tries = self._counts.get(key, (0, 0.0))[0] + 1
                later = now + min(self._max, pause * 2 ** (tries - free)) if tries >= free else 0.0
                self._counts[key] = (tries, later)
                self._counts.move_to_end(key)
            while len(self._counts) > self._limit:
                self._counts.popitem(last=False)
            return 0.0

    def succeeded(self, game_id: int, client: str, *, known_session: str | None = None) -> None:
        """The PIN was right: forget the counted tries of the client and the game."""
        with self._lock:
            for key in (f"client:{client}", f"game:{game_id}", f"session:{known_session}"):
                self._counts.pop(key, None)


class RateLimit:
    """A token bucket: ``burst`` at once, then one per ``interval`` seconds."""

    def __init__(self, burst: int, interval: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._burst = burst
        self._interval = interval
        self._clock = clock
        self._tokens = float(burst)
        self._stamp = clock()
        self._lock = threading.Lock()

    def take(self) -> float:
        """Use one token: 0 when there was one, else the seconds until the next."""
        with self._lock:
            now = self._clock()
            self._tokens = min(self._burst, self._tokens + (now - self._stamp) / self._interval)
            self._stamp = now
            if self._tokens >= 1:
                self._tokens -= 1
                return 0.0
            return (1 - self._tokens) * self._interval


def creation_limit() -> RateLimit:
    """The app's limit on new games."""
    return current_app.extensions["game_creation_limit"]


def init_app(app: Flask) -> None:
    """Check the CSRF token before every state-changing request; offer it to templates."""
    app.before_request(_check_csrf)
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.jinja_env.globals["is_unlocked"] = is_unlocked
    app.jinja_env.globals["csp_nonce"] = csp_nonce
    app.after_request(_security_headers)
    # The composition root hands in the durable record (companion.keepers); a bare app
    # keeps it in memory.
    app.extensions["pin_grants"] = Grants(store=app.config.get("KEEPER_STORE"))
    # An evening has a handful of games; a script must not fill the list.
    app.extensions["game_creation_limit"] = RateLimit(
        burst=app.config.get("GAMES_BURST", 10),
        interval=app.config.get("GAMES_INTERVAL_SECONDS", 60.0),
    )
    app.extensions["pin_throttle"] = PinThrottle(
        free_tries=app.config.get("PIN_FREE_TRIES", 5),
        lockout_seconds=app.config.get("PIN_LOCKOUT_SECONDS", 30.0),
        game_free_tries=app.config.get("PIN_GAME_FREE_TRIES", 10),
        game_interval_seconds=app.config.get("PIN_GAME_INTERVAL_SECONDS", 30.0),
        max_lockout_seconds=app.config.get("PIN_MAX_LOCKOUT_SECONDS", 300.0),
    )


def csp_nonce() -> str:
    """This response's nonce for its inline scripts (the CSP allows no others)."""
    nonce = getattr(g, "csp_nonce", None)
    if nonce is None:
        nonce = g.csp_nonce = secrets.token_urlsafe(16)
    return nonce


def _security_headers(response: Response) -> Response:
    # No framing (clickjacking the scorekeeper's buttons), no MIME sniffing, and scripts
    # only from this server or this page's own nonce'd inline blocks. Inline style
    # attributes stay allowed: they cannot run code.
    script = "'self'"
    nonce = getattr(g, "csp_nonce", None)
    if nonce is not None:
        script += f" 'nonce-{nonce}'"
    response.headers.setdefault("Content-Security-Policy", (
        f"default-src 'self'; script-src {script}; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
        "form-action 'self'; frame-ancestors 'none'"
    ))
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


def pin_throttle() -> PinThrottle:
    """The app's PIN throttle."""
    return current_app.extensions["pin_throttle"]
