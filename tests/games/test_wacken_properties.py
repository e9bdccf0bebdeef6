"""Kacken auf Wacken invariants over random legal games (hypothesis)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import wacken as wk

NAMES = ("Anna", "Ben", "Cleo", "Dora", "Emil", "Fritz")


@st.composite
def abrocken(draw: st.DrawFn, players: tuple[str, ...]) -> wk.Abrocken:
    comers = draw(st.lists(st.sampled_from(players), min_size=1, unique=True))
    songs_on_stage = draw(st.integers(1, 6))
    participants = []
    for i, name in enumerate(comers):
        cards = draw(st.integers(1, 6))
        beers = draw(st.integers(1, 2) if i == 0 else st.integers(1, 4))
        songs = draw(st.integers(0, min(cards, songs_on_stage)))
        participants.append(wk.Participant(name, beers, cards, songs))
    return wk.Abrocken("AC/WC", songs_on_stage, comers[0], tuple(participants))


@st.composite
def games(draw: st.DrawFn) -> tuple[wk.Setup, list[wk.Event]]:
    players = NAMES[: draw(st.integers(2, len(NAMES)))]
    events: list[wk.Event] = draw(st.lists(st.one_of(
        abrocken(players),
        st.builds(wk.AbrockenCancelled, st.just("Harter Hans"), st.sampled_from(players)),
    ), max_size=12))
    if draw(st.booleans()):
        events.append(wk.GameEnd(draw(st.sampled_from(sorted(wk.GAME_END_REASONS)))))
    return wk.Setup(players), events


@settings(max_examples=150, deadline=None)
@given(game=games())
def test_tally_is_the_sum_of_every_share_and_replay_rebuilds_it(game):
    setup, events = game
    state = wk.start(setup)
    expected = dict.fromkeys(setup.players, 0)
    for event in events:
        before = sum(state.wristbands)
        state = wk.apply(state, event)
        if isinstance(event, wk.Abrocken):
            beers = sum(p.beers for p in event.participants)
            for p in event.participants:
                expected[p.player] += event.songs_on_stage * beers * (p.cards + p.songs)
            assert sum(state.wristbands) > before
        else:
            assert sum(state.wristbands) == before  # cancelled and game end score nothing
    assert dict(zip(setup.players, state.wristbands, strict=True)) == expected
    ended = bool(events) and isinstance(events[-1], wk.GameEnd)
    assert wk.is_over(state) == ended

    replayed = wk.start(wk.Setup.from_dict(json.loads(json.dumps(setup.to_dict()))))
    for event in events:
        replayed = wk.apply(replayed, wk.event_from_dict(json.loads(json.dumps(
            wk.event_to_dict(event)))))
    assert replayed == state
    assert len(wk.view(state)["history"]) == len(events)
