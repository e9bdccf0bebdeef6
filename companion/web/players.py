"""The Stammtisch's players: the roster, per-player statistics across games, CSV exports.

Looking is for everyone; adding, renaming and merging roster players is for the
keeper (:mod:`companion.web.keeper`). Every number comes from the Table, folded from
the event log at the moment of asking.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from flask import Blueprint, Response, redirect, render_template, request, url_for

from companion.domain.csvexport import csv_cell
from companion.web import error_response, get_table, i18n, keeper
from companion.web.charts import monthly_chart

bp = Blueprint("players", __name__)

def columns(game: str) -> list[str]:
    """The statistics columns of a game type, counters then rates (its registry entry's)."""
    stats = get_table().games.find(game).stats
    return [] if stats is None else list(stats.columns)


@bp.app_template_global("percent_column")
def percent_column(game: str, column: str) -> bool:
    """Whether ``column`` of ``game``'s statistics is a share shown as a percentage."""
    stats = get_table().games.find(game).stats
    rate = None if stats is None else stats.rates.get(column)
    return rate is not None and rate.percent


@bp.app_context_processor
def _roster_for_forms() -> dict[str, Any]:
    # The new-game form offers the roster's names (a datalist): typed names still work.
    def roster_names() -> list[str]:
        return list(get_table().stammtisch.roster_names())

    return {"roster_names": roster_names}


@bp.get("/players")
def roster_page() -> Any:
    """The roster, and everyone's statistics per game type (``?period=`` filters)."""
    table = get_table()
    period = request.args.get("period", "")
    stats = table.stammtisch.statistics(period)
    return render_template("players.html", roster=table.stammtisch.roster(), stats=stats,
                           columns=columns, may_change=keeper.may_change(),
                           evenings=table.stammtisch.evenings())


@bp.get("/players/<int:player_id>")
def player_page(player_id: int) -> Any:
    """One player: counters per game type, halves lost per month (a chart), their games."""
    player = get_table().stammtisch.player(player_id)
    return render_template("player.html", player=player, columns=columns,
                           charts=[(game, monthly_chart(m["counter"], m["months"]))
                                   for game, m in player["by_month"].items()],
                           may_change=keeper.may_change())


def _refused() -> Any:
    refusal = keeper.refusal()
    return None if refusal is None else error_response(*refusal)


@bp.post("/players")
def add_player() -> Any:
    """Add a regular to the roster (keeper only)."""
    if (answer := _refused()) is not None:
        return answer
    form = request.form
    player_id = get_table().stammtisch.add_player(form.get("name", ""), form.get("nickname", ""),
                                       form.get("colour", ""))
    return redirect(url_for("players.player_page", player_id=player_id), 303)


@bp.post("/players/<int:player_id>")
def update_player(player_id: int) -> Any:
    """Rename a roster player, or change nickname and colour (keeper only)."""
    if (answer := _refused()) is not None:
        return answer
    form = request.form
    get_table().stammtisch.update_player(player_id, form.get("name", ""), form.get("nickname", ""),
                              form.get("colour", ""))
    return redirect(url_for("players.player_page", player_id=player_id), 303)


def _roster_id(field: str) -> int:
    text = request.form.get(field, "").strip()
    if not text.isascii() or not text.isdigit() or len(text) > 18:
        raise ValueError(i18n._("error_pick_player"))
    return int(text)


@bp.post("/players/merge")
def merge_players() -> Any:
    """Two roster entries are the same person: the first one's games count for the second."""
    if (answer := _refused()) is not None:
        return answer
    source, target = _roster_id("source"), _roster_id("target")
    get_table().stammtisch.merge_players(source, target)
    return redirect(url_for("players.player_page", player_id=target), 303)


def _csv(rows: list[list[object]], filename: str) -> Response:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        writer.writerow([csv_cell(cell) for cell in row])
    return Response(out.getvalue(), mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="{filename}"'})


@bp.get("/players.csv")
def roster_csv() -> Response:
    """The roster as CSV: id, name, nickname, colour, games, other names used."""
    rows: list[list[object]] = [["id", "name", "nickname", "colour", "games", "played_as"]]
    for p in get_table().stammtisch.roster():
        rows.append([p["id"], p["name"], p["nickname"], p["colour"], p["games"],
                     "; ".join(p["played_as"])])
    return _csv(rows, "roster.csv")


@bp.get("/statistics.csv")
def statistics_csv() -> Response:
    """Every player's statistics as CSV, one row per game type and player (``?period=``)."""
    stats = get_table().stammtisch.statistics(request.args.get("period", ""))
    rows: list[list[object]] = []
    for game, players in stats["games"].items():
        if not players:
            continue
        rows.append(["game", "period", "player", "key", *columns(game)])
        for key, row in sorted(players.items(), key=lambda kv: stats["names"].get(kv[0], "")):
            rows.append([game, stats["period"] or "all", stats["names"].get(key, key), key,
                         *("" if row[c] is None else row[c] for c in columns(game))])
    suffix = f"-{stats['period']}" if stats["period"] else ""
    return _csv(rows, f"statistics{suffix}.csv")
