"""Downloads (CSV, JSON-lines log) and joining by QR code."""

from __future__ import annotations

import io
import os
import socket
from urllib.parse import urlsplit

import segno
from flask import Blueprint, Response, current_app, render_template, request

from companion.web import error_response, get_settings, get_table, i18n

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
                                    light="#ffffff", xmldecl=False, omitsize=True)
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


LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1", "[::1]")
MDNS_MARKERS = ("/run/avahi-daemon/pid", "/var/run/avahi-daemon/pid")


def mdns_name() -> str | None:
    """``<hostname>.local`` when avahi runs here (phones then find the Pi by name)."""
    if not any(os.path.exists(marker) for marker in MDNS_MARKERS):
        return None
    name = socket.gethostname().split(".")[0]
    return f"{name}.local" if name and name != "localhost" else None


def _port() -> int:
    # The port this request came in on is the one the server listens on (the settings'
    # port may be 0 or overridden on the command line).
    return urlsplit(request.host_url).port or get_settings().port


def _urls_for_phones() -> list[str]:
    """Addresses phones at the table can open, best first; empty when only loopback is bound.

    The QR code carries the first. A phone that opened this page from the network already
    has a working address; on the Pi itself (loopback) the LAN address and the mDNS name
    are given, but only if the server listens on every interface.
    """
    host = get_settings().host
    configured = current_app.config.get("DASHBOARD_URL")
    if request.host.split(":")[0] not in LOOPBACK_HOSTS:
        urls = [request.host_url]
    elif configured:
        urls = [configured]  # what the server printed at start-up
    elif host in LOOPBACK_HOSTS:
        return []
    else:
        urls = [dashboard_url(host, _port())]
    if host in ("0.0.0.0", "", "::"):
        name = mdns_name()
        if name and urlsplit(urls[0]).hostname != name:
            urls.append(f"http://{name}:{urlsplit(urls[0]).port or _port()}/")
    # A loopback address would only open the Pi's own browser: never offer it to phones.
    return [url for url in urls if urlsplit(url).hostname not in LOOPBACK_HOSTS
            and not (urlsplit(url).hostname or "").startswith("127.")]


def _url_for_phones() -> str:
    urls = _urls_for_phones()
    return urls[0] if urls else request.host_url


@bp.get("/join")
def join() -> str:
    """The dashboard address and its QR code, to show to the others at the table.

    When the companion listens on loopback only, phones cannot reach it: the page says
    so and how to open it to the network instead of showing a code that cannot work.
    """
    urls = _urls_for_phones()
    if not urls:
        return render_template("join.html", urls=[], svg=None)
    return render_template("join.html", urls=urls, svg=qr_svg(urls[0]))


@bp.app_template_global("phone_url")
def phone_url() -> str | None:
    """The address phones at the table can open (the QR code's), or None on loopback only."""
    urls = _urls_for_phones()
    return urls[0] if urls else None


@bp.get("/join/qr.svg")
def join_qr() -> Response:
    """The QR code alone (for the big screen); 404 when phones cannot reach the companion
    (a code of a loopback address would open nothing on a phone)."""
    url = phone_url()
    if url is None:
        return error_response(404, i18n._("join_loopback"))
    return Response(qr_svg(url), mimetype="image/svg+xml")
