"""How fast does a recorded action reach the other phones? Real server, real Chromium.

Starts the dashboard with waitress on 127.0.0.1 over a temporary database, opens a
Kacken auf Wacken game on two Chromium pages (390x844), and lets the scorekeeper page
record N Abrocken one after another. For each, the time from the scorekeeper's POST
leaving the page to the watching page having redrawn that version (SSE notice, snapshot
fetch, DOM update) is measured on the browser's clock, which both pages share.
Plain SSE clients (``--sse-clients``, standing in for the other phones) measure the
notice alone, from just before the page is told to post: an upper bound.

    .venv/bin/python bench/bench_live.py [--actions 100] [--watchers 1]
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from companion.config import Settings
from companion.store import Store
from companion.table import Table
from companion.web import create_app
from companion.web.server import ServerThread, make_server

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
PIN = "4711"
PLAYERS = ["Ozzy", "Lemmy", "Doro"]


def abrocken_fields(i: int) -> dict[str, str]:
    """A legal Abrocken; the band name changes so every entry differs."""
    return {"band": f"Band {i}", "songs_on_stage": "2", "initiator": "Ozzy",
            "join_0": "1", "beers_0": "2", "cards_0": "1", "songs_0": "0",
            "join_1": "1", "beers_1": "1", "cards_1": "2", "songs_1": "1"}


def summary(name: str, values_ms: list[float]) -> str:
    """One line: median, p90, min, max in milliseconds."""
    ordered = sorted(values_ms)
    p90 = ordered[max(0, int(round(0.9 * len(ordered))) - 1)]
    return (f"{name}: n={len(ordered)} median={statistics.median(ordered):.1f} ms "
            f"p90={p90:.1f} ms min={ordered[0]:.1f} ms max={ordered[-1]:.1f} ms")


def sse_listener(port: int, game_id: int, arrivals: dict[int, float],
                 ready: threading.Event, stop: threading.Event) -> None:
    """Read the event stream and note when each version's notice arrived (perf_counter)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", f"/events?game={game_id}")
    response = conn.getresponse()
    ready.set()
    buffer = b""
    while not stop.is_set():
        chunk = response.fp.read1(4096) if hasattr(response.fp, "read1") else response.read(1)
        if not chunk:
            break
        buffer += chunk
        while b"\n\n" in buffer:
            frame, buffer = buffer.split(b"\n\n", 1)
            for line in frame.split(b"\n"):
                if line.startswith(b"id: "):
                    arrivals[int(line[4:].split(b":")[1])] = time.perf_counter()
    conn.close()


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=100)
    parser.add_argument("--watchers", type=int, default=1,
                        help="watching Chromium pages (the first one is measured)")
    parser.add_argument("--sse-clients", type=int, default=1,
                        help="plain event-stream clients listening too (phones at the table)")
    parser.add_argument("--threads", type=int, default=32,
                        help="waitress threads (the settings' default is 32)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="bench-live-") as tmp:
        data = Path(tmp)
        store = Store(data / "companion.sqlite3")
        table = Table(store, pin_iterations=1000)
        settings = Settings(data_dir=data, host="127.0.0.1", threads=args.threads)
        app = create_app(table, settings)
        server = ServerThread(make_server(app, settings, host="127.0.0.1", port=0)).start()
        base = f"http://127.0.0.1:{server.port}"
        game = table.create_game("wacken", {"players": PLAYERS}, PIN)

        sent: dict[int, float] = {}
        stop = threading.Event()
        clients: list[dict[int, float]] = []
        for _ in range(args.sse_clients):
            arrivals: dict[int, float] = {}
            ready = threading.Event()
            threading.Thread(target=sse_listener, args=(server.port, game, arrivals, ready, stop),
                             daemon=True).start()
            ready.wait(5)
            clients.append(arrivals)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                phone = {"viewport": {"width": 390, "height": 844}}
                keeper = browser.new_context(**phone, bypass_csp=True).new_page()
                keeper.goto(f"{base}/games/{game}")
                keeper.fill("#pin", PIN)
                keeper.click("#unlock-button")
                keeper.wait_for_selector("#keeper")
                watchers = []
                for _ in range(args.watchers):
                    page = browser.new_context(**phone, bypass_csp=True).new_page()
                    page.goto(f"{base}/games/{game}")
                    page.wait_for_selector("#live-dot.on")
                    watchers.append(page)
                watcher = watchers[0]
                # Note, on the shared wall clock, when each version is drawn.
                watcher.evaluate("""() => { window.__drawn = {};
                    DC.renderers.push(function (snap) {
                      window.__drawn[snap.version] = performance.timeOrigin + performance.now();
                    }); }""")
                page_ms: list[float] = []
                for i in range(1, args.actions + 1):
                    sent[i] = time.perf_counter()
                    started = keeper.evaluate("""async (fields) => {
                        const data = new FormData();
                        for (const [k, v] of Object.entries(fields)) data.append(k, v);
                        const t0 = performance.timeOrigin + performance.now();
                        const url = '/games/' + DC.gameId + '/wacken/abrocken';
                        const done = await DC.post(url, data);
                        if (!done) throw new Error('the Abrocken was refused');
                        return t0; }""", abrocken_fields(i))
                    drawn = watcher.wait_for_function(
                        f"window.__drawn[{i}]", polling="raf", timeout=10_000).json_value()
                    page_ms.append(drawn - started)
                browser.close()
        finally:
            stop.set()
            table.close()
            server.stop()
            store.close()
        sse_ms = [(arrivals[v] - sent[v]) * 1000 for arrivals in clients for v in sent
                  if v in arrivals]
        missed = sum(1 for arrivals in clients for v in sent if v not in arrivals)
        print(f"bench_live: {args.actions} Abrocken recorded through the page, "
              f"{args.watchers} watching page(s), {args.sse_clients} plain SSE client(s), "
              f"waitress threads={settings.threads}; notices missed: {missed}")
        print(summary("POST -> other page redrawn (Chromium)", page_ms))
        print(summary("POST -> SSE notice at a plain client", sse_ms))
    return 0


if __name__ == "__main__":
    sys.exit(main())
