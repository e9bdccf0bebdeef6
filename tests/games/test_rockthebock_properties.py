"""Rock the Bock invariants over random legal games (hypothesis)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import rockthebock as rtb
from companion.games.errors import IllegalAction

NAMES = ("Anna", "Ben", "Cleo", "Dora")


@st.composite
def setups(draw: st.DrawFn) -> rtb.Setup:
    n = draw(st.integers(rtb.MIN_PLAYERS, rtb.MAX_PLAYERS))
    colours = draw(st.permutations(rtb.COLOURS))[:n]
    players = tuple(rtb.Player(NAMES[i], colours[i]) for i in range(n))
    rules = rtb.Rules(
        unused_colour_goats=draw(st.sampled_from(("dump", "forbidden"))),
        start_player=draw(st.sampled_from(("rotate", "same"))),
    )
    return rtb.Setup(players, draw(st.sampled_from(NAMES[:n])), rules)


def check_invariants(state: rtb.State) -> None:
    for sheet in state.sheets:
        assert 0 <= sheet.crossed <= rtb.DICE_PER_ROUND
        assert min(sheet.bocks, sheet.wolves, sheet.goats) >= 0
    for finished in state.completed:
        # every player crossed off all ten dice in every finished round
        assert [s.crossed for s in finished] == [rtb.DICE_PER_ROUND] * len(finished)
        recorded = sum(s.bocks + s.wolves + s.goats for s in finished)
        assert recorded <= rtb.DICE_PER_ROUND * len(finished)
    if state.turn is not None:
        assert state.sheets[state.turn].dice_left > 0
    assert len(state.completed) <= rtb.ROUNDS


def play_random_game(rng: random.Random, setup: rtb.Setup) -> tuple[rtb.State, list]:
    """Play a whole game of random rolls and random legal choices, checking every step."""
    state = rtb.start(setup)
    events: list = []
    while not rtb.is_over(state):
        player = setup.players[state.turn].name
        left = state.sheets[state.turn].dice_left
        shown = rng.choices(rtb.FACES, k=left)
        roll = rtb.Roll.of(player, {face: shown.count(face) for face in set(shown)})
        state = rtb.apply(state, roll)
        events.append(roll)
        check_invariants(state)
        if rtb.needs_reroll(state):
            assert setup.rules.unused_colour_goats == "forbidden"
            continue
        option = rng.choice(rtb.legal_choices(state))
        victim = rng.choice(option.receivers) if option.kind == "wolf" else None
        crossed_before = state.sheets[state.turn].crossed
        round_before = len(state.completed)
        choice = option.choice(victim)
        state = rtb.apply(state, choice)
        events.append(choice)
        if len(state.completed) == round_before:
            seat = setup.seat(player)
            assert state.sheets[seat].crossed == crossed_before + option.count
        check_invariants(state)
    return state, events


# The game's rolls come from a Random seeded by hypothesis: a whole game costs a few
# milliseconds instead of hundreds of recorded draws, and a failure still replays.
@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(setup=setups(), seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_the_dice_and_end_after_three_rounds(
    setup: rtb.Setup, seed: int
) -> None:
    state, events = play_random_game(random.Random(seed), setup)
    assert len(state.completed) == rtb.ROUNDS and state.turn is None
    table = rtb.standings(state)
    totals = [sum(rtb.round_score(s.bocks, s.wolves, s.goats) for s in rounds)
              for rounds in zip(*state.completed, strict=True)]
    assert [p["total"] for p in table["players"]] == totals
    assert table["winners"] == [p.name for p, t in zip(setup.players, totals, strict=True)
                                if t == max(totals)]

    # replaying the log (through its JSON form) rebuilds an equal state
    header = json.loads(json.dumps(setup.to_dict()))
    replayed = rtb.start(rtb.Setup.from_dict(header))
    for event in events:
        line = json.loads(json.dumps(rtb.event_to_dict(event)))
        replayed = rtb.apply(replayed, rtb.event_from_dict(line))
    assert replayed == state


@settings(max_examples=60, deadline=None)
@given(setup=setups(), data=st.data())
def test_every_offered_choice_is_accepted_and_only_those(
    setup: rtb.Setup, data: st.DataObject
) -> None:
    state = rtb.start(setup)
    player = setup.players[state.turn].name
    shown = data.draw(st.lists(st.sampled_from(rtb.FACES), min_size=10, max_size=10))
    state = rtb.apply(state, rtb.Roll.of(player, {f: shown.count(f) for f in set(shown)}))
    offered = {o.kind for o in rtb.legal_choices(state)}
    for kind in rtb.FACES:
        receivers = [n for n in setup.names if n != player] if kind == "wolf" else [None]
        for victim in receivers:
            try:
                rtb.apply(state, rtb.Choice(player, kind, victim))
                accepted = True
            except IllegalAction:
                accepted = False
            assert accepted == (kind in offered)
