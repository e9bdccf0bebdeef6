"""Schocken's engine: :func:`apply` checks one event against the state and folds it in
(rounds, Deckel, halves, Finale -- RULES.md section 1).

Pure: frozen state (:mod:`schocken_state`), frozen events (:mod:`schocken_codec`);
:func:`apply` never changes the state it is given and raises :class:`IllegalAction`
with the reason.
"""

from __future__ import annotations

from dataclasses import replace

from companion.games.errors import IllegalAction
from companion.games.schocken_codec import Event, ThrowRecorded, ThrowRevealed
from companion.games.schocken_rules import Rules
from companion.games.schocken_state import (
    FINALE,
    Entry,
    PlayerStats,
    RoundResult,
    State,
    TabEntry,
    start_part,
    takes_part,
    turn_order,
)
from companion.games.schocken_throws import Throw, classify, rank_throws

__all__ = ["apply", "deckel_move", "ranked_entries"]


# ---------------------------------------------------------------------------
# Validation


def _times(n: int) -> str:
    return "1 time" if n == 1 else f"{n} times"


def _check_can_throw(state: State, player: str) -> None:
    if state.game_loser is not None:
        raise IllegalAction(
            f"the game is over ({state.game_loser} lost); start a new game to play on",
            key="game_over", loser=state.game_loser,
        )
    if player not in state.setup.players:
        raise IllegalAction(
            f"{player!r} is not playing; players: {', '.join(state.setup.players)}",
            key="not_playing", player=player, players=", ".join(state.setup.players),
        )
    reveal = state.awaiting_reveal
    if reveal is not None:
        raise IllegalAction(
            f"everyone has thrown; {reveal} must reveal the hidden third throw first",
            key="reveal_first", player=reveal,
        )
    expected = state.to_throw
    if player == expected:
        return
    if player not in state.half_players:
        where = "the Finale" if state.part == FINALE else f"half {state.part}"
        raise IllegalAction(f"{player} is not playing in {where}; it is {expected}'s turn",
                            key="not_in_part", player=player, expected=expected)
    if player not in state.turn_order:
        raise IllegalAction(
            f"{player} has no Deckel and is out of this half; it is {expected}'s turn",
            key="out_of_half", player=player, expected=expected,
        )
    if any(e.player == player for e in state.entries):
        raise IllegalAction(f"{player} has already thrown this round; it is {expected}'s turn",
                            key="thrown_already", player=player, expected=expected)
    raise IllegalAction(f"it is {expected}'s turn, not {player}'s", key="not_your_turn",
                        player=player, expected=expected)


def _check_dice(state: State, player: str, throws: int, throw: Throw, turned: int) -> None:
    if throws == 1 and not throw.hand:
        raise IllegalAction(
            f"{player} used 1 throw, so all three dice came from the hand: mark it as a "
            f"hand throw ({Throw(throw.dice, hand=True)})",
            key="one_throw_is_hand", player=player,
        )
    if turned not in (0, 1, 2) or isinstance(turned, bool):
        raise IllegalAction(
            f"{player} turned {turned!r} dice: at most two 1s can come from turned sixes",
            key="sch_turned_two", player=player, turned=str(turned)[:10],
        )
    if turned == 0:
        return
    if not state.rules.turn_sixes:
        raise IllegalAction(
            f"{player} turned sixes into 1s, but that is not allowed (rule turn_sixes=false)",
            key="turn_sixes_off", player=player,
        )
    if throws < 2:
        raise IllegalAction(
            f"{player} turned sixes into 1s but used only 1 throw: sixes may only be turned "
            "while a throw remains",
            key="turn_needs_throw", player=player,
        )
    if throw.hand:
        raise IllegalAction(
            f"{player} turned sixes into 1s, so the throw cannot be from the hand: a turned "
            "die is kept aside",
            key="turned_not_hand", player=player,
        )
    if turned > throw.ones:
        raise IllegalAction(
            f"{player} turned {turned} dice into 1s but the throw {throw} shows {throw.ones}",
            key="turned_too_many", player=player, n=turned, ones=throw.ones,
        )


def _validate(state: State, event: Event) -> None:
    if isinstance(event, ThrowRecorded):
        _check_can_throw(state, event.player)
        if not (isinstance(event.throws, int) and 1 <= event.throws <= 3):
            raise IllegalAction(f"a turn has 1 to 3 throws; {event.player} cannot use "
                                f"{event.throws!r}", key="sch_throws_count",
                                player=event.player, throws=str(event.throws)[:10])
        limit = state.throw_limit
        if limit is not None and event.throws > limit:
            raise IllegalAction(
                f"{event.player} may throw at most {_times(limit)} this round: "
                f"{state.entries[0].player}, who started, used {limit}",
                key="throw_limit", player=event.player, n=limit, starter=state.entries[0].player,
            )
        if event.throw is None:
            if state.entries or event.throws != 3:
                raise IllegalAction(
                    "only the round's first player keeps a throw hidden, and only a third "
                    f"throw; record {event.player}'s dice",
                    key="hidden_only_first", player=event.player,
                )
            if event.turned:
                raise IllegalAction("a hidden throw has no dice yet; give turned with reveal",
                                    key="sch_hidden_turned")
        else:
            _check_dice(state, event.player, event.throws, event.throw, event.turned)
    elif isinstance(event, ThrowRevealed):
        if state.game_loser is not None:
            raise IllegalAction(
                f"the game is over ({state.game_loser} lost); there is nothing to reveal",
                key="game_over", loser=state.game_loser,
            )
        waiting = state.awaiting_reveal
        if waiting is None:
            hidden = state.entries[0].player if state.entries and state.entries[0].throw is None \
                else None
            if hidden is None:
                raise IllegalAction("no hidden throw is waiting to be revealed",
                                    key="nothing_hidden")
            raise IllegalAction(
                f"{hidden}'s hidden throw is revealed when the round ends; "
                f"it is {state.to_throw}'s turn",
                key="reveal_later", player=hidden, expected=state.to_throw,
            )
        if event.player != waiting:
            raise IllegalAction(f"only {waiting} has a hidden throw to reveal, not {event.player}",
                                key="reveal_other", player=event.player, expected=waiting)
        _check_dice(state, event.player, 3, event.throw, event.turned)
    else:
        raise IllegalAction(f"not a Schocken event: {event!r}")


# ---------------------------------------------------------------------------
# Folding


def _count_throw(stats: PlayerStats, throw: Throw, rules: Rules) -> PlayerStats:
    cls = classify(throw, rules)
    is_schock = cls.kind in ("schock", "schock_aus")
    return replace(
        stats,
        schock_aus=stats.schock_aus + (cls.kind == "schock_aus"),
        schocks=stats.schocks + is_schock,
        handschocks=stats.handschocks + (is_schock and throw.hand),
        generals=stats.generals + (cls.kind == "general"),
        strassen=stats.strassen + (cls.kind == "strasse"),
    )


def _with_stats(state: State, player: str, stats: PlayerStats) -> tuple[PlayerStats, ...]:
    seat = state.setup.players.index(player)
    return state.stats[:seat] + (stats,) + state.stats[seat + 1:]


def ranked_entries(entries: tuple[Entry, ...], rules: Rules) -> tuple[Entry, ...]:
    """The revealed entries best first (turn order breaks ties; hidden ones are left out)."""
    shown = [e for e in entries if e.throw is not None]
    order = rank_throws([e.throw for e in shown], rules, [e.throws for e in shown])  # type: ignore[misc]
    return tuple(shown[i] for i in order)


def deckel_move(state: State, ranking: tuple[Entry, ...]) -> tuple[str, int, str | None]:
    """(source, count, giver) of the Deckel the round's loser receives."""
    rules = state.rules
    best, loser = ranking[0], ranking[-1].player
    cls = classify(best.throw, rules)  # type: ignore[arg-type]
    if cls.kind == "schock_aus":
        return "schock_aus", rules.deckel - state.deckel_of(loser), None
    if state.phase == 1:
        return "middle", min(cls.deckel, state.middle), None
    giver = next(e.player for e in ranking if e.player != loser and state.deckel_of(e.player) > 0)
    return giver, min(cls.deckel, state.deckel_of(giver)), giver


def _resolve_round(state: State) -> State:
    rules = state.rules
    ranking = ranked_entries(state.entries, rules)
    loser = ranking[-1].player
    source, count, giver = deckel_move(state, ranking)
    seats = state.setup.players
    deckel = list(state.deckel)
    middle = state.middle
    if source == "schock_aus":
        deckel = [0] * len(seats)
        middle = 0
        deckel[seats.index(loser)] = rules.deckel
    elif source == "middle":
        middle -= count
        deckel[seats.index(loser)] += count
    else:
        deckel[seats.index(giver)] -= count  # type: ignore[arg-type]
        deckel[seats.index(loser)] += count
    seat = seats.index(loser)
    old = state.stats[seat]
    stats = _with_stats(state, loser, replace(
        old, rounds_lost=old.rounds_lost + 1, deckel_received=old.deckel_received + count
    ))
    ended = deckel[seat] == rules.deckel
    result = RoundResult(state.part, state.round_number, state.phase, ranking, count, source,
                         loser, ended, state.starter)
    state = replace(state, deckel=tuple(deckel), middle=middle, stats=stats, last_round=result,
                    rounds_played=state.rounds_played + 1, entries=(),
                    rounds=(*state.rounds, result))
    if ended:
        return _end_part(state, loser)
    phase = 1 if middle > 0 else 2
    players = takes_part(state.setup, state.half_players, state.deckel, phase)
    return replace(state, phase=phase, round_number=state.round_number + 1, starter=loser,
                   turn_order=turn_order(state.setup, loser, players))


def _end_part(state: State, loser: str) -> State:
    seat = state.setup.players.index(loser)
    old = state.stats[seat]
    if state.part == FINALE:
        stats = replace(old, finale_lost=old.finale_lost + 1)
    else:
        stats = replace(old, halves_lost=old.halves_lost + 1)
    tab = state.tab
    if state.rules.keeps_tab:
        tab = tab + (TabEntry(loser, state.part, state.rules.tab_amount),)
    state = replace(state, stats=_with_stats(state, loser, stats), tab=tab)
    if state.part == 1:
        state = replace(state, half_losers=(loser,))
        return start_part(state, 2, state.setup.players, loser)
    if state.part == 2:
        first = state.half_losers[0]
        state = replace(state, half_losers=(first, loser))
        if first == loser:
            return _game_over(replace(state, durchmarsch=True), loser)
        finalists = tuple(p for p in state.setup.players if p in (first, loser))
        return start_part(state, FINALE, finalists, loser)
    return _game_over(state, loser)


def _game_over(state: State, loser: str) -> State:
    return replace(state, game_loser=loser, starter=None, turn_order=(), entries=())


def apply(state: State, event: Event) -> State:
    """Validate ``event`` against ``state`` and return the state after it.

    Raises :class:`IllegalAction` with the reason; ``state`` itself never changes.
    """
    _validate(state, event)
    rules = state.rules
    if isinstance(event, ThrowRecorded):
        entry = Entry(event.player, event.throws, event.throw, event.turned)
        entries = state.entries + (entry,)
        stats = state.stats
        if event.throw is not None:
            seat = state.setup.players.index(event.player)
            stats = _with_stats(state, event.player,
                                _count_throw(state.stats[seat], event.throw, rules))
        state = replace(state, entries=entries, stats=stats)
    else:
        first = state.entries[0]
        entry = replace(first, throw=event.throw, turned=event.turned)
        seat = state.setup.players.index(event.player)
        stats = _with_stats(state, event.player,
                            _count_throw(state.stats[seat], event.throw, rules))
        state = replace(state, entries=(entry,) + state.entries[1:], stats=stats)
    if len(state.entries) == len(state.turn_order) and state.entries[0].throw is not None:
        return _resolve_round(state)
    return state

