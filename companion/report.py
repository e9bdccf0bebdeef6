"""Readable text for ``companion replay`` and ``companion games``: one formatter per game.

The registry (:mod:`companion.registry`) names each game's formatter.

Every formatter reads only the engine's ``standings(state)`` dict (plus the setup
for names and rules), so the text shows exactly what the engine decided.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], indent: str = "") -> str:
    """Rows under headers in aligned columns (numbers right, text left)."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [
        max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)
    ]
    # A column is numeric when every value given is a number ("-" for None fits both).
    numeric = [
        any(row[i] is not None for row in rows)
        and all(row[i] is None or _is_number(row[i]) for row in rows)
        for i in range(len(headers))
    ]

    def line(values: Sequence[str]) -> str:
        parts = [
            v.rjust(w) if num else v.ljust(w)
            for v, w, num in zip(values, widths, numeric, strict=True)
        ]
        return (indent + "  ".join(parts)).rstrip()

    return "\n".join([line(list(headers))] + [line(r) for r in cells])


def _is_number(value: object) -> bool:
    if isinstance(value, str):
        return bool(re.fullmatch(r"[+-]?\d+(\.\d+)?", value))
    return isinstance(value, int | float) and not isinstance(value, bool)


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _names(names: Sequence[str]) -> str:
    return ", ".join(names) if names else "-"


def _rules(setup: Mapping[str, Any]) -> str:
    rules = setup.get("rules") or {}
    return ", ".join(f"{k}={_flag(v)}" for k, v in rules.items()) or "(none)"


def _flag(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "''" if value == "" else str(value)


def schocken(standings: Mapping[str, Any], setup: Mapping[str, Any]) -> str:
    """Deckel per player and in the middle, half, half losers, Finale, loser, statistics."""
    players = standings["players"]
    half = standings["half"]
    lines = [
        f"Schocken: {_names(players)} (first round started by {setup.get('starter', '-')})",
        f"Rules: {_rules(setup)}",
        "",
        "Deckel: "
        + ", ".join(f"{p} {standings['deckel'][p]}" for p in players)
        + f"; middle {standings['middle']}",
        f"Now: {'Finale' if half == 'finale' else f'half {half}'}"
        + (" (game over)" if standings["over"] else "")
        + f"; rounds played: {standings['rounds_played']}",
    ]
    losers = standings["half_losers"]
    lines.append(
        "Losers of halves: "
        + (", ".join(f"half {i} {name}" for i, name in enumerate(losers, start=1)) or "-")
    )
    if standings["finale_players"]:
        lines.append("Finale: " + " vs ".join(standings["finale_players"]))
    loser = standings["game_loser"]
    if loser is None:
        lines.append("Game loser: not decided yet")
    else:
        how = "Durchmarsch" if standings["durchmarsch"] else "Finale" if len(losers) > 1 else ""
        lines.append(f"Game loser: {loser}" + (f" ({how})" if how else ""))
    stats = standings["statistics"]
    columns = [
        ("halves lost", "halves_lost"),
        ("Finale lost", "finale_lost"),
        ("Schock aus", "schock_aus"),
        ("Schocks", "schocks"),
        ("Handschocks", "handschocks"),
        ("hand rate", "handschock_rate"),
        ("Generals", "generals"),
        ("Straßen", "strassen"),
        ("Deckel received", "deckel_received"),
        ("rounds lost", "rounds_lost"),
    ]
    lines += ["", "Statistics:"]
    lines.append(
        table(
            ["player", *(c for c, _ in columns)],
            [[p, *(stats[p].get(key) for _, key in columns)] for p in players],
            indent="  ",
        )
    )
    tab = standings.get("tab")
    if tab:
        lines += ["", f"Club tab ({tab['amount']:g} {tab['unit']} per half lost):"]
        lines.append(
            table(
                ["player", "owes"],
                [[p, f"{tab['totals'][p]:g} {tab['unit']}".strip()] for p in players],
                indent="  ",
            )
        )
    return "\n".join(lines)


def _signed(score: int) -> str:
    return f"+{score}" if score > 0 else str(score)


def rockthebock(standings: Mapping[str, Any], setup: Mapping[str, Any]) -> str:
    """Each sheet per round (B, W, G, dice crossed), round scores, totals, winner(s)."""
    players = standings["players"]
    lines = [
        "Rock the Bock: "
        + ", ".join(f"{p['name']} ({p['colour']})" for p in players)
        + f"; youngest {setup.get('youngest', '-')}",
        f"Rules: {_rules(setup)}",
    ]
    played = standings["rounds_played"]
    for number in range(played):
        lines += ["", f"Round {number + 1}:"]
        rows = []
        for p in players:
            sheet = p["rounds"][number]
            rows.append(
                [
                    p["name"],
                    sheet["bocks"],
                    sheet["wolves"],
                    sheet["goats"],
                    sheet["crossed"],
                    _signed(sheet["score"]),
                ]
            )
        lines.append(table(["player", "B", "W", "G", "crossed", "score"], rows, indent="  "))
    if not standings["over"] and any("current" in p for p in players):
        lines += ["", f"Round {played + 1} (in progress, not scored yet):"]
        rows = [
            [p["name"], s["bocks"], s["wolves"], s["goats"], s["crossed"], s["dice_left"]]
            for p in players
            for s in [p["current"]]
        ]
        lines.append(table(["player", "B", "W", "G", "crossed", "dice left"], rows, indent="  "))
    lines += ["", "Totals:"]
    lines.append(
        table(
            ["player", *(f"round {i + 1}" for i in range(played)), "total"],
            [
                [p["name"], *(_signed(r["score"]) for r in p["rounds"]), _signed(p["total"])]
                for p in players
            ],
            indent="  ",
        )
    )
    if standings["over"]:
        winners = standings["winners"]
        label = "Winner" if len(winners) == 1 else "Winners (shared)"
        lines.append(f"{label}: {_names(winners)}")
    else:
        lines.append(f"Game not over; leading: {_names(standings['leaders'])}")
    return "\n".join(lines)


def wacken(standings: Mapping[str, Any], setup: Mapping[str, Any]) -> str:
    """Wristbands per player, leader(s), and the end of the game."""
    players = standings["players"]
    lines = [
        "Kacken auf Wacken: " + _names([p["name"] for p in players]),
        "",
        table(
            ["player", "wristbands", "Abrocken joined"],
            [[p["name"], p["wristbands"], p.get("abrocken")] for p in players],
        ),
        "",
    ]
    if standings["over"]:
        reason = str(standings.get("reason") or "").replace("_", " ")
        winners = standings["winners"]
        label = "winner" if len(winners) == 1 else "winners (shared)"
        lines.append(f"Game over ({reason}); {label}: {_names(winners)}")
    else:
        lines.append(f"Game not over; leading: {_names(standings['leaders'])}")
    return "\n".join(lines)


def standings_text(
    formatter: Callable[[Mapping[str, Any], Mapping[str, Any]], str] | None,
    standings: Mapping[str, Any],
    setup: Mapping[str, Any],
) -> str:
    """The standings as readable text by the game's ``formatter`` (its registry entry's
    ``report``); indented JSON for a game without one."""
    if formatter is None:
        return json.dumps(standings, indent=2, ensure_ascii=False)
    return formatter(standings, setup)
