"""Schocken on the dashboard: the setup form and the scorekeeper's throw form.

The throw form posts the tapped dice (``d1``..``d3``), how many throws were used,
whether the last throw was from the hand, and (first player, three throws) whether the
dice stay hidden under the cup. Who throws, the throw limit and the ranking come from
the engine; this module only reads the fields into the engine's action dict.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Blueprint, request

from companion.games.errors import ParseError
from companion.games.parsing import whole_number
from companion.web import get_table, i18n
from companion.web.part import WebPart
from companion.web.recording import ensure_game, respond_with, who
from companion.web.security import scorekeeper_required

NAME = "schocken"
bp = Blueprint(NAME, __name__, url_prefix="/games/<int:game_id>/schocken")

SEATS = 10  # RULES.md warns above 10; the form offers that many seats


def setup_from_form(form: Mapping[str, str]) -> dict[str, Any]:
    """Players in seat order and who starts the first round, from the new-game form."""
    players = []
    starter = None
    for seat in range(SEATS):
        name = form.get(f"name_{seat}", "").strip()
        if not name:
            continue
        players.append(name)
        if form.get("starter") == str(seat):
            starter = name
    setup: dict[str, Any] = {"players": players}
    if starter is not None:
        setup["starter"] = starter
    return setup


def summary(snap: Mapping[str, Any]) -> str:
    """One line for the game list: who lost, else who holds the most Deckel now."""
    view = snap["view"]
    if view.get("game_loser"):
        return i18n._("loser_is", name=view["game_loser"])
    most = max(view["players"], key=lambda p: p["deckel"], default=None)
    half = view["half"]
    part = i18n._("sch_finale") if half == "finale" else i18n._("sch_half_n", n=half)
    if most is None or most["deckel"] == 0:
        return part
    return part + " · " + i18n._("sch_most_deckel", name=most["name"], n=most["deckel"])



def result(standings: Mapping[str, Any]) -> str:
    """One line for the evening: who lost (and how), else which half is being played."""
    if standings["game_loser"]:
        key = "summary_durchmarsch" if standings["durchmarsch"] else "summary_lost"
        return i18n._(key, player=standings["game_loser"])
    return i18n._("summary_running_half", half=standings["half"])


def _int_field(name: str, low: int, high: int) -> int:
    raw = request.form.get(name, "").strip()
    try:
        return whole_number(raw, name, low, high)
    except ParseError:
        raise i18n.refuse("error_field_number", field=i18n._(f"field_{name.rstrip('123')}"),
                          low=low, high=high) from None


def _flag(name: str) -> bool:
    return request.form.get(name, "") in ("1", "true", "on", "yes")


@bp.post("/throw")
@scorekeeper_required
def throw(game_id: int) -> Any:
    """Record the turn of the player who is to throw, or reveal the hidden third throw."""
    view = ensure_game(game_id, NAME)["view"]
    revealing = view.get("awaiting_reveal")
    player = revealing or view.get("to_throw")
    if player is None:
        raise i18n.refuse("error_game_over")
    if not revealing and _flag("hidden"):
        action: dict[str, Any] = {"action": "throw", "player": player,
                                  "throws": _int_field("throws", 1, 3), "hidden": True}
        return respond_with(game_id, get_table().submit(game_id, action, who()))
    dice = [_int_field(f"d{i}", 1, 6) for i in (1, 2, 3)]
    action = {"action": "reveal" if revealing else "throw", "player": player, "dice": dice}
    if "hand" in request.form:
        action["hand"] = _flag("hand")
    # Without the field the engine's default applies (a single throw is from the hand).
    if not revealing:
        action["throws"] = _int_field("throws", 1, 3)
    turned = request.form.get("turned", "0").strip() or "0"
    if turned != "0":
        action["turned"] = _int_field("turned", 0, 2)
    return respond_with(game_id, get_table().submit(game_id, action, who()))


PART = WebPart(
    blueprint=bp,
    setup_from_form=setup_from_form,
    summary=summary,
    result=result,
    score="schocken/score.html",
    setup="schocken/setup.html",
    rules="schocken/rules_{lang}.html",
    script="schocken.js",
    chart="chart_deckel",
)
