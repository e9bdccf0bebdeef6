"""The Stammtisch pages over HTTP: roster, player, evening and tab, charts, CSV, backup.

Looking is for everyone; every change (roster, settling the tab, backup and restore)
is for the keeper: the scorekeeper of the game at the table, or the table's admin PIN.
Bad input gets a 4xx saying what was wrong, and changes nothing.
"""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest
from browser import PIN
from conftest import TEST_CONFIG, csrf, unlock
from flask.testing import FlaskClient

from companion.config import Settings
from companion.table import Table
from companion.web import create_app

TAB_SETUP = {"players": ["Anna", "Ben"], "starter": "Anna",
             "rules": {"deckel": 2, "tab_amount": 1, "tab_unit": "€"}}
# Anna's General twice against Ben's 2-2-1: Ben loses both halves (a Durchmarsch).
DURCHMARSCH = [("Anna", [6, 6, 6]), ("Ben", [2, 2, 1]), ("Ben", [2, 2, 1]), ("Anna", [6, 6, 6])]


def play_tab_game(table: Table) -> int:
    """A finished Schocken game with a club tab: Ben owes 2 €."""
    game_id = table.create_game("schocken", TAB_SETUP, PIN)
    finish_tab_game(table, game_id)
    return game_id


def finish_tab_game(table: Table, game_id: int) -> None:
    """Play the tab game ``game_id`` (made with ``TAB_SETUP``) to its end: Ben loses."""
    for player, dice in DURCHMARSCH:
        table.submit(game_id, {"action": "throw", "player": player, "throws": 1, "dice": dice,
                               "hand": True}, "Kim")


def form(client: FlaskClient, **fields: str) -> dict[str, str]:
    return {"csrf_token": csrf(client), **fields}


def test_pages_are_for_everyone_and_show_the_numbers(client: FlaskClient, table: Table) -> None:
    anna = table.stammtisch.add_player("Anna", "Anni", "red")
    game_id = play_tab_game(table)
    evening = table.stammtisch.current_evening()
    page = client.get("/players").get_data(as_text=True)
    assert "Anni" in page and 'data-key="g:Ben"' in page
    player = client.get(f"/players/{anna}").get_data(as_text=True)
    assert "<svg" in player and "Anna" in player
    tonight = client.get("/evening")
    assert tonight.status_code == 302 and tonight.location.endswith(f"/evening/{evening}")
    page = client.get(f"/evening/{evening}").get_data(as_text=True)
    assert 'data-key="g:Ben"' in page and "polyline" in page
    assert client.get(f"/evening/{evening}/print").status_code == 200
    text = client.get(f"/evening/{evening}/summary.txt").get_data(as_text=True)
    assert "Durchmarsch" in text and "Ben: 2 €" in text
    chart = client.get(f"/games/{game_id}/chart.svg")
    assert chart.mimetype == "image/svg+xml" and chart.data.count(b"<polyline") == 2
    assert client.get(f"/players/{anna}/schocken.svg").mimetype == "image/svg+xml"
    # The new-game form offers the roster's names.
    assert '<option value="Anna">' in client.get("/games/new").get_data(as_text=True)


@pytest.mark.parametrize("url", ["/evening/2026-13-45", "/evening/tomorrow",
                                 "/evening/2026-02-30/summary.txt", "/players?period=26",
                                 "/statistics.csv?period=2026-1x"])
def test_bad_periods_are_400(client: FlaskClient, url: str) -> None:
    assert client.get(url).status_code == 400


def test_unknown_players_are_404(client: FlaskClient, table: Table) -> None:
    assert client.get("/players/7").status_code == 404
    assert client.get("/players/7/schocken.svg").status_code == 404
    assert client.get("/games/3/chart.svg").status_code == 404


def test_roster_changes_are_for_the_keeper_only(client: FlaskClient, table: Table) -> None:
    response = client.post("/players", data=form(client, name="Anna"))
    assert response.status_code == 403  # no game at the table, no admin PIN: nobody
    game_id = table.create_game("wacken", {"players": ["Ozzy", "Doro"]}, PIN)
    assert client.post("/players", data=form(client, name="Anna")).status_code == 403
    assert client.post("/players", data={"name": "Anna"}).status_code == 400  # no CSRF token
    assert table.stammtisch.roster() == []
    unlock(client, game_id)
    response = client.post("/players", data=form(client, name="Anna", nickname="Anni",
                                                 colour="red"))
    assert response.status_code == 303
    anna = table.stammtisch.roster()[0]["id"]
    response = client.post(f"/players/{anna}", data=form(client, name="Anna B.", colour="blue"))
    assert response.status_code == 303 and table.stammtisch.roster()[0]["name"] == "Anna B."
    ben = client.post("/players", data=form(client, name="Ben"))
    ben_id = int(ben.location.rsplit("/", 1)[1])
    response = client.post("/players/merge", data=form(client, source=str(ben_id),
                                                       target=str(anna)))
    assert response.status_code == 303
    assert [p["name"] for p in table.stammtisch.roster()] == ["Anna B."]


@pytest.mark.parametrize("fields", [
    {"name": ""}, {"name": "x" * 31}, {"name": "Ann\u202ea"}, {"name": "Eve", "colour": "pink"},
    {"name": "Eve", "nickname": "n" * 13}, {"name": "anna"},
])
def test_bad_roster_input_is_400_and_changes_nothing(client: FlaskClient, table: Table,
                                                     fields: dict) -> None:
    table.stammtisch.add_player("Anna")
    unlock(client, table.create_game("wacken", {"players": ["Ozzy", "Doro"]}, PIN))
    response = client.post("/players", data=form(client, **fields))
    assert response.status_code == 400 and b"<!doctype html>" in response.data
    assert [p["name"] for p in table.stammtisch.roster()] == ["Anna"]


@pytest.mark.parametrize("source, target", [("1", "1"), ("x", "1"), ("", "1"), ("1", "99"),
                                            ("1" * 30, "1")])
def test_bad_merges_are_refused(client: FlaskClient, table: Table, source: str,
                                target: str) -> None:
    table.stammtisch.add_player("Anna")
    unlock(client, table.create_game("wacken", {"players": ["Ozzy", "Doro"]}, PIN))
    response = client.post("/players/merge", data=form(client, source=source, target=target))
    assert response.status_code in (400, 404)
    assert [p["name"] for p in table.stammtisch.roster()] == ["Anna"]


def test_settling_the_tab_is_one_keeper_tap_recorded_once(client: FlaskClient,
                                                           table: Table) -> None:
    game_id = play_tab_game(table)
    evening = table.stammtisch.current_evening()
    url = f"/evening/{evening}/settle"
    assert client.post(url, data=form(client, key="g:Ben", unit="€")).status_code == 403
    unlock(client, game_id)
    for key, unit in (("g:Anna", "€"), ("g:Ben", "drinks"), ("nobody", "€"), ("", "")):
        assert client.post(url, data=form(client, key=key, unit=unit)).status_code == 400
    assert table.stammtisch.evening(evening)["tab"][0]["open"] == 2
    response = client.post(url, data=form(client, key="g:Ben", unit="€"))
    assert response.status_code == 303
    row = table.stammtisch.evening(evening)["tab"][0]
    assert (row["owed"], row["paid"], row["open"]) == (2, 2, 0)
    # A second tap (another phone, a double click) settles nothing more.
    assert client.post(url, data=form(client, key="g:Ben", unit="€")).status_code == 400
    assert table.stammtisch.evening(evening)["tab"][0]["paid"] == 2
    assert "Zeche bezahlt" in client.get(f"/evening/{evening}/summary.txt").get_data(as_text=True)


def test_csv_exports_neutralise_formulas(client: FlaskClient, table: Table) -> None:
    table.stammtisch.add_player("=HYPERLINK(1)")
    table.create_game("schocken", {"players": ["=HYPERLINK(1)", "+Ben"], "starter": "+Ben"}, PIN)
    roster = client.get("/players.csv").get_data(as_text=True)
    assert "'=HYPERLINK(1)" in roster
    stats = client.get("/statistics.csv").get_data(as_text=True)
    assert "'=HYPERLINK(1)" in stats and "'+Ben" in stats and "\n=" not in stats


def test_admin_pin_lets_the_table_change_the_roster(table: Table, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", language="de", threads=8, admin_pin="24680")
    client = create_app(table, settings, TEST_CONFIG).test_client()
    assert client.post("/players", data=form(client, name="Anna",
                                             admin_pin="11111")).status_code == 403
    assert client.post("/players", data=form(client, name="Anna",
                                             admin_pin="24680")).status_code == 303
    assert [p["name"] for p in table.stammtisch.roster()] == ["Anna"]


def test_backup_download_and_restore_upload(client: FlaskClient, table: Table) -> None:
    game_id = play_tab_game(table)
    assert client.post("/backup/download", data=form(client)).status_code == 403
    assert client.post("/backup/restore", data=form(client)).status_code == 403
    unlock(client, game_id)
    download = client.post("/backup/download", data=form(client))
    assert download.status_code == 200 and download.data.startswith(b"SQLite format 3\x00")
    assert "attachment" in download.headers["Content-Disposition"]
    # Something recorded after the backup, then the backup restored: back as it was.
    table.create_game("wacken", {"players": ["Ozzy", "Doro"]}, PIN, activate=False)
    for junk in (b"", b"hello", b"SQLite format 3\x00" + b"\x00" * 100):
        response = client.post("/backup/restore", data={
            **form(client), "file": (io.BytesIO(junk), "backup.sqlite3")},
            content_type="multipart/form-data")
        assert response.status_code == 400
        assert len(table.list_games()) == 2
    assert client.post("/backup/restore", data=form(client),
                       content_type="multipart/form-data").status_code == 400
    response = client.post("/backup/restore", data={
        **form(client), "file": (io.BytesIO(download.data), "backup.sqlite3")},
        content_type="multipart/form-data")
    assert response.status_code == 200 and b"restore-done" in response.data
    assert [g["id"] for g in table.list_games()] == [game_id]
    assert table.snapshot(game_id)["standings"]["game_loser"] == "Ben"
    # The restored games may reuse ids: no grant of before the restore carries over.
    version = table.snapshot(game_id)["version"]
    assert client.post(f"/games/{game_id}/archive", data=form(client)).status_code == 403
    assert table.snapshot(game_id)["version"] == version


def test_a_backup_larger_than_ordinary_uploads_can_be_restored(client: FlaskClient,
                                                               table: Table,
                                                               tmp_path: Path) -> None:
    game_id = table.create_game("wacken", {"players": ["Ozzy", "Doro"]}, PIN)
    unlock(client, game_id)
    big = tmp_path / "big.sqlite3"
    table.backup(big)
    db = sqlite3.connect(big)
    db.execute("CREATE TABLE ballast (x BLOB)")  # not ours, but makes the file 3 MB
    db.execute("INSERT INTO ballast VALUES (zeroblob(3000000))")
    db.commit()
    db.close()
    # The body is built here: the test client would spool a large one to a temporary file
    # it never closes (a ResourceWarning, an error under filterwarnings=error).
    boundary = "stammtisch-boundary"
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="csrf_token"\r\n\r\n'
            f'{csrf(client)}\r\n--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="big.sqlite3"\r\nContent-Type: application/octet-stream\r\n\r\n'
            ).encode() + big.read_bytes() + f"\r\n--{boundary}--\r\n".encode()
    response = client.post("/backup/restore", data=body,
                           content_type=f"multipart/form-data; boundary={boundary}")
    assert response.status_code == 200, response.get_data(as_text=True)[-300:]
    # Ordinary forms keep their 2 MB limit.
    response = client.post("/players", data=form(client, name="x" * 3_000_000))
    assert response.status_code == 413
