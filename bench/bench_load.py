"""Does the dashboard hold a full table and a hostile guest? A real server under load.

Starts ``companion serve`` on 127.0.0.1 over a temporary database (a separate process, so
its memory is measured alone), opens N live phones (Server-Sent Events streams, each
from its own loopback address as phones on the Wi-Fi would be), and sends R requests per
second for S seconds: page snapshots, the game list, and every tenth request a throw or
an undo by the scorekeeper. Halfway, one device opens F idle connections and holds them
(the idle-connection flood). Prints latency percentiles before and during the flood,
errors, how many phones kept their stream, and the server's RSS at start, middle and end.

    .venv/bin/python bench/bench_load.py [--seconds 60] [--phones 30] [--rate 20] [--flood 150]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from companion.store import Store
from companion.table import Table

ROOT = Path(__file__).resolve().parents[1]
PIN = "4711"
THROW = {"action": "throw", "player": "Anna", "throws": 1, "dice": [1, 1, 4], "hand": True}


def rss_kib(pid: int) -> int:
    """Resident memory of process ``pid`` in KiB (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def call(port: int, method: str, url: str, body: str | None = None,
         headers: dict[str, str] | None = None, source: str = "127.0.0.1",
         timeout: float = 5.0) -> tuple[int, bytes, http.client.HTTPResponse]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout,
                                      source_address=(source, 0))
    try:
        conn.request(method, url, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read(), response
    finally:
        conn.close()


class Scorekeeper:
    """A session with the PIN entered; throws and undoes in turn."""

    def __init__(self, port: int, game: int) -> None:
        self.port, self.game = port, game
        status, body, response = call(port, "GET", f"/games/{game}", source="127.0.1.1")
        self.cookie = response.getheader("Set-Cookie").split(";")[0]
        self.token = body.decode().split('"csrf": "')[1].split('"')[0]
        status, body, response = call(port, "POST", f"/games/{game}/unlock", f"pin={PIN}",
                                      self._headers("application/x-www-form-urlencoded"),
                                      source="127.0.1.1")
        assert status == 200, body
        self.cookie = (response.getheader("Set-Cookie") or self.cookie).split(";")[0]
        self.in_force = False

    def _headers(self, kind: str = "application/json") -> dict[str, str]:
        return {"Cookie": self.cookie, "X-CSRF-Token": self.token, "Content-Type": kind,
                "Accept": "application/json"}

    def act(self) -> int:
        if self.in_force:
            status, _, _ = call(self.port, "POST", f"/games/{self.game}/undo", "",
                                self._headers(), source="127.0.1.1")
        else:
            status, _, _ = call(self.port, "POST", f"/games/{self.game}/actions",
                                json.dumps(THROW), self._headers(), source="127.0.1.1")
        if status == 200:
            self.in_force = not self.in_force
        return status


def phone_stream(port: int, game: int, source: str, stop: threading.Event,
                 alive: list[bool], index: int) -> None:
    """Keep one SSE stream open as a phone does, reconnecting when the server ends it."""
    while not stop.is_set():
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=2,
                                            source_address=(source, 0))
        except OSError:
            alive[index] = False
            time.sleep(0.5)
            continue
        try:
            sock.sendall(f"GET /events?game={game} HTTP/1.1\r\nHost: x\r\n"
                         "Accept: text/event-stream\r\n\r\n".encode())
            first = sock.recv(4096)
            alive[index] = first.startswith(b"HTTP/1.1 200")
            sock.settimeout(0.5)
            while not stop.is_set():
                try:
                    if not sock.recv(4096):
                        break
                except TimeoutError:
                    continue
        except OSError:
            alive[index] = False
        finally:
            sock.close()


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--phones", type=int, default=30)
    parser.add_argument("--rate", type=float, default=20.0, help="requests per second")
    parser.add_argument("--flood", type=int, default=150, help="idle connections, one device")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="bench-load-") as tmp:
        data = Path(tmp)
        with Store(data / "companion.sqlite3") as store:
            game = Table(store, pin_iterations=1000).create_game(
                "schocken", {"players": ["Anna", "Ben", "Cem"], "starter": "Anna"}, PIN)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        env = {**os.environ, "COMPANION_DATA_DIR": str(data), "PYTHONPATH": str(ROOT)}
        env.pop("COMPANION_CONFIG", None)
        server = subprocess.Popen(
            [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1",
             "--port", str(port)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        stop = threading.Event()
        flood: list[socket.socket] = []
        try:
            deadline = time.monotonic() + 15
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
            rss = {"start": rss_kib(server.pid)}
            keeper = Scorekeeper(port, game)
            alive = [False] * args.phones
            streams = [threading.Thread(target=phone_stream, daemon=True,
                                        args=(port, game, f"127.0.2.{i + 1}", stop, alive, i))
                       for i in range(args.phones)]
            for thread in streams:
                thread.start()
            time.sleep(1.0)
            streams_before = sum(alive)
            results: dict[str, list[float]] = {"before": [], "flood": []}
            errors = {"before": 0, "flood": 0}
            lock = threading.Lock()

            def one(n: int, phase: str) -> None:
                started = time.monotonic()
                source = f"127.0.2.{n % max(1, args.phones) + 1}"
                try:
                    if n % 10 == 9:
                        status = keeper.act()
                    elif n % 5 == 0:
                        status, _, _ = call(port, "GET", "/games.json", source=source)
                    else:
                        status, _, _ = call(port, "GET", f"/games/{game}/snapshot.json",
                                            source=source)
                except (OSError, http.client.HTTPException):
                    status = 0
                took = time.monotonic() - started
                with lock:
                    results[phase].append(took)
                    if status != 200:
                        errors[phase] += 1

            workers: list[threading.Thread] = []
            start = time.monotonic()
            total = int(args.seconds * args.rate)
            for n in range(total):
                at = start + n / args.rate
                phase = "before" if n < total // 2 else "flood"
                if n == total // 2:
                    rss["middle"] = rss_kib(server.pid)
                    for _ in range(args.flood):
                        try:
                            flood.append(socket.create_connection(
                                ("127.0.0.1", port), timeout=2, source_address=("127.0.3.1", 0)))
                        except OSError:
                            break
                time.sleep(max(0.0, at - time.monotonic()))
                worker = threading.Thread(target=one, args=(n, phase))
                worker.start()
                workers.append(worker)
            for worker in workers:
                worker.join(10)
            streams_after = sum(alive)
            rss["end"] = rss_kib(server.pid)
        finally:
            stop.set()
            for s in flood:
                s.close()
            server.terminate()
            server.wait(10)

    print(f"load: {args.phones} live phones, {args.rate:g} req/s for {args.seconds:g} s "
          f"(10% throw/undo by the scorekeeper); idle flood: {args.flood} connections "
          "from one device in the second half")
    print(f"{'phase':8} {'requests':>8} {'errors':>6} {'p50 ms':>8} {'p95 ms':>8} "
          f"{'p99 ms':>8} {'max ms':>8}")
    for phase in ("before", "flood"):
        times = results[phase]
        if not times:
            continue
        print(f"{phase:8} {len(times):8d} {errors[phase]:6d} "
              f"{statistics.median(times) * 1000:8.1f} {percentile(times, 95) * 1000:8.1f} "
              f"{percentile(times, 99) * 1000:8.1f} {max(times) * 1000:8.1f}")
    print(f"live streams open: {streams_before}/{args.phones} before, "
          f"{streams_after}/{args.phones} at the end")
    print(f"idle flood: {len(flood)} connections opened by one device (the server keeps at most "
          "24 per device and closes idle ones after 10 s)")
    print("server RSS (MiB): " + ", ".join(f"{k} {v / 1024:.1f}" for k, v in rss.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
