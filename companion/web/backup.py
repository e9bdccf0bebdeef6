"""The whole database from the dashboard: download a backup, restore one (keeper only).

Both are POST forms: a download carries the PIN hashes and every game, so it needs the
same right as a restore, and a form can carry the table's admin PIN. A restore file
must be a companion backup whose every game can be rebuilt; the database as it was is
kept in ``backups/`` beside the event log first, and the restore is one transaction.
"""

from __future__ import annotations

import os
import tempfile
import time
from typing import Any

from flask import Blueprint, Response, render_template, request

from companion.web import error_response, get_table, i18n, keeper, security

bp = Blueprint("backup", __name__)

# Uploads are limited to 2 MB elsewhere; a Stammtisch's years of games fit in this.
RESTORE_MAX_BYTES = 64 * 1024 * 1024


@bp.url_value_preprocessor
def _allow_large_restore(endpoint: str | None, values: Any) -> None:
    # Runs before the app's CSRF check reads the form, so the larger limit applies to it.
    if endpoint == "backup.restore":
        request.max_content_length = RESTORE_MAX_BYTES


@bp.get("/backup")
def backup_page() -> str:
    """What backup and restore do, and their two forms."""
    return render_template("backup.html", may_change=keeper.may_change(), message=None)


@bp.post("/backup/download")
def download() -> Any:
    """A consistent copy of the whole database as one SQLite file (keeper only)."""
    refusal = keeper.refusal()
    if refusal is not None:
        return error_response(*refusal)
    fd, name = tempfile.mkstemp(prefix="companion-backup-", suffix=".sqlite3")
    os.close(fd)
    try:
        get_table().backup(name)
        with open(name, "rb") as fh:
            data = fh.read()
    finally:
        os.unlink(name)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Response(data, mimetype="application/vnd.sqlite3", headers={
        "Content-Disposition": f'attachment; filename="companion-{stamp}.sqlite3"',
        "Cache-Control": "no-store"})


@bp.post("/backup/restore")
def restore() -> Any:
    """Replace the database with an uploaded backup (keeper only; checked first)."""
    refusal = keeper.refusal()
    if refusal is not None:
        return error_response(*refusal)
    upload = request.files.get("file")
    if upload is None or not upload.filename:
        return error_response(400, i18n._("error_restore_no_file"))
    fd, name = tempfile.mkstemp(prefix="companion-restore-", suffix=".sqlite3")
    try:
        with os.fdopen(fd, "wb") as out:
            upload.save(out)
        upload.close()
        get_table().restore(name)  # a StoreError (ValueError) becomes a 400 with its text
    finally:
        os.unlink(name)
    # The restored games may reuse the ids of those they replaced: no grant carries over
    # to another game.
    security.grants().reload()
    return render_template("backup.html", may_change=keeper.may_change(),
                           message=i18n._("restore_done"))
