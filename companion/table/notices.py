"""Change notices: who listens, and a queue per listener that keeps only the newest news.

Notices are ``{"game_id": int | None, "version": int, "kind": str}`` (see
:mod:`companion.table` for the kinds). A subscriber's queue keeps only the newest notice
per game and category (entries / status / picture / button), so a stuck client holds a
handful of notices however long it sleeps; every notice means "fetch the snapshot
again", so nothing is lost by coalescing.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["Notices", "Subscription"]


class Subscription:
    """Change notices for one listener; :meth:`get` waits, :meth:`close` stops listening."""

    def __init__(self, on_close: Callable[[Subscription], None], limit: int) -> None:
        self._on_close = on_close
        self._limit = limit
        self._pending: OrderedDict[tuple[Any, str], dict[str, Any]] = OrderedDict()
        self._ready = threading.Condition()
        self._closed = False
        self.dropped = 0

    def _put(self, notice: dict[str, Any]) -> None:
        key = (notice["game_id"], _category(notice.get("kind") or notice.get("type", "")))
        with self._ready:
            if self._closed:
                return
            self._pending.pop(key, None)
            self._pending[key] = notice
            while len(self._pending) > self._limit:
                self._pending.popitem(last=False)
                self.dropped += 1
            self._ready.notify_all()

    def get(self, timeout: float) -> dict[str, Any] | None:
        """The oldest waiting notice, waiting up to ``timeout`` seconds; None if none/closed."""
        with self._ready:
            self._ready.wait_for(lambda: self._pending or self._closed, timeout)
            if self._closed or not self._pending:
                return None
            return self._pending.popitem(last=False)[1]

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    def close(self) -> None:
        """Stop listening; a waiting :meth:`get` returns None at once. Idempotent."""
        with self._ready:
            if self._closed:
                return
            self._closed = True
            self._pending.clear()
            self._ready.notify_all()
        self._on_close(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _category(kind: str) -> str:
    if kind in ("activated", "archived"):
        return "status"
    if kind in ("picture", "button"):
        return kind
    return "entries"


class Notices:
    """The open subscriptions; :meth:`publish` hands every one of them a copy of a notice."""

    def __init__(self, queue_limit: int) -> None:
        self._queue_limit = queue_limit
        self._subscribers: set[Subscription] = set()
        self._lock = threading.Lock()

    def subscribe(self) -> Subscription:
        """A new listener for change notices; close it when the client goes away."""
        subscription = Subscription(self._unsubscribe, self._queue_limit)
        with self._lock:
            self._subscribers.add(subscription)
        return subscription

    def _unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            self._subscribers.discard(subscription)

    @property
    def count(self) -> int:
        """How many subscriptions are open."""
        with self._lock:
            return len(self._subscribers)

    def publish(
        self, game_id: int | None, version: int, kind: str, extra: Mapping[str, Any] | None = None
    ) -> None:
        """Tell every listener that ``game_id`` changed (``kind``) at ``version``."""
        notice = {"game_id": game_id, "version": version, "kind": kind, **(extra or {})}
        with self._lock:
            subscribers = list(self._subscribers)
        for subscription in subscribers:
            subscription._put(dict(notice))

    def close(self) -> None:
        """Close every subscription (waking their waiting clients)."""
        with self._lock:
            subscribers = list(self._subscribers)
        for subscription in subscribers:
            subscription.close()
