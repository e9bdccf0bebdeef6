"""Hypothesis: random legal Schocken games keep their invariants and always end.

Each example draws house rules, 2-5 players and a Deckel count, then plays a whole
game: whoever is to throw makes a random legal turn (sometimes hiding the first
player's third throw and revealing it later, sometimes turning sixes). The turns
come from a seeded ``random.Random``: a game is hundreds of decisions, too many to
draw one by one from Hypothesis; the seed is what Hypothesis varies and reports.
"""

from __future__ import annotations

import json
import random
from functools import reduce

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import schocken
from companion.games.errors import IllegalAction
from companion.games.schocken import Rules, Setup, Throw, ThrowRecorded, ThrowRevealed

# A game of 5 players and 13 Deckel takes a few hundred turns; far more means a bug.
MAX_EVENTS = 5000

rules_strategy = st.builds(
    Rules,
    deckel=st.integers(1, 13),
    straights=st.sampled_from(("seed", "all_runs")),
    general_beats_schock_2=st.booleans(),
    straight_general_must_be_hand=st.booleans(),
    handschock=st.sampled_from(("tiebreak", "above_all", "off")),
    tie_fewer_throws_first=st.booleans(),
    turn_sixes=st.booleans(),
    reentry=st.booleans(),
)


def _dice(rng: random.Random, throws: int, turned: int) -> tuple[Throw, int]:
    dice = [rng.randint(1, 6) for _ in range(3)]
    dice[:turned] = [1] * turned
    hand = throws == 1 or (turned == 0 and rng.random() < 0.4)
    return Throw(tuple(dice), hand=hand), turned  # type: ignore[arg-type]


def _turn(state: schocken.State, rng: random.Random) -> schocken.Event:
    """A random legal event for whoever must act now."""
    rules = state.rules
    waiting = state.awaiting_reveal
    if waiting is not None:
        turned = rng.choice((0, 0, 1, 2)) if rules.turn_sixes else 0
        return ThrowRevealed(waiting, *_dice(rng, 3, turned))
    player = state.to_throw
    assert player is not None
    limit = state.throw_limit or 3
    throws = rng.randint(1, limit)
    if not state.entries and throws == 3 and rng.random() < 0.5:
        return ThrowRecorded(player, 3, None)
    turned = rng.choice((0, 0, 1, 2)) if rules.turn_sixes and throws >= 2 else 0
    throw, turned = _dice(rng, throws, turned)
    return ThrowRecorded(player, throws, throw, turned)


@settings(max_examples=200, deadline=None)
@given(
    rules=rules_strategy,
    players=st.integers(2, 5),
    starter=st.integers(0, 4),
    seed=st.integers(0, 2**32),
)
def test_random_legal_games_keep_deckel_and_replay_and_end(
    rules: Rules, players: int, starter: int, seed: int
) -> None:
    rng = random.Random(seed)
    names = tuple(f"P{i}" for i in range(players))
    setup = Setup(names, names[starter % players], rules)
    state = schocken.start(setup)
    events: list[schocken.Event] = []
    while not schocken.is_over(state):
        assert len(events) < MAX_EVENTS, "the game did not end"
        event = _turn(state, rng)
        assert schocken.event_from_dict(schocken.event_to_dict(event)) == event
        state = schocken.apply(state, event)
        events.append(event)
        assert sum(state.deckel) + state.middle == rules.deckel
        assert min(state.deckel) >= 0 and state.middle >= 0
        # Only players of the current half ever hold Deckel.
        assert all(d == 0 for p, d in zip(names, state.deckel, strict=True)
                   if p not in state.half_players)
    assert state.game_loser in names
    assert len(state.half_losers) == 2
    if state.durchmarsch:
        assert state.half_losers == (state.game_loser, state.game_loser)
    else:
        assert state.game_loser in state.half_losers and state.part == "finale"
    assert reduce(schocken.apply, events, schocken.start(setup)) == state
    assert json.loads(json.dumps(schocken.view(state)))["game_loser"] == state.game_loser
    table = json.loads(json.dumps(schocken.standings(state)))
    lost = sum(s["halves_lost"] + s["finale_lost"] for s in table["statistics"].values())
    assert lost == (2 if state.durchmarsch else 3)
    assert sum(s["rounds_lost"] for s in table["statistics"].values()) == state.rounds_played


def _any_event(state: schocken.State, rng: random.Random) -> schocken.Event:
    """An arbitrary well-formed event, legal or not: any seat, any count, any dice."""
    player = rng.choice((*state.setup.players, "Stranger"))
    throw = Throw(tuple(rng.randint(1, 6) for _ in range(3)), hand=rng.random() < 0.5)
    turned = rng.choice((0, 0, 1, 2))
    if rng.random() < 0.2:
        return ThrowRevealed(player, throw, turned)
    hidden = rng.random() < 0.1
    return ThrowRecorded(player, rng.randint(0, 4), None if hidden else throw, turned)


@settings(max_examples=100, deadline=None)
@given(rules=rules_strategy, players=st.integers(2, 4), seed=st.integers(0, 2**32))
def test_arbitrary_events_are_either_legal_or_illegal_actions(
    rules: Rules, players: int, seed: int
) -> None:
    rng = random.Random(seed)
    names = tuple(f"P{i}" for i in range(players))
    state = schocken.start(Setup(names, names[0], rules))
    legal: list[schocken.Event] = []
    for _ in range(300):
        if schocken.is_over(state):
            break
        attempt = _any_event(state, rng) if rng.random() < 0.7 else _turn(state, rng)
        before = state
        try:
            state = schocken.apply(state, attempt)
        except IllegalAction:
            assert state is before
            continue
        legal.append(attempt)
        assert sum(state.deckel) + state.middle == rules.deckel
    assert reduce(schocken.apply, legal, schocken.start(state.setup)) == state
