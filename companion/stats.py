"""Statistics across games and evenings: a fold over the folded event logs, never stored.

Pure: no clock, no database. The :class:`companion.table.Table` hands in every stored
game as a :class:`Played` (its record's facts, the folded log and who sat where) and
gets back JSON-able counts. A player is a *key*: ``"p12"`` for roster player 12 (merges
already followed by the store, so a merged or renamed player keeps every count) or
``"g:Anna"`` for a guest who is not on the roster.

What is counted per game type is that game's :class:`GameStats` (its registry entry
hands it in): the counters, how one game's facts are read, the rates worked out from
the sums. Each game adds its own facts, then they are summed:

- Schocken: games, games lost, halves lost, Finale played and lost, Durchmarsch,
  Schock aus, Schocks, Handschocks (and their rate), Generals, Straßen, Deckel received,
  rounds played and lost (and Deckel per round).
- Rock the Bock: games, games won, rounds, points (per round, per game), wolves given
  and received.
- Kacken auf Wacken: games, games won, wristbands, Abrocken joined.

An *evening* runs from 06:00 to 06:00 local time, so the game after midnight still
belongs to the evening it was played on.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from companion.domain.fold import Fold

__all__ = [
    "EVENING_STARTS_HOUR",
    "ROCKTHEBOCK",
    "SCHOCKEN",
    "WACKEN",
    "GameStats",
    "Played",
    "Period",
    "Rate",
    "by_month",
    "deckel_series",
    "evening_of",
    "game_facts",
    "points_series",
    "statistics",
    "tab_owed",
]

EVENING_STARTS_HOUR = 6

def evening_of(timestamp: float) -> str:
    """The evening (``YYYY-MM-DD``, local time) a moment belongs to; it starts at 06:00."""
    moment = datetime.fromtimestamp(timestamp) - timedelta(hours=EVENING_STARTS_HOUR)
    return moment.date().isoformat()


_PERIOD = re.compile(r"(?P<year>[0-9]{4})(-(?P<month>0[1-9]|1[0-2])(-(?P<day>[0-3][0-9]))?)?")


@dataclass(frozen=True)
class Period:
    """A year (``2026``), a month (``2026-12``) or an evening (``2026-12-01``); or all time."""

    text: str = ""

    @classmethod
    def parse(cls, text: str | None) -> Period:
        """The period named by ``text`` (empty: all time); ValueError saying the forms."""
        text = (text or "").strip()
        if text and not _PERIOD.fullmatch(text):
            raise ValueError(f"{text[:20]!r} is no period; give a year (2026), a month "
                             "(2026-12) or an evening (2026-12-01)")
        if len(text) == 10:
            try:
                datetime.strptime(text, "%Y-%m-%d")
            except ValueError:
                raise ValueError(f"{text!r} is no date of the calendar") from None
        return cls(text)

    def contains(self, evening: str) -> bool:
        """Whether the evening ``YYYY-MM-DD`` lies in this period."""
        return evening.startswith(self.text)


@dataclass(frozen=True)
class Played:
    """One stored game as the statistics see it: its type, evening, log and players."""

    id: int
    game: str
    created: float
    fold: Fold
    keys: tuple[str, ...]  # the player key of every seat, in seat order

    @property
    def evening(self) -> str:
        """The evening this game was started on."""
        return evening_of(self.created)


def _names(fold: Fold) -> list[str]:
    names = getattr(fold.setup, "names", None)
    if names is not None:
        return [str(n) for n in names]
    return [p if isinstance(p, str) else str(p.name) for p in fold.setup.players]


# The facts of one game: (fold, seat names, standings, one counter row per seat) -> None,
# filling the rows in place ("games" is 1 already).
Facts = Callable[[Fold, list[str], Mapping[str, Any], list[dict[str, int]]], None]


@dataclass(frozen=True)
class Rate:
    """A rate worked out from two summed counters (None while ``whole`` is 0)."""

    part: str
    whole: str
    percent: bool = False  # a share of 0..1, shown as a percentage


@dataclass(frozen=True)
class GameStats:
    """What the statistics count for one game type.

    ``counters`` are summed per player in the order the pages show them (``games``
    first); ``facts`` reads one game's; ``rates`` are worked out from the sums;
    ``monthly`` is the counter a player's page charts per month (None: no chart).
    """

    counters: tuple[str, ...]
    facts: Facts
    rates: Mapping[str, Rate] = field(default_factory=dict)
    monthly: str | None = None

    @property
    def columns(self) -> tuple[str, ...]:
        """Counters then rates: the columns of a statistics table."""
        return (*self.counters, *self.rates)


def game_facts(fold: Fold, kind: GameStats) -> list[dict[str, int]]:
    """The counters of one game per seat (seat order), read from its folded log."""
    names = _names(fold)
    standings = fold.module.standings(fold.state)
    facts = [dict.fromkeys(kind.counters, 0) for _ in names]
    for seat in facts:
        seat["games"] = 1
    kind.facts(fold, names, standings, facts)
    return facts


def _schocken(fold: Fold, names: list[str], standings: Mapping[str, Any],
              facts: list[dict[str, int]]) -> None:
    finalists = set(standings["finale_players"])
    if standings["over"] and not standings["durchmarsch"]:
        finalists = set(standings["half_losers"])
    for seat, name in enumerate(names):
        counts = standings["statistics"][name]
        row = facts[seat]
        for key in ("halves_lost", "finale_lost", "schock_aus", "schocks", "handschocks",
                    "generals", "strassen", "deckel_received", "rounds_lost"):
            row[key] = counts[key]
        row["games_lost"] = int(standings["game_loser"] == name)
        row["durchmarsch"] = int(standings["durchmarsch"] and standings["game_loser"] == name)
        row["finales"] = int(name in finalists)
    # Every player of a round records exactly one throw in it (the first one's hidden
    # third throw is revealed by a second event of another kind).
    for _, event in fold.live:
        if type(event).__name__ == "ThrowRecorded":
            facts[names.index(event.player)]["rounds"] += 1


def _rockthebock(fold: Fold, names: list[str], standings: Mapping[str, Any],
                 facts: list[dict[str, int]]) -> None:
    for seat, row in enumerate(standings["players"]):
        sheets = [*row["rounds"], *([row["current"]] if "current" in row else [])]
        facts[seat]["rounds"] = len(row["rounds"])
        facts[seat]["points"] = row["total"]
        facts[seat]["wolves_received"] = sum(sheet["wolves"] for sheet in sheets)
        facts[seat]["games_won"] = int(row["name"] in standings["winners"])
    for (_, event), before in zip(fold.live, fold.states, strict=False):
        if getattr(event, "kind", None) == "wolf" and before.pending is not None:
            facts[names.index(event.player)]["wolves_given"] += before.pending.count("wolf")


def _wacken(fold: Fold, names: list[str], standings: Mapping[str, Any],
            facts: list[dict[str, int]]) -> None:
    for seat, row in enumerate(standings["players"]):
        facts[seat]["wristbands"] = row["wristbands"]
        facts[seat]["abrocken"] = row["abrocken"]
        facts[seat]["games_won"] = int(row["name"] in standings["winners"])


SCHOCKEN = GameStats(
    counters=("games", "games_lost", "halves_lost", "finales", "finale_lost", "durchmarsch",
              "schock_aus", "schocks", "handschocks", "generals", "strassen",
              "deckel_received", "rounds", "rounds_lost"),
    facts=_schocken,
    rates={"handschock_rate": Rate("handschocks", "schocks", percent=True),
           "deckel_per_round": Rate("deckel_received", "rounds")},
    monthly="halves_lost",
)
ROCKTHEBOCK = GameStats(
    counters=("games", "games_won", "rounds", "points", "wolves_given", "wolves_received"),
    facts=_rockthebock,
    rates={"points_per_round": Rate("points", "rounds"),
           "points_per_game": Rate("points", "games")},
)
WACKEN = GameStats(counters=("games", "games_won", "wristbands", "abrocken"), facts=_wacken)


def _derived(kind: GameStats, row: dict[str, Any]) -> dict[str, Any]:
    for name, rate in kind.rates.items():
        whole = row[rate.whole]
        row[name] = round(row[rate.part] / whole, 3) if whole else None
    return row


def statistics(games: Iterable[Played], kinds: Mapping[str, GameStats],
               period: Period = Period()) -> dict[str, dict[str, Any]]:
    """game type -> player key -> summed counters (and rates) over ``games`` in ``period``.

    ``kinds`` says what each game type counts; games of a type without statistics are
    left out.
    """
    totals: dict[str, dict[str, dict[str, Any]]] = {name: {} for name in kinds}
    for played in games:
        kind = kinds.get(played.game)
        if kind is None or not period.contains(played.evening):
            continue
        for key, facts in zip(played.keys, game_facts(played.fold, kind), strict=True):
            row = totals[played.game].setdefault(key, dict.fromkeys(kind.counters, 0))
            for counter, value in facts.items():
                row[counter] += value
    return {game: {key: _derived(kinds[game], row) for key, row in rows.items()}
            for game, rows in totals.items()}


def by_month(games: Iterable[Played], key: str, game: str, kind: GameStats) -> dict[str, int]:
    """month (``YYYY-MM``) -> the ``monthly`` counter of player ``key`` in games of ``game``."""
    months: dict[str, int] = {}
    if kind.monthly is None:
        return months
    for played in games:
        if played.game != game or key not in played.keys:
            continue
        month = played.evening[:7]
        seat = played.keys.index(key)
        months[month] = months.get(month, 0) + game_facts(played.fold, kind)[seat][kind.monthly]
    return dict(sorted(months.items()))


def deckel_series(fold: Fold) -> list[list[int]]:
    """Schocken: the Deckel each seat held after every round (one list per round).

    A round that ends a half is drawn as it ended (the loser holding every Deckel), not
    as the empty start of the next half the state has already moved on to.
    """
    series = []
    played = 0
    for state in fold.states[1:]:
        if state.rounds_played > played:
            played = state.rounds_played
            last = state.last_round
            if last is not None and last.ended_part:
                series.append([state.rules.deckel if name == last.loser else 0
                               for name in state.setup.players])
            else:
                series.append(list(state.deckel))
    return series


def points_series(fold: Fold) -> list[list[int]]:
    """Rock the Bock: each seat's running total after every completed round."""
    standings = fold.module.standings(fold.state)
    rounds = standings["rounds_played"]
    series = []
    for number in range(rounds):
        series.append([sum(r["score"] for r in p["rounds"][: number + 1])
                       for p in standings["players"]])
    return series


def tab_owed(games: Iterable[Played]) -> dict[tuple[str, str], float]:
    """(player key, unit) -> the club tab the games ran up (before settling).

    A game keeps a tab when its standings carry one (Schocken's ``tab_amount`` rule).
    """
    owed: dict[tuple[str, str], float] = {}
    for played in games:
        tab = played.fold.module.standings(played.fold.state).get("tab")
        if tab is None:
            continue
        names = _names(played.fold)
        for name, amount in tab["totals"].items():
            if amount:
                where = (played.keys[names.index(name)], str(tab["unit"]))
                owed[where] = owed.get(where, 0) + amount
    return owed
