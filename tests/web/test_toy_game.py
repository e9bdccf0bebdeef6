"""A fourth game plugs in from a test with no edit elsewhere (issue 13's done-when).

:mod:`toy_game` is Hochwurf's rules and web part and its registry entry; the real
registry with it added goes to a real Table over SQLite and from there to the real
dashboard. Everything below is the companion's own code asking the registry.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import toy_game
from conftest import TEST_CONFIG, csrf, unlock
from flask.testing import FlaskClient

from companion.config import Settings
from companion.domain.gamelog import format_log, read_log
from companion.report import standings_text
from companion.store import Store
from companion.table import Table
from companion.turns import TurnTracker
from companion.vision.types import Die, DieRegion, Reading
from companion.web import create_app

PIN = "4711"


@pytest.fixture
def toy_table(tmp_path: Path):
    ticks = itertools.count(1_700_000_000)
    store = Store(tmp_path / "companion.sqlite3")
    table = Table(store, clock=lambda: float(next(ticks)), pin_iterations=1000,
                  games=toy_game.REGISTRY)
    yield table
    table.close()
    store.close()


@pytest.fixture
def toy_client(toy_table: Table, tmp_path: Path) -> FlaskClient:
    settings = Settings(data_dir=tmp_path / "data", language="de", threads=8)
    return create_app(toy_table, settings, TEST_CONFIG).test_client()


def test_the_table_plays_the_toy_game_through_its_registry_entry(toy_table: Table) -> None:
    game_id = toy_table.create_game("hochwurf", {"players": ["Anna", "Ben"],
                                                 "rules": {"rounds": "2"}}, PIN)
    for player, pips in (("Anna", 5), ("Ben", 3), ("Anna", 1), ("Ben", 6)):
        snap = toy_table.submit(game_id, {"action": "roll", "player": player, "pips": pips},
                                "Kim")
    assert snap["standings"] == {"game": "hochwurf", "over": True,
                                 "totals": {"Anna": 6, "Ben": 9}, "winners": ["Ben"]}
    assert snap["history"][0]["text"] == {"key": "hw_rolled", "fields": {"player": "Anna", "n": 5}}
    # The CSV words its history in English, with the game's own words.
    assert ",Anna rolls 5 pips." in toy_table.export_csv(game_id)
    with pytest.raises(ValueError, match="the game is over"):
        toy_table.submit(game_id, {"action": "roll", "player": "Anna", "pips": 2}, "Kim")
    # Its chart, statistics and log go the same way as the real games'.
    assert toy_table.game_series(game_id)["series"] == [[5, 3], [6, 9]]
    stats = toy_table.stammtisch.statistics()
    assert stats["games"]["hochwurf"]["g:Ben"] == {"games": 1, "games_won": 1, "pips": 9,
                                                   "pips_per_game": 9.0}
    fold = read_log(toy_table.export_log(game_id), toy_table.games.rules)
    assert read_log(format_log(fold), toy_table.games.rules).state == fold.state
    report = toy_table.games.find("hochwurf").report
    assert standings_text(report, snap["standings"], snap["setup"]) == (
        "Hochwurf: Anna 6, Ben 9; winners: Ben")
    # Other tables know nothing of it.
    with pytest.raises(ValueError, match="unknown game 'hochwurf'"):
        Table(Store(":memory:"), pin_iterations=1000).create_game(
            "hochwurf", {"players": ["Anna", "Ben"]}, PIN)


def test_the_camera_proposes_the_toy_games_roll() -> None:
    tracker = TurnTracker(proposers=toy_game.REGISTRY.proposers())
    die = Die(DieRegion((50.0, 50.0), 30.0, 0.0, (), 1.0), 4, 0.99, False)
    tracker.observe(Reading("pips", (die,), (640, 480)), "turn")
    proposal = tracker.proposal("hochwurf", {"to_roll": "Ben", "over": False})
    assert proposal is not None
    assert proposal.action == {"action": "roll", "player": "Ben", "pips": 4}
    assert proposal.text_de == "Ben würfelt 4"


def test_the_dashboard_offers_sets_up_records_and_shows_the_toy_game(
        toy_client: FlaskClient, toy_table: Table) -> None:
    client = toy_client
    index = client.get("/").get_data(as_text=True)
    assert "/games/new?game=hochwurf" in index
    form = client.get("/games/new?game=hochwurf").get_data(as_text=True)
    assert 'name="name_3"' in form and 'name="rule_rounds"' in form and "Runden" in form
    created = client.post("/games/new", data={
        "csrf_token": csrf(client), "game": "hochwurf", "pin": PIN, "pin2": PIN,
        "name_0": "Anna", "name_1": "Ben", "rule_rounds": "2"})
    assert created.status_code == 302, created.get_data(as_text=True)
    game_id = int(created.location.rsplit("/", 1)[1])
    unlock(client, game_id)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "<h1 class=\"game-title\">Hochwurf" in page and "Anna würfelt" in page
    assert 'id="hw-form"' in page and "hochwurf.js" not in page
    recorded = client.post(f"/games/{game_id}/hochwurf/roll",
                           data={"csrf_token": csrf(client), "pips": "5"})
    assert recorded.status_code == 302
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert '<tr data-player="Anna"><td>Anna</td><td>5</td></tr>' in page
    assert "Ben würfelt" in page and "Anna würfelt 5 Augen." in page  # score and history
    refused = client.post(f"/games/{game_id}/hochwurf/roll",
                          data={"csrf_token": csrf(client), "pips": "9"},
                          headers={"Accept": "application/json"})
    assert refused.status_code == 400
    assert toy_table.snapshot(game_id)["version"] == 1
    # The generic pages take it in: the list, the rules, the Stammtisch, the evening.
    assert "Anna führt mit 5" in client.get("/").get_data(as_text=True)
    assert 'id="rules-hochwurf"' in client.get("/rules").get_data(as_text=True)
    assert 'data-game="hochwurf"' in client.get("/players").get_data(as_text=True)
    evening = toy_table.stammtisch.current_evening()
    assert "Anna 5, Ben 0" in client.get(f"/evening/{evening}").get_data(as_text=True)
    chart = client.get(f"/games/{game_id}/chart.svg").get_data(as_text=True)
    assert "Augen nach jeder Runde" in chart
    english = client.get(f"/games/{game_id}?lang=en").get_data(as_text=True)
    assert "High Roll" in english and "Ben rolls" in english and "Anna rolls 5 pips." in english
