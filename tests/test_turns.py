"""The turn tracker: settled readings become the action the button records."""

import re
from pathlib import Path

import companion.proposers
from companion.registry import GAMES
from companion.turns import TurnTracker
from companion.vision.types import Die, DieRegion, Reading
from companion.wording import LANGUAGES, file_catalogue


def die(value, x, y, size=40.0, uncertain=False):
    region = DieRegion((x, y), size, 0.0, ((0, 0), (1, 0), (1, 1), (0, 1)), 0.9)
    return Die(region, value, 0.95, uncertain)


def reading(*dice, kind="pips"):
    return Reading(kind, tuple(dice), (640, 480))


SCHOCKEN_VIEW = {"over": False, "to_throw": "Ben", "awaiting_reveal": None}


def test_one_throw_is_from_the_hand():
    t = TurnTracker(proposers=GAMES.proposers())
    t.observe(reading(die(1, 100, 100), die(4, 200, 100), die(1, 300, 100)), key=(1, 5))
    p = t.proposal("schocken", SCHOCKEN_VIEW)
    assert p.action == {"action": "throw", "player": "Ben", "dice": [4, 1, 1], "throws": 1,
                        "hand": True}


def test_a_die_kept_aside_makes_the_schock_assembled():
    t = TurnTracker(proposers=GAMES.proposers())
    t.observe(reading(die(1, 100, 100), die(5, 200, 100), die(3, 300, 100)), key=(1, 5))
    # the 1 stays where it lay (moved a few pixels), the other two are thrown again
    t.observe(reading(die(1, 104, 98), die(1, 260, 240), die(6, 400, 300)), key=(1, 5))
    p = t.proposal("schocken", SCHOCKEN_VIEW)
    assert p.action["throws"] == 2
    assert p.action["hand"] is False
    assert p.action["dice"] == [6, 1, 1]


def test_all_three_thrown_again_is_from_the_hand():
    t = TurnTracker(proposers=GAMES.proposers())
    t.observe(reading(die(2, 100, 100), die(5, 200, 100), die(3, 300, 100)), key=(1, 5))
    t.observe(reading(die(1, 150, 300), die(1, 260, 240), die(4, 400, 300)), key=(1, 5))
    assert t.proposal("schocken", SCHOCKEN_VIEW).action["hand"] is True


def test_a_same_value_die_nearby_but_far_enough_counts_as_thrown():
    t = TurnTracker(proposers=GAMES.proposers())
    t.observe(reading(die(1, 100, 100), die(5, 200, 100), die(3, 300, 100)), key=(1, 5))
    t.observe(reading(die(1, 140, 100), die(2, 260, 240), die(4, 400, 300)), key=(1, 5))
    assert t.hand is True


def test_a_new_game_version_starts_a_new_turn():
    t = TurnTracker(proposers=GAMES.proposers())
    t.observe(reading(die(1, 100, 100), die(5, 200, 100), die(3, 300, 100)), key=(1, 5))
    t.observe(reading(die(1, 100, 100), die(5, 200, 100), die(3, 300, 100)), key=(1, 6))
    assert t.throws == 1 and t.hand is True


def test_more_than_three_settles_are_capped_at_three_throws():
    t = TurnTracker(proposers=GAMES.proposers())
    for i in range(4):
        t.observe(reading(die(2, 100 + 90 * i, 100), die(5, 200, 300 + 30 * i),
                          die(3, 500 - 50 * i, 400)), key="k")
    assert t.proposal("schocken", SCHOCKEN_VIEW).action["throws"] == 3


def test_reveal_of_the_hidden_third_throw():
    t = TurnTracker(proposers=GAMES.proposers())
    t.observe(reading(die(6, 100, 100), die(6, 200, 100), die(6, 300, 100)), key="k")
    p = t.proposal("schocken", {"over": False, "to_throw": None, "awaiting_reveal": "Anna"})
    assert p.action == {"action": "reveal", "player": "Anna", "dice": [6, 6, 6], "hand": True}


def test_no_proposal_for_wrong_dice_count_or_unclear_dice():
    t = TurnTracker(proposers=GAMES.proposers())
    t.observe(reading(die(1, 100, 100), die(4, 200, 100)), key="k")
    p = t.proposal("schocken", SCHOCKEN_VIEW)
    assert p.action is None and "2 dice in the tray; Schocken needs 3" in p.text
    t.observe(reading(die(1, 100, 100), die(None, 200, 200), die(3, 300, 300)), key="k")
    p = t.proposal("schocken", SCHOCKEN_VIEW)
    assert p.action is None and "unclear" in p.text


def test_nothing_to_propose_before_a_throw_or_after_the_game():
    t = TurnTracker(proposers=GAMES.proposers())
    assert t.proposal("schocken", SCHOCKEN_VIEW) is None
    t.observe(reading(die(1, 100, 100), die(4, 200, 100), die(1, 300, 100)), key="k")
    assert t.proposal("schocken", {**SCHOCKEN_VIEW, "over": True}) is None
    assert t.proposal("wacken", {"over": False}) is None


BOCK_VIEW = {
    "over": False,
    "phase": "roll",
    "turn": {"name": "Cleo", "colour": "green"},
    "dice_left": {"Cleo": 4, "Dan": 10},
}


def test_rock_the_bock_roll_counts_faces():
    t = TurnTracker(proposers=GAMES.proposers())
    t.observe(reading(die("wolf", 10, 10), die("bock", 90, 10), die("wolf", 170, 10),
                      die("goat_green", 250, 10), kind="bock"), key="k")
    p = t.proposal("rockthebock", BOCK_VIEW)
    assert p.action == {"action": "roll", "player": "Cleo",
                        "faces": {"wolf": 2, "bock": 1, "goat_green": 1}}


def test_rock_the_bock_needs_the_dice_the_player_has_left_and_the_roll_phase():
    t = TurnTracker(proposers=GAMES.proposers())
    t.observe(reading(die("wolf", 10, 10), die("bock", 90, 10), kind="bock"), key="k")
    p = t.proposal("rockthebock", BOCK_VIEW)
    assert p.action is None and "Cleo rolls 4" in p.text
    assert t.proposal("rockthebock", {**BOCK_VIEW, "phase": "choose"}).action is None


def test_a_flagged_faces_proposal_proposes_no_roll():
    # A flagged die names the face it is nearest; the roll waits for the scorekeeper.
    t = TurnTracker(proposers=GAMES.proposers())
    t.observe(reading(die("wolf", 10, 10), die("bock", 90, 10), die("wolf", 170, 10),
                      die("goat_green", 250, 10, uncertain=True), kind="bock"), key="k")
    p = t.proposal("rockthebock", BOCK_VIEW)
    assert p.action is None and "unclear" in p.text


def test_an_unclear_throw_is_drafted_for_the_phone_to_check():
    # The button records nothing, but a phone can start from what the camera read (a
    # flagged die's proposed value among the others) and mend the one die.
    t = TurnTracker(proposers=GAMES.proposers())
    t.observe(reading(die(6, 100, 100), die(2, 200, 100, uncertain=True), die(5, 300, 100)),
              key="k")
    p = t.proposal("schocken", SCHOCKEN_VIEW)
    assert p.action is None and "unclear" in p.text
    assert p.draft == {"action": "throw", "player": "Ben", "dice": [6, 5, 2], "throws": 1,
                       "hand": True}
    # A sure reading has its action and no draft; nothing read, nothing drafted.
    t.observe(reading(die(6, 100, 100), die(2, 200, 200), die(5, 300, 100)), key="k")
    assert t.proposal("schocken", SCHOCKEN_VIEW).draft is None
    t.observe(reading(die(6, 100, 100), die(2, 200, 100)), key="k")
    assert t.proposal("schocken", SCHOCKEN_VIEW).draft is None


def test_an_unclear_or_incomplete_roll_is_drafted_with_the_faces_read():
    t = TurnTracker(proposers=GAMES.proposers())
    t.observe(reading(die("wolf", 10, 10), die("bock", 90, 10), die("wolf", 170, 10),
                      die("goat_green", 250, 10, uncertain=True), kind="bock"), key="k")
    p = t.proposal("rockthebock", BOCK_VIEW)
    assert p.action is None
    assert p.draft == {"action": "roll", "player": "Cleo",
                       "faces": {"wolf": 2, "bock": 1, "goat_green": 1}}
    # A die left unread (an unfamiliar set) is not counted: the draft has three of four.
    t.observe(reading(die("wolf", 10, 10), die("bock", 90, 10), die("wolf", 170, 10),
                      die(None, 250, 10, uncertain=True), kind="bock"), key="k")
    p = t.proposal("rockthebock", BOCK_VIEW)
    assert p.action is None and "unclear" in p.text
    assert p.draft == {"action": "roll", "player": "Cleo", "faces": {"wolf": 2, "bock": 1}}
    # Two dice found of four: the two are the start, the count says what is missing.
    t.observe(reading(die("wolf", 10, 10), die("bock", 90, 10), kind="bock"), key="k")
    p = t.proposal("rockthebock", BOCK_VIEW)
    assert p.action is None and "Cleo rolls 4" in p.text
    assert p.draft == {"action": "roll", "player": "Cleo", "faces": {"wolf": 1, "bock": 1}}
    assert t.proposal("rockthebock", {**BOCK_VIEW, "phase": "choose"}).draft is None


def test_proposals_are_said_in_german_too():
    t = TurnTracker(proposers=GAMES.proposers())
    t.observe(reading(die(1, 100, 100), die(4, 200, 100), die(1, 300, 100)), key="k")
    p = t.proposal("schocken", SCHOCKEN_VIEW)
    assert (p.text, p.text_de) == ("Ben: 4-1-1 in 1, from the hand",
                                   "Ben: 4-1-1 mit 1 Wurf/Würfen, aus der Hand")
    t.observe(reading(die("wolf", 10, 10), die("goat_red", 90, 10), kind="bock"), key="b")
    p = t.proposal("rockthebock", {**BOCK_VIEW, "dice_left": {"Cleo": 2}})
    assert p.text_de == "Cleo würfelt 1× rote Geiß, 1× Wolf"


def test_a_rolls_faces_are_named_as_the_catalogue_names_them_in_both_languages():
    t = TurnTracker(proposers=GAMES.proposers())
    t.observe(reading(die("wolf", 10, 10), die("goat_red", 90, 10), die("wolf", 170, 10),
                      kind="bock"), key="b")
    p = t.proposal("rockthebock", {**BOCK_VIEW, "dice_left": {"Cleo": 3}})
    assert (p.text, p.text_de) == ("Cleo rolled 1× red goat, 2× wolf",
                                   "Cleo würfelt 1× rote Geiß, 2× Wolf")
    t.observe(reading(die("wolf", 10, 10), kind="bock"), key="c")
    p = t.proposal("rockthebock", BOCK_VIEW)
    assert (p.text, p.text_de) == ("1 dice in the tray; Cleo rolls 4",
                                   "1 Würfel in der Schale; Cleo würfelt mit 4")


def test_proposals_are_worded_from_the_one_catalogue_not_in_the_code():
    source = Path(companion.proposers.__file__).read_text(encoding="utf-8")
    keys = set(re.findall(r'"(proposal_[a-z_]+)"', source))
    assert len(keys) == 11, sorted(keys)
    for lang in LANGUAGES:
        assert sorted(keys - set(file_catalogue(lang))) == [], lang
    assert re.findall(r"[äöüßÄÖÜ]", source) == []  # no German sentence left in the code


FIRST_OF_ROUND = {"over": False, "to_throw": "Anna", "awaiting_reveal": None, "throw_limit": None}


def test_a_cup_over_the_first_players_dice_proposes_the_hidden_third_throw():
    t = TurnTracker(proposers=GAMES.proposers())
    t.observe(reading(die(2, 100, 100), die(5, 200, 100), die(3, 300, 100)), key="k")
    t.observe(reading(die(2, 100, 100), die(6, 250, 200), die(4, 300, 300)), key="k")
    t.cover("k")
    p = t.proposal("schocken", FIRST_OF_ROUND)
    assert p.action == {"action": "throw", "player": "Anna", "throws": 3, "hidden": True}
    assert "under the cup" in p.text


def test_a_cup_lifted_off_the_same_dice_is_no_hidden_throw():
    """A cup put over the dice and lifted again (the same dice where they lay): the
    tray is no longer covered, and the throw on the table is proposed as it was."""
    t = TurnTracker(proposers=GAMES.proposers())
    t.observe(reading(die(2, 100, 100), die(5, 200, 100), die(3, 300, 100)), key="k")
    t.observe(reading(die(2, 100, 100), die(6, 250, 200), die(4, 300, 300)), key="k")
    t.cover("k")
    assert t.proposal("schocken", FIRST_OF_ROUND).action["hidden"] is True
    t.moved(reading(die(2, 102, 100), die(6, 250, 200), die(4, 300, 300)), key="k")
    p = t.proposal("schocken", FIRST_OF_ROUND)
    assert p.action == {"action": "throw", "player": "Anna", "dice": [6, 4, 2], "throws": 2,
                        "hand": False}


def test_a_cup_elsewhere_proposes_nothing_until_it_is_lifted():
    t = TurnTracker(proposers=GAMES.proposers())
    t.cover("k")
    later = {**FIRST_OF_ROUND, "to_throw": "Ben", "throw_limit": 3}
    p = t.proposal("schocken", later)
    assert p.action is None and "lift" in p.text
    # Lifted: the dice under it are a throw like any other.
    t.observe(reading(die(1, 100, 100), die(1, 200, 100), die(1, 300, 100)), key="k")
    assert t.proposal("schocken", later).action["dice"] == [1, 1, 1]


def test_the_same_dice_nudged_are_followed_but_not_counted():
    t = TurnTracker(proposers=GAMES.proposers())
    t.observe(reading(die(1, 100, 100), die(5, 200, 100), die(3, 300, 100)), key="k")
    t.moved(reading(die(1, 110, 100), die(5, 200, 100), die(3, 300, 100)), key="k")
    assert t.throws == 1 and t.reading.dice[0].region.center == (110, 100)
    # The kept 1 is judged from where it lies now.
    t.observe(reading(die(1, 112, 102), die(6, 260, 240), die(4, 400, 300)), key="k")
    assert t.throws == 2 and t.hand is False
