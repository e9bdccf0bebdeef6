"""Who may change the Stammtisch's shared things: the roster, the tab, the whole database.

The same people who may start a game when one is at the table: the scorekeeper of the
game at the table (their browser session unlocked it), or whoever gives the table's
admin PIN in the form (``admin_pin`` in the settings; tries are slowed like every PIN).
With no game at the table and no admin PIN set, nobody may: a guest at the next table
must not rename the regulars or replace the database.
"""

from __future__ import annotations

import hmac

from flask import request

from companion.web import get_settings, get_table, i18n
from companion.web.security import is_unlocked, pin_throttle


def refusal() -> tuple[int, str] | None:
    """None when this request may change roster, tab or database; else (status, message)."""
    active = get_table().active_game_id()
    if active is not None and is_unlocked(active):
        return None
    admin_pin = get_settings().admin_pin
    given = request.form.get("admin_pin", "").strip()
    if admin_pin is not None and given:
        client = request.remote_addr or "?"
        wait = pin_throttle().begin(0, client)
        if wait > 0:
            return 429, i18n._("error_pin_wait", seconds=int(wait) + 1)
        if hmac.compare_digest(given.encode(), admin_pin.encode()):
            pin_throttle().succeeded(0, client)
            return None
        return 403, i18n._("error_admin_pin")
    return 403, i18n._("error_keeper_only")


def may_change() -> bool:
    """Whether this browser is the scorekeeper of the game at the table (for showing forms)."""
    active = get_table().active_game_id()
    return active is not None and is_unlocked(active)
