"""What Rock the Bock shows: the standings and the dashboard's live view (JSON-able)."""

from __future__ import annotations

from typing import Any

from companion.games.rockthebock_codec import NAME, ROUNDS, RULE_FLAGS
from companion.games.rockthebock_engine import State, legal_choices, needs_reroll

__all__ = [
    "standings",
    "totals",
    "view",
]


def totals(state: State) -> tuple[int, ...]:
    """Each player's total over the completed rounds, in seat order."""
    n = len(state.setup.players)
    return tuple(sum(rnd[i].score for rnd in state.completed) for i in range(n))


def _best(names: tuple[str, ...], values: tuple[int, ...]) -> list[str]:
    top = max(values)
    return [name for name, value in zip(names, values, strict=True) if value == top]


def standings(state: State) -> dict[str, Any]:
    """Each sheet per round, round scores, totals and winner(s).

    ``rounds`` of a player holds the completed rounds; an unfinished round is
    shown apart as ``current`` because its score is not final. ``winners``
    stays empty until the third round is scored; ``leaders`` is always given.
    """
    setup = state.setup
    sums = totals(state)
    players = []
    for i, player in enumerate(setup.players):
        entry: dict[str, Any] = {
            "name": player.name,
            "colour": player.colour,
            "rounds": [rnd[i].to_dict() for rnd in state.completed],
            "total": sums[i],
        }
        if not state.over:
            entry["current"] = state.sheets[i].to_dict()
        players.append(entry)
    return {
        "game": NAME,
        "rounds_played": len(state.completed),
        "over": state.over,
        "players": players,
        "leaders": _best(setup.names, sums),
        "winners": _best(setup.names, sums) if state.over else [],
    }


def view(state: State) -> dict[str, Any]:
    """The live picture for the dashboard: turn, dice left, pending roll and its options."""
    setup = state.setup
    turn = None if state.turn is None else setup.players[state.turn]
    pending = state.pending
    return {
        "game": NAME,
        "round": state.round_no,
        "rounds": ROUNDS,
        "over": state.over,
        "starter": setup.players[state.starter].name,
        "turn": None if turn is None else {"name": turn.name, "colour": turn.colour},
        "phase": None if state.over else ("choose" if pending is not None else "roll"),
        "dice_left": {
            p.name: (0 if state.over else state.sheets[i].dice_left)
            for i, p in enumerate(setup.players)
        },
        "pending_roll": None if pending is None else dict(pending.faces),
        "choices": [o.to_dict() for o in legal_choices(state)],
        "reroll": needs_reroll(state),
        "standings": standings(state),
        "rules": [
            {
                "name": flag.name,
                "value": getattr(setup.rules, flag.name),
                "default": flag.default,
                "help_en": flag.help_en,
                "help_de": flag.help_de,
            }
            for flag in RULE_FLAGS
        ],
    }


