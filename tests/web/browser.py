"""The real thing for browser tests and the benchmark: waitress on 127.0.0.1 and Chromium.

Playwright drives Debian's Chromium (``/usr/bin/chromium``); it never downloads a
browser of its own.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.config import Settings
from companion.store import Store
from companion.table import Table
from companion.web import create_app
from companion.web.server import ServerThread, make_server

PIN = "4711"

CHROMIUM = os.environ.get("COMPANION_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@dataclass
class LiveServer:
    """A running dashboard: its Table, its base URL."""

    table: Table
    url: str


@contextmanager
def live_server(data_dir: Path, threads: int = 16,
                clock_synced: Callable[[], bool] = lambda: True,
                **config: Any) -> Iterator[LiveServer]:
    """Serve a fresh dashboard with waitress in a thread until the block ends."""
    store = Store(data_dir / "companion.sqlite3")
    table = Table(store, pin_iterations=1000, clock_synced=clock_synced)
    settings = Settings(data_dir=data_dir, host="127.0.0.1", port=8080, threads=threads)
    app = create_app(table, settings, config)
    running = ServerThread(make_server(app, settings, host="127.0.0.1", port=0)).start()
    try:
        yield LiveServer(table, f"http://127.0.0.1:{running.port}")
    finally:
        table.close()  # ends every open event stream
        running.stop()
        store.close()


def shot(page: Any, name: str) -> None:
    """The phone's screen from the top (390x844), and the whole page as ``<name>-full``."""
    ARTIFACTS.mkdir(exist_ok=True)
    # Phone-first: nothing may stick out sideways at 390 px, nor on a 360 px phone.
    for width in (360, PHONE["width"]):
        page.set_viewport_size({"width": width, "height": PHONE["height"]})
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= width, f"{name}: the page is {wide} px wide on a {width} px screen"
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    page.screenshot(path=str(ARTIFACTS / f"{name}-full.png"), full_page=True)


def become_scorekeeper(page: Any, pin: str = PIN) -> None:
    """Enter the PIN on a game page and wait for the scorekeeper panel."""
    page.fill("#pin", pin)
    page.fill("input[name=who]", "Kim")
    page.click("#unlock-button")
    page.wait_for_selector("#keeper")


def wait_live(page: Any) -> None:
    """Wait until the page's event stream is open."""
    page.wait_for_selector("#live-dot.on")


def enter_throw(page: Any, dice: tuple[int, int, int], throws: int = 1) -> None:
    """Tap three dice and the number of throws, then record the throw."""
    for die in dice:
        page.click(f"#entry button[data-die='{die}']")
    page.click(f"#entry button[data-throws='{throws}']")
    page.click("#throw-send")
