"""Kacken auf Wacken on the dashboard: setup, the Abrocken calculator, cancel and game end.

The calculator posts the band, its songs on stage, the initiator and per player
whether they join with how many beers, matching Rock! cards and matching songs.
``/preview`` asks the engine, through the table, for the arithmetic without storing
anything, so the table sees "2 × 3 = 6" before the scorekeeper records; ``/abrocken``
records it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Blueprint, jsonify, request

from companion.games.errors import ParseError
from companion.games.parsing import whole_number
from companion.web import get_table, i18n
from companion.web.part import WebPart
from companion.web.recording import ensure_game, respond_with, who
from companion.web.security import scorekeeper_required

NAME = "wacken"
bp = Blueprint(NAME, __name__, url_prefix="/games/<int:game_id>/wacken")

SEATS = 8


def setup_from_form(form: Mapping[str, str]) -> dict[str, Any]:
    """Players in seat order from the new-game form."""
    return {"players": [n for n in (form.get(f"name_{s}", "").strip() for s in range(SEATS)) if n]}


def summary(snap: Mapping[str, Any]) -> str:
    """One line for the game list: the winners, else who has the most wristbands."""
    standings = snap["standings"]
    if standings["winners"]:
        return i18n._("wk_winners", names=", ".join(standings["winners"]))
    if not any(p["wristbands"] for p in standings["players"]):
        return ""
    return i18n._("leader", names=", ".join(standings["leaders"]))



def result(standings: Mapping[str, Any]) -> str:
    """One line for the evening: the winners and every tally, else the tallies so far."""
    bands = ", ".join(f"{p['name']} {p['wristbands']}" for p in standings["players"])
    if standings["winners"]:
        return i18n._("summary_won", players=" & ".join(standings["winners"]), rest=bands)
    return i18n._("summary_running", rest=bands)


def _number(name: str, label: str) -> int:
    raw = request.form.get(name, "").strip() or "0"
    try:
        return whole_number(raw, label, 0, 99)
    except ParseError:
        raise i18n.refuse("error_whole_number", field=label, value=raw[:20]) from None


def _abrocken_action(players: list[str]) -> dict[str, Any]:
    band = request.form.get("band", "").strip()
    if not band:
        raise i18n.refuse("error_band")
    participants = []
    for seat, player in enumerate(players):
        if request.form.get(f"join_{seat}") not in ("1", "on", "true"):
            continue
        participants.append({
            "player": player,
            "beers": _number(f"beers_{seat}", f"{player}: {i18n._('wk_beers')}"),
            "cards": _number(f"cards_{seat}", f"{player}: {i18n._('wk_cards')}"),
            "songs": _number(f"songs_{seat}", f"{player}: {i18n._('wk_songs')}"),
        })
    return {
        "action": "abrocken",
        "band": band,
        "songs_on_stage": _number("songs_on_stage", i18n._("wk_songs_on_stage")),
        "initiator": request.form.get("initiator", ""),
        "participants": participants,
    }


@bp.post("/preview")
def preview(game_id: int) -> Any:
    """The engine's arithmetic for the entered Abrocken (nothing is stored; anyone may ask)."""
    snap = ensure_game(game_id, NAME)
    action = _abrocken_action(snap["setup"]["players"])
    return jsonify(result=get_table().preview(game_id, action))


@bp.post("/abrocken")
@scorekeeper_required
def abrocken(game_id: int) -> Any:
    """Record the entered Abrocken; the engine checks it and scores the wristbands."""
    snap = ensure_game(game_id, NAME)
    action = _abrocken_action(snap["setup"]["players"])
    return respond_with(game_id, get_table().submit(game_id, action, who()))


@bp.post("/cancel")
@scorekeeper_required
def cancel(game_id: int) -> Any:
    """A Kack card on the beer run: the Abrocken is off and nothing is scored."""
    ensure_game(game_id, NAME)
    action = {"action": "abrocken_cancelled", "band": request.form.get("band", "").strip(),
              "initiator": request.form.get("initiator", "")}
    return respond_with(game_id, get_table().submit(game_id, action, who()))


@bp.post("/end")
@scorekeeper_required
def end(game_id: int) -> Any:
    """The Rock! deck or the On-Stage deck is empty: the game ends."""
    ensure_game(game_id, NAME)
    action = {"action": "game_end", "reason": request.form.get("reason", "")}
    return respond_with(game_id, get_table().submit(game_id, action, who()))


PART = WebPart(
    blueprint=bp,
    setup_from_form=setup_from_form,
    summary=summary,
    result=result,
    score="wacken/score.html",
    setup="wacken/setup.html",
    rules="wacken/rules_{lang}.html",
    script="wacken.js",
)
