"""The games the companion knows: one typed entry per game with everything it plugs in.

Like python-chess's variants, each game is one :class:`Game` in a :class:`Registry`:
its pure rules (the :class:`~companion.games.GameRules` module: engine, setup and codec,
view, history lines) and what the rest of the companion needs of it -- the text
``companion replay`` prints, what the statistics count and chart, the per-round chart
of one game, the camera's turn proposer and the kind of dice the camera reads, and the
dashboard's part (setup form, score, entry forms). The rest of the code asks the
registry and never lists games by name; a new game is its own modules plus one entry.

Registries are values: :data:`GAMES` holds the three games of RULES.md, and
:meth:`Registry.with_game` gives a new registry with one more (a test's toy game), to be
handed to the :class:`~companion.table.Table` (and from there to the dashboard).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from companion import report, stats
from companion.domain.fold import Fold
from companion.games import GameRules, ParseError, Phrase, rockthebock, schocken, wacken
from companion.games.schocken_throws import DICE
from companion.proposers import RockTheBockProposer, SchockenProposer
from companion.stats import GameStats
from companion.turns import Proposer

if TYPE_CHECKING:
    from companion.web.part import WebPart

__all__ = ["GAMES", "Game", "Recognition", "Registry"]

# standings, setup -> the text `companion replay` prints
Report = Callable[[Mapping[str, Any], Mapping[str, Any]], str]
# a game's fold -> one list of values per round, a value per seat (the game's chart)
Series = Callable[[Fold], list[list[int]]]


@dataclass(frozen=True)
class Recognition:
    """The dice the camera reads for a game: ``kind`` ``"pips"`` or ``"bock"`` (the
    recogniser the composition root loads) and at most ``max_dice`` of them."""

    kind: str
    max_dice: int | None = None


@dataclass(frozen=True)
class Game:
    """One game the companion knows, and everything it plugs in.

    Only ``rules`` is needed; a game without a proposer or recognition is not read by
    the camera, one without ``stats`` is not counted on the Stammtisch pages, one
    without ``series`` has no per-round chart. ``web`` loads the dashboard's part when
    the dashboard is built (it imports Flask, which the rules never need). ``words``
    are catalogue entries of the game's own, ``{lang: {key: text}}``, for a game that
    brings its words along (the built-in games' words are in the catalogues).
    """

    rules: GameRules
    report: Report | None = None
    stats: GameStats | None = None
    series: Series | None = None
    proposer: Proposer | None = None
    recognition: Recognition | None = None
    web: Callable[[], WebPart] | None = None
    words: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The registry key, the rules' ``NAME``."""
        return self.rules.NAME


class Registry:
    """The games by name, in the order the dashboard offers them."""

    def __init__(self, games: tuple[Game, ...]) -> None:
        names = [game.name for game in games]
        if len(set(names)) != len(names):
            raise ValueError(f"two games of one name in the registry: {', '.join(names)}")
        self._games = {game.name: game for game in games}

    def __repr__(self) -> str:
        return f"Registry({tuple(self._games.values())!r})"

    def __iter__(self) -> Iterator[Game]:
        return iter(self._games.values())

    def __contains__(self, name: object) -> bool:
        return name in self._games

    def names(self) -> tuple[str, ...]:
        """Every game's name, in order."""
        return tuple(self._games)

    def find(self, name: str) -> Game:
        """The game registered as ``name``; ParseError naming the known games if none."""
        game = self._games.get(name)
        if game is None:
            raise ParseError(
                f"unknown game {str(name)[:30]!r}; choose one of: {', '.join(self._games)}",
                key="unknown_game", name=str(name)[:30],
                games=Phrase("list_or", {"items": tuple(Phrase(f"game_{n}") for n in self._games)}),
            )
        return game

    def rules(self, name: str) -> GameRules:
        """The rules module of game ``name`` (what a fold or a log reader needs)."""
        return self.find(name).rules

    def with_game(self, game: Game) -> Registry:
        """A registry with ``game`` added (or put in place of one of its name)."""
        return Registry((*(g for g in self if g.name != game.name), game))

    def proposers(self) -> dict[str, Proposer]:
        """The turn proposer of every game the camera reads, by name."""
        return {g.name: g.proposer for g in self if g.proposer is not None}

    def words(self, lang: str) -> dict[str, str]:
        """The words the games bring along in ``lang`` (see :attr:`Game.words`)."""
        out: dict[str, str] = {}
        for game in self:
            out.update(game.words.get(lang, {}))
        return out

    def stats(self) -> dict[str, GameStats]:
        """What the statistics count, by the name of every game that has statistics."""
        return {g.name: g.stats for g in self if g.stats is not None}


def _schocken_web() -> WebPart:
    from companion.web.schocken import PART

    return PART


def _rockthebock_web() -> WebPart:
    from companion.web.rockthebock import PART

    return PART


def _wacken_web() -> WebPart:
    from companion.web.wacken import PART

    return PART


GAMES = Registry((
    Game(
        rules=schocken,
        report=report.schocken,
        stats=stats.SCHOCKEN,
        series=stats.deckel_series,
        proposer=SchockenProposer(),
        recognition=Recognition("pips", max_dice=DICE),
        web=_schocken_web,
    ),
    Game(
        rules=rockthebock,
        report=report.rockthebock,
        stats=stats.ROCKTHEBOCK,
        series=stats.points_series,
        proposer=RockTheBockProposer(),
        recognition=Recognition("bock"),
        web=_rockthebock_web,
    ),
    Game(
        rules=wacken,
        report=report.wacken,
        stats=stats.WACKEN,
        web=_wacken_web,
    ),
))
