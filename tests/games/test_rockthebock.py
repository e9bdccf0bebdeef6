"""Rock the Bock engine: rules, setup, turns, legal choices, illegal actions, scoring."""

from __future__ import annotations

import copy

import pytest

from companion.games import IllegalAction, ParseError, RuleError
from companion.games import rockthebock as rtb
from companion.games.rockthebock import Choice, Player, Roll, Rules, Setup
from companion.registry import GAMES
from companion.wording import file_catalogue, word


def make_setup(*pairs: str, youngest: str | None = None, **rules: str) -> Setup:
    """``make_setup("Anna:red", "Ben:blue")`` → a Setup in that seat order."""
    players = tuple(Player(*pair.split(":")) for pair in pairs)
    return Setup(players, youngest or players[0].name, Rules.from_dict(rules))


def play(state: rtb.State, player: str, faces: dict[str, int], kind: str,
         victim: str | None = None) -> rtb.State:
    """One turn: a roll and the choice that follows it."""
    state = rtb.apply(state, Roll.of(player, faces))
    return rtb.apply(state, Choice(player, kind, victim))


def current(state: rtb.State, name: str) -> rtb.Sheet:
    return state.sheets[state.setup.seat(name)]


# --- scoring ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("bocks", "wolves", "goats", "score"),
    [(3, 2, 5, 5), (1, 3, 4, -4), (2, 2, 6, 0), (4, 0, 0, 0), (0, 0, 7, 0), (0, 1, 3, -3)],
)
def test_round_score_matches_rules_examples(bocks: int, wolves: int, goats: int, score: int):
    assert rtb.round_score(bocks, wolves, goats) == score
    assert rtb.Sheet(bocks, wolves, goats, 10).score == score


# --- rules and setup ---------------------------------------------------------


def test_rule_flags_defaults_and_help():
    assert {f.name: f.default for f in rtb.RULE_FLAGS} == {
        "unused_colour_goats": "dump",
        "start_player": "rotate",
    }
    for flag in rtb.RULE_FLAGS:
        assert flag.default in flag.choices
        assert flag.help_en.endswith(".") and flag.help_de.endswith(".")
    assert Rules().to_dict() == {"unused_colour_goats": "dump", "start_player": "rotate"}


def test_rules_from_dict_rejects_unknown_flag_and_value():
    assert Rules.from_dict({"start_player": "same"}).start_player == "same"
    with pytest.raises(RuleError, match="unknown Rock the Bock rule 'turn_sixes'"):
        Rules.from_dict({"turn_sixes": "true"})
    with pytest.raises(RuleError, match="'unused_colour_goats' does not accept 'keep'.*dump"):
        Rules.from_dict({"unused_colour_goats": "keep"})


def test_the_registry_finds_rockthebock():
    assert GAMES.rules("rockthebock") is rtb
    assert rtb.NAME == "rockthebock"


@pytest.mark.parametrize(
    ("pairs", "youngest", "message"),
    [
        (("Anna:red",), "Anna", "2 to 4 players, not 1"),
        (("A:red", "B:blue", "C:green", "D:yellow", "E:red"), "A", "2 to 4 players, not 5"),
        (("Anna:red", "Ben:red"), "Anna", "different colour"),
        (("Anna:red", "Anna:blue"), "Anna", "names must differ"),
        (("Anna:red", "Ben:purple"), "Anna", "colour 'purple'"),
        (("Anna:red", "Ben:blue"), "Cleo", "youngest player 'Cleo'"),
        (("Anna:red", " :blue"), "Anna", "non-empty name"),
    ],
)
def test_setup_rejects_bad_tables(pairs: tuple[str, ...], youngest: str, message: str):
    players = tuple(Player(*p.split(":")) for p in pairs)
    with pytest.raises(ParseError, match=message):
        Setup(players, youngest)


def test_setup_round_trips_through_dict():
    setup = make_setup("Anna:red", "Ben:blue", "Cleo:yellow", youngest="Ben",
                       unused_colour_goats="forbidden")
    d = setup.to_dict()
    assert d == {
        "players": [
            {"name": "Anna", "colour": "red"},
            {"name": "Ben", "colour": "blue"},
            {"name": "Cleo", "colour": "yellow"},
        ],
        "youngest": "Ben",
        "rules": {"unused_colour_goats": "forbidden", "start_player": "rotate"},
    }
    assert Setup.from_dict(d) == setup


@pytest.mark.parametrize(
    ("d", "error", "message"),
    [
        ({"players": [{"name": "A", "colour": "red"}]}, ParseError, "missing 'youngest'"),
        ({"players": "A,B", "youngest": "A"}, ParseError, "must be a list"),
        (
            {"players": [{"name": "A", "colour": "red", "age": 3}], "youngest": "A"},
            ParseError,
            "unknown field 'age'",
        ),
        (
            {"players": [{"name": "A", "colour": "red"}, {"name": "B", "colour": "blue"}],
             "youngest": "A", "rules": {"deckel": 13}},
            RuleError,
            "unknown Rock the Bock rule 'deckel'",
        ),
    ],
)
def test_setup_from_dict_reports_what_is_wrong(d: dict, error: type, message: str):
    with pytest.raises(error, match=message):
        Setup.from_dict(d)


# --- events ------------------------------------------------------------------


def test_events_round_trip_and_normalise():
    roll = Roll.of("Anna", {"goat_blue": 2, "bock": 3, "wolf": 0})
    assert roll.faces == (("bock", 3), ("goat_blue", 2))
    assert roll == Roll("Anna", {"bock": 3, "goat_blue": 2})
    assert roll.dice == 5 and roll.count("wolf") == 0
    for event in (roll, Choice("Anna", "wolf", "Ben"), Choice("Anna", "bock")):
        d = rtb.event_to_dict(event)
        assert rtb.event_from_dict(d) == event
    assert rtb.event_to_dict(roll) == {
        "action": "roll", "player": "Anna", "faces": {"bock": 3, "goat_blue": 2}
    }
    assert rtb.event_to_dict(Choice("Anna", "bock")) == {
        "action": "choose", "player": "Anna", "kind": "bock"
    }


@pytest.mark.parametrize(
    ("d", "message"),
    [
        ({"action": "throw", "player": "A"}, "unknown Rock the Bock action 'throw'"),
        ({"action": "roll", "player": "A", "faces": {"skull": 1}}, "unknown face 'skull'"),
        ({"action": "roll", "player": "A", "faces": {"bock": -1}}, "whole number"),
        ({"action": "roll", "player": "A", "faces": {"bock": 1.5}}, "whole number"),
        ({"action": "roll", "player": "A", "faces": {}}, "at least one die"),
        ({"action": "roll", "player": "A", "faces": [1, 2]}, "must be an object"),
        ({"action": "roll", "player": 7, "faces": {"bock": 1}}, "player must be non-empty text"),
        ({"action": "choose", "player": "A"}, "missing 'kind'"),
        ({"action": "choose", "player": "A", "kind": "sheep"}, "unknown kind 'sheep'"),
        ({"action": "choose", "player": "A", "kind": "bock", "to": "B"}, "unknown field 'to'"),
    ],
)
def test_event_from_dict_reports_parse_errors(d: dict, message: str):
    with pytest.raises(ParseError, match=message):
        rtb.event_from_dict(d)


# --- turns and choices ---------------------------------------------------------


def test_youngest_starts_and_turns_go_clockwise():
    state = rtb.start(make_setup("Anna:red", "Ben:blue", "Cleo:green", youngest="Ben"))
    assert rtb.view(state)["turn"] == {"name": "Ben", "colour": "blue"}
    state = play(state, "Ben", {"bock": 4, "wolf": 6}, "bock")
    assert rtb.view(state)["turn"]["name"] == "Cleo"
    state = play(state, "Cleo", {"goat_green": 10}, "goat_green")
    assert rtb.view(state)["turn"]["name"] == "Anna"
    assert current(state, "Ben") == rtb.Sheet(bocks=4, crossed=4)
    assert current(state, "Cleo") == rtb.Sheet(goats=10, crossed=10)


def test_legal_choices_name_kinds_receivers_and_victims():
    state = rtb.start(make_setup("Anna:red", "Ben:blue", "Cleo:green"))
    state = rtb.apply(state, Roll.of("Anna", {
        "wolf": 2, "bock": 1, "goat_red": 3, "goat_blue": 1, "goat_green": 2, "goat_yellow": 1,
    }))
    options = {o.kind: o for o in rtb.legal_choices(state)}
    assert list(options) == list(rtb.FACES)
    assert options["wolf"].receivers == ("Ben", "Cleo") and options["wolf"].count == 2
    assert options["bock"].receivers == ("Anna",) and options["bock"].record == "bocks"
    assert options["goat_red"].receivers == ("Anna",) and options["goat_red"].record == "goats"
    assert options["goat_blue"].receivers == ("Ben",)
    assert options["goat_green"].receivers == ("Cleo",) and options["goat_green"].count == 2
    # yellow is nobody's colour: by default the goats may be dumped, recorded by nobody
    assert options["goat_yellow"].receivers == () and options["goat_yellow"].record is None
    assert rtb.view(state)["choices"][0] == {
        "kind": "wolf", "count": 2, "receivers": ["Ben", "Cleo"], "record": "wolves",
        "choose_receiver": True,
    }


def test_other_colour_goats_go_to_their_owner_and_roller_crosses_off():
    state = rtb.start(make_setup("Anna:red", "Ben:blue"))
    state = play(state, "Anna", {"goat_blue": 3, "bock": 7}, "goat_blue")
    assert current(state, "Ben") == rtb.Sheet(goats=3)
    assert current(state, "Anna") == rtb.Sheet(crossed=3)


def test_wolves_go_to_the_chosen_player_even_one_who_finished():
    state = rtb.start(make_setup("Anna:red", "Ben:blue", "Cleo:green"))
    state = play(state, "Anna", {"bock": 10}, "bock")  # Anna is done for the round
    state = play(state, "Ben", {"wolf": 2, "goat_blue": 8}, "wolf", "Anna")
    assert current(state, "Anna") == rtb.Sheet(bocks=10, wolves=2, crossed=10)
    assert current(state, "Ben").crossed == 2
    # Anna has no dice: after Cleo the turn skips her and comes back to Ben
    state = play(state, "Cleo", {"goat_green": 4, "wolf": 6}, "goat_green")
    assert rtb.view(state)["turn"]["name"] == "Ben"
    assert rtb.view(state)["dice_left"] == {"Anna": 0, "Ben": 8, "Cleo": 6}


def test_dumped_goats_are_crossed_off_but_recorded_by_nobody():
    state = rtb.start(make_setup("Anna:red", "Ben:blue"))
    before = state.sheets
    state = play(state, "Anna", {"goat_yellow": 4, "goat_green": 6}, "goat_green")
    assert current(state, "Anna") == rtb.Sheet(crossed=6)
    assert current(state, "Ben") == before[1]


def test_forbidden_unused_goats_force_a_reroll_that_replaces_the_roll():
    setup = make_setup("Anna:red", "Ben:blue", unused_colour_goats="forbidden")
    state = rtb.start(setup)
    state = play(state, "Anna", {"bock": 9, "goat_blue": 1}, "bock")
    state = play(state, "Ben", {"goat_blue": 9, "wolf": 1}, "goat_blue")
    # Anna's last die shows a yellow goat: nobody plays yellow, nothing may be taken
    state = rtb.apply(state, Roll.of("Anna", {"goat_yellow": 1}))
    assert rtb.legal_choices(state) == () and rtb.needs_reroll(state)
    assert rtb.view(state)["reroll"] is True
    with pytest.raises(IllegalAction, match="roll again"):
        rtb.apply(state, Choice("Anna", "goat_yellow"))
    state = rtb.apply(state, Roll.of("Anna", {"wolf": 1}))
    assert state.pending == Roll.of("Anna", {"wolf": 1}) and not rtb.needs_reroll(state)
    state = rtb.apply(state, Choice("Anna", "wolf", "Ben"))
    assert current(state, "Ben") == rtb.Sheet(goats=9, wolves=1, crossed=9)


def test_forbidden_unused_goats_leave_the_other_kinds_choosable():
    state = rtb.start(make_setup("Anna:red", "Ben:blue", unused_colour_goats="forbidden"))
    state = rtb.apply(state, Roll.of("Anna", {"goat_green": 5, "bock": 5}))
    assert [o.kind for o in rtb.legal_choices(state)] == ["bock"]
    with pytest.raises(IllegalAction, match="nobody plays green.*forbidden.*choose one of: bock"):
        rtb.apply(state, Choice("Anna", "goat_green"))


def test_round_end_scores_and_rotates_the_start_player():
    state = rtb.start(make_setup("Anna:red", "Ben:blue", "Cleo:green", youngest="Cleo"))
    state = play(state, "Cleo", {"goat_green": 5, "bock": 5}, "goat_green")
    state = play(state, "Anna", {"wolf": 10}, "wolf", "Cleo")
    state = play(state, "Ben", {"bock": 10}, "bock")
    state = play(state, "Cleo", {"bock": 5}, "bock")
    assert state.round_no == 2 and len(state.completed) == 1
    assert [s.score for s in state.completed[0]] == [0, 0, -5]
    # rotate: the next player clockwise after Cleo (Anna) starts round 2
    assert state.turn == 0 and rtb.view(state)["starter"] == "Anna"
    assert all(s == rtb.Sheet() for s in state.sheets)
    assert rtb.totals(state) == (0, 0, -5)


def quick_round(state: rtb.State) -> rtb.State:
    """Everyone takes 10 bocks in turn order: a round where every score is 0."""
    for _ in state.setup.players:
        name = rtb.view(state)["turn"]["name"]
        state = play(state, name, {"bock": 10}, "bock")
    return state


def test_start_player_same_keeps_the_youngest():
    state = rtb.start(make_setup("Anna:red", "Ben:blue", youngest="Ben", start_player="same"))
    state = quick_round(state)
    assert rtb.view(state)["starter"] == "Ben" and rtb.view(state)["turn"]["name"] == "Ben"
    state = quick_round(state)
    assert state.round_no == 3 and rtb.view(state)["starter"] == "Ben"


def test_start_player_rotates_clockwise_each_round():
    state = rtb.start(make_setup("Anna:red", "Ben:blue", "Cleo:green", youngest="Cleo"))
    starters = []
    for _ in range(3):
        starters.append(rtb.view(state)["starter"])
        state = quick_round(state)
    assert starters == ["Cleo", "Anna", "Ben"]


def test_game_ends_after_three_rounds_and_ties_share_the_win():
    state = rtb.start(make_setup("Anna:red", "Ben:blue"))
    for _ in range(3):
        assert not rtb.is_over(state)
        state = quick_round(state)
    assert rtb.is_over(state)
    table = rtb.standings(state)
    assert table["over"] and table["rounds_played"] == 3
    assert table["winners"] == ["Anna", "Ben"]
    with pytest.raises(IllegalAction, match="game is over"):
        rtb.apply(state, Roll.of("Anna", {"bock": 10}))
    assert rtb.view(state)["turn"] is None and rtb.view(state)["phase"] is None


def test_negative_totals_and_single_winner():
    state = rtb.start(make_setup("Anna:red", "Ben:blue"))
    # round 1: Anna B1 W0 G9 → +9 at the end; Ben W1 G0 → 0
    state = play(state, "Anna", {"goat_red": 9, "wolf": 1}, "goat_red")
    state = play(state, "Ben", {"wolf": 1, "bock": 9}, "wolf", "Anna")  # Anna W1
    state = play(state, "Anna", {"bock": 1}, "bock")  # Anna B1 = W1 → 0 so far
    state = play(state, "Ben", {"goat_blue": 9}, "goat_blue")  # Ben G9, B0 W0 → 0
    assert [s.score for s in state.completed[0]] == [0, 0]
    # round 2 (Ben starts): Ben gives Anna 10 wolves; Anna takes 4 red goats, then 6 bocks
    state = play(state, "Ben", {"wolf": 10}, "wolf", "Anna")
    state = play(state, "Anna", {"goat_red": 4, "bock": 6}, "goat_red")
    state = play(state, "Anna", {"bock": 6}, "bock")
    assert state.completed[1][0] == rtb.Sheet(bocks=6, wolves=10, goats=4, crossed=10)
    assert [s.score for s in state.completed[1]] == [-4, 0]
    state = quick_round(state)
    table = rtb.standings(state)
    assert [p["total"] for p in table["players"]] == [-4, 0]
    assert table["winners"] == ["Ben"]
    assert table["players"][0]["rounds"][1] == {
        "bocks": 6, "wolves": 10, "goats": 4, "crossed": 10, "dice_left": 0, "score": -4,
    }


# --- illegal actions ---------------------------------------------------------------


@pytest.fixture
def mid_turn() -> rtb.State:
    """Three players; Anna has rolled 3 wolves, 2 bocks, 5 blue goats."""
    state = rtb.start(make_setup("Anna:red", "Ben:blue", "Cleo:green"))
    return rtb.apply(state, Roll.of("Anna", {"wolf": 3, "bock": 2, "goat_blue": 5}))


@pytest.mark.parametrize(
    ("event", "message"),
    [
        (Choice("Ben", "bock"), "it is Anna's turn to choose, not Ben's"),
        (Choice("Dora", "bock"), "'Dora' is not playing"),
        (Choice("Anna", "goat_red"), "shows no goat_red; choose one of: wolf, bock, goat_blue"),
        (Choice("Anna", "wolf", "Anna"), "cannot give wolves to themselves.*Ben, Cleo"),
        (Choice("Anna", "wolf"), "say who gets Anna's 3 wolves: Ben, Cleo"),
        (Choice("Anna", "wolf", "Dora"), "'Dora' is not playing"),
        (Choice("Anna", "bock", "Ben"), "only wolves go to a chosen player"),
        (Roll.of("Anna", {"bock": 10}), "has rolled already and must now take one kind"),
    ],
)
def test_illegal_actions_are_refused_and_change_nothing(mid_turn: rtb.State, event, message):
    snapshot = copy.deepcopy(mid_turn)
    with pytest.raises(IllegalAction, match=message):
        rtb.apply(mid_turn, event)
    assert mid_turn == snapshot
    # the same state still accepts a legal choice afterwards
    assert rtb.apply(mid_turn, Choice("Anna", "wolf", "Cleo")).sheets[2].wolves == 3


def test_roll_must_use_exactly_the_dice_left():
    state = rtb.start(make_setup("Anna:red", "Ben:blue"))
    with pytest.raises(IllegalAction, match="Anna has 10 dice left this round, but the roll"):
        rtb.apply(state, Roll.of("Anna", {"bock": 9}))
    state = play(state, "Anna", {"bock": 3, "wolf": 7}, "bock")
    state = play(state, "Ben", {"bock": 10}, "bock")
    with pytest.raises(IllegalAction, match="Anna has 7 dice left this round, but .* shows 8"):
        rtb.apply(state, Roll.of("Anna", {"bock": 8}))
    with pytest.raises(IllegalAction, match="Anna must roll before choosing"):
        rtb.apply(state, Choice("Anna", "bock"))
    with pytest.raises(IllegalAction, match="it is Anna's turn to roll, not Ben's"):
        rtb.apply(state, Roll.of("Ben", {"bock": 1}))


def test_view_shows_turn_dice_pending_roll_sheets_and_rules(mid_turn: rtb.State):
    v = rtb.view(mid_turn)
    assert v["round"] == 1 and v["rounds"] == 3 and v["phase"] == "choose"
    assert v["turn"] == {"name": "Anna", "colour": "red"}
    assert v["dice_left"] == {"Anna": 10, "Ben": 10, "Cleo": 10}
    assert v["pending_roll"] == {"wolf": 3, "bock": 2, "goat_blue": 5}
    assert [c["kind"] for c in v["choices"]] == ["wolf", "bock", "goat_blue"]
    assert v["reroll"] is False
    assert [r["name"] for r in v["rules"]] == ["unused_colour_goats", "start_player"]
    assert v["rules"][0]["value"] == "dump" and v["rules"][0]["help_de"]
    assert v["standings"]["players"][0]["current"]["dice_left"] == 10
    assert v["standings"]["leaders"] == ["Anna", "Ben", "Cleo"] and v["standings"]["winners"] == []


def test_describe_tells_rolls_and_choices_as_phrases_worded_in_either_language():
    roll = Roll.of("Anna", {"bock": 3, "wolf": 1, "goat_blue": 5, "goat_red": 1})
    assert rtb.describe(roll).key == "hist_rtb_roll"
    assert said(rtb.describe(roll)) == "Anna rolls 1 wolf, 3 bocks, 1 red goat and 5 blue goats."
    assert said(rtb.describe(roll), "de") == (
        "Anna würfelt 1 Wolf, 3 Böcke, 1 rote Geiß und 5 blaue Geißen."
    )
    assert said(rtb.describe(Roll.of("Ben", {"wolf": 2}))) == "Ben rolls 2 wolves."
    assert said(rtb.describe(Choice("Anna", "wolf", "Ben"))) == (
        "Anna takes the wolves and gives them to Ben."
    )
    assert said(rtb.describe(Choice("Anna", "goat_green")), "de") == (
        "Anna nimmt die grünen Geißen.")
    assert said(rtb.describe(Choice("Anna", "bock")), "de") == "Anna nimmt die Böcke."


def said(phrase, lang: str = "en") -> str:
    """An engine's phrase as the dashboard words it in ``lang``."""
    return word(phrase, file_catalogue(lang), file_catalogue("en"))
