"""Schocken rounds, Deckel phases, halves, Finale and Durchmarsch played through ``apply``."""

from __future__ import annotations

import pytest
from schocken_helpers import deckel, event, new_game, play

from companion.games import schocken
from companion.games.errors import IllegalAction, ParseError
from companion.games.schocken import Setup, Throw, ThrowRecorded
from companion.wording import file_catalogue, word


def test_turn_order_runs_from_the_starter_around_the_seats() -> None:
    state = new_game("Anna Ben Carl Dora", starter="Carl")
    assert state.turn_order == ("Carl", "Dora", "Anna", "Ben")
    assert state.to_throw == "Carl"
    state = play(state, "Carl 2 6-6-5", "Dora 1 5-5-2h")
    assert state.to_throw == "Anna"


def test_first_player_sets_the_throw_limit_with_the_issue_message() -> None:
    state = play(new_game(), "Anna 2 6-6-5")
    with pytest.raises(IllegalAction) as info:
        play(state, "Ben 3 1-1-4")
    assert str(info.value) == "Ben may throw at most 2 times this round: Anna, who started, used 2"
    view = schocken.view(state)
    assert (view["throw_limit"], view["throws_left"], view["to_throw"]) == (2, 2, "Ben")
    # Fewer throws are allowed.
    assert play(state, "Ben 1 6-6-4h").to_throw == "Carl"


def test_worst_throw_takes_what_the_best_throw_sets_from_the_middle() -> None:
    # Seed: a Schock with a four beside the ones gives the loser four Deckel.
    state = play(new_game(), "Anna 2 6-6-5", "Ben 2 1-1-4", "Carl 1 3-2-2h")
    assert deckel(state) == {"Anna": 0, "Ben": 0, "Carl": 4, "middle": 9}
    assert state.last_round.loser == "Carl"
    # The round's loser starts the next round.
    assert state.starter == "Carl"
    assert state.turn_order == ("Carl", "Anna", "Ben")
    assert state.throw_limit is None


def test_lowest_throw_as_best_still_gives_one_deckel_and_ties_go_against_the_later_player() -> None:
    state = play(new_game(), "Anna 1 2-2-1h", "Ben 1 2-2-1h", "Carl 1 2-2-1h")
    assert deckel(state)["Carl"] == 1


def test_phase_one_takes_only_what_is_left_in_the_middle() -> None:
    state = new_game("Anna Ben", deckel=5)
    state = play(state, "Anna 1 1-1-3h", "Ben 1 6-4-2h")  # Ben takes 3, middle 2
    state = play(state, "Ben 1 1-1-6h", "Anna 1 5-5-4h")  # Schock 6, but only 2 are left
    assert deckel(state) == {"Anna": 2, "Ben": 3, "middle": 0}
    assert state.last_round.deckel == 2
    assert state.phase == 2


def test_phase_two_winner_gives_capped_by_what_he_has_and_empty_players_leave() -> None:
    state = new_game("Anna Ben Carl", deckel=6)
    state = play(state, "Anna 1 1-1-4h", "Ben 1 6-5-3h", "Carl 1 6-5-2h")  # Carl 4, middle 2
    state = play(state, "Carl 1 6-6-2h", "Anna 1 6-6-3h", "Ben 1 6-6-1h")  # Ben 1, middle 1
    state = play(state, "Ben 1 6-6-6h", "Carl 1 5-5-5h", "Anna 1 3-3-1h")  # Anna takes the last 1
    assert deckel(state) == {"Anna": 1, "Ben": 1, "Carl": 4, "middle": 0}
    assert state.phase == 2
    assert state.turn_order == ("Anna", "Ben", "Carl")
    # Anna wins with a Schock 5 but holds just 1 Deckel: she gives it and leaves the half.
    state = play(state, "Anna 1 1-1-5h", "Ben 1 6-6-5h", "Carl 1 4-4-3h")
    assert deckel(state) == {"Anna": 0, "Ben": 1, "Carl": 5, "middle": 0}
    assert state.last_round.source == "Anna"
    assert state.turn_order == ("Carl", "Ben")
    with pytest.raises(IllegalAction, match="Anna has no Deckel and is out of this half"):
        play(state, "Anna 1 6-6-6h")
    # Ben wins, gives his only Deckel: Carl holds all 6 and loses the half.
    state = play(state, "Carl 2 6-4-1", "Ben 2 6-5-1")
    assert state.half_losers == ("Carl",)
    assert state.part == 2


def test_schock_aus_in_phase_one_gives_every_deckel_and_ends_the_half() -> None:
    state = play(new_game(), "Anna 1 6-5-1h", "Ben 1 5-4-2h", "Carl 1 6-6-2h")
    assert deckel(state) == {"Anna": 0, "Ben": 1, "Carl": 0, "middle": 12}
    state = play(state, "Ben 2 1-1-1", "Carl 2 6-6-6", "Anna 2 4-4-4")
    assert state.half_losers == ("Anna",)
    assert state.stats[0].deckel_received == 13
    assert state.last_round.source == "schock_aus"
    # Half 2: all Deckel back in the middle, Anna (the loser) starts.
    assert deckel(state) == {"Anna": 0, "Ben": 0, "Carl": 0, "middle": 13}
    assert (state.part, state.starter, state.phase) == (2, "Anna", 1)


def test_schock_aus_in_phase_two_takes_the_deckel_of_every_player() -> None:
    state = new_game("Anna Ben Carl", deckel=4)
    state = play(state, "Anna 1 1-1-2h", "Ben 1 6-5-3h", "Carl 1 6-5-2h")  # Carl 2
    state = play(state, "Carl 1 1-1-2h", "Anna 1 6-3-1h", "Ben 1 5-4-2h")  # Ben 2, middle 0
    assert deckel(state) == {"Anna": 0, "Ben": 2, "Carl": 2, "middle": 0}
    state = play(state, "Ben 1 1-1-1h", "Carl 1 1-1-6h")
    assert state.half_losers == ("Carl",)
    assert state.last_round.deckel == 2  # Carl already held 2 of the 4
    assert state.stats[2].deckel_received == 4


def _lose_half(state: schocken.State, loser: str, other: str) -> schocken.State:
    """Two-player half: ``loser`` takes all Deckel by a Schock aus of ``other``."""
    first, second = (loser, other) if state.to_throw == loser else (other, loser)
    dice = {loser: "6-6-5h", other: "1-1-1h"}
    return play(state, f"{first} 1 {dice[first]}", f"{second} 1 {dice[second]}")


def test_durchmarsch_when_one_player_loses_both_halves() -> None:
    state = _lose_half(new_game("Anna Ben"), "Ben", "Anna")
    assert (state.part, state.starter) == (2, "Ben")
    state = _lose_half(state, "Ben", "Anna")
    assert schocken.is_over(state)
    assert (state.game_loser, state.durchmarsch, state.half_losers) == ("Ben", True, ("Ben", "Ben"))
    assert schocken.standings(state)["finale_players"] == []
    with pytest.raises(IllegalAction, match="the game is over \\(Ben lost\\)"):
        play(state, "Ben 1 6-6-6h")


def test_finale_between_the_two_half_losers_started_by_the_loser_of_half_two() -> None:
    state = new_game("Anna Ben Carl", starter="Anna", deckel=2)
    state = play(state, "Anna 1 1-1-1h", "Ben 1 6-6-6h", "Carl 1 6-6-5h")  # Carl loses half 1
    state = play(state, "Carl 1 1-1-2h", "Anna 1 6-6-6h", "Ben 1 4-2-1h")  # Ben takes 2: half 2
    assert state.half_losers == ("Carl", "Ben")
    assert state.part == "finale"
    assert state.half_players == ("Ben", "Carl")
    assert state.turn_order == ("Ben", "Carl")
    assert deckel(state) == {"Anna": 0, "Ben": 0, "Carl": 0, "middle": 2}
    with pytest.raises(IllegalAction, match="Anna is not playing in the Finale"):
        play(state, "Anna 1 6-6-6h")
    state = play(state, "Ben 1 5-5-5h", "Carl 1 5-5-5h")  # tie: Carl threw later, takes 2
    assert state.game_loser == "Carl"
    assert not state.durchmarsch
    table = schocken.standings(state)
    assert table["finale_players"] == ["Ben", "Carl"]
    assert table["statistics"]["Carl"]["finale_lost"] == 1
    assert table["statistics"]["Carl"]["halves_lost"] == 1


def test_hidden_third_throw_is_revealed_before_the_round_is_scored() -> None:
    state = play(new_game(), "Anna 3 hidden", "Ben 3 5-5-2", "Carl 2 6-4-1")
    assert state.awaiting_reveal == "Anna"
    assert state.to_throw is None
    view = schocken.view(state)
    assert (view["awaiting_reveal"], view["to_throw"], view["throws_left"]) == ("Anna", None, 0)
    assert view["throws"][-1] == {"player": "Anna", "throws": 3, "hidden": True, "place": None}
    assert view["would_receive"]["player"] == "Ben"  # provisional, without Anna's dice
    with pytest.raises(IllegalAction, match="Anna must reveal the hidden third throw first"):
        play(state, "Anna 1 6-6-6h")
    with pytest.raises(IllegalAction, match="only Anna has a hidden throw to reveal"):
        play(state, "reveal Ben 1-1-2")
    state = play(state, "reveal Anna 2-2-1")
    assert deckel(state) == {"Anna": 1, "Ben": 0, "Carl": 0, "middle": 12}


def test_reveal_only_when_the_round_is_otherwise_over() -> None:
    state = play(new_game(), "Anna 3 hidden")
    with pytest.raises(IllegalAction, match="revealed when the round ends; it is Ben's turn"):
        play(state, "reveal Anna 1-1-2")
    with pytest.raises(IllegalAction, match="no hidden throw"):
        play(play(new_game(), "Anna 2 6-6-5"), "reveal Anna 1-1-2")
    # Only the first player's third throw may stay hidden.
    with pytest.raises(IllegalAction, match="only the round's first player keeps a throw hidden"):
        play(state, "Ben 3 hidden")
    with pytest.raises(IllegalAction, match="only the round's first player keeps a throw hidden"):
        play(new_game(), "Anna 2 hidden")


@pytest.mark.parametrize(
    ("specs", "bad", "message"),
    [
        ((), "Ben 1 6-6-6h", "it is Anna's turn, not Ben's"),
        (("Anna 1 6-6-6h",), "Anna 1 6-6-5h", "Anna has already thrown this round"),
        ((), "Dora 1 6-6-6h", "'Dora' is not playing"),
        ((), "Anna 1 6-6-6", "used 1 throw, so all three dice came from the hand"),
        ((), "Anna 2 1-1-4 turned=1", "not allowed \\(rule turn_sixes=false\\)"),
        ((), "Anna 4 6-6-6", "a turn has 1 to 3 throws"),
        ((), "Anna 0 6-6-6h", "a turn has 1 to 3 throws"),
    ],
)
def test_illegal_actions_raise_and_leave_the_state_alone(
    specs: tuple[str, ...], bad: str, message: str
) -> None:
    state = play(new_game(), *specs)
    before = schocken.view(state), schocken.standings(state)
    with pytest.raises(IllegalAction, match=message):
        play(state, bad)
    assert (schocken.view(state), schocken.standings(state)) == before
    assert state == play(new_game(), *specs)


def test_turned_sixes_are_checked_against_the_final_dice() -> None:
    game = new_game(turn_sixes=True)
    with pytest.raises(IllegalAction, match="cannot be from the hand"):
        play(game, "Anna 2 1-1-4h turned=1")
    with pytest.raises(IllegalAction, match="used only 1 throw: sixes may only be turned"):
        play(game, "Anna 1 1-4-5h turned=1")
    with pytest.raises(IllegalAction, match="turned 2 dice into 1s but the throw 6-4-1 shows 1"):
        play(game, "Anna 3 6-4-1 turned=2")
    with pytest.raises(IllegalAction, match="at most two 1s can come from turned sixes"):
        play(game, "Anna 3 1-1-1 turned=3")
    state = play(game, "Anna 2 1-1-5 turned=2", "Ben 2 6-6-1 turned=1", "Carl 1 2-2-1h")
    assert deckel(state)["Carl"] == 5
    assert state.last_round.ranking[0].turned == 2


def test_fewer_throws_win_a_tie_only_under_the_flag() -> None:
    specs = ("Anna 3 6-6-5", "Ben 1 6-6-5h", "Carl 2 6-6-6")
    assert play(new_game(), *specs).last_round.loser == "Ben"
    assert play(new_game(tie_fewer_throws_first=True), *specs).last_round.loser == "Anna"


def test_handschock_above_all_beats_a_higher_assembled_schock() -> None:
    specs = ("Anna 2 1-1-6", "Ben 1 1-1-2h", "Carl 1 6-6-5h")
    assert play(new_game(), *specs).deckel == (0, 0, 6)
    state = play(new_game(handschock="above_all"), *specs)
    assert state.last_round.ranking[0].player == "Ben"
    assert deckel(state)["Carl"] == 2  # Deckel are still those of a Schock 2
    # Schock aus is excepted: an assembled one still beats any Handschock.
    state = play(new_game(handschock="above_all"), "Anna 2 1-1-1", "Ben 1 1-1-6h", "Carl 2 3-3-1")
    assert state.half_losers == ("Carl",)


def test_reentry_lets_empty_players_throw_and_the_best_holder_gives() -> None:
    def to_phase_two(**rules: object) -> schocken.State:
        state = new_game("Anna Ben Carl", deckel=4, **rules)
        state = play(state, "Anna 1 1-1-2h", "Ben 1 6-5-3h", "Carl 1 6-5-2h")  # Carl 2
        return play(state, "Carl 1 1-1-2h", "Anna 1 6-3-1h", "Ben 1 5-4-2h")  # Ben 2

    assert to_phase_two().turn_order == ("Ben", "Carl")
    state = to_phase_two(reentry=True)
    assert state.turn_order == ("Ben", "Carl", "Anna")
    # Anna (no Deckel) has the best throw, so Carl, the best holder, gives; Ben loses.
    state = play(state, "Ben 1 3-3-1h", "Carl 1 6-6-6h", "Anna 1 1-1-4h")
    assert (state.last_round.source, state.last_round.deckel) == ("Carl", 2)
    assert state.half_losers == ("Ben",)  # Ben then held all 4
    # Anna comes back in by losing while holding nothing.
    state = to_phase_two(reentry=True)
    state = play(state, "Ben 1 6-6-6h", "Carl 1 5-4-2h", "Anna 1 3-2-2h")
    assert deckel(state) == {"Anna": 2, "Ben": 0, "Carl": 2, "middle": 0}
    assert state.last_round.source == "Ben"
    assert state.turn_order == ("Anna", "Ben", "Carl")


def test_statistics_and_club_tab() -> None:
    state = new_game("Anna Ben", deckel=3, tab_amount="0.5", tab_unit="€")
    state = play(state, "Anna 2 1-1-3h", "Ben 2 1-1-3")  # hand wins the tie: Ben takes 3
    state = play(state, "Ben 1 2-2-2h", "Anna 1 6-6-5h")  # General: Anna takes 3
    state = play(state, "Anna 1 1-1-1h", "Ben 1 6-5-4h")  # Finale: Schock aus
    table = schocken.standings(state)
    assert (table["game_loser"], table["durchmarsch"]) == ("Ben", False)
    assert table["statistics"]["Ben"] == {
        "halves_lost": 1, "finale_lost": 1, "schock_aus": 0, "schocks": 1, "handschocks": 0,
        "handschock_rate": 0.0, "generals": 1, "strassen": 1, "deckel_received": 6,
        "rounds_lost": 2,
    }
    assert table["statistics"]["Anna"] == {
        "halves_lost": 1, "finale_lost": 0, "schock_aus": 1, "schocks": 2, "handschocks": 2,
        "handschock_rate": 1.0, "generals": 0, "strassen": 0, "deckel_received": 3,
        "rounds_lost": 1,
    }
    assert table["tab"] == {
        "amount": 0.5, "unit": "€",
        "ledger": [{"player": "Ben", "half": 1, "amount": 0.5},
                   {"player": "Anna", "half": 2, "amount": 0.5},
                   {"player": "Ben", "half": "finale", "amount": 0.5}],
        "totals": {"Anna": 0.5, "Ben": 1.0},
    }
    assert schocken.standings(new_game())["tab"] is None


def test_view_shows_ranked_throws_and_who_would_receive() -> None:
    state = play(new_game(), "Anna 2 6-6-5", "Ben 2 1-1-4h")
    view = schocken.view(state)
    assert [(t["player"], t["place"], t["label"], t["hand"]) for t in view["throws"]] == [
        ("Ben", 1, "Schock 4", True), ("Anna", 2, "normal", False)]
    assert view["would_receive"] == {"player": "Anna", "deckel": 4, "from": "middle",
                                     "schock_aus": False}
    assert view["active_players"] == ["Anna", "Ben", "Carl"]
    assert view["rules"]["handschock"] == "tiebreak"
    assert set(view["rule_help"]) == {f.name for f in schocken.RULE_FLAGS}
    assert view["warnings"] == []
    big = new_game(" ".join(f"P{i}" for i in range(11)))
    warning = schocken.view(big)["warnings"][0]
    assert said(warning) == "11 players: Schocken is meant for at most 10; rounds get long."
    assert said(warning, "de").startswith("11 Spieler: Schocken ist für höchstens 10 gedacht")


def test_events_round_trip_through_dicts() -> None:
    for spec in ("Anna 2 1-1-4h", "Anna 3 hidden", "reveal Anna 6-5-4", "Ben 3 1-1-5 turned=2"):
        e = event(spec)
        assert schocken.event_from_dict(schocken.event_to_dict(e)) == e
    assert schocken.event_to_dict(event("Anna 2 4-1-1h")) == {
        "action": "throw", "player": "Anna", "throws": 2, "dice": [4, 1, 1], "hand": True}
    # One throw is always from the hand, so a log line may leave "hand" out.
    one = schocken.event_from_dict({"action": "throw", "player": "A", "throws": 1,
                                    "dice": [6, 6, 5]})
    assert one == ThrowRecorded("A", 1, Throw((6, 6, 5), hand=True))


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"action": "roll"}, "unknown Schocken action 'roll'"),
        ({"action": "throw", "player": "A", "throws": 2, "dice": [1, 1, 7]}, "not a throw"),
        ({"action": "throw", "player": "A", "throws": 2, "dice": "1-1-4"}, "must be a list"),
        ({"action": "throw", "player": "A", "throws": 5, "dice": [1, 1, 4]}, "1, 2 or 3"),
        ({"action": "throw", "player": "A", "throws": 2, "dice": [1, 1, 4], "x": 1},
         "unknown field\\(s\\) x"),
        ({"action": "throw", "player": "A", "throws": 3, "hidden": True, "dice": [1, 1, 4]},
         "a hidden throw has no dice"),
        ({"action": "throw", "player": 3, "throws": 2, "dice": [1, 1, 4]}, "'player' must be"),
        ({"action": "reveal", "player": "A", "dice": [1, 1, 4], "turned": 3}, "0, 1 or 2"),
    ],
)
def test_bad_log_lines_are_parse_errors(payload: dict, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        schocken.event_from_dict(payload)


def test_setup_round_trip_and_errors() -> None:
    setup = Setup.from_dict({"players": ["Anna", "Ben"], "rules": {"deckel": 9}})
    assert setup.starter == "Anna"
    assert Setup.from_dict(setup.to_dict()) == setup
    with pytest.raises(ParseError, match="at least 2 players"):
        Setup.from_dict({"players": ["Anna"]})
    with pytest.raises(ParseError, match="must differ"):
        Setup.from_dict({"players": ["Anna", "Anna"]})
    with pytest.raises(ParseError, match="starter 'Carl' is not one of the players"):
        Setup.from_dict({"players": ["Anna", "Ben"], "starter": "Carl"})
    with pytest.raises(ParseError, match="unknown Schocken setup field"):
        Setup.from_dict({"players": ["Anna", "Ben"], "youngest": "Ben"})


def test_describe_tells_a_turn_as_a_phrase_worded_in_english_and_german() -> None:
    assert said(schocken.describe(event("Anna 2 4-1-1h"))) == (
        "Anna: 1-1-4 from the hand (2 throws).")
    assert said(schocken.describe(event("Anna 2 4-1-1h")), "de") == (
        "Anna: 1-1-4 aus der Hand (2 Würfe).")
    assert said(schocken.describe(event("Anna 1 6-6-6h")), "de") == (
        "Anna: 6-6-6 aus der Hand (1 Wurf).")
    assert said(schocken.describe(event("Anna 3 hidden")), "de") == (
        "Anna würfelt dreimal; der dritte Wurf bleibt unter dem Becher.")
    assert said(schocken.describe(event("reveal Ben 1-1-5 turned=1")), "de") == (
        "Ben deckt auf: 1-1-5, 1 gedreht.")


def said(phrase, lang: str = "en") -> str:
    """An engine's phrase as the dashboard words it in ``lang``."""
    return word(phrase, file_catalogue(lang), file_catalogue("en"))
