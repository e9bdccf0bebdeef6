"""What a game says to a person, without saying it in any one language: a :class:`Phrase`.

An engine never words a history line or a refusal itself. It names the catalogue entry
(``key``) and the values to fill in (``fields``: names, numbers, other phrases, or
tuples of them); the dashboard words it in the page's language from its catalogue
(:mod:`companion.wording`), the command line and CSV in English. A count ``n`` picks
between ``<key>_one`` and ``<key>_other`` where the catalogue has both ("1 Wurf",
"2 Würfe"); a tuple is said as a list ("2 Wölfe, 1 Bock und 3 rote Geißen").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = ["Phrase"]


@dataclass(frozen=True)
class Phrase:
    """A catalogue key and the values it is filled with; :meth:`to_dict` is its JSON."""

    key: str
    fields: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fields", MappingProxyType(dict(self.fields)))

    def __repr__(self) -> str:
        return f"Phrase({self.key!r}, {dict(self.fields)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Phrase):
            return NotImplemented
        return self.key == other.key and dict(self.fields) == dict(other.fields)

    def __hash__(self) -> int:
        return hash((self.key, tuple(sorted(self.fields))))

    def to_dict(self) -> dict[str, Any]:
        """``{"key": ..., "fields": {...}}``, nested phrases as such dicts (JSON-able)."""
        return {"key": self.key, "fields": {k: _plain(v) for k, v in self.fields.items()}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Phrase:
        """The phrase of :meth:`to_dict`'s JSON."""
        return cls(str(d["key"]), {k: _unplain(v) for k, v in dict(d.get("fields") or {}).items()})


def _plain(value: Any) -> Any:
    if isinstance(value, Phrase):
        return value.to_dict()
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _unplain(value: Any) -> Any:
    if isinstance(value, Mapping) and "key" in value:
        return Phrase.from_dict(value)
    if isinstance(value, list):
        return tuple(_unplain(v) for v in value)
    return value
