"""Statistics across games equal a direct count, and renaming or merging keeps every count.

Hypothesis draws a Stammtisch history: regulars on the roster (two entries of them the
same person, to be merged later), guests, several Schocken and Rock the Bock games over
a few evenings, played through the Table (stored in SQLite) with random legal moves and
the odd mistaken action undone again. While playing, the test counts by itself what
happened (from the engine states it steps through, not from the statistics code). The
statistics the Table folds from the stored logs must equal those counts, for all time
and for one evening, before and after a rename and a merge.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games import rockthebock as rtb
from companion.games import schocken
from companion.games.schocken_throws import classify
from companion.stats import Period
from companion.store import Store
from companion.table import Table

# Person -> how they are named at the table (a regular may be typed in another case).
REGULARS = {"anna": "Anna", "ben": "Ben", "cem": "Cem"}
# One person with two roster entries ("Dora" and "Doro"), to be merged into "Dora".
TWINS = ("Dora", "Doro")
GUESTS = ("Gast", "Zoe")
DAY = 86_400.0


class Clock:
    """The table's clock: one second per call, a day more when the test says so."""

    def __init__(self) -> None:
        self.now = 1_767_000_000.0  # late December 2025, an afternoon in Europe

    def __call__(self) -> float:
        self.now += 1
        return self.now


def _person(name: str) -> str:
    """Who a seat name is, for the direct count (twins are one person)."""
    if name in TWINS:
        return "dora"
    return name.casefold()


def _schocken_turn(state: schocken.State, rng: random.Random) -> dict:
    waiting = state.awaiting_reveal
    if waiting is not None:
        dice = [rng.randint(1, 6) for _ in range(3)]
        return {"action": "reveal", "player": waiting, "dice": dice, "hand": rng.random() < .5}
    player = state.to_throw
    throws = rng.randint(1, state.throw_limit or 3)
    if not state.entries and throws == 3 and rng.random() < 0.3:
        return {"action": "throw", "player": player, "throws": 3, "hidden": True}
    dice = [rng.randint(1, 6) for _ in range(3)]
    if rng.random() < 0.15:
        dice[:2] = [1, 1]
    return {"action": "throw", "player": player, "throws": throws, "dice": dice,
            "hand": throws == 1 or rng.random() < 0.4}


def _play_schocken(table: Table, names: list[str], rng: random.Random,
                   counts: dict[str, Counter]) -> None:
    setup = {"players": names, "starter": names[0], "rules": {"deckel": rng.randint(2, 4)}}
    game_id = table.create_game("schocken", setup, "1234")
    state = schocken.start(schocken.Setup.from_dict(setup))
    for name in names:
        counts[_person(name)]["games"] += 1
    while not schocken.is_over(state):
        action = _schocken_turn(state, rng)
        if rng.random() < 0.08:
            # A mistaken entry, undone at once: it must count for nothing.
            table.submit(game_id, action, "Kim")
            table.undo(game_id, "Kim")
        table.submit(game_id, action, "Kim")
        before = state
        state = schocken.apply(state, schocken.event_from_dict(action))
        person = counts[_person(action["player"])]
        if action["action"] == "throw":
            person["rounds"] += 1
        if "dice" in action:
            throw = schocken.Throw(tuple(action["dice"]), hand=action.get("hand", True))
            kind = classify(throw, state.rules).kind
            person["schocks"] += kind in ("schock", "schock_aus")
            person["handschocks"] += kind in ("schock", "schock_aus") and throw.hand
            person["schock_aus"] += kind == "schock_aus"
            person["generals"] += kind == "general"
            person["strassen"] += kind == "strasse"
        if state.rounds_played > before.rounds_played:
            last = state.last_round
            counts[_person(last.loser)]["rounds_lost"] += 1
            counts[_person(last.loser)]["deckel_received"] += last.deckel
    for loser in state.half_losers:
        counts[_person(loser)]["halves_lost"] += 1
    counts[_person(state.game_loser)]["games_lost"] += 1
    if state.durchmarsch:
        counts[_person(state.game_loser)]["durchmarsch"] += 1
    else:
        counts[_person(state.game_loser)]["finale_lost"] += 1
        for finalist in set(state.half_losers):
            counts[_person(finalist)]["finales"] += 1


def _play_bock(table: Table, names: list[str], rng: random.Random,
               counts: dict[str, Counter]) -> None:
    colours = ("red", "blue", "green", "yellow")
    setup = {"players": [{"name": n, "colour": c} for n, c in zip(names, colours, strict=False)],
             "youngest": names[-1]}
    game_id = table.create_game("rockthebock", setup, "1234")
    state = rtb.start(rtb.Setup.from_dict(setup))
    for name in names:
        counts[_person(name)]["games"] += 1
    while not state.over:
        player = state.setup.players[state.turn].name
        if state.pending is None or rtb.needs_reroll(state):
            left = state.sheets[state.turn].dice_left
            faces = Counter(rng.choices(rtb.FACES, k=left))
            action = {"action": "roll", "player": player, "faces": dict(faces)}
        else:
            option = rng.choice(rtb.legal_choices(state))
            action = {"action": "choose", "player": player, "kind": option.kind}
            if option.kind == "wolf":
                action["victim"] = rng.choice(option.receivers)
                counts[_person(player)]["wolves_given"] += option.count
                counts[_person(action["victim"])]["wolves_received"] += option.count
        table.submit(game_id, action, "Kim")
        state = rtb.apply(state, rtb.event_from_dict(action))
    totals = rtb.totals(state)
    best = max(totals)
    for seat, name in enumerate(names):
        counts[_person(name)]["points"] += totals[seat]
        counts[_person(name)]["rounds"] += rtb.ROUNDS
        counts[_person(name)]["games_won"] += totals[seat] == best


def _key(table: Table, person: str, entries: dict[str, int]) -> str:
    if person in entries:
        return f"p{entries[person]}"
    return f"g:{next(g for g in GUESTS if g.casefold() == person)}"


def _check(table: Table, expected: dict[str, dict[str, Counter]], entries: dict[str, int],
           period: str = "", twins_merged: bool = True,
           seated: dict[str, set[str]] | None = None) -> None:
    stats = table.stammtisch.statistics(period)["games"]
    for game, people in expected.items():
        for person, counts in people.items():
            if person == "dora" and not twins_merged:
                # Two roster entries of one person: their counts add up to the person's.
                rows = [stats[game].get(f"p{entries[t]}", {}) for t in ("dora", "doro")]
                got = {c: sum(r.get(c, 0) for r in rows) for c in counts}
            else:
                got = stats[game][_key(table, person, entries)]
            for counter, value in counts.items():
                assert got[counter] == value, (game, person, counter, period)
        # Nobody is counted who did not play; unmerged, each twin who played has a row.
        twins = len((seated or {}).get(game, set()) & set(TWINS)) if not twins_merged else 0
        assert len(stats[game]) == len(people) + max(0, twins - 1)


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), games=st.lists(st.sampled_from(("schocken", "rockthebock")),
                                                   min_size=1, max_size=4))
@pytest.mark.slow
def test_statistics_equal_a_direct_count_and_survive_rename_and_merge(
    tmp_path_factory, seed: int, games: list[str]
) -> None:
    rng = random.Random(seed)
    clock = Clock()
    store = Store(tmp_path_factory.mktemp("stats") / "companion.sqlite3")
    table = Table(store, clock=clock, pin_iterations=1000)
    entries = {person: table.stammtisch.add_player(name) for person, name in REGULARS.items()}
    entries["dora"] = table.stammtisch.add_player(TWINS[0])
    entries["doro"] = table.stammtisch.add_player(TWINS[1])
    expected: dict[str, dict[str, Counter]] = {}
    seated: dict[str, set[str]] = {}
    by_evening: dict[str, dict[str, dict[str, Counter]]] = {}
    pool = [*REGULARS.values(), *TWINS, *GUESTS]
    for game in games:
        if rng.random() < 0.4:
            clock.now += DAY
        evening = table.stammtisch.current_evening()
        names = rng.sample(pool, rng.randint(2, 4 if game == "rockthebock" else 3))
        # Regulars are sometimes typed in lower case: still the same roster player.
        names = [n.lower() if n in REGULARS.values() and rng.random() < 0.3 else n
                 for n in names]
        counts: dict[str, Counter] = {}
        seated.setdefault(game, set()).update(names)
        for name in names:
            counts[_person(name)] = Counter()
        (_play_schocken if game == "schocken" else _play_bock)(table, names, rng, counts)
        for target in (expected.setdefault(game, {}),
                       by_evening.setdefault(evening, {}).setdefault(game, {})):
            for person, c in counts.items():
                target.setdefault(person, Counter()).update(c)
                target[person].update({"games": 0})
    _check(table, expected, entries, twins_merged=False, seated=seated)
    evening, per_game = sorted(by_evening.items())[0]
    if len(by_evening) == 1:
        _check(table, per_game, entries, period=evening, twins_merged=False, seated=seated)
    stats = table.stammtisch.statistics
    assert stats(evening[:4])["games"] == stats()["games"] or \
        len({e[:4] for e in by_evening}) > 1

    # Renaming a regular and merging the twins: every count stays where it belongs.
    table.stammtisch.update_player(entries["anna"], "Anna Berger", "Anni", "red")
    table.stammtisch.merge_players(entries["doro"], entries["dora"])
    _check(table, expected, entries)
    _check(table, per_game, entries, period=evening)
    names = table.stammtisch.statistics()["names"]
    assert names[f"p{entries['anna']}"] == "Anna Berger"
    assert f"p{entries['doro']}" not in names
    # The same history read by a fresh Table (a restart) folds to the same numbers.
    assert Table(store).stammtisch.statistics()["games"] == table.stammtisch.statistics()["games"]
    store.close()


def test_wacken_wristbands_and_winners_are_counted(table: Table) -> None:
    log = (Path(__file__).parents[1] / "fixtures/games/wacken-seed.jsonl").read_text()
    table.stammtisch.add_player("Anna")
    table.import_log(log, "1234")
    table.import_log(log, "1234")
    stats = table.stammtisch.statistics()["games"]["wacken"]
    game = table.snapshot(1)["standings"]
    anna = next(p for p in game["players"] if p["name"] == "Anna")
    assert stats["p1"]["games"] == 2
    assert stats["p1"]["wristbands"] == 2 * anna["wristbands"]
    assert stats["p1"]["games_won"] == 2 * ("Anna" in game["winners"])
    assert stats["g:Ben"]["abrocken"] == 2 * next(
        p["abrocken"] for p in game["players"] if p["name"] == "Ben")


def test_periods_are_checked() -> None:
    assert Period.parse("2026").contains("2026-12-01")
    assert Period.parse("2026-12").contains("2026-12-01")
    assert not Period.parse("2026-11").contains("2026-12-01")
    assert Period.parse("").contains("1999-01-01")
    for bad in ("26", "2026-13", "2026-02-30", "2026-1", "x"):
        try:
            Period.parse(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad!r} was accepted")


def test_hidden_games_do_not_count(table: Table) -> None:
    setup = {"players": ["Anna", "Ben"], "starter": "Anna", "rules": {"deckel": 2}}
    game_id = table.create_game("schocken", setup, "1234")
    table.submit(game_id, {"action": "throw", "player": "Anna", "throws": 1,
                           "dice": [1, 1, 1], "hand": True}, "Kim")
    assert table.stammtisch.statistics()["games"]["schocken"]["g:Anna"]["schock_aus"] == 1
    table.hide(game_id)
    assert table.stammtisch.statistics()["games"]["schocken"] == {}
    assert list(itertools.chain(*table.stammtisch.statistics()["games"].values())) == []
