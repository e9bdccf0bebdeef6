"""Rock the Bock on the dashboard: the setup form and the scorekeeper's roll and choice forms.

The forms post plain fields (a count per face; the kind taken and the wolf victim);
this module reads them into the engine's action dicts. Which kinds may be taken and
who may receive wolves come from the engine's ``view`` and are checked again by it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Blueprint, request

from companion.games import rockthebock as engine
from companion.games.errors import ParseError
from companion.games.parsing import whole_number
from companion.web import get_table, i18n
from companion.web.part import WebPart
from companion.web.recording import ensure_game, respond_with, who
from companion.web.security import scorekeeper_required

NAME = "rockthebock"
bp = Blueprint(NAME, __name__, url_prefix="/games/<int:game_id>/rockthebock")

SEATS = engine.MAX_PLAYERS
COLOURS = engine.COLOURS
FACES = engine.FACES


def setup_from_form(form: Mapping[str, str]) -> dict[str, Any]:
    """Players (seat order, colour each) and the youngest from the new-game form."""
    players = []
    youngest_seat = form.get("youngest", "0")
    youngest = None
    for seat in range(SEATS):
        name = form.get(f"name_{seat}", "").strip()
        if not name:
            continue
        players.append({"name": name, "colour": form.get(f"colour_{seat}", "")})
        if str(seat) == youngest_seat:
            youngest = name
    if youngest is None:
        raise i18n.refuse("error_youngest")
    return {"players": players, "youngest": youngest}


def summary(snap: Mapping[str, Any]) -> str:
    """One line for the game list: the winners, else who leads (and the round)."""
    standings = snap["standings"]
    if standings["winners"]:
        return i18n._("rtb_winners", names=", ".join(standings["winners"]))
    line = i18n._("rtb_round_of", n=snap["view"]["round"], of=snap["view"]["rounds"])
    if any(p["total"] for p in standings["players"]):
        line += " · " + i18n._("leader", names=", ".join(standings["leaders"]))
    return line



def result(standings: Mapping[str, Any]) -> str:
    """One line for the evening: the winners and every total, else the totals so far."""
    totals = ", ".join(f"{p['name']} {p['total']}" for p in standings["players"])
    if standings["winners"]:
        return i18n._("summary_won", players=" & ".join(standings["winners"]), rest=totals)
    return i18n._("summary_running", rest=totals)


def _count(raw: str, face: str) -> int:
    try:
        return whole_number(raw or "0", face, 0, engine.DICE_PER_ROUND)
    except ParseError:
        raise i18n.refuse("error_count", face=face, value=raw[:20]) from None


@bp.post("/roll")
@scorekeeper_required
def roll(game_id: int) -> Any:
    """Record the roll of the player whose turn it is: ``count_<face>`` for each face."""
    snap = ensure_game(game_id, NAME)
    turn = snap["view"].get("turn")
    if turn is None:
        raise i18n.refuse("error_game_over")
    faces = {face: _count(request.form.get(f"count_{face}", "0"), face) for face in FACES}
    action = {"action": "roll", "player": turn["name"],
              "faces": {face: n for face, n in faces.items() if n}}
    return respond_with(game_id, get_table().submit(game_id, action, who()))


@bp.post("/choose")
@scorekeeper_required
def choose(game_id: int) -> Any:
    """Take every die of ``kind`` from the pending roll; wolves go to ``victim``."""
    snap = ensure_game(game_id, NAME)
    turn = snap["view"].get("turn")
    if turn is None:
        raise i18n.refuse("error_game_over")
    action: dict[str, Any] = {"action": "choose", "player": turn["name"],
                              "kind": request.form.get("kind", "")}
    victim = request.form.get("victim", "").strip()
    if victim:
        action["victim"] = victim
    return respond_with(game_id, get_table().submit(game_id, action, who()))


PART = WebPart(
    blueprint=bp,
    setup_from_form=setup_from_form,
    summary=summary,
    result=result,
    score="rockthebock/score.html",
    setup="rockthebock/setup.html",
    rules="rockthebock/rules_{lang}.html",
    script="rockthebock.js",
    chart="chart_points",
)
