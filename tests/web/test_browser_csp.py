"""The pages work under their real Content-Security-Policy (no test bypass): Chromium."""

from __future__ import annotations

import pytest
from browser import become_scorekeeper, enter_throw, wait_live
from conftest import PIN

pytestmark = pytest.mark.browser


def test_pages_run_under_their_own_csp_without_violations(server, phone):
    game = server.table.create_game("schocken", {"players": ["Anna", "Ben"],
                                                 "starter": "Anna"}, PIN)
    keeper = phone(f"{server.url}/games/{game}", bypass_csp=False)
    violations: list[str] = []
    keeper.on("console", lambda m: violations.append(m.text)
              if "Content Security Policy" in m.text else None)
    become_scorekeeper(keeper)
    wait_live(keeper)
    enter_throw(keeper, (6, 6, 5))
    keeper.wait_for_selector("#throws li[data-player='Anna']")  # drawn by the page's script
    for path in ("/", f"/games/{game}/history", f"/games/{game}/table", "/games/new"):
        keeper.goto(server.url + path)
        keeper.wait_for_load_state("load")
    assert violations == []
    assert server.table.snapshot(game)["version"] == 1
