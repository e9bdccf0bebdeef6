"""What Schocken shows: the standings (``companion replay``, the fixtures, statistics) and
the live view the dashboard draws (whose turn, limits, ranked throws, the scoreboard).

Both are JSON-able dicts read from the engine's state; no rule is decided here.
"""

from __future__ import annotations

from typing import Any

from companion.games.phrase import Phrase
from companion.games.schocken_codec import NAME
from companion.games.schocken_engine import deckel_move, ranked_entries
from companion.games.schocken_rules import RULE_FLAGS, Rules
from companion.games.schocken_state import FINALE, Entry, Part, RoundResult, State, is_over
from companion.games.schocken_throws import classify, hand_matters

__all__ = ["WARN_ABOVE", "standings", "view"]

WARN_ABOVE = 10


def _deckel_by_half(state: State) -> list[dict[str, Any]]:
    """Deckel each player received in each half (and the Finale) so far, halves in order."""
    parts: dict[Part, dict[str, int]] = {}
    for result in state.rounds:
        received = parts.setdefault(result.part, dict.fromkeys(state.setup.players, 0))
        received[result.loser] += result.deckel
    return [{"half": part, "received": received} for part, received in parts.items()]


def _round_row(result: RoundResult, rules: Rules) -> dict[str, Any]:
    """One line of the round-by-round scoreboard: who started, best, worst, Deckel moved."""
    started = next((e for e in result.ranking if e.player == result.starter), None)
    return {
        "half": result.part,
        "round": result.number,
        "phase": result.phase,
        "starter": result.starter,
        "throws": None if started is None else started.throws,
        "best": _entry_dict(result.ranking[0], rules, 1),
        "worst": _entry_dict(result.ranking[-1], rules, len(result.ranking)),
        "loser": result.loser,
        "deckel": result.deckel,
        "from": "everyone" if result.source == "schock_aus" else result.source,
        "ended_half": result.ended_part,
    }


def _entry_dict(entry: Entry, rules: Rules, place: int | None) -> dict[str, Any]:
    if entry.throw is None:
        return {"player": entry.player, "throws": entry.throws, "hidden": True, "place": None}
    cls = classify(entry.throw, rules)
    return {
        "player": entry.player,
        "place": place,
        "dice": list(entry.throw.dice),
        "text": str(entry.throw),
        "class": cls.kind,
        "label": cls.label,
        "deckel": cls.deckel,
        "hand": entry.throw.hand,
        "hand_matters": hand_matters(entry.throw, rules),
        "throws": entry.throws,
        "turned": entry.turned,
        "hidden": False,
    }


def _tab_dict(state: State) -> dict[str, Any] | None:
    rules = state.rules
    if not rules.keeps_tab:
        return None
    totals: dict[str, int | float] = {p: 0 for p in state.setup.players}
    for line in state.tab:
        totals[line.player] += line.amount
    return {
        "amount": rules.tab_amount,
        "unit": rules.tab_unit,
        "ledger": [{"player": t.player, "half": t.part, "amount": t.amount} for t in state.tab],
        "totals": totals,
    }


def standings(state: State) -> dict[str, Any]:
    """Deckel, halves, Finale, game loser, statistics and the club tab, JSON-able."""
    players = state.setup.players
    return {
        "game": NAME,
        "players": list(players),
        "deckel": dict(zip(players, state.deckel, strict=True)),
        "middle": state.middle,
        "half": state.part,
        "over": is_over(state),
        "half_losers": list(state.half_losers),
        "finale_players": list(state.half_players) if state.part == FINALE else [],
        "durchmarsch": state.durchmarsch,
        "game_loser": state.game_loser,
        "rounds_played": state.rounds_played,
        "statistics": {p: s.to_dict() for p, s in zip(players, state.stats, strict=True)},
        "tab": _tab_dict(state),
    }


def _would_receive(state: State) -> dict[str, Any] | None:
    # Provisional by nature: rounds are scored as soon as the last throw is known,
    # so this only ever looks at a round still missing throws or a hidden one.
    ranking = ranked_entries(state.entries, state.rules)
    if len(ranking) < 2:
        return None
    source, count, _ = deckel_move(state, ranking)
    return {
        "player": ranking[-1].player,
        "deckel": count,
        "from": "everyone" if source == "schock_aus" else source,
        "schock_aus": source == "schock_aus",
    }


def view(state: State) -> dict[str, Any]:
    """What the dashboard shows live: whose turn, limits, ranked throws, Deckel, rules."""
    rules = state.rules
    seats = state.setup.players
    ranking = ranked_entries(state.entries, rules)
    ranked = [_entry_dict(e, rules, i + 1) for i, e in enumerate(ranking)]
    ranked += [_entry_dict(e, rules, None) for e in state.entries if e.throw is None]
    warnings = []
    if len(seats) > WARN_ABOVE:
        warnings.append(Phrase("sch_warn_players", {"n": len(seats), "most": WARN_ABOVE}).to_dict())
    last = state.last_round
    return {
        "game": NAME,
        "over": is_over(state),
        "game_loser": state.game_loser,
        "half": state.part,
        "phase": state.phase,
        "round": state.round_number,
        "middle": state.middle,
        "players": [
            {
                "name": p,
                "deckel": d,
                "in_half": p in state.half_players,
                "active": p in state.turn_order,
                "thrown": any(e.player == p for e in state.entries),
            }
            for p, d in zip(seats, state.deckel, strict=True)
        ],
        "active_players": list(state.turn_order),
        "starter": state.starter,
        "to_throw": state.to_throw,
        "awaiting_reveal": state.awaiting_reveal,
        "throws_left": (3 if state.throw_limit is None else state.throw_limit)
        if state.to_throw is not None else 0,
        "throw_limit": state.throw_limit,
        "throws": ranked,
        "would_receive": _would_receive(state) if not is_over(state) else None,
        "last_round": None if last is None else {
            "half": last.part,
            "round": last.number,
            "phase": last.phase,
            "ranking": [_entry_dict(e, rules, i + 1) for i, e in enumerate(last.ranking)],
            "loser": last.loser,
            "deckel": last.deckel,
            "from": "everyone" if last.source == "schock_aus" else last.source,
            "ended_half": last.ended_part,
        },
        "rounds": [_round_row(r, rules) for r in state.rounds],
        "deckel_by_half": _deckel_by_half(state),
        "half_losers": list(state.half_losers),
        "durchmarsch": state.durchmarsch,
        "rules": rules.to_dict(),
        "rule_help": {f.name: {"en": f.help_en, "de": f.help_de} for f in RULE_FLAGS},
        "warnings": warnings,
    }

