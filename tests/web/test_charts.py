"""The server-drawn charts: every player named in a legend under the title, no line above
the highest labelled value (both seen wrong on a phone's screenshot of an evening)."""

from __future__ import annotations

import re

from companion.web.charts import HEIGHT, line_chart


def _numbers(svg: str, pattern: str) -> list[float]:
    return [float(v) for v in re.findall(pattern, svg)]


def test_the_legend_sits_under_the_title_and_names_every_player_on_rows_that_fit():
    players = ["Anna", "Ben", "Cleo", "Dora", "Friedrich-Wilhelm", "Gertrud", "Hans"]
    svg = str(line_chart("Punkte nach jeder Runde", players,
                         [[2, -1, 5, 0, 3, 1, 0], [3, 0, 5, -8, 3, 1, 2]], "Runde"))
    labels = re.findall(r'<text class="legend" x="(\d+)" y="(\d+)"[^>]*>([^<]*)<', svg)
    assert [name for _, _, name in labels] == [p[:12] for p in players]
    assert all(int(y) > 17 + 10 for _, y, _ in labels)  # below the title's line (y 17)
    assert len({y for _, y, _ in labels}) >= 2  # seven names take two rows of 360 px
    # Every line is drawn below the legend's last row.
    lowest_label = max(int(y) for _, y, _ in labels)
    points = _numbers(svg, r'(?:points="|\s)[\d.]+,([\d.]+)')
    assert points and min(points) > lowest_label and max(points) < HEIGHT


def test_no_line_runs_above_the_highest_labelled_value():
    # Cleo ends at 5, the ticks go in threes from -8: the top label must be 7, not 4.
    svg = str(line_chart("Punkte", ["Anna", "Cleo"], [[2, 5], [-8, 5], [3, 5]], "Runde"))
    ticks = [int(v) for v in re.findall(r'text-anchor="end"[^>]*>(-?\d+)<', svg)]
    assert ticks == [-8, -5, -2, 1, 4, 7]
    tick_y = _numbers(svg, r'<line x1="34" x2="350" y1="([\d.]+)"')
    points = _numbers(svg, r'(?:points="|\s)[\d.]+,([\d.]+)')
    assert min(points) >= min(tick_y) and max(points) <= max(tick_y)
