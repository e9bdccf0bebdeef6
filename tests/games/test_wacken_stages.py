"""Kacken auf Wacken stages: Running-Order clearing and bands moving up from backstage."""

from __future__ import annotations

import pytest

from companion.games import IllegalAction, ParseError
from companion.games.wacken import (
    Stages,
    band_arrives,
    clear_stage,
    running_order,
    running_order_stage,
)

FULL = Stages(faster="AC/WC", harder="Harter Hans", louder="Klo Boys", backstage="Pissed Zeppelin")


@pytest.mark.parametrize(
    ("stages", "named", "below", "cleared"),
    [
        (FULL, "faster", "harder", "faster"),  # the seed's card: left, else middle
        (Stages(harder="B", louder="C"), "faster", "harder", "harder"),
        (Stages(louder="C"), "faster", "harder", "louder"),  # else the last one left
        (Stages(faster="A", harder="B"), "louder", "harder", "harder"),
        (Stages(faster="A"), "louder", "harder", "faster"),
        (Stages(backstage="D"), "harder", "louder", None),
    ],
)
def test_running_order_clears_named_else_below_else_last(stages, named, below, cleared):
    assert running_order_stage(stages, named, below) == cleared


def test_backstage_band_takes_the_cleared_stage():
    after, stage = running_order(FULL, "harder", "louder")
    assert stage == "harder"
    assert after == Stages("AC/WC", "Pissed Zeppelin", "Klo Boys", None)
    # with nobody backstage the stage stays empty until a new band is drawn
    emptied = clear_stage(after, "faster")
    assert emptied == Stages(None, "Pissed Zeppelin", "Klo Boys", None)
    assert band_arrives(emptied, "Metallikaka") == Stages(
        "Metallikaka", "Pissed Zeppelin", "Klo Boys", None
    )


def test_running_order_on_empty_stages_changes_nothing():
    stages = Stages(backstage="D")
    assert running_order(stages, "faster", "harder") == (stages, None)


def test_bands_fill_stages_left_to_right_then_wait_backstage():
    stages = Stages()
    for band in ("A", "B", "C", "D"):
        stages = band_arrives(stages, band)
    assert stages == Stages("A", "B", "C", "D")
    with pytest.raises(IllegalAction, match="D already waits backstage; E cannot arrive"):
        band_arrives(stages, "E")
    with pytest.raises(IllegalAction, match="B plays on the harder stage already"):
        band_arrives(Stages("A", "B"), "B")


def test_stage_errors_say_what_is_wrong():
    with pytest.raises(ParseError, match="unknown stage 'left'"):
        running_order_stage(FULL, "left", "harder")
    with pytest.raises(ParseError, match="two different stages, not faster twice"):
        running_order_stage(FULL, "faster", "faster")
    with pytest.raises(IllegalAction, match="the louder stage is empty already"):
        clear_stage(Stages(faster="A"), "louder")
    with pytest.raises(IllegalAction, match="one place only"):
        Stages(faster="A", backstage="A")
    assert FULL.stage_of("Klo Boys") == "louder"
    with pytest.raises(IllegalAction, match="Slayer is not on a stage"):
        FULL.stage_of("Slayer")
