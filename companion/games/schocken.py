"""Schocken ("Angry Dice Schocken"): rounds, Deckel, halves, Finale -- RULES.md section 1.

Pure rules, one job per module, all re-exported here so this module is the game as
the registry sees it (:class:`companion.games.GameRules`):

- :mod:`schocken_throws` -- the throw values and THE ranking;
- :mod:`schocken_rules` -- the house-rule flags;
- :mod:`schocken_codec` -- the setup and the events, and their log lines;
- :mod:`schocken_state` -- the state between two events, and :func:`start`;
- :mod:`schocken_engine` -- :func:`apply`, checking one event and folding it in;
- :mod:`schocken_view` -- the standings and the dashboard's live view;
- :mod:`schocken_text` -- the history line of each event.

Recording a turn
    Only a player's final dice are recorded, as :class:`ThrowRecorded`: the player,
    how many throws they used (1-3), the :class:`Throw` (with its hand status) and,
    under ``turn_sixes``, how many of its 1s were turned from sixes. :func:`apply`
    checks every event, so a log read from disk is held to the same rules.

The first player's hidden third throw (RULES.md, round rule 3)
    When the round's first player uses all three throws, their dice stay under the
    cup until the round ends. The companion records ``ThrowRecorded(player,
    throws=3, throw=None)`` at once: that fixes the limit for everyone after them
    (3) without the dice. When every other player has thrown, the round waits for
    :class:`ThrowRevealed` with the dice and only then is ranked and scored. Dice
    that are already known may also be recorded directly with the throw.

``reentry`` (RULES.md only fixes the default, false)
    false: once the middle is empty only Deckel holders throw; a player left with
    0 Deckel is out of the half. true: every player of the half keeps throwing in
    phase 2; a player without Deckel who loses a round comes back in by receiving
    Deckel. As such a player has nothing to give, the Deckel then come from the
    best-ranked player of the round who holds any (capped by what that player has).

``turn_sixes``
    The engine sees only the final dice, so it checks what those can show: turned
    1s need the flag, at least two throws (a throw must remain after turning), at
    most two turned dice, as many 1s in the result, and the throw cannot be from
    the hand (a turned die is kept aside).

The club tab (flags ``tab_amount``, ``tab_unit``) charges the loser of each half and
of the Finale (the Finale is played as a half).
"""

from companion.games.schocken_codec import (
    MIN_PLAYERS,
    NAME,
    Event,
    Setup,
    ThrowRecorded,
    ThrowRevealed,
    event_from_dict,
    event_to_dict,
)
from companion.games.schocken_engine import apply, ranked_entries
from companion.games.schocken_rules import RULE_FLAGS, Rules
from companion.games.schocken_state import (
    FINALE,
    Entry,
    Part,
    PlayerStats,
    RoundResult,
    State,
    TabEntry,
    is_over,
    start,
)
from companion.games.schocken_text import describe
from companion.games.schocken_throws import (
    Throw,
    ThrowClass,
    classify,
    full_order,
    hand_matters,
    rank_key,
    rank_throws,
)
from companion.games.schocken_view import WARN_ABOVE, standings, view

__all__ = [
    "FINALE",
    "MIN_PLAYERS",
    "NAME",
    "RULE_FLAGS",
    "WARN_ABOVE",
    "Entry",
    "Event",
    "Part",
    "PlayerStats",
    "RoundResult",
    "Rules",
    "Setup",
    "State",
    "TabEntry",
    "Throw",
    "ThrowClass",
    "ThrowRecorded",
    "ThrowRevealed",
    "apply",
    "classify",
    "describe",
    "event_from_dict",
    "event_to_dict",
    "full_order",
    "hand_matters",
    "is_over",
    "rank_key",
    "rank_throws",
    "ranked_entries",
    "standings",
    "start",
    "view",
]
