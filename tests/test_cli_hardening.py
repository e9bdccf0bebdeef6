"""Hostile input on the command line and in files: one line, exit 2, nothing changed (issue 11)."""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import time
from pathlib import Path

import pytest

from companion.cli import main
from companion.domain.csvexport import csv_cell
from companion.games.errors import ParseError
from companion.games.parsing import JSON_DEPTH_MAX, read_json, whole_number
from companion.games.schocken_rules import Rules
from companion.store import Store, UnknownGame
from companion.table import Table

HEADER = {"format": "dice-companion-log", "version": 1, "game": "schocken",
          "setup": {"players": ["Anna", "Ben"], "starter": "Anna"}}


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


# -- item 1: any number from outside has a sane range and a bounded parse -----------------

@pytest.mark.parametrize("amount", ["1e999999999", "1e1000000", "9" * 5000, "1e5000"])
def test_a_huge_tab_amount_is_refused_at_once(amount, capsys):
    started = time.monotonic()
    assert main(["rank", "schocken", "1-1-4", "--rule", f"tab_amount={amount}"]) == 2
    assert time.monotonic() - started < 1.0
    line = _one_error_line(capsys)
    assert "tab_amount" in line and "0 to 9999" in line
    assert "set_int_max_str_digits" not in line


def test_replay_of_a_log_with_a_huge_tab_amount_is_refused_at_once(tmp_path, capsys):
    header = json.loads(json.dumps(HEADER))
    header["setup"]["rules"] = {"tab_amount": "1e999999999"}
    log = tmp_path / "huge.jsonl"
    log.write_text(json.dumps(header) + "\n")
    started = time.monotonic()
    assert main(["replay", str(log)]) == 2
    assert time.monotonic() - started < 1.0
    assert "tab_amount" in _one_error_line(capsys)


@pytest.mark.parametrize("number", ["1" + "0" * 5000, "1e999999"])
def test_replay_of_a_log_with_a_huge_json_number_is_one_line(tmp_path, capsys, number):
    log = tmp_path / "huge.jsonl"
    log.write_text(json.dumps(HEADER) + "\n" + '{"action": "throw", "player": "Anna", '
                   f'"throws": {number}, "dice": [1, 1, 4]}}\n')
    assert main(["replay", str(log)]) == 2
    line = _one_error_line(capsys)
    assert "line 2" in line and "set_int_max_str_digits" not in line


@pytest.mark.parametrize("text", ["٣", "1_0", "+3", " 3 ", "3.0", "", "0x10"])
def test_number_fields_take_plain_ascii_digits_only(text):
    if text == " 3 ":
        assert whole_number(text, "deckel", 1, 999) == 3
        return
    with pytest.raises(ParseError, match="whole number from 1 to 999"):
        whole_number(text, "deckel", 1, 999)
    with pytest.raises(ValueError, match="deckel"):
        Rules.from_dict({"deckel": text})


def test_tab_amount_keeps_ordinary_values():
    assert Rules.from_dict({"tab_amount": "0.5"}).tab_amount == 0.5
    assert Rules.from_dict({"tab_amount": "2"}).tab_amount == 2
    assert Rules.from_dict({"tab_amount": 1.25}).tab_amount == 1.25
    for bad in ("-1", "+1", "1_000", "١", float("inf"), float("nan"), 10**5000, "10000"):
        with pytest.raises(ValueError, match="tab_amount"):
            Rules.from_dict({"tab_amount": bad})


# -- item 6: deep nesting, huge ids ----------------------------------------------------------

def test_deeply_nested_json_is_a_parse_error_not_a_crash():
    for text in ("[" * 100_000, "[" * 100_000 + "]" * 100_000,
                 "[" * (JSON_DEPTH_MAX + 1) + "]" * (JSON_DEPTH_MAX + 1)):
        with pytest.raises(ParseError, match="nested too deeply"):
            read_json(text, "the action is ")
    assert read_json('{"a": [[1]]}', "") == {"a": [[1]]}


def test_replay_of_deeply_nested_json_is_one_line(tmp_path, capsys):
    log = tmp_path / "deep.jsonl"
    log.write_text(json.dumps(HEADER) + "\n" + "[" * 100_000 + "\n")
    assert main(["replay", str(log)]) == 2
    assert "line 2" in _one_error_line(capsys)


def _stored_game(path: Path) -> None:
    with Store(path) as store:
        Table(store, pin_iterations=1000).create_game(
            "schocken", {"players": ["=HYPERLINK(\"http://x\")", "+Ben", "-1"],
                         "starter": "+Ben"}, "4711")


def test_export_of_a_game_id_beyond_64_bits_is_one_line(tmp_path, capsys):
    db = tmp_path / "log.sqlite3"
    _stored_game(db)
    assert main(["export", "99999999999999999999999", "--db", str(db)]) == 2
    assert "there is no game" in _one_error_line(capsys)
    with Store(db) as store:
        for bad in (2**63, -1, 0, 10**30):
            with pytest.raises(UnknownGame):
                store.game(bad)
            with pytest.raises(UnknownGame):
                store.entries(bad)


# -- item 3: CSV export never hands a spreadsheet a formula --------------------------------

def test_csv_export_neutralises_formula_cells(tmp_path, capsys):
    db = tmp_path / "log.sqlite3"
    _stored_game(db)
    assert main(["export", "1", "--format", "csv", "--db", str(db)]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    cells = [cell for row in rows for cell in row]
    assert not [c for c in cells if c[:1] in ("=", "+", "@", "\t", "\r")]
    assert "'=HYPERLINK(\"http://x\")" in cells and "'+Ben" in cells
    # A player called "-1" is text that looks like a number: it stays what it is.
    assert "-1" in cells


@pytest.mark.parametrize(("value", "shown"), [
    ("=1+2", "'=1+2"), ("+1", "'+1"), ("-x", "'-x"), ("@SUM(A1)", "'@SUM(A1)"),
    ("\t=1", "'\t=1"), ("\r=1", "'\r=1"), ("-3", "-3"), ("-2.5", "-2.5"), ("Anna", "Anna"),
    (7, 7),
])
def test_csv_cell(value, shown):
    assert csv_cell(value) == shown


# -- item 9: reading commands never create or change a database ----------------------------

@pytest.mark.parametrize("content", [b"", b"my shopping list\n"])
@pytest.mark.parametrize("command", [["games"], ["export", "1"]])
def test_reading_commands_leave_a_foreign_file_alone(tmp_path, capsys, content, command):
    path = tmp_path / "notes.txt"
    path.write_bytes(content)
    before = os.stat(path)
    assert main([*command, "--db", str(path)]) == 2
    assert path.read_bytes() == content
    assert os.stat(path).st_mtime_ns == before.st_mtime_ns
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    _one_error_line(capsys)


def test_reading_commands_still_read_a_real_log(tmp_path, capsys):
    db = tmp_path / "log.sqlite3"
    _stored_game(db)
    assert main(["games", "--db", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["id"] == 1


# -- item 10: data files are owner-only ------------------------------------------------------

def test_event_log_files_are_owner_only(tmp_path):
    db = tmp_path / "data" / "companion.sqlite3"
    _stored_game(db)
    for file in tmp_path.joinpath("data").iterdir():
        assert file.stat().st_mode & 0o077 == 0, file
    # A log from an older companion, world-readable, is tightened when opened for writing.
    old = tmp_path / "old.sqlite3"
    sqlite3.connect(old).close()
    old.chmod(0o644)
    Store(old).close()
    assert old.stat().st_mode & 0o077 == 0


# -- item 8: start-up problems are one line and exit 2 ----------------------------------------

def test_serve_with_a_data_dir_that_is_a_file_is_one_line(tmp_path, capsys, monkeypatch):
    blocker = tmp_path / "data"
    blocker.write_text("I am a file")
    monkeypatch.setenv("COMPANION_DATA_DIR", str(blocker))
    assert main(["serve", "--host", "127.0.0.1", "--port", "8080"]) == 2
    assert "data_dir" in _one_error_line(capsys)
    assert blocker.read_text() == "I am a file"


def test_serve_on_a_port_in_use_is_one_line(tmp_path, capsys, monkeypatch):
    import socket

    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--host", "127.0.0.1", "--port", str(port)]) == 2
    line = _one_error_line(capsys)
    assert f"127.0.0.1:{port}" in line and "port" in line


def test_run_without_a_gpio_backend_keeps_the_dashboard(monkeypatch, caplog):
    from companion import app as app_module

    class NoPins:
        def __init__(self, *args, **kwargs):
            raise RuntimeError("Unable to load any default pin factory!")

    monkeypatch.setattr("companion.hardware.button.TurnButton", NoPins)
    notices: list[str] = []
    with caplog.at_level("WARNING"):
        assert app_module._open_button(17, object(), notices) is None
    assert "GPIO 17" in notices[0] and "phone" in notices[0]
    assert "without the turn button" in caplog.text


def test_a_label_file_that_is_a_folder_or_not_utf8_names_the_file(tmp_path):
    from companion.evaluation import EvalDataError, read_labels

    folder = tmp_path / "x.txt"
    folder.mkdir()
    with pytest.raises(EvalDataError, match="x.txt"):
        read_labels(folder, 100, 100)
    latin = tmp_path / "y.txt"
    latin.write_bytes(b"0 0.5 0.5 0.1 0.1 \xe9\n")
    with pytest.raises(EvalDataError, match="y.txt.*UTF-8"):
        read_labels(latin, 100, 100)


# -- item 11: configuration values -------------------------------------------------------------

@pytest.mark.parametrize(("text", "words"), [
    ("port = 1.5", "port"), ('port = "٣"', "port"), ('port = "1_0"', "port"),
    ("button_pin = -5", "button_pin"), ("button_pin = 99999", "button_pin"),
    ('threads = "+3"', "threads"), ('admin_pin = "12ab"', "admin_pin"),
    ('settle_seconds = "1e5000"', "settle_seconds"),
])
def test_config_refuses_odd_numbers(tmp_path, text, words):
    from companion.config import ConfigError, load_settings

    path = tmp_path / "config.toml"
    path.write_text(text + "\n")
    with pytest.raises(ConfigError, match=words) as caught:
        load_settings(path, environ={})
    assert "set_int_max_str_digits" not in str(caught.value)


def test_config_env_numbers_are_plain_digits(tmp_path):
    from companion.config import ConfigError, load_settings

    with pytest.raises(ConfigError, match="port"):
        load_settings(None, environ={"COMPANION_PORT": "8" * 5000})
    assert load_settings(None, environ={"COMPANION_PORT": "8090",
                                        "COMPANION_BUTTON_PIN": "17"}).button_pin == 17


def test_a_config_file_that_is_not_utf8_is_named(tmp_path):
    from companion.config import ConfigError, load_settings

    path = tmp_path / "latin1.toml"
    path.write_bytes('language = "de" # Schöcken\n'.encode("latin-1"))
    with pytest.raises(ConfigError, match="latin1.toml.*UTF-8"):
        load_settings(path, environ={})
