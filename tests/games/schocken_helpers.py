"""Short notation for Schocken turns in tests: ``"Anna 2 1-1-4h"``, ``"Anna 3 hidden"``,
``"reveal Anna 1-1-2"``; an optional trailing ``turned=N`` records turned sixes."""

from __future__ import annotations

from companion.games import schocken
from companion.games.schocken import Setup, State, Throw, ThrowRecorded, ThrowRevealed


def event(spec: str) -> schocken.Event:
    """One event from the short notation."""
    words = spec.split()
    turned = 0
    if words[-1].startswith("turned="):
        turned = int(words.pop()[len("turned="):])
    if words[0] == "reveal":
        return ThrowRevealed(words[1], Throw.parse(words[2]), turned)
    player, throws, dice = words
    throw = None if dice == "hidden" else Throw.parse(dice)
    return ThrowRecorded(player, int(throws), throw, turned)


def play(state: State, *specs: str) -> State:
    """Apply the turns in order."""
    for spec in specs:
        state = schocken.apply(state, event(spec))
    return state


def new_game(players: str = "Anna Ben Carl", starter: str | None = None, **rules: object) -> State:
    """A fresh game; ``rules`` are flag values as in a setup line."""
    names = tuple(players.split())
    return schocken.start(
        Setup.from_dict({"players": list(names), "starter": starter or names[0], "rules": rules})
    )


def deckel(state: State) -> dict[str, int]:
    """Deckel per player plus ``"middle"``."""
    return {**schocken.standings(state)["deckel"], "middle": state.middle}
