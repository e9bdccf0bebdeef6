"""Kacken auf Wacken engine: Abrocken arithmetic, validation, tally, game end."""

from __future__ import annotations

import copy
import json

import pytest

from companion.games import IllegalAction, ParseError, RuleError
from companion.games import wacken as wk
from companion.games.wacken import Abrocken, AbrockenCancelled, GameEnd, Participant, Setup
from companion.registry import GAMES
from companion.wording import file_catalogue, word

SEED_EXAMPLE = Abrocken(
    band="AC/WC",
    songs_on_stage=2,
    initiator="Anna",
    participants=(Participant("Anna", beers=2, cards=1), Participant("Ben", 1, 2, songs=1)),
)


def test_seed_example_gives_6_and_18():
    result = wk.abrocken_result(SEED_EXAMPLE)
    assert (result.songs_on_stage, result.beers, result.gigfaktor) == (2, 3, 6)
    assert [(f.player, f.fanfaktor, f.wristbands) for f in result.fans] == [
        ("Anna", 1, 6),
        ("Ben", 3, 18),
    ]
    d = result.to_dict()
    assert d["gigfaktor_formula"] == "2 × 3 = 6"
    assert d["fans"][1]["fanfaktor_formula"] == "2 + 1 = 3"
    assert d["fans"][1]["wristbands_formula"] == "6 × 3 = 18"


@pytest.mark.parametrize(
    ("songs", "beers", "cards", "matching", "expected"),
    # Gigfaktor 3 songs × 7 beers = 21; Fanfaktor 1+1, 3+0, 2+2
    [(1, [1], [1], [0], [1]), (3, [2, 1, 4], [1, 3, 2], [1, 0, 2], [42, 63, 84])],
)
def test_wristbands_are_gigfaktor_times_fanfaktor(songs, beers, cards, matching, expected):
    names = ["Anna", "Ben", "Cleo"][: len(beers)]
    event = Abrocken("Harter Hans", songs, "Anna", tuple(
        Participant(n, b, c, s) for n, b, c, s in zip(names, beers, cards, matching, strict=True)
    ))
    assert [f.wristbands for f in wk.abrocken_result(event).fans] == expected


@pytest.mark.parametrize(
    ("participants", "songs_on_stage", "message"),
    [
        ((Participant("Anna", 3, 1),), 2, "Anna started the Abrocken and puts 1 or 2 beers.*not 3"),
        ((Participant("Anna", 0, 1),), 2, "puts 1 or 2 beers before the stage, not 0"),
        ((Participant("Anna", 1, 1), Participant("Ben", 0, 2)), 2, "Ben needs at least one beer"),
        ((Participant("Anna", 1, 0),), 2, "Anna needs at least one matching Rock! card"),
        ((Participant("Anna", 1, 1), Participant("Ben", 1, 0)), 2, "Ben needs at least one match"),
        ((Participant("Anna", 1, 3, 3),), 2, "cannot match 3 songs: AC/WC has only 2 on stage"),
        ((Participant("Anna", 1, 1, 2),), 2, "cannot match 2 songs with 1 matching cards"),
        ((Participant("Anna", 1, 1), Participant("Anna", 1, 1)), 2, "Anna is listed twice"),
        ((Participant("Ben", 1, 1),), 2, "initiator Anna must be among the participants"),
        ((Participant("Anna", 1, 1),), 0, "AC/WC has no songs on stage"),
    ],
)
def test_rule_breaking_abrocken_is_refused(participants, songs_on_stage, message):
    event = Abrocken("AC/WC", songs_on_stage, "Anna", participants)
    with pytest.raises(IllegalAction, match=message):
        wk.abrocken_result(event)
    state = wk.start(Setup(("Anna", "Ben")))
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction, match=message):
        wk.apply(state, event)
    assert state == before


def test_joiners_may_bring_more_than_two_beers():
    event = Abrocken("AC/WC", 1, "Anna", (Participant("Anna", 1, 1), Participant("Ben", 3, 1)))
    assert wk.abrocken_result(event).gigfaktor == 4


def test_tally_adds_up_abrocken_and_ignores_cancelled_ones():
    state = wk.start(Setup(("Anna", "Ben", "Cleo")))
    state = wk.apply(state, SEED_EXAMPLE)
    assert state.wristbands == (6, 18, 0)
    state = wk.apply(state, AbrockenCancelled("Harter Hans", "Cleo"))
    assert state.wristbands == (6, 18, 0)
    state = wk.apply(state, Abrocken("Harter Hans", 1, "Cleo", (Participant("Cleo", 2, 2),)))
    assert state.wristbands == (6, 18, 4)
    table = wk.standings(state)
    assert table["players"] == [
        {"name": "Anna", "wristbands": 6, "abrocken": 1},
        {"name": "Ben", "wristbands": 18, "abrocken": 1},
        {"name": "Cleo", "wristbands": 4, "abrocken": 1},
    ]
    assert table["leaders"] == ["Ben"] and table["winners"] == [] and not table["over"]


def test_game_end_names_the_reason_and_blocks_further_actions():
    state = wk.apply(wk.start(Setup(("Anna", "Ben"))), GameEnd("on_stage_deck_empty"))
    assert wk.is_over(state)
    table = wk.standings(state)
    assert table["over"] and table["reason"] == "on_stage_deck_empty"
    assert table["winners"] == ["Anna", "Ben"]  # nobody scored: a shared win
    for event in (SEED_EXAMPLE, AbrockenCancelled("AC/WC", "Anna"), GameEnd("rock_deck_empty")):
        with pytest.raises(IllegalAction, match=r"game is over \(the On-Stage deck is empty\)"):
            wk.apply(state, event)


def test_unknown_players_are_refused():
    state = wk.start(Setup(("Anna", "Ben")))
    with pytest.raises(IllegalAction, match="'Cleo' is not playing; the players are Anna, Ben"):
        wk.apply(state, Abrocken("AC/WC", 1, "Anna",
                                 (Participant("Anna", 1, 1), Participant("Cleo", 1, 1))))
    with pytest.raises(IllegalAction, match="'Dora' is not playing"):
        wk.apply(state, AbrockenCancelled("AC/WC", "Dora"))


def test_view_shows_tally_last_arithmetic_and_history():
    state = wk.start(Setup(("Anna", "Ben")))
    assert wk.view(state)["last_abrocken"] is None
    state = wk.apply(state, SEED_EXAMPLE)
    state = wk.apply(state, AbrockenCancelled("Harter Hans", "Ben"))
    state = wk.apply(state, GameEnd("rock_deck_empty"))
    v = wk.view(state)
    assert v["tally"] == [{"name": "Anna", "wristbands": 6}, {"name": "Ben", "wristbands": 18}]
    assert v["last_abrocken"]["gigfaktor"] == 6  # the cancelled one scored nothing
    assert [h["action"] for h in v["history"]] == ["abrocken", "abrocken_cancelled", "game_end"]
    texts = [h["text"] for h in v["history"]]
    assert said(texts[0]) == (
        "Anna rocks out at AC/WC: 2 songs × 3 beers = 6; Anna 6 × 1 = 6 and Ben 6 × 3 = 18."
    )
    assert said(texts[0], "de").startswith("Anna rockt bei AC/WC ab: 2 Songs × 3 Bier")
    assert "Kack" in said(texts[1], "de") and "nothing scored" in said(texts[1])
    assert said(texts[2]) == "Game over: the Rock! deck is empty."
    assert said(texts[2], "de") == "Spielende: der Rock!-Stapel ist leer."
    assert v["over"] and v["leaders"] == ["Ben"]


def test_describe_tells_one_event_as_a_phrase_worded_in_either_language():
    # the fold keeps describe(event) for the history and the CSV export
    assert said(wk.describe(GameEnd("on_stage_deck_empty"))) == (
        "Game over: the On-Stage deck is empty.")
    assert said(wk.describe(SEED_EXAMPLE), "de") == (
        "Anna rockt bei AC/WC ab: 2 Songs × 3 Bier = 6; Anna 6 × 1 = 6 und Ben 6 × 3 = 18."
    )


# --- setup, rules, parsing -------------------------------------------------------


def test_no_rule_flags_and_rules_refuse_any_flag():
    assert GAMES.rules("wacken") is wk
    assert wk.RULE_FLAGS == ()
    assert wk.Rules.from_dict({}).to_dict() == {}
    with pytest.raises(RuleError, match="unknown Kacken auf Wacken rule 'deckel'"):
        wk.Rules.from_dict({"deckel": "13"})


@pytest.mark.parametrize(
    ("players", "message"),
    [(("Anna",), "at least 2 players, not 1"), (("Anna", "Anna"), "names must differ"),
     (("Anna", ""), "non-empty name")],
)
def test_setup_rejects_bad_tables(players, message):
    with pytest.raises(ParseError, match=message):
        Setup(players)


def test_setup_and_events_round_trip_through_json():
    setup = Setup(("Anna", "Ben"))
    assert setup.to_dict() == {"players": ["Anna", "Ben"], "rules": {}}
    assert Setup.from_dict(json.loads(json.dumps(setup.to_dict()))) == setup
    for event in (SEED_EXAMPLE, AbrockenCancelled("AC/WC", "Ben"), GameEnd("rock_deck_empty")):
        assert wk.event_from_dict(json.loads(json.dumps(wk.event_to_dict(event)))) == event
    short = {"action": "abrocken", "band": "AC/WC", "songs_on_stage": 2, "initiator": "Anna",
             "participants": [{"player": "Anna", "beers": 2, "cards": 1}]}
    assert wk.event_from_dict(short).participants == (Participant("Anna", 2, 1, 0),)


@pytest.mark.parametrize(
    ("d", "message"),
    [
        ({"action": "rock"}, "unknown Kacken auf Wacken action 'rock'"),
        ({"action": "game_end", "reason": "tired"}, "game end reason 'tired'"),
        ({"action": "game_end"}, "missing 'reason'"),
        ({"action": "abrocken_cancelled", "band": "", "initiator": "A"}, "band must be non-empty"),
        ({"action": "abrocken", "band": "X", "songs_on_stage": "2", "initiator": "A",
          "participants": []}, "songs_on_stage must be a whole number"),
        ({"action": "abrocken", "band": "X", "songs_on_stage": 2, "initiator": "A",
          "participants": [{"player": "A", "beers": -1, "cards": 1}]}, "A's beers must be"),
        ({"action": "abrocken", "band": "X", "songs_on_stage": 2, "initiator": "A",
          "participants": [{"player": "A", "beers": 1}]}, "participant is missing 'cards'"),
        ({"action": "abrocken", "band": "X", "songs_on_stage": 2, "initiator": "A",
          "participants": {"A": 1}}, "must be a list"),
    ],
)
def test_event_from_dict_reports_parse_errors(d, message):
    with pytest.raises(ParseError, match=message):
        wk.event_from_dict(d)


def said(phrase, lang: str = "en") -> str:
    """An engine's phrase as the dashboard words it in ``lang``."""
    return word(phrase, file_catalogue(lang), file_catalogue("en"))
