"""Serve the dashboard with waitress: one process, a thread per open page.

Every phone keeps one Server-Sent Events stream open, and each stream holds a
waitress thread, so ``threads`` (from the settings) must exceed the phones at the
table; the app keeps four threads free for ordinary requests and lets further
pages fall back to polling.
"""

from __future__ import annotations

import gc
import signal
import sys
import threading
import warnings
from typing import Any, TextIO
from urllib.parse import urlsplit

from flask import Flask
from waitress.server import create_server

from companion.config import ConfigError, Settings
from companion.web.export import dashboard_url, mdns_name, qr_text

# Open connections in all: far above a table of phones (each keeps one event stream and
# opens a few more for pages), far below the process's file limit.
CONNECTION_LIMIT = 500
# Open connections from one address: a phone needs one stream plus a handful; this keeps
# one device from holding the whole server (idle sockets, a slowloris).
CONNECTIONS_PER_CLIENT = 24
# A connection with no request in progress and nothing sent for this long is closed.
IDLE_SECONDS = 10
CLEANUP_SECONDS = 1


def make_server(app: Flask, settings: Settings, host: str | None = None,
                port: int | None = None, *, per_client: int = CONNECTIONS_PER_CLIENT,
                idle_seconds: float = IDLE_SECONDS):
    """A waitress server for ``app`` (not yet running; call ``.run()``, stop with ``.close()``).

    ``channel_request_lookahead=1`` lets waitress read ahead on a connection so that it can
    tell a streaming view that its client went away (``waitress.client_disconnected``).
    Raises ConfigError (one line) when the address cannot be listened on.
    """
    host = settings.host if host is None else host
    port = settings.port if port is None else port
    failure = None
    with warnings.catch_warnings():
        # waitress leaves the socket it could not bind to the garbage collector: let it
        # go quietly here, the message below says what happened.
        warnings.simplefilter("ignore", ResourceWarning)
        try:
            server = create_server(
                app,
                host=host,
                port=port,
                threads=settings.threads,
                channel_request_lookahead=1,
                ident="dice-companion",
                # Idle and half-open sockets are closed soon; a live event stream is never
                # idle (it has a request in progress) and browsers reconnect by themselves.
                channel_timeout=idle_seconds,
                cleanup_interval=CLEANUP_SECONDS,
                connection_limit=CONNECTION_LIMIT,
                clear_untrusted_proxy_headers=True,
            )
        except OSError as exc:
            failure = (f"cannot listen on {host}:{port}: {exc.strerror}; is another companion "
                       "running? choose another port with --port or the port setting")
        gc.collect()
    if failure is not None:
        raise ConfigError(failure)
    _limit_per_client(server, per_client)
    return server


def _limit_per_client(server: Any, limit: int) -> None:
    """Close new connections from an address that already holds ``limit`` of them.

    waitress only knows a total limit: one device opening 110 idle sockets used to shut
    everyone else out until they timed out. Now such a device only fills its own share.
    """
    accept = server.handle_accept

    def handle_accept() -> None:
        before = set(server._map)
        accept()
        for fd in set(server._map) - before:
            channel = server._map[fd]
            address = getattr(channel, "addr", None)
            client = address[0] if isinstance(address, tuple) else None
            if client is None:
                continue
            same = sum(1 for other in list(server._map.values())
                       if other is not server and isinstance(getattr(other, "addr", None), tuple)
                       and other.addr[0] == client)
            if same > limit:
                channel.handle_close()

    server.handle_accept = handle_accept


def print_banner(url: str, pin: str | None = None, out: TextIO | None = None) -> None:
    """Print the dashboard address with a text QR code (and the PIN when one is given)."""
    out = out or sys.stdout
    print(f"Dashboard: {url}", file=out)
    host = urlsplit(url).hostname or ""
    if host.startswith("127.") or host in ("localhost", "::1"):
        print("Only this device can open it; --host 0.0.0.0 lets phones on the network join.",
              file=out)
    else:
        name = mdns_name()
        if name:
            print(f"Also: http://{name}:{urlsplit(url).port}/", file=out)
    print(qr_text(url), file=out)
    if pin is not None:
        print(f"Scorekeeper PIN: {pin}", file=out)
    out.flush()


def serve(app: Flask, settings: Settings, host: str | None = None, port: int | None = None,
          pin: str | None = None) -> None:
    """Serve ``app`` until interrupted, after printing the address and QR code."""
    server = make_server(app, settings, host, port)
    bound_port = server.effective_port
    url = dashboard_url(settings.host if host is None else host, bound_port)
    app.config["DASHBOARD_URL"] = url
    print_banner(url, pin)
    if threading.current_thread() is threading.main_thread():
        # systemd and `timeout` stop with SIGTERM: leave through the same door as Ctrl-C
        # so callers' clean-up (closing the database, removing a demo folder) runs.
        signal.signal(signal.SIGTERM, _interrupt)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


class ServerThread:
    """A waitress server running in a background thread, for tests and benchmarks.

    Closing waitress from another thread while its loop waits in ``select`` can hit a
    closed descriptor, so the loop here runs in short slices and the thread that ran it
    also closes it.
    """

    def __init__(self, server: Any) -> None:
        self.server = server
        self.port = server.effective_port
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="waitress", daemon=True)

    def start(self) -> ServerThread:
        """Start serving; returns self."""
        self._thread.start()
        return self

    def _run(self) -> None:
        socket_map = self.server._map  # waitress keeps its channels here
        try:
            while not self._stop.is_set():
                self.server.asyncore.loop(timeout=0.1, map=socket_map, count=1)
        finally:
            self.server.task_dispatcher.shutdown()
            self.server.asyncore.close_all(socket_map)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving and wait for the loop thread to close everything."""
        self._stop.set()
        self._thread.join(timeout)
