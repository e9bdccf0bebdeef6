"""Pages and forms: language, new game, the per-game scorekeeper forms, exports, QR, camera."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import cv2
import numpy as np
import pytest
from conftest import (
    BOCK_SETUP,
    PIN,
    SCHOCKEN_SETUP,
    TEST_CONFIG,
    WACKEN_SETUP,
    csrf,
    post,
    unlock,
)

from companion.config import Settings
from companion.registry import GAMES
from companion.web import create_app, i18n
from companion.web.export import dashboard_url, qr_svg, qr_text

WEB = Path(__file__).resolve().parents[2] / "companion" / "web"


# -- language -----------------------------------------------------------------

def test_german_by_default_english_on_request_and_remembered(client, table):
    game = table.create_game("schocken", SCHOCKEN_SETUP, PIN)
    page = client.get(f"/games/{game}").get_data(as_text=True)
    assert 'lang="de"' in page and "Verlauf" in page
    english = client.get(f"/games/{game}?lang=en")
    assert "History" in english.get_data(as_text=True)
    assert "lang=en" in english.headers["Set-Cookie"]
    again = client.get(f"/games/{game}").get_data(as_text=True)  # the cookie remembers
    assert 'lang="en"' in again and "History" in again
    assert 'lang="fr"' not in client.get("/?lang=fr").get_data(as_text=True)


def test_catalogues_have_the_same_keys_and_cover_every_key_in_use():
    de, en = i18n.catalogue("de"), i18n.catalogue("en")
    assert set(de) == set(en)
    sources = [p.read_text() for p in (*WEB.glob("templates/**/*.html"), *WEB.glob("static/*.js"),
                                       *WEB.glob("*.py"))]
    used = set()
    for text in sources:
        used |= set(re.findall(r'(?:\b_|\bt|DC\.t|i18n\._)\(\s*"([a-z][a-z0-9_]*[a-z0-9])"', text))
        for pair in re.findall(r'\?\s*"([a-z]+_[a-z0-9_]+)"\s*:\s*"([a-z]+_[a-z0-9_]+)"', text):
            used |= set(pair)  # t(cond ? "key_a" : "key_b")
    # Keys built from a prefix and a value the engines or pages define.
    for name in GAMES.names():
        used |= {f"game_{name}", f"players_help_{name}"}
        used |= {f"flag_{f.name}" for f in GAMES.rules(name).RULE_FLAGS}
    rtb = GAMES.rules("rockthebock")
    used |= {f"face_{f}" for f in rtb.FACES} | {f"face_short_{f}" for f in rtb.FACES}
    used |= {f"colour_{c}" for c in rtb.COLOURS}
    used |= {"sch_phase_1", "sch_phase_2", "sch_class_schock_aus", "sch_class_schock",
             "sch_class_general", "sch_class_strasse"}
    missing = sorted(k for k in used if k not in de)
    assert not missing, missing


def test_translate_fills_fields_and_falls_back():
    assert i18n.translate("de", "seat_n", n=3) == "Platz 3"
    assert i18n.translate("en", "seat_n", n=3) == "Seat 3"
    assert i18n.translate("de", "no_such_key") == "no_such_key"
    with pytest.raises(ValueError, match="unknown language"):
        i18n.catalogue("fr")


# -- new game -------------------------------------------------------------------

def new_game_form(client, **fields):
    data = {"csrf_token": csrf(client), "pin": PIN, "pin2": PIN}
    data.update(fields)
    return client.post("/games/new", data=data)


def test_setup_form_lists_every_house_rule_with_its_sentence(client):
    page = client.get("/games/new?game=schocken&lang=en").get_data(as_text=True)
    for flag in GAMES.rules("schocken").RULE_FLAGS:
        assert f'name="rule_{flag.name}"' in page
        assert flag.help_en.split(".")[0][:40] in page.replace("&#39;", "'")
    german = client.get("/games/new?game=rockthebock&lang=de").get_data(as_text=True)
    assert GAMES.rules("rockthebock").RULE_FLAGS[0].help_de[:40] in german


def test_new_schocken_game_from_the_form(client, table):
    response = new_game_form(client, game="schocken", name_0="Anna", name_1="Ben", name_2="Cem",
                             starter="1", rule_handschock="above_all", rule_deckel="15")
    assert response.status_code == 302
    game = int(response.headers["Location"].rstrip("/").split("/")[-1])
    snap = table.snapshot(game)
    assert snap["setup"]["players"] == ["Anna", "Ben", "Cem"]
    assert snap["setup"]["starter"] == "Ben"
    assert snap["setup"]["rules"]["handschock"] == "above_all"
    assert snap["setup"]["rules"]["deckel"] == 15
    assert table.active_game_id() == game
    # The creator is the scorekeeper at once.
    assert post(client, f"/games/{game}/schocken/throw",
                data={"d1": "3", "d2": "2", "d3": "1", "throws": "1"}).status_code == 200
    page = client.get(f"/games/{game}").get_data(as_text=True)
    assert "Hausregel" in page  # a flag differing from the default is marked


def test_a_guest_cannot_start_a_game_while_one_runs(client, table):
    running = table.create_game("wacken", WACKEN_SETUP, PIN)
    response = new_game_form(client, game="schocken", name_0="A", name_1="B")
    assert response.status_code == 403
    assert "Schreiber" in response.get_data(as_text=True)
    assert [g["id"] for g in table.list_games()] == [running]
    unlock(client, running)
    assert new_game_form(client, game="schocken", name_0="C", name_1="D",
                         activate="1").status_code == 302
    assert table.active_game_id() != running  # its scorekeeper starts the next game


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"game": "schocken", "name_0": "Anna"}, "mindestens 2 Spieler"),
        ({"game": "schocken", "name_0": "Anna", "name_1": "Anna"}, "anderen Namen"),
        ({"game": "rockthebock", "name_0": "R", "colour_0": "red", "name_1": "B",
          "colour_1": "red", "youngest": "0"}, "andere Farbe"),
        ({"game": "schocken", "name_0": "A", "name_1": "B", "pin2": "1234"}, "PINs"),
        ({"game": "schocken", "name_0": "A", "name_1": "B", "pin": "12", "pin2": "12"},
         "4 bis 12 Ziffern"),
        ({"game": "schocken", "name_0": "A", "name_1": "B", "rule_straights": "none"},
         "Hausregel „Straßen“"),
    ],
)
def test_bad_setup_shows_the_form_again_and_stores_nothing(client, table, fields, message):
    response = new_game_form(client, **fields)
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert message in page
    assert 'value="A' in page or 'value="R' in page  # typed names are kept
    assert table.list_games() == []


def test_unknown_game_in_the_form_is_a_clear_400(client):
    response = client.get("/games/new?game=skat")
    assert response.status_code == 400
    assert "Spiel „skat“ gibt es hier nicht" in html.unescape(response.get_data(as_text=True))


def test_index_lists_games_and_offers_resume_and_archive_to_the_scorekeeper(client, table):
    first = table.create_game("wacken", WACKEN_SETUP, PIN)
    second = table.create_game("schocken", SCHOCKEN_SETUP, PIN)
    page = client.get("/").get_data(as_text=True)
    assert "Ozzy, Lemmy, Doro" in page and "Anna, Ben, Cem" in page
    assert "/activate" not in page and "/archive" not in page  # a guest sees no buttons
    unlock(client, first)
    page = client.get("/").get_data(as_text=True)
    assert f"/games/{first}/activate" in page and f"/games/{second}/activate" not in page
    client.post(f"/games/{first}/activate", data={"csrf_token": csrf(client)})
    assert table.active_game_id() == first
    client.post(f"/games/{first}/archive", data={"csrf_token": csrf(client)})
    assert table.active_game_id() is None


# -- per-game forms -----------------------------------------------------------------

def test_schocken_hidden_third_throw_then_reveal(client, table):
    game = table.create_game("schocken", {"players": ["Anna", "Ben"], "starter": "Anna"}, PIN)
    unlock(client, game)
    snap = post(client, f"/games/{game}/schocken/throw",
                data={"hidden": "1", "throws": "3"}).get_json()["snapshot"]
    assert snap["view"]["throws"][0]["hidden"] is True
    snap = post(client, f"/games/{game}/schocken/throw",
                data={"d1": "6", "d2": "6", "d3": "6", "throws": "2"}).get_json()["snapshot"]
    assert snap["view"]["awaiting_reveal"] == "Anna"
    snap = post(client, f"/games/{game}/schocken/throw",
                data={"d1": "1", "d2": "1", "d3": "2", "hand": "1"}).get_json()["snapshot"]
    assert snap["history"][-1]["action"]["action"] == "reveal"
    assert snap["view"]["last_round"]["loser"] == "Ben"
    assert snap["view"]["last_round"]["deckel"] == 2  # Schock 2 sets 2


def test_schocken_throw_over_the_limit_is_refused_by_the_engine(client, table):
    game = table.create_game("schocken", SCHOCKEN_SETUP, PIN)
    unlock(client, game)
    post(client, f"/games/{game}/schocken/throw", data={"d1": "4", "d2": "2", "d3": "1",
                                                        "throws": "1"})
    response = post(client, f"/games/{game}/schocken/throw",
                    data={"d1": "4", "d2": "2", "d3": "1", "throws": "2"})
    assert response.status_code == 409
    assert "höchstens 1-mal" in response.get_json()["error"]
    assert table.snapshot(game)["version"] == 1


def test_rock_the_bock_roll_and_wolf_choice_through_the_forms(client, table):
    game = table.create_game("rockthebock", BOCK_SETUP, PIN)
    unlock(client, game)
    roll = {"count_bock": "3", "count_wolf": "4", "count_goat_red": "2", "count_goat_green": "1"}
    snap = post(client, f"/games/{game}/rockthebock/roll", data=roll).get_json()["snapshot"]
    kinds = {c["kind"]: c for c in snap["view"]["choices"]}
    assert kinds["wolf"]["receivers"] == ["Bo"]
    snap = post(client, f"/games/{game}/rockthebock/choose",
                data={"kind": "wolf", "victim": "Bo"}).get_json()["snapshot"]
    players = {p["name"]: p for p in snap["standings"]["players"]}
    assert players["Bo"]["current"]["wolves"] == 4
    assert players["Rita"]["current"]["crossed"] == 4
    assert snap["view"]["turn"]["name"] == "Bo"


@pytest.mark.parametrize(
    "path, data, status, words",
    [
        ("roll", {"count_bock": "x"}, 400, "keine Zahl"),
        ("roll", {"count_bock": "11"}, 400, "keine Zahl"),
        ("roll", {"count_bock": "3"}, 409, "noch 10 Würfel"),
        ("choose", {"kind": "bock"}, 409, "muss erst würfeln"),
    ],
)
def test_rock_the_bock_bad_forms_change_nothing(client, table, path, data, status, words):
    game = table.create_game("rockthebock", BOCK_SETUP, PIN)
    unlock(client, game)
    response = post(client, f"/games/{game}/rockthebock/{path}", data=data)
    assert response.status_code == status
    assert words in response.get_json()["error"]
    assert table.snapshot(game)["version"] == 0


def abrocken_form(**extra):
    # The seed example: 2 songs on stage, 3 beers in all; Ozzy (1 card) gets 6, Lemmy
    # (2 cards + 1 matching song, Fanfaktor 3) gets 18.
    data = {"band": "Slayer", "songs_on_stage": "2", "initiator": "Ozzy",
            "join_0": "1", "beers_0": "2", "cards_0": "1", "songs_0": "0",
            "join_1": "1", "beers_1": "1", "cards_1": "2", "songs_1": "1",
            "beers_2": "1", "cards_2": "1"}
    data.update(extra)
    return data


def test_wacken_preview_shows_the_seed_arithmetic_and_stores_nothing(client, table):
    game = table.create_game("wacken", WACKEN_SETUP, PIN)
    result = post(client, f"/games/{game}/wacken/preview", data=abrocken_form()).get_json()
    result = result["result"]
    assert result["gigfaktor_formula"] == "2 × 3 = 6"
    assert [(f["player"], f["wristbands_formula"]) for f in result["fans"]] == [
        ("Ozzy", "6 × 1 = 6"), ("Lemmy", "6 × 3 = 18")]
    assert table.snapshot(game)["version"] == 0


def test_wacken_abrocken_cancel_and_end_through_the_forms(client, table):
    game = table.create_game("wacken", WACKEN_SETUP, PIN)
    assert post(client, f"/games/{game}/wacken/abrocken",
                data=abrocken_form()).status_code == 403  # guests only preview
    unlock(client, game)
    snap = post(client, f"/games/{game}/wacken/abrocken",
                data=abrocken_form()).get_json()["snapshot"]
    assert [p["wristbands"] for p in snap["view"]["tally"]] == [6, 18, 0]
    snap = post(client, f"/games/{game}/wacken/cancel",
                data={"band": "Slayer", "initiator": "Doro"}).get_json()["snapshot"]
    assert [p["wristbands"] for p in snap["view"]["tally"]] == [6, 18, 0]
    snap = post(client, f"/games/{game}/wacken/end",
                data={"reason": "rock_deck_empty"}).get_json()["snapshot"]
    assert snap["over"] and snap["standings"]["winners"] == ["Lemmy"]


def test_a_finished_game_is_reopened_with_its_pin_never_by_a_guest(app, client, table):
    """The scorekeeper who locked (or left) can still take back the entry that ended the
    game; it runs again. Without the PIN nothing is stored."""
    game = table.create_game("wacken", WACKEN_SETUP, PIN)
    end = {"action": "game_end", "reason": "rock_deck_empty"}
    assert post(client, f"/games/{game}/reopen", data={"pin": PIN}).status_code == 409
    table.submit(game, end, "Kim")
    page = client.get(f"/games/{game}").get_data(as_text=True)
    assert 'id="reopen"' in page and 'id="unlock"' not in page
    assert "Letzten Eintrag zurücknehmen" in page
    guest = app.test_client()
    assert post(guest, f"/games/{game}/undo").status_code == 403
    response = post(guest, f"/games/{game}/reopen", data={"pin": "0000"})
    assert response.status_code == 403 and "PIN" in response.get_json()["error"]
    response = guest.post(f"/games/{game}/reopen", data={"csrf_token": csrf(guest)})
    assert response.status_code == 403  # no PIN at all: refused the same way
    assert table.snapshot(game)["version"] == 1 and table.snapshot(game)["over"]
    response = client.post(f"/games/{game}/reopen",
                           data={"pin": PIN, "who": "Mo", "csrf_token": csrf(client)})
    assert response.status_code == 302
    snap = table.snapshot(game)
    assert snap["over"] is False and snap["version"] == 2
    assert snap["history"][-1]["kind"] == "undo" and snap["history"][-1]["who"] == "Mo"
    page = client.get(f"/games/{game}").get_data(as_text=True)
    assert 'id="keeper"' in page and 'id="reopen"' not in page  # running, and theirs again
    assert post(guest, f"/games/{game}/undo").status_code == 403  # the guest still cannot
    assert post(client, f"/games/{game}/reopen", data={"pin": PIN}).status_code == 409
    assert table.snapshot(game)["version"] == 2


def test_wacken_bad_abrocken_is_refused(client, table):
    game = table.create_game("wacken", WACKEN_SETUP, PIN)
    unlock(client, game)
    three_beers = abrocken_form(beers_0="3")
    response = post(client, f"/games/{game}/wacken/abrocken", data=three_beers)
    assert response.status_code == 409 and "1 oder 2 Biere" in response.get_json()["error"]
    response = post(client, f"/games/{game}/wacken/abrocken", data=abrocken_form(band=""))
    assert response.status_code == 400 and "Band" in response.get_json()["error"]
    assert table.snapshot(game)["version"] == 0


def test_game_specific_routes_refuse_another_game(client, table):
    game = table.create_game("wacken", WACKEN_SETUP, PIN)
    unlock(client, game)
    assert post(client, f"/games/{game}/schocken/throw", data={}).status_code == 404


# -- exports, QR, camera, pages -------------------------------------------------------

def test_exports_are_the_tables_log_and_csv(client, table):
    game = table.create_game("wacken", WACKEN_SETUP, PIN)
    unlock(client, game)
    post(client, f"/games/{game}/wacken/abrocken", data=abrocken_form())
    log = client.get(f"/games/{game}/export.jsonl")
    assert log.status_code == 200 and "attachment" in log.headers["Content-Disposition"]
    lines = log.get_data(as_text=True).splitlines()
    assert json.loads(lines[0])["format"] == "dice-companion-log"
    assert json.loads(lines[1])["action"] == "abrocken"
    assert log.get_data(as_text=True) == table.export_log(game)
    csv = client.get(f"/games/{game}/export.csv")
    assert csv.mimetype == "text/csv" and csv.get_data(as_text=True) == table.export_csv(game)


def test_qr_code_decodes_to_the_dashboard_address():
    url = "http://192.168.178.20:8080/"
    rows = qr_text(url).splitlines()
    # Undo the half-block drawing: each character is two modules (top, bottom).
    top = {"█": 0, "▀": 0, "▄": 1, " ": 1}
    bottom = {"█": 0, "▄": 0, "▀": 1, " ": 1}
    modules = []
    for row in rows:
        modules.append([top[c] for c in row])
        modules.append([bottom[c] for c in row])
    dark = np.array(modules, dtype=np.uint8)
    image = np.where(dark == 1, 0, 255).astype(np.uint8)
    image = cv2.resize(image, None, fx=10, fy=10, interpolation=cv2.INTER_NEAREST)
    image = cv2.copyMakeBorder(image, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
    decoded, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    assert decoded == url
    assert qr_svg(url).startswith("<svg")


def test_dashboard_url_names_the_lan_address_when_listening_everywhere():
    assert dashboard_url("127.0.0.1", 8080) == "http://127.0.0.1:8080/"
    url = dashboard_url("0.0.0.0", 9000)
    assert url.startswith("http://") and url.endswith(":9000/") and "0.0.0.0" not in url


def test_join_page_shows_address_and_qr(client):
    page = client.get("/join", base_url="http://192.168.1.7:8080").get_data(as_text=True)
    assert "http://192.168.1.7:8080/" in page and "<svg" in page
    assert client.get("/join/qr.svg", base_url="http://192.168.1.7:8080").mimetype == (
        "image/svg+xml")


def test_the_big_screen_offers_no_qr_code_phones_could_not_open(table, settings):
    """Bound to loopback only, the table view's code would carry 127.0.0.1: it links to
    the join page's explanation instead, and the code itself is refused."""
    game = table.create_game("schocken", {"players": ["Anna", "Ben"]}, "4711")
    loopback = Settings(data_dir=settings.data_dir, host="127.0.0.1", port=8080, threads=8)
    client = create_app(table, loopback, TEST_CONFIG).test_client()
    page = client.get(f"/games/{game}/table").get_data(as_text=True)
    assert "/join/qr.svg" not in page and 'id="table-join-loopback"' in page
    assert "Handys kommen noch nicht heran" in page
    refused = client.get("/join/qr.svg")
    assert refused.status_code == 404 and "--host 0.0.0.0" in refused.get_data(as_text=True)
    page = client.get(f"/games/{game}/table", base_url="http://192.168.1.7:8080").get_data(
        as_text=True)
    assert "/join/qr.svg" in page and "table-join-loopback" not in page


def test_join_page_never_offers_a_loopback_address_to_phones(table, settings, monkeypatch):
    from companion.web import export

    # The demo serves on 127.0.0.1 and records that address: phones could not open it.
    app = create_app(table, settings, {**TEST_CONFIG, "DASHBOARD_URL": "http://127.0.0.1:8080/"})
    page = app.test_client().get("/join").get_data(as_text=True)
    assert "<svg" not in page and "--host 0.0.0.0" in page
    # Listening everywhere, with avahi running: the LAN address first, then the mDNS name.
    monkeypatch.setattr(export, "lan_address", lambda: "192.168.1.7")
    monkeypatch.setattr(export, "mdns_name", lambda: "dice-companion.local")
    anywhere = Settings(data_dir=settings.data_dir, host="0.0.0.0", port=8080)
    page = create_app(table, anywhere, TEST_CONFIG).test_client().get(
        "/join", base_url="http://127.0.0.1:8080").get_data(as_text=True)
    assert 'id="join-url" href="http://192.168.1.7:8080/"' in page
    assert "http://dice-companion.local:8080/" in page


def test_start_up_banner_says_how_phones_can_join(monkeypatch):
    import io

    from companion.web import server

    out = io.StringIO()
    server.print_banner("http://127.0.0.1:8080/", out=out)
    assert "--host 0.0.0.0" in out.getvalue()
    monkeypatch.setattr(server, "mdns_name", lambda: "dice-companion.local")
    out = io.StringIO()
    server.print_banner("http://192.168.1.7:8080/", out=out)
    assert "http://dice-companion.local:8080/" in out.getvalue()


def test_camera_picture_and_reading(client, table):
    assert client.get("/camera/latest.jpg").status_code == 404
    assert client.get("/camera/latest.json").get_json() == {"reading": None}
    jpeg = b"\xff\xd8" + b"\x00" * 50 + b"\xff\xd9"
    reading = {"kind": "pips", "frame_size": [640, 480], "dice": [
        {"region": {"center": [100, 100], "size": 40, "angle": 0,
                    "corners": [[80, 80], [120, 80], [120, 120], [80, 120]], "confidence": 0.9},
         "value": 5, "confidence": 0.97, "uncertain": False}]}
    table.publish_picture(jpeg, reading)
    picture = client.get("/camera/latest.jpg")
    assert picture.data == jpeg and picture.mimetype == "image/jpeg"
    assert client.get("/camera/latest.json").get_json()["reading"]["dice"][0]["value"] == 5
    assert client.get("/camera").status_code == 200


@pytest.mark.parametrize("game, setup", [("schocken", SCHOCKEN_SETUP),
                                         ("rockthebock", BOCK_SETUP), ("wacken", WACKEN_SETUP)])
def test_every_page_of_every_game_renders_for_guest_and_scorekeeper(client, table, game, setup):
    game_id = table.create_game(game, setup, PIN)
    for url in (f"/games/{game_id}", f"/games/{game_id}/table", f"/games/{game_id}/history",
                "/", "/join", "/camera", f"/games/new?game={game}"):
        assert client.get(url).status_code == 200, url
    guest = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'id="unlock"' in guest and 'id="keeper"' not in guest
    unlock(client, game_id)
    keeper = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'id="keeper"' in keeper and 'id="unlock"' not in keeper
    assert f"/static/{game}.js" in keeper


def test_static_files_are_served(client):
    for name in ("style.css", "common.js", "schocken.js", "rockthebock.js", "wacken.js",
                 "camera.js"):
        response = client.get(f"/static/{name}")
        assert response.status_code == 200, name
        response.close()  # static files are streamed from disk



def test_schocken_turned_sixes_pass_through_the_form_to_the_engine(client, table):
    setup = dict(SCHOCKEN_SETUP, rules={"turn_sixes": True})
    game = table.create_game("schocken", setup, PIN)
    unlock(client, game)
    snap = post(client, f"/games/{game}/schocken/throw",
                data={"d1": "1", "d2": "5", "d3": "4", "throws": "2", "hand": "0",
                      "turned": "1"}).get_json()["snapshot"]
    assert snap["history"][-1]["action"]["turned"] == 1
    refused = post(client, f"/games/{game}/schocken/throw",
                   data={"d1": "1", "d2": "5", "d3": "4", "throws": "1", "turned": "1"})
    assert refused.status_code == 409  # a single throw leaves nothing to turn for
    assert table.snapshot(game)["version"] == 1


def test_a_house_rules_decimal_is_written_the_german_way(client, table):
    game = table.create_game("schocken", {"players": ["Anna", "Ben"],
                                          "rules": {"tab_amount": "1.5", "tab_unit": "€"}}, PIN)
    assert ">1,5<" in client.get(f"/games/{game}?lang=de").get_data(as_text=True)
    assert ">1.5<" in client.get(f"/games/{game}?lang=en").get_data(as_text=True)
