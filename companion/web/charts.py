"""Charts drawn on the server as SVG: no JavaScript, no CDN, readable on a dark phone.

Two shapes cover what the table wants to see: a line per player over the rounds of a
game (the game's ``series``: Deckel held in Schocken, running points in Rock the Bock)
and bars per month (a player's ``monthly`` counter: Schocken's halves lost). Text is
escaped; sizes are in a fixed ``viewBox`` that scales to the width of the phone. The
blueprint serves the same pictures as ``.svg`` files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from flask import Blueprint, Response, abort
from markupsafe import Markup, escape

from companion.web import get_part, get_table, i18n

bp = Blueprint("charts", __name__)

# The page's own colours (style.css), bright enough on the dark panel; a line's dash
# pattern tells players apart for those who cannot tell the colours apart.
PALETTE = ("#f2b134", "#3e8ef7", "#4cc38a", "#ff6b6b", "#c38cf2", "#f5d90a",
           "#5fd4e0", "#ff9f5a", "#9aa6b2", "#e86fb0", "#8fd35f", "#eef1f4")
DASHES = ("", "6 3", "2 3", "8 3 2 3")
WIDTH, HEIGHT = 360, 220
LEFT, RIGHT, TOP, BOTTOM = 34, 10, 26, 30


def _step(span: float) -> int:
    """The distance between two labelled lines: at most six lines over ``span``."""
    return max(1, -(-int(span) // 5))


def _legend_rows(players: Sequence[str]) -> list[list[tuple[int, str, float]]]:
    """The legend below the title, as rows of (player index, label, x) that fit the width."""
    rows: list[list[tuple[int, str, float]]] = [[]]
    x = 10.0
    for p, name in enumerate(players):
        label = str(name)[:12]
        width = 22 + 6.2 * len(label) + 10  # line sample, name, gap
        if x + width > WIDTH - RIGHT and rows[-1]:
            rows.append([])
            x = 10.0
        rows[-1].append((p, label, x))
        x += width
    return rows


def line_chart(title: str, players: Sequence[str], series: Sequence[Sequence[float]],
               x_label: str) -> Markup:
    """One line per player over the rounds; ``series[r][p]`` is player p after round r."""
    parts = [_open(title)]
    if not series:
        parts.append(_note(i18n._("chart_empty")))
        return Markup("".join(parts) + "</svg>")
    low = min(0, *(v for row in series for v in row))
    high = max(1, *(v for row in series for v in row))
    # The top line is a labelled one, so no line runs above the highest number shown.
    step = _step(high - low)
    high = low + step * -(-(high - low) // step)
    # Each player's colour and dash under the title, on as many rows as the names need
    # (beside the title they ran into it on a phone).
    rows = _legend_rows(players)
    top = TOP + 14 * len(rows)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - top - BOTTOM
    rounds = len(series)

    def x(i: int) -> float:
        return LEFT + (plot_w * i / (rounds - 1) if rounds > 1 else plot_w / 2)

    def y(v: float) -> float:
        return top + plot_h * (high - v) / (high - low)

    for tick in range(int(low), int(high) + 1, step):
        parts.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(tick):.1f}" '
                     f'y2="{y(tick):.1f}" stroke="#323a45" stroke-width="1"/>'
                     f'<text x="{LEFT - 4}" y="{y(tick) + 4:.1f}" text-anchor="end" '
                     f'font-size="11" fill="#9aa6b2">{tick}</text>')
    parts.append(f'<text x="{WIDTH / 2:.0f}" y="{HEIGHT - 6}" text-anchor="middle" '
                 f'font-size="11" fill="#9aa6b2">{escape(x_label)} 1–{rounds}</text>')
    for p, name in enumerate(players):
        colour, dash = PALETTE[p % len(PALETTE)], DASHES[p % len(DASHES)]
        points = " ".join(f"{x(i):.1f},{y(row[p]):.1f}" for i, row in enumerate(series))
        parts.append(f'<polyline class="series" data-player="{escape(name)}" fill="none" '
                     f'stroke="{colour}" stroke-width="2.5" stroke-dasharray="{dash}" '
                     f'points="{points}"><title>{escape(name)}</title></polyline>')
    parts.append(_legend(rows))
    return Markup("".join(parts) + "</svg>")


def bar_chart(title: str, values: Mapping[str, float]) -> Markup:
    """One bar per label (e.g. month), labelled with its value."""
    parts = [_open(title)]
    if not values:
        parts.append(_note(i18n._("chart_empty")))
        return Markup("".join(parts) + "</svg>")
    high = max(1, *values.values())
    # Room above the highest bar for its number, below the title.
    top = TOP + 14
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - top - BOTTOM
    slot = plot_w / len(values)
    bar = min(slot * 0.7, 44)
    for i, (label, value) in enumerate(values.items()):
        h = plot_h * value / high
        middle = LEFT + i * slot + slot / 2
        parts.append(f'<rect class="bar" x="{middle - bar / 2:.1f}" y="{top + plot_h - h:.1f}" '
                     f'width="{bar:.1f}" height="{h:.1f}" rx="3" fill="#f2b134">'
                     f'<title>{escape(label)}: {value}</title></rect>'
                     f'<text x="{middle:.1f}" y="{top + plot_h - h - 4:.1f}" '
                     f'text-anchor="middle" font-size="11" fill="#eef1f4">{value}</text>'
                     f'<text x="{middle:.1f}" y="{HEIGHT - 12}" text-anchor="middle" '
                     f'font-size="10" fill="#9aa6b2">{escape(label[2:])}</text>')
    parts.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{top + plot_h}" '
                 f'y2="{top + plot_h}" stroke="#323a45"/>')
    return Markup("".join(parts) + "</svg>")


def _open(title: str) -> str:
    return (f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} '
            f'{HEIGHT}" role="img" aria-label="{escape(title)}" width="100%">'
            f'<rect width="{WIDTH}" height="{HEIGHT}" rx="10" fill="#1c2128"/>'
            f'<text x="10" y="17" font-size="13" font-weight="600" fill="#eef1f4">'
            f'{escape(title)}</text>')


def _note(text: str) -> str:
    return (f'<text x="{WIDTH / 2:.0f}" y="{HEIGHT / 2:.0f}" text-anchor="middle" '
            f'font-size="13" fill="#9aa6b2">{escape(text)}</text>')


def _legend(rows: list[list[tuple[int, str, float]]]) -> str:
    items = []
    for r, row in enumerate(rows):
        y = TOP + 14 * r + 2
        for p, label, x in row:
            colour, dash = PALETTE[p % len(PALETTE)], DASHES[p % len(DASHES)]
            items.append(f'<line x1="{x:.0f}" x2="{x + 18:.0f}" y1="{y:.0f}" y2="{y:.0f}" '
                         f'stroke="{colour}" stroke-width="2.5" stroke-dasharray="{dash}"/>'
                         f'<text class="legend" x="{x + 22:.0f}" y="{y + 4:.0f}" font-size="11" '
                         f'fill="#eef1f4">{escape(label)}</text>')
    return "".join(items)


def game_chart(game_id: int) -> Markup | None:
    """The chart of one game (None for a game without rounds to draw, e.g. Wacken)."""
    data = get_table().game_series(game_id)
    title = get_part(data["game"]).chart
    if title is None:
        return None
    return line_chart(i18n._(title), data["players"], data["series"], i18n._("chart_rounds"))


def monthly_chart(counter: str, months: Mapping[str, int]) -> Markup:
    """A player's ``counter`` per month (Schocken: halves lost)."""
    return bar_chart(i18n._(f"chart_month_{counter}"), months)


def _svg(markup: Markup) -> Response:
    return Response(str(markup), mimetype="image/svg+xml")


@bp.get("/games/<int:game_id>/chart.svg")
def game_chart_svg(game_id: int) -> Response:
    """The game's chart as an SVG file (an empty chart for a game without rounds)."""
    chart = game_chart(game_id)
    return _svg(chart if chart is not None else line_chart(i18n._("chart_rounds"), [], [], ""))


@bp.get("/players/<int:player_id>/<game>.svg")
def monthly_svg(player_id: int, game: str) -> Response:
    """A roster player's monthly chart of one game type as an SVG file."""
    monthly = get_table().stammtisch.player(player_id)["by_month"].get(game)
    if monthly is None:
        abort(404)
    return _svg(monthly_chart(monthly["counter"], monthly["months"]))
