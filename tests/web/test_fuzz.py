"""A fuzz pass over every route: hostile input gets a 4xx, never a 500, and changes no score.

Every URL rule of the app is called, as a guest and as the unlocked scorekeeper, with
malformed, wrong-type, oversized, unicode, nested and huge-number input and with unknown
ids. Each answer must come within a second (the server stays there for the others); a
refused request that took longer is timed twice more and its fastest time counts, so a load
spike on a shared machine is not taken for a slow route (a slow route is slow every time).
"""

from __future__ import annotations

import json
import re
import time

import pytest
from conftest import PIN, SCHOCKEN_SETUP, csrf, unlock

BIG = "9" * 5000
NESTED = "[" * 100_000
IDS = ["0", str(2**63), str(10**30)]
VALUES = ["", "x", "0", "-1", "1.5", "1e999999999", BIG, "٣", "1_0", "+3", "\u202eabc",
          "\x00", "x" * 100_000, "null", "[]", "{}", NESTED, "true"]
JSON_BODIES = [NESTED, '{"a":' * 20_000, '{"action": "throw", "dice": [' + BIG + "]}",
               '{"action": "throw", "player": "Anna", "throws": 1e999999, "dice": [1,1,4]}',
               '{"action": "throw", "player": "\u202eAnna", "throws": 1, "dice": [1,1,4]}',
               '"just a string"', "[1, 2]", "NaN", "{bad json", '{"action": ' + '"x" ' * 3 + "}",
               json.dumps({"action": "throw", "player": "Anna", "throws": "1", "dice": "114"}),
               json.dumps({"action": "correct", "version": 2**70, "event": {}})]
FIELDS = ["pin", "pin2", "who", "game", "name_0", "name_1", "d1", "d2", "d3", "throws",
          "turned", "hand", "hidden", "band", "initiator", "reason", "kind", "victim",
          "count_goat", "rule_tab_amount", "rule_deckel", "admin_pin", "action", "lang"]


def _urls(app, game: int) -> list[tuple[str, str, bool]]:
    urls = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        methods = sorted(m for m in rule.methods if m in ("GET", "POST"))
        for game_id in [str(game), *IDS]:
            url = re.sub(r"<int:game_id>", game_id, rule.rule)
            url = re.sub(r"<int:version>", "1", url)
            url = re.sub(r"<[^>]+>", "x", url)
            urls.extend((method, url, game_id == str(game)) for method in methods)
            if "<" not in rule.rule:
                break
    return urls


def _scores(table, game: int) -> tuple:
    snap = table.snapshot(game)
    return snap["version"], json.dumps(snap["standings"], sort_keys=True)


@pytest.mark.slow
@pytest.mark.parametrize("as_scorekeeper", [False, True])
def test_no_route_answers_500_or_changes_a_score_on_hostile_input(app, table, as_scorekeeper):
    game = table.create_game("schocken", SCHOCKEN_SETUP, PIN)
    table.submit(game, {"action": "throw", "player": "Anna", "throws": 1, "dice": [1, 1, 4],
                        "hand": True}, "Kim")
    client = app.test_client()
    if as_scorekeeper:
        unlock(client, game)
    token = csrf(client)
    headers = {"X-CSRF-Token": token}
    slowest = 0.0
    count = 0
    urls = _urls(app, game)
    for method, url, known in urls:
        if known and url.endswith(("/remove", "/archive", "/lock")):
            continue  # they may legitimately succeed; their refusals are tested elsewhere
        requests: list[dict] = []
        if not known and method == "POST":
            requests += [dict(data=NESTED, content_type="application/json"),
                        dict(data={f: BIG for f in FIELDS} | {"csrf_token": token})]
        elif method == "GET":
            requests += [dict(query_string={"game": v, "last": v, "lang": v}) for v in VALUES[:8]]
            requests.append({})
        else:
            for value in VALUES:
                # Large values in a few fields only: every field at 100 kB is a 2 MB form.
                fields = FIELDS if len(value) < 1000 else FIELDS[:: len(FIELDS) // 3]
                requests.append(dict(data={f: value for f in fields} | {"csrf_token": token}))
            for body in JSON_BODIES:
                requests.append(dict(data=body, content_type="application/json"))
            requests.append(dict(data=b"\xff\xfe\x00garbage", content_type="application/json"))
            requests.append(dict(data={"csrf_token": token, "pin": ["1", "2"]}))
        for kwargs in requests:
            before = _scores(table, game)
            started = time.monotonic()
            response = client.open(url, method=method, headers=headers, **kwargs)
            took = time.monotonic() - started
            response.close()
            for _ in range(2):
                if took < 1.0 or response.status_code < 400:
                    break
                started = time.monotonic()
                client.open(url, method=method, headers=headers, **kwargs).close()
                took = min(took, time.monotonic() - started)
            slowest = max(slowest, took)
            count += 1
            assert response.status_code < 500, (method, url, str(kwargs)[:200])
            assert took < 1.0, (method, url, str(kwargs)[:200], took)
            if response.status_code >= 400:
                assert _scores(table, game) == before, (method, url, str(kwargs)[:200])
    assert count > 500
