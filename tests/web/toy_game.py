"""A toy fourth game that plugs itself in from a test: rules, web part, and registry entry.

*Hochwurf*: players roll one die each in seat order; after ``rounds`` rounds (a house
rule, 2 or 3) the highest total wins (ties share the win). Nothing of the companion is
edited for it: :data:`REGISTRY` is the real registry with this game added, handed to
a Table and from there to the dashboard, exactly as the three real games are.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from flask import Blueprint, request

from companion.domain.fold import Fold
from companion.games import IllegalAction, ParseError, Phrase, RuleError, RuleFlag
from companion.registry import GAMES, Game, Recognition, Registry
from companion.stats import GameStats, Rate
from companion.turns import Proposal, TurnTracker
from companion.vision.types import Reading
from companion.web import get_table, i18n
from companion.web.part import WebPart
from companion.web.recording import ensure_game, respond_with, who
from companion.web.security import scorekeeper_required

NAME = "hochwurf"
RULE_FLAGS = (RuleFlag("rounds", 2, (2, 3), "Rounds to play.", "Zu spielende Runden."),)


# -- the rules (pure) --------------------------------------------------------------------

@dataclass(frozen=True)
class Rules:
    """How many rounds are played."""

    rounds: int = 2

    @classmethod
    def from_dict(cls, mapping: Mapping[str, object]) -> Rules:
        """The rules of ``mapping``; RuleError for an unknown flag or value."""
        unknown = set(mapping) - {"rounds"}
        if unknown:
            raise RuleError(f"unknown Hochwurf rule {sorted(unknown)[0]!r}")
        rounds = int(str(mapping.get("rounds", 2)))
        if rounds not in (2, 3):
            raise RuleError(f"Hochwurf plays 2 or 3 rounds, not {rounds}")
        return cls(rounds)

    def to_dict(self) -> dict[str, int]:
        """The flags as JSON."""
        return {"rounds": self.rounds}


@dataclass(frozen=True)
class Setup:
    """Players in seat order and the rules."""

    players: tuple[str, ...]
    rules: Rules = field(default_factory=Rules)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Setup:
        """Read ``{"players": [...], "rules": {...}}``: two or more distinct names."""
        players = d.get("players")
        if not isinstance(players, list) or len(players) < 2 or len(set(players)) != len(players):
            raise ParseError("Hochwurf needs a list of two or more different names")
        if not all(isinstance(p, str) and p.strip() == p and p for p in players):
            raise ParseError("Hochwurf's player names are text without outer spaces")
        return cls(tuple(players), Rules.from_dict(d.get("rules", {})))

    def to_dict(self) -> dict[str, Any]:
        """The setup as a log's first line holds it."""
        return {"players": list(self.players), "rules": self.rules.to_dict()}


@dataclass(frozen=True)
class Roll:
    """``player`` rolled ``pips`` with the one die."""

    player: str
    pips: int


@dataclass(frozen=True)
class State:
    """The totals, and how many rolls were made."""

    setup: Setup
    totals: tuple[int, ...]
    rolls: int = 0


def event_from_dict(d: Mapping[str, Any]) -> Roll:
    """Read ``{"action": "roll", "player": .., "pips": 1..6}``."""
    if d.get("action") != "roll" or set(d) != {"action", "player", "pips"}:
        raise ParseError('a Hochwurf action is {"action": "roll", "player": .., "pips": ..}')
    pips = d["pips"]
    if isinstance(pips, bool) or not isinstance(pips, int) or not 1 <= pips <= 6:
        raise ParseError(f"pips are a whole number 1 to 6, not {pips!r}")
    return Roll(str(d["player"]), pips)


def event_to_dict(event: Roll) -> dict[str, Any]:
    """The event as a log line."""
    return {"action": "roll", "player": event.player, "pips": event.pips}


def start(setup: Setup) -> State:
    """Nothing rolled yet."""
    return State(setup, (0,) * len(setup.players))


def is_over(state: State) -> bool:
    """Every player rolled in every round."""
    return state.rolls == state.setup.rules.rounds * len(state.setup.players)


def _to_roll(state: State) -> str | None:
    return None if is_over(state) else state.setup.players[state.rolls % len(state.setup.players)]


def apply(state: State, event: Roll) -> State:
    """Fold one roll in; IllegalAction when it is not the player's turn."""
    expected = _to_roll(state)
    if expected is None:
        raise IllegalAction("the game is over", key="game_over")
    if event.player != expected:
        raise IllegalAction(f"it is {expected}'s turn, not {event.player}'s",
                            key="not_your_turn", player=event.player, expected=expected)
    seat = state.setup.players.index(event.player)
    totals = state.totals[:seat] + (state.totals[seat] + event.pips,) + state.totals[seat + 1:]
    return replace(state, totals=totals, rolls=state.rolls + 1)


def _winners(state: State) -> list[str]:
    top = max(state.totals)
    return [p for p, t in zip(state.setup.players, state.totals, strict=True) if t == top]


def standings(state: State) -> dict[str, Any]:
    """Totals, and the winners once over."""
    return {"game": NAME, "over": is_over(state),
            "totals": dict(zip(state.setup.players, state.totals, strict=True)),
            "winners": _winners(state) if is_over(state) else []}


def view(state: State) -> dict[str, Any]:
    """Whose roll it is, the round, the totals."""
    n = len(state.setup.players)
    return {"game": NAME, "over": is_over(state), "to_roll": _to_roll(state),
            "round": min(state.rolls // n + 1, state.setup.rules.rounds),
            "totals": [{"name": p, "total": t}
                       for p, t in zip(state.setup.players, state.totals, strict=True)]}


def describe(event: Roll) -> Phrase:
    """The history line of a roll (worded from the game's own words below)."""
    return Phrase("hw_rolled", {"player": event.player, "n": event.pips})


# -- what it plugs in besides its rules ----------------------------------------------------

def report(standings: Mapping[str, Any], setup: Mapping[str, Any]) -> str:
    """The text `companion replay` prints."""
    totals = ", ".join(f"{p} {t}" for p, t in standings["totals"].items())
    return f"Hochwurf: {totals}; winners: {', '.join(standings['winners']) or '-'}"


def _facts(fold: Fold, names: list[str], standings: Mapping[str, Any],
           facts: list[dict[str, int]]) -> None:
    for seat, name in enumerate(names):
        facts[seat]["pips"] = standings["totals"][name]
        facts[seat]["games_won"] = int(name in standings["winners"])


STATS = GameStats(counters=("games", "games_won", "pips"), facts=_facts,
                  rates={"pips_per_game": Rate("pips", "games")}, monthly="pips")


def series(fold: Fold) -> list[list[int]]:
    """Each seat's running total after every completed round."""
    n = len(fold.setup.players)
    return [list(state.totals) for state in fold.states[n::n]]


class Proposer:
    """One die at rest: the roll of the player whose turn it is."""

    def covered(self, tracker: TurnTracker, view: Mapping[str, Any]) -> Proposal | None:
        """A cup is only in the way."""
        return None

    def read(self, tracker: TurnTracker, reading: Reading, view: Mapping[str, Any]) -> Proposal:
        """The one die as the roll of ``to_roll``."""
        if len(reading.dice) != 1 or not isinstance(reading.dice[0].value, int):
            return Proposal(None, "Hochwurf is one die", "Hochwurf ist ein Würfel")
        player, pips = view["to_roll"], reading.dice[0].value
        return Proposal({"action": "roll", "player": player, "pips": pips},
                        f"{player} rolls {pips}", f"{player} würfelt {pips}")


bp = Blueprint(NAME, __name__, url_prefix="/games/<int:game_id>/hochwurf",
               template_folder=str(Path(__file__).parent / "toy_templates"))


@bp.post("/roll")
@scorekeeper_required
def roll(game_id: int) -> Any:
    """Record the roll of the player whose turn it is (``pips`` from the form)."""
    snap = ensure_game(game_id, NAME)
    raw = request.form.get("pips", "")
    action = {"action": "roll", "player": snap["view"]["to_roll"],
              "pips": int(raw) if raw.isdigit() else raw}
    return respond_with(game_id, get_table().submit(game_id, action, who()))


def setup_from_form(form: Mapping[str, str]) -> dict[str, Any]:
    """Players from the seats of the setup form."""
    return {"players": [n for n in (form.get(f"name_{s}", "").strip() for s in range(4)) if n]}


def summary(snap: Mapping[str, Any]) -> str:
    """The game list's line: who leads."""
    best = max(snap["view"]["totals"], key=lambda p: p["total"])
    return i18n._("hw_leads", name=best["name"], n=best["total"])


def result(standings: Mapping[str, Any]) -> str:
    """The evening's line: the winners, else the totals."""
    if standings["winners"]:
        return i18n._("hw_won", names=" & ".join(standings["winners"]))
    return ", ".join(f"{p} {t}" for p, t in standings["totals"].items())


WORDS = {
    "de": {"game_hochwurf": "Hochwurf", "players_help_hochwurf": "Zwei bis vier Spieler.",
           "hw_leads": "{name} führt mit {n}", "hw_won": "Gewonnen: {names}",
           "hw_round": "Runde {n}", "hw_to_roll": "{name} würfelt", "hw_roll": "Wurf eintragen",
           "flag_rounds": "Runden", "stat_pips": "Augen", "stat_short_pips": "Augen",
           "stat_pips_per_game": "Augen pro Spiel", "stat_short_pips_per_game": "Ø",
           "chart_hw_totals": "Augen nach jeder Runde",
           "chart_month_pips": "Hochwurf: Augen pro Monat",
           "hw_rolled_one": "{player} würfelt 1 Auge.",
           "hw_rolled_other": "{player} würfelt {n} Augen."},
    "en": {"game_hochwurf": "High Roll", "players_help_hochwurf": "Two to four players.",
           "hw_leads": "{name} leads with {n}", "hw_won": "Won: {names}",
           "hw_round": "Round {n}", "hw_to_roll": "{name} rolls", "hw_roll": "Record the roll",
           "flag_rounds": "Rounds", "stat_pips": "Pips", "stat_short_pips": "pips",
           "stat_pips_per_game": "Pips per game", "stat_short_pips_per_game": "avg",
           "chart_hw_totals": "Pips after each round",
           "chart_month_pips": "High Roll: pips per month",
           "hw_rolled_one": "{player} rolls 1 pip.",
           "hw_rolled_other": "{player} rolls {n} pips."},
}

PART = WebPart(blueprint=bp, setup_from_form=setup_from_form, summary=summary, result=result,
               score="hochwurf/score.html", setup="hochwurf/setup.html",
               rules="hochwurf/rules_{lang}.html", chart="chart_hw_totals")

GAME = Game(rules=sys.modules[__name__], report=report, stats=STATS, series=series,
            proposer=Proposer(), recognition=Recognition("pips", max_dice=1),
            web=lambda: PART, words=WORDS)
REGISTRY: Registry = GAMES.with_game(GAME)
