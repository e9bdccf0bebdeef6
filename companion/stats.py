"""Statistics across games and evenings: a fold over the folded event logs, never stored.

Pure: no clock, no database. The :class:`companion.table.Table` hands in every stored
game as a :class:`Played` (its record's facts, the folded log and who sat where) and
gets back JSON-able counts. A player is a *key*: ``"p12"`` for roster player 12 (merges
already followed by the store, so a merged or renamed player keeps every count) or
``"g:Anna"`` for a guest who is not on the roster.

What is counted per game type (each game adds its own facts, then they are summed):

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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from companion.domain.fold import Fold

__all__ = [
    "EVENING_STARTS_HOUR",
    "Played",
    "Period",
    "deckel_series",
    "evening_of",
    "game_facts",
    "points_series",
    "statistics",
    "tab_owed",
]

EVENING_STARTS_HOUR = 6

# Counters summed over games, per game type, in the order the pages show them.
COUNTERS: dict[str, tuple[str, ...]] = {
    "schocken": ("games", "games_lost", "halves_lost", "finales", "finale_lost", "durchmarsch",
                 "schock_aus", "schocks", "handschocks", "generals", "strassen",
                 "deckel_received", "rounds", "rounds_lost"),
    "rockthebock": ("games", "games_won", "rounds", "points", "wolves_given",
                    "wolves_received"),
    "wacken": ("games", "games_won", "wristbands", "abrocken"),
}


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


def game_facts(fold: Fold) -> list[dict[str, int]]:
    """The counters of one game per seat (seat order), read from its folded log."""
    game = fold.module.NAME
    names = _names(fold)
    standings = fold.module.standings(fold.state)
    facts = [dict.fromkeys(COUNTERS[game], 0) for _ in names]
    for seat in facts:
        seat["games"] = 1
    if game == "schocken":
        _schocken(fold, names, standings, facts)
    elif game == "rockthebock":
        _rockthebock(fold, names, standings, facts)
    else:
        for seat, row in enumerate(standings["players"]):
            facts[seat]["wristbands"] = row["wristbands"]
            facts[seat]["abrocken"] = row["abrocken"]
            facts[seat]["games_won"] = int(row["name"] in standings["winners"])
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


def _derived(game: str, row: dict[str, Any]) -> dict[str, Any]:
    def rate(part: int, whole: int) -> float | None:
        return round(part / whole, 3) if whole else None

    if game == "schocken":
        row["handschock_rate"] = rate(row["handschocks"], row["schocks"])
        row["deckel_per_round"] = rate(row["deckel_received"], row["rounds"])
    elif game == "rockthebock":
        row["points_per_round"] = rate(row["points"], row["rounds"])
        row["points_per_game"] = rate(row["points"], row["games"])
    return row


def statistics(games: Iterable[Played], period: Period = Period()) -> dict[str, dict[str, Any]]:
    """game type -> player key -> summed counters (and rates) over ``games`` in ``period``."""
    totals: dict[str, dict[str, dict[str, Any]]] = {name: {} for name in COUNTERS}
    for played in games:
        if not period.contains(played.evening):
            continue
        for key, facts in zip(played.keys, game_facts(played.fold), strict=True):
            row = totals[played.game].setdefault(key, dict.fromkeys(COUNTERS[played.game], 0))
            for counter, value in facts.items():
                row[counter] += value
    return {game: {key: _derived(game, row) for key, row in rows.items()}
            for game, rows in totals.items()}


def by_month(games: Iterable[Played], key: str, game: str, counter: str) -> dict[str, int]:
    """month (``YYYY-MM``) -> ``counter`` of player ``key`` in games of type ``game``."""
    months: dict[str, int] = {}
    for played in games:
        if played.game != game or key not in played.keys:
            continue
        month = played.evening[:7]
        seat = played.keys.index(key)
        months[month] = months.get(month, 0) + game_facts(played.fold)[seat][counter]
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
    """(player key, unit) -> the club tab the Schocken games ran up (before settling)."""
    owed: dict[tuple[str, str], float] = {}
    for played in games:
        if played.game != "schocken":
            continue
        tab = played.fold.module.standings(played.fold.state)["tab"]
        if tab is None:
            continue
        names = _names(played.fold)
        for name, amount in tab["totals"].items():
            if amount:
                where = (played.keys[names.index(name)], str(tab["unit"]))
                owed[where] = owed.get(where, 0) + amount
    return owed
