"""The evening ("Abend"): tonight's games, standings, the tab and a summary to share.

The tab is what the Schocken games' club-tab rule (``tab_amount`` per half lost, in
``tab_unit``) ran up per player this evening, less what was settled; settling is one
tap for the keeper and is recorded as an event (the store keeps every settlement).
The summary comes as plain text (for a chat) and as a printable page.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, redirect, render_template, request, url_for

from companion.web import error_response, get_part, get_table, i18n, keeper
from companion.web.charts import game_chart
from companion.web.players import columns
from companion.web.recording import who

bp = Blueprint("evening", __name__)


@bp.get("/evening")
def tonight() -> Any:
    """This evening's page."""
    tonight = get_table().stammtisch.current_evening()
    return redirect(url_for("evening.evening_page", evening=tonight))


def _page(evening: str, template: str, **extra: Any) -> str:
    table = get_table()
    data = table.stammtisch.evening(evening)
    charts = {game["id"]: game_chart(game["id"]) for game in data["games"]}
    results = {game["id"]: _result(game) for game in data["games"]}
    return render_template(template, data=data, charts=charts, summary=summary_text(data),
                           results=results, columns=columns,
                           evenings=table.stammtisch.evenings(), may_change=keeper.may_change(),
                           **extra)


@bp.get("/evening/<evening>")
def evening_page(evening: str) -> str:
    """One evening: games, standings, the tab with settle buttons, the summary."""
    return _page(evening, "evening.html")


@bp.get("/evening/<evening>/print")
def evening_print(evening: str) -> str:
    """The evening as a printable page (light, no navigation, no buttons)."""
    return _page(evening, "evening_print.html")


@bp.get("/evening/<evening>/summary.txt")
def evening_text(evening: str) -> Response:
    """The evening's summary as plain text, to paste into the table's chat."""
    text = summary_text(get_table().stammtisch.evening(evening))
    return Response(text, mimetype="text/plain", headers={"Cache-Control": "no-store"})


@bp.post("/evening/<evening>/settle")
def settle(evening: str) -> Any:
    """Record that one player paid their open tab (keeper only)."""
    refusal = keeper.refusal()
    if refusal is not None:
        return error_response(*refusal)
    get_table().stammtisch.settle(evening, request.form.get("key", ""),
                                  request.form.get("unit", ""), who())
    return redirect(url_for("evening.evening_page", evening=evening) + "#tab", 303)


def _result(game: dict[str, Any]) -> str:
    return get_part(game["game"]).result(game["standings"])


def summary_text(data: dict[str, Any]) -> str:
    """The evening in a few lines of text: each game's outcome, then the open tab."""
    lines = [i18n._("summary_head", evening=data["evening"], n=len(data["games"]))]
    for game in data["games"]:
        name = i18n._("game_" + game["game"])
        lines.append(f"• {name} #{game['id']}: {_result(game)}")
    open_rows = [row for row in data["tab"] if row["open"]]
    if open_rows:
        lines.append(i18n._("summary_tab"))
        lines.extend(f"  {row['name']}: {row['open']} {row['unit']}" for row in open_rows)
    elif data["tab"]:
        lines.append(i18n._("summary_tab_settled"))
    return "\n".join(lines) + "\n"
