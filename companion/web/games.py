"""Setting a game up and showing it: the game list, a new game, a game's pages, the PIN.

Routes: the game list (``/``), the rules (``/rules``), a new game (``/games/new``), a
game's phone page, its big-screen table view and its history; unlocking with the PIN and
locking again (:func:`pin_refusal` checks the PIN for every form that asks for it). Each
game's own part (:class:`WebPart`, from the registry) turns its setup form into the
engine's setup dict and draws its score. What a scorekeeper changes goes through
:mod:`.recording`; the template helpers that word rules and names are here too.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Mapping
from typing import Any

from flask import (
    Blueprint,
    abort,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from companion.table import WHO_MAX, check_name
from companion.web import (
    error_response,
    get_part,
    get_parts,
    get_settings,
    get_table,
    i18n,
    wants_json,
)
from companion.web.part import WebPart
from companion.web.security import (
    creation_limit,
    forget_unlocked,
    is_known,
    is_unlocked,
    pin_throttle,
    remember_unlocked,
    session_id,
)

bp = Blueprint("games", __name__)

FIELD_ECHO_MAX = 100


def rule_fields(name: str) -> list[dict[str, Any]]:
    """The engine's house-rule flags as form fields with the explanation in the page's language."""
    lang = i18n.current_language()
    fields = []
    for flag in get_table().games.rules(name).RULE_FLAGS:
        choices = list(flag.choices)
        fields.append(
            {
                "name": flag.name,
                "default": _form_value(flag.default),
                "choices": [_form_value(c) for c in choices],
                "help": flag.help_de if lang == "de" else flag.help_en,
                "label": _flag_label(lang, flag.name),
            }
        )
    return fields


def _form_value(value: object) -> str:
    # Rules.from_dict accepts the strings a command line gives, so forms send the same.
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@bp.app_context_processor
def _table_rights() -> dict[str, Any]:
    return {"admin_pin_set": get_settings().admin_pin is not None}


@bp.get("/")
def index() -> str:
    """All games: the active one first, then running, then archived; links to start one."""
    table = get_table()
    games = table.list_games()
    active = table.active_game_id()
    games.sort(key=lambda g: (g["id"] != active, g.get("status") == "archived", -g["id"]))
    for listed in games:
        if listed.get("error") is None:
            listed["summary"] = get_part(listed["game"]).summary(table.snapshot(listed["id"]))
    return render_template("index.html", games=games, active=active, names=list(get_parts()))


@bp.get("/rules")
def rules_page() -> str:
    """The rules as the engines apply them, with the house rules of the table's game."""
    table = get_table()
    game_id = table.active_game_id()
    snap = table.snapshot(game_id) if game_id is not None else None
    return render_template("rules.html", snap=snap, game_id=game_id)


@bp.route("/games/new", methods=["GET", "POST"])
def new_game() -> Any:
    """Choose a game, its players and house rules, and the scorekeeper PIN; then start."""
    name = request.values.get("game") or next(iter(get_parts()))
    ui = get_part(name)
    if request.method == "GET":
        return _setup_page(name, ui, {}, None)
    form = request.form
    pin = form.get("pin", "").strip()
    table = get_table()
    refusal = _may_create(table)
    if refusal is not None:
        status, message = refusal
        return _setup_page(name, ui, form, message), status
    try:
        if pin != form.get("pin2", "").strip():
            raise i18n.refuse("error_pin_mismatch")
        setup = ui.setup_from_form(form)
        rules = {f["name"]: form[f"rule_{f['name']}"] for f in rule_fields(name)
                 if f"rule_{f['name']}" in form}
        setup["rules"] = rules
        game_id = table.create_game(name, setup, pin, activate=_activate_new(table, form))
    except ValueError as exc:
        return _setup_page(name, ui, form, i18n.refusal(exc)), 400
    remember_unlocked(game_id)
    session.permanent = True
    return redirect(url_for("games.game_page", game_id=game_id))


def _setup_page(name: str, ui: WebPart, form: Mapping[str, str], error: str | None) -> str:
    # Shown again with what was typed, so nothing has to be re-entered (cut short: a
    # megabyte pasted into a name field is not sent back).
    typed = {key: value[:FIELD_ECHO_MAX] for key, value in form.items()}
    return render_template("new_game.html", game=name, names=list(get_parts()),
                           running=_running_game(get_table()), rules=rule_fields(name),
                           ui=ui, form=typed, error=error)


def _running_game(table: Any) -> dict[str, Any] | None:
    """The game at the table if it is still being played (a new one would push it aside)."""
    active = table.active_game_id()
    if active is None:
        return None
    snap = table.snapshot(active)
    return None if snap["over"] else {"id": active, "game": snap["game"]}


def _activate_new(table: Any, form: Mapping[str, str]) -> bool:
    """Whether the new game goes to the table: always at an empty or finished table,
    and over a running game only when the form's box was ticked (never silently)."""
    if _running_game(table) is None:
        return True
    return form.get("activate") in ("1", "on", "true")


def _may_create(table: Any) -> tuple[int, str] | None:
    """None when this request may start a game, else (status, what to do).

    Who may: the scorekeeper of the game at the table (they start the next one); anyone
    with the table's admin PIN (``admin_pin`` in the settings); and, only when no admin
    PIN is set and no game is at the table, anyone (the first game of the evening). A
    guest at the next table can then neither push the running game aside nor fill the
    list. Every new game, whoever starts it, also counts against a rate limit.
    """
    active = table.active_game_id()
    admin_pin = get_settings().admin_pin
    allowed = active is not None and is_unlocked(active)
    if not allowed and admin_pin is not None:
        given = request.form.get("admin_pin", "").strip()
        if given:
            wait = pin_throttle().begin(0, request.remote_addr or "?")
            if wait > 0:
                return 429, i18n._("error_pin_wait", seconds=int(wait) + 1)
            allowed = hmac.compare_digest(given.encode(), admin_pin.encode())
            if allowed:
                pin_throttle().succeeded(0, request.remote_addr or "?")
            else:
                return 403, i18n._("error_admin_pin")
    elif not allowed:
        allowed = active is None
    if not allowed:
        return 403, i18n._("error_create_not_allowed")
    wait = creation_limit().take()
    if wait > 0:
        return 429, i18n._("error_create_wait", seconds=int(wait) + 1)
    return None


def _page(template: str, game_id: int, history_limit: int = 0) -> str:
    table = get_table()
    snap = table.snapshot(game_id)
    return render_template(template, snap=snap, game_id=game_id, unlocked=is_unlocked(game_id),
                           picture=picture_for(game_id), history_limit=history_limit)


def picture_for(game_id: int) -> dict[str, Any] | None:
    """What the camera read for ``game_id`` last, or None.

    A game page shows the camera only for the game the camera reads: a picture taken
    for another game (or before this one was at the table) would be a stale lie here.
    """
    latest = get_table().latest_picture()
    if latest is None or latest[1].get("game_id") != game_id:
        return None
    return latest[1]


@bp.app_template_filter("who_label")
def who_label(name: object) -> str:
    """Who recorded an entry, as the page's language says it (the button is „Knopf“)."""
    text = str(name or "")
    key = f"who_{text}"
    return i18n._(key) if key in i18n.catalogue(i18n.current_language()) else text


@bp.get("/games/<int:game_id>")
def game_page(game_id: int) -> str:
    """The phone page of one game: scores, the current turn, and (unlocked) the entry panel."""
    return _page("game.html", game_id, history_limit=5)


@bp.get("/games/<int:game_id>/table")
def table_page(game_id: int) -> str:
    """The same game for a big screen: bigger type, no entry panel."""
    return _page("table.html", game_id, history_limit=3)


@bp.get("/games/<int:game_id>/history")
def history_page(game_id: int) -> str:
    """Every stored action of the game: who, what, when; undone and corrected ones marked."""
    return _page("history.html", game_id)


@bp.post("/games/<int:game_id>/unlock")
def unlock(game_id: int) -> Any:
    """Check the PIN; on success this browser may change the game for the session."""
    table = get_table()
    if not table.has_game(game_id):
        abort(404)  # before counting: made-up ids must not fill the throttle's memory
    name = who_from_form()
    refused = pin_refusal(game_id)
    if refused is not None:
        return refused
    grant(game_id, name)
    if wants_json():
        return jsonify(unlocked=True)
    return redirect(url_for("games.game_page", game_id=game_id))


def who_from_form() -> str:
    """The name the form's ``who`` field gives (checked), or "" when it is left empty."""
    name = request.form.get("who", "").strip()
    return check_name(name, i18n._("field_who"), WHO_MAX) if name else ""


def pin_refusal(game_id: int) -> Any | None:
    """None when the form's ``pin`` is the PIN of ``game_id``; else the 403/429 answer.

    Every try is counted (:func:`pin_throttle`) before the PIN is checked.
    """
    throttle = pin_throttle()
    client = request.remote_addr or "?"
    known = session_id() if is_known(game_id) else None
    wait = throttle.begin(game_id, client, known_session=known)
    if wait > 0:
        return error_response(429, i18n._("error_pin_wait", seconds=int(wait) + 1))
    if not get_table().verify_pin(game_id, request.form.get("pin", "").strip()):
        return error_response(403, i18n._("error_pin_wrong"))
    throttle.succeeded(game_id, client, known_session=known)
    return None


def grant(game_id: int, name: str) -> None:
    """Let this browser change ``game_id`` for the session (it gave the PIN), as ``name``."""
    remember_unlocked(game_id)
    if name:
        session["who"] = name
    session.permanent = True


@bp.post("/games/<int:game_id>/lock")
def lock(game_id: int) -> Any:
    """Give up the scorekeeper rights of this browser for the game."""
    forget_unlocked(game_id)
    if wants_json():
        return jsonify(unlocked=False)
    return redirect(url_for("games.game_page", game_id=game_id))


@bp.app_template_filter("tojson_compact")
def tojson_compact(value: object) -> str:
    """JSON for a data attribute (compact)."""
    return json.dumps(value, separators=(",", ":"))


@bp.app_template_global("web_part")
def web_part(name: str) -> WebPart:
    """The dashboard part of game ``name`` (its templates and script)."""
    return get_part(name)


@bp.app_template_global("web_parts")
def web_parts() -> list[WebPart]:
    """Every game's dashboard part, in the registry's order."""
    return list(get_parts().values())


@bp.app_template_filter("player_names")
def player_names(players: list[Any]) -> list[str]:
    """Player names from a game listing (plain names, or objects with a ``name``)."""
    return [p["name"] if isinstance(p, dict) else str(p) for p in players or []]


@bp.app_template_global("rules_in_force")
def rules_in_force(snap: dict[str, Any]) -> list[dict[str, Any]]:
    """The game's house rules with their value, explanation, and whether it is the default."""
    lang = i18n.current_language()
    values = (snap.get("setup") or {}).get("rules") or {}
    out = []
    for flag in get_table().games.rules(snap["game"]).RULE_FLAGS:
        value = values.get(flag.name, flag.default)
        out.append({
            "name": flag.name,
            "label": _flag_label(lang, flag.name),
            "value": _shown_value(lang, value),
            "help": flag.help_de if lang == "de" else flag.help_en,
            "is_default": value == flag.default,
        })
    return out


def _shown_value(lang: str, value: object) -> str:
    if isinstance(value, bool) or value in ("true", "false"):
        return i18n.translate(lang, "yes" if value in (True, "true") else "no")
    key = f"value_{value}"
    if key in i18n.catalogue(lang):
        return i18n.translate(lang, key)
    if value in ("", None):
        return i18n.translate(lang, "value_none")
    if isinstance(value, float) and lang == "de":
        return f"{value:g}".replace(".", ",")  # German writes 1,5
    return str(value)


@bp.app_template_global("rule_value")
def rule_value(value: object) -> str:
    """A house-rule value as the page's language says it (``seed`` is „Original“)."""
    return _shown_value(i18n.current_language(), value)


def _flag_label(lang: str, name: str) -> str:
    key = f"flag_{name}"
    return i18n.translate(lang, key) if key in i18n.catalogue(lang) else name.replace("_", " ")
