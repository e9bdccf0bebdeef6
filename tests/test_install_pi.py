"""scripts/install-pi on a pretend system: real file writes under --root, and the
commands that change the machine (apt, useradd, systemctl, chown, the venv) answered by
small fakes on PATH that keep their state in files, so a second run can see the first."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "install-pi"

FAKES = {
    # every call is logged; state lives in $STATE
    "apt-cache": 'exit 0',
    "apt-get": 'for p in "$@"; do case "$p" in python3-*) touch "$STATE/pkg-$p";; esac; done',
    "dpkg-query": '[ -f "$STATE/pkg-${!#}" ] && echo "install ok installed" || exit 1',
    "getent": 'case "$1" in passwd) [ -f "$STATE/user-$2" ];; group) [ "$2" = video ] '
              '|| [ "$2" = gpio ];; esac',
    "useradd": 'touch "$STATE/user-${!#}"',
    "usermod": 'echo "$3" >> "$STATE/groups-$4"',
    "id": 'if [ "$1" = -nG ]; then cat "$STATE/groups-$2" 2>/dev/null | tr "\\n" " "; '
          'elif [ "$1" = -u ] && [ $# -eq 1 ]; then echo 0; else exit 1; fi',
    "chown": 'echo "${1%%:*}" > "$STATE/owner-$(echo "$2" | tr / _)"',
    "chgrp": 'exit 0',
    "stat": 'f="$STATE/owner-$(echo "${!#}" | tr / _)"; [ -f "$f" ] && cat "$f" || echo root',
    "systemctl": 'case "$1" in '
                 'is-enabled) [ -f "$STATE/enabled" ];; is-active) [ -f "$STATE/active" ];; '
                 'enable) touch "$STATE/enabled";; start|restart) touch "$STATE/active";; '
                 'disable) rm -f "$STATE/enabled" "$STATE/active";; esac',
    "hostname": 'echo 192.0.2.7',
    "python3": 'venv="${!#}"; mkdir -p "$venv/bin"; '
               'printf "#!/bin/sh\\necho pip \\"\\$@\\" >> $STATE/log\\n" > "$venv/bin/python"; '
               'printf "#!/bin/sh\\nPYTHONPATH=$APP exec $REAL -m companion \\"\\$@\\"\\n" '
               '> "$venv/bin/companion"; chmod +x "$venv/bin/python" "$venv/bin/companion"',
}
CHANGING = ("apt-get", "useradd", "usermod", "chown", "systemctl enable", "systemctl start",
            "systemctl restart", "systemctl daemon-reload", "python3", "pip", "systemctl disable")


@pytest.fixture
def machine(tmp_path):
    bin_dir, state = tmp_path / "bin", tmp_path / "state"
    bin_dir.mkdir()
    state.mkdir()
    for name, body in FAKES.items():
        path = bin_dir / name
        path.write_text(f'#!/bin/bash\necho "{name} $*" >> "$STATE/log"\n{body}\n')
        path.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", STATE=str(state),
               APP=str(ROOT), REAL=sys.executable, PYTHON="python3")
    env.pop("COMPANION_CONFIG", None)
    return tmp_path / "root", state, env


def install(root, env, *args):
    result = subprocess.run(["bash", str(SCRIPT), "--root", str(root), *args], env=env,
                            capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    return result.stdout


def changes(state: Path) -> list[str]:
    log = (state / "log").read_text().splitlines() if (state / "log").exists() else []
    return [line for line in log if line.startswith(CHANGING)]


def tree(root: Path) -> dict[str, tuple[float, bytes, int]]:
    # Files with their times and bytes; folders by their mode only (the doctor's write
    # probe in the data folder touches its time, and that is the check, not the install).
    return {str(p.relative_to(root)): (p.stat().st_mtime, p.read_bytes(), p.stat().st_mode)
            if p.is_file() else (0.0, b"", p.stat().st_mode) for p in sorted(root.rglob("*"))}


@pytest.mark.slow
def test_install_sets_everything_up_then_a_second_run_changes_nothing(machine):
    root, state, env = machine
    first = install(root, env)
    done = changes(state)
    assert any(c.startswith("apt-get") and "python3-picamera2" in c for c in done)
    assert any(c.startswith("useradd") and "companion" in c for c in done)
    assert {c for c in done if c.startswith("usermod")} == {
        "usermod -a -G video companion", "usermod -a -G gpio companion"}
    assert "systemctl enable dice-companion" in done and "systemctl start dice-companion" in done
    assert any(c.startswith("python3 -m venv --system-site-packages") for c in done)
    # OpenCV and numpy are apt's (python3-opencv, python3-numpy): pip adds neither.
    assert any(c.startswith("apt-get") and "python3-opencv" in c and "python3-numpy" in c
               for c in done)
    [pip] = [c for c in done if c.startswith("pip ")]
    assert pip.endswith(f"install -q -e {ROOT}") and "[cv]" not in pip
    config = root / "etc/dice-companion/config.toml"
    unit = root / "etc/systemd/system/dice-companion.service"
    assert f'data_dir = "{root}/var/lib/dice-companion"' in config.read_text()
    assert f"ExecStart={ROOT}/.venv/bin/companion run" in unit.read_text()
    assert (config.stat().st_mode & 0o777) == 0o640
    # the pre-flight check ran, one line per check, and the address is printed
    assert "ok    database:" in first and "camera: picamera2 is not installed" in first
    assert "dashboard: http://192.0.2.7:8080/" in first
    before, logged = tree(root), len(changes(state))

    second = install(root, env)
    assert changes(state)[logged:] == []
    assert tree(root) == before
    assert "nothing to change" in second


def test_a_changed_config_is_kept(machine):
    root, state, env = machine
    install(root, env)
    config = root / "etc/dice-companion/config.toml"
    config.write_text('camera = "usb:0"\nport = 8090\n')
    out = install(root, env)
    assert config.read_text() == 'camera = "usb:0"\nport = 8090\n'
    assert "dashboard: http://192.0.2.7:8090/" in out


def test_uninstall_removes_service_and_venv_and_keeps_data_and_config(machine):
    root, state, env = machine
    install(root, env)
    data = root / "var/lib/dice-companion"
    (data / "companion.sqlite3").write_bytes(b"the evening's games")
    out = install(root, env, "--uninstall")
    assert not (root / "etc/systemd/system/dice-companion.service").exists()
    assert "systemctl disable --now dice-companion" in changes(state)
    assert (data / "companion.sqlite3").read_bytes() == b"the evening's games"
    assert (root / "etc/dice-companion/config.toml").exists()
    assert "kept the data" in out


def test_dry_run_says_what_it_would_do_and_changes_nothing(machine):
    root, state, env = machine
    out = install(root, env, "--dry-run")
    assert "would run: useradd" in out and "would write" in out
    assert changes(state) == []
    assert not (root / "etc").exists()


def test_bad_option_is_refused():
    result = subprocess.run(["bash", str(SCRIPT), "--frobnicate"], capture_output=True,
                            text=True)
    assert result.returncode == 2 and "unknown option --frobnicate" in result.stderr


@pytest.mark.skipif(not shutil.which("shellcheck"), reason="shellcheck not installed")
def test_shellcheck_finds_nothing():
    result = subprocess.run(["shellcheck", str(SCRIPT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="no systemd-analyze")
def test_the_unit_verifies(tmp_path):
    unit = tmp_path / "dice-companion.service"
    text = (ROOT / "systemd/dice-companion.service").read_text()
    # verify checks that the program exists; the venv is not on this machine
    unit.write_text(text.replace("/opt/dice-companion/.venv/bin/companion", "/bin/true"))
    result = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True,
                            text=True, timeout=60)
    problems = [line for line in result.stderr.splitlines()
                if "dice-companion.service" in line and "WorkingDirectory" not in line]
    assert problems == [], result.stderr
