"""The benchmark scripts still run (one frame or a few actions each) and print their figures.

They measure nothing here -- timings on a shared machine are noise; this keeps a renamed
import or option from breaking them unnoticed."""

import subprocess
import sys
from pathlib import Path

import pytest

# Each starts a Python process and loads models or a browser: seconds apiece.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def run(script: str, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *args],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_bench_pips_prints_a_table_per_frame_size_and_dice_count():
    out = run("bench_pips.py", "--frames", "1")
    for case in ("640x640", "1280x960"):
        assert case in out


def test_bench_bock_prints_stage_times_and_end_to_end_figures():
    out = run("bench_bock.py", "--frames", "2")
    assert "total" in out and "end to end: found" in out


@pytest.mark.browser
def test_bench_live_prints_the_median_delay():
    out = run("bench_live.py", "--actions", "5")
    assert "median" in out


def test_bench_load_prints_percentiles_errors_streams_and_rss():
    out = run("bench_load.py", "--seconds", "2", "--phones", "3", "--rate", "5", "--flood", "30")
    for words in ("p95 ms", "before", "flood", "live streams open", "server RSS"):
        assert words in out


def test_bench_settle_prints_ms_per_frame():
    out = run("bench_settle.py", "--repeat", "1")
    assert "ms per frame" in out and "320x240" in out
    out = run("bench_settle.py", "--repeat", "1", "--size", "320x180", "--tray-part")
    assert "ms per frame" in out and "calibrated 1920x1080" in out


def test_bench_tray_view_prints_whole_frames_against_the_bare_tray():
    out = run("bench_tray_view.py", "--frames", "1")
    for case in ("1280x960", "1920x1080", "rectify", "bare", "extra"):
        assert case in out


def test_bench_pi_prints_the_three_budgets():
    out = run("bench_pi.py", "--phones", "2", "--throws", "1", "--seconds", "3")
    assert "% of one core" in out
    for case in ("tray calibrated", "no calibration"):
        assert f"{case}: rest to 2 phones: 1 throws" in out
        assert f"{case}: companion run" in out
    assert out.count("peak RSS") == 2


def test_bench_pi_runs_companion_as_the_unit_does():
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import bench_pi
    finally:
        sys.path.remove(str(ROOT / "bench"))
    env = bench_pi.unit_environment()
    assert env["MALLOC_ARENA_MAX"] == "2" and "COMPANION_CONFIG" not in env
