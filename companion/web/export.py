"""Downloads (CSV, JSON-lines log) and joining by QR code."""

from __future__ import annotations

import io
import socket

import segno
from flask import Blueprint, Response, current_app, render_template, request

from companion.web import get_settings, get_table

bp = Blueprint("export", __name__)


@bp.get("/games/<int:game_id>/export.jsonl")
def export_jsonl(game_id: int) -> Response:
    """The game log (JSON lines, the format ``companion replay`` reads)."""
    text = get_table().export_log(game_id)
    return Response(text, mimetype="application/x-ndjson", headers={
        "Content-Disposition": f'attachment; filename="game-{game_id}.jsonl"'})


@bp.get("/games/<int:game_id>/export.csv")
def export_csv(game_id: int) -> Response:
    """The game as CSV (one row per action, as the Table writes it)."""
    text = get_table().export_csv(game_id)
    return Response(text, mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="game-{game_id}.csv"'})


def lan_address() -> str:
    """This machine's address on the local network (127.0.0.1 when there is none).

    Connecting a UDP socket sends nothing; it only asks the kernel which interface
    would route outwards, which is the address phones at the table can reach.
    """
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never actually contacted
        return probe.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


def dashboard_url(host: str, port: int) -> str:
    """The address to give phones: the LAN address when listening on every interface."""
    if host in ("0.0.0.0", "", "::"):
        host = lan_address()
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def qr_svg(url: str) -> str:
    """An SVG QR code of ``url`` (light on the page's dark background stays scannable)."""
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=6, border=2, dark="#000000",
                                    light="#ffffff", xmldecl=False)
    return out.getvalue().decode("utf-8")


def qr_text(url: str) -> str:
    """A QR code of ``url`` drawn with block characters for the console at start-up."""
    qr = segno.make(url, error="m")
    lines = []
    matrix = [list(row) for row in qr.matrix_iter(scale=1, border=2)]
    # Two matrix rows per text line with half blocks keep the code square in a terminal.
    for top, bottom in zip(matrix[::2], matrix[1::2] + [[0] * len(matrix[0])], strict=False):
        chars = []
        for upper, lower in zip(top, bottom, strict=True):
            # Dark modules are drawn as spaces on a light terminal-block background:
            # scanners need dark-on-light, and most consoles are light text on dark.
            chars.append({(0, 0): "█", (1, 0): "▄", (0, 1): "▀", (1, 1): " "}[(upper, lower)])
        lines.append("".join(chars))
    return "\n".join(lines)


def _url_for_phones() -> str:
    configured = current_app.config.get("DASHBOARD_URL")
    if configured:
        return configured
    settings = get_settings()
    if request.host.split(":")[0] not in ("localhost", "127.0.0.1", "[::1]"):
        return request.host_url  # the phone that opened this page could reach it
    return dashboard_url(settings.host, settings.port)


@bp.get("/join")
def join() -> str:
    """The dashboard address and its QR code, to show to the others at the table."""
    url = _url_for_phones()
    return render_template("join.html", url=url, svg=qr_svg(url))


@bp.get("/join/qr.svg")
def join_qr() -> Response:
    """The QR code alone (for the big screen)."""
    return Response(qr_svg(_url_for_phones()), mimetype="image/svg+xml")
