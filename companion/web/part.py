"""A game's part of the dashboard, as its registry entry hands it to the app.

Each game's web module (``web/schocken.py``, ...) offers one :class:`WebPart`: its
blueprint (the scorekeeper's entry forms), how its setup form becomes the engine's
setup dict, the lines the game list and the evening print, and its templates -- the
score as the server draws it (readable without JavaScript), the setup form's player
seats, the rules as the companion applies them -- and the script that draws its live
view. The generic pages (:mod:`companion.web.games`) include these by name and never
ask which game it is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from flask import Blueprint

__all__ = ["WebPart"]


@dataclass(frozen=True)
class WebPart:
    """What one game adds to the dashboard.

    ``score``, ``setup`` and ``rules`` are template names (``rules`` holding
    ``{lang}``); ``script`` a file in the static folder (None: the server's score is
    all the page shows); ``chart`` the catalogue key of the title of the game's chart
    per round (None: no chart). A game's own words come with its registry entry.
    """

    blueprint: Blueprint
    setup_from_form: Callable[[Mapping[str, str]], dict[str, Any]]
    summary: Callable[[Mapping[str, Any]], str]
    result: Callable[[Mapping[str, Any]], str]
    score: str
    setup: str
    rules: str
    script: str | None = None
    chart: str | None = None
