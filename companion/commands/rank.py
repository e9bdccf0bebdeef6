"""``companion rank schocken THROW ...``: Schocken throws best first, with class and Deckel.

The order comes from the engine's one ranking (:mod:`companion.games.schocken_throws`);
this module only reads the arguments and prints.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from companion.games.errors import ParseError
from companion.games.schocken_rules import RULE_FLAGS, Rules
from companion.games.schocken_throws import (
    Throw,
    classify,
    full_order,
    hand_matters,
    rank_throws,
)

_EPILOG = """\
Throw notation: three dice 1 to 6 joined by '-', in any order, e.g. 1-1-4 or 6-5-4.
Add 'h' when the final throw threw all three dice together (from the hand), e.g. 1-1-4h;
without 'h' the throw counts as assembled (dice kept aside). Hand status only matters for
Schocks (rule handschock) and, with straight_general_must_be_hand=true, for Straßen and
Generals. Throws are taken in turn order: of two equal throws the later one ranks lower.
Without throws, the full order of all 56 throws under the given rules is printed.

Rules (--rule flag=value, repeatable):
""" + "\n".join(
    f"  {f.name}={'|'.join(str(c).lower() for c in f.choices) or type(f.default).__name__}"
    f" (default {str(f.default).lower() or 'empty'}): {f.help_en}"
    for f in RULE_FLAGS
)


class _IntermixedParser(argparse.ArgumentParser):
    """Lets ``--rule``/``--json`` stand between throws (``rank schocken 1-1-4 --json 6-6-6``).

    Plain argparse hands every positional to ``THROW...`` at the first gap, so later
    throws would be rejected as unrecognised.
    """

    _nested = False

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        """Parse options wherever they stand, then the throws."""
        if self._nested:  # parse_known_intermixed_args calls back into this method
            return super().parse_known_args(args, namespace)
        self._nested = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._nested = False


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``rank`` subcommand."""
    parser = sub.add_parser(
        "rank",
        help="rank Schocken throws best first with class and Deckel",
        description="Rank Schocken throws best first, with their class and Deckel value.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("game", choices=("schocken",), help="the game (only schocken ranks)")
    parser.add_argument("throws", nargs="*", metavar="THROW", help="e.g. 1-1-4, 6-6-6, 1-1-4h")
    parser.add_argument(
        "--rule", action="append", default=[], metavar="FLAG=VALUE",
        help="a house rule for this ranking, e.g. --rule straights=all_runs",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON array instead")
    parser.set_defaults(func=run)
    # add_parser builds a plain ArgumentParser; this one only changes how arguments mix.
    parser.__class__ = _IntermixedParser


def parse_rules(pairs: list[str]) -> Rules:
    """Rules from ``flag=value`` strings; raises ParseError/RuleError on bad input."""
    values: dict[str, str] = {}
    for pair in pairs:
        flag, sep, value = pair.partition("=")
        if not sep or not flag.strip():
            raise ParseError(f"--rule {pair!r}: write flag=value, e.g. --rule straights=all_runs")
        values[flag.strip()] = value.strip()
    return Rules.from_dict(values)


def rows(throws: list[Throw], rules: Rules) -> list[dict[str, Any]]:
    """One JSON-able row per throw, best first (rank 1 is best)."""
    out = []
    for place, index in enumerate(rank_throws(throws, rules), start=1):
        throw = throws[index]
        cls = classify(throw, rules)
        out.append({
            "rank": place,
            "dice": list(throw.dice),
            "text": str(throw),
            "class": cls.kind,
            "label": cls.label,
            "deckel": cls.deckel,
            # null where the rules rank this throw the same from the hand or assembled
            "hand": throw.hand if hand_matters(throw, rules) else None,
        })
    return out


def _table(table: list[dict[str, Any]], rules: Rules) -> str:
    changed = [f"{k}={str(v).lower()}" for k, v in rules.to_dict().items()
               if v != Rules().to_dict()[k]]
    lines = [f"Rules: {', '.join(changed) if changed else 'seed defaults'}",
             f"{'rank':>4}  {'throw':<7} {'class':<11} {'Deckel':>8}  hand"]
    for row in table:
        deckel = f"all ({row['deckel']})" if row["class"] == "schock_aus" else str(row["deckel"])
        hand = {True: "hand", False: "assembled", None: ""}[row["hand"]]
        text = row["text"].removesuffix("h")
        lines.append(f"{row['rank']:>4}  {text:<7} {row['label']:<11} {deckel:>8}  {hand}")
    return "\n".join(line.rstrip() for line in lines)


def run(args: argparse.Namespace) -> int:
    """Print the ranking; bad throws or rules raise a one-line error (exit 2)."""
    rules = parse_rules(args.rule)
    throws = [Throw.parse(t) for t in args.throws] if args.throws else list(full_order(rules))
    table = rows(throws, rules)
    if args.json:
        print(json.dumps(table, ensure_ascii=False))
        return 0
    print(_table(table, rules))
    split = len(table) - 56
    if not args.throws and split:
        print(f"({len(table)} rows: the 56 throws, {split} of them listed twice, from the hand "
              "and assembled, because these rules rank the two apart)")
    return 0
