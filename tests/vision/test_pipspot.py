"""The pip dice spotter: finds rendered and photographed pip dice as the pip net reads them."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from pipdraw import photos_dir

from companion.evaluation import LabelledDie, match, read_labels
from companion.synth.render import render_throw
from companion.vision.recognizer import PIP_WORK_SIDE, PipRecognizer
from companion.vision.spot import (
    KIND_EDGE,
    PHOTO_EDGE,
    PIP_MODEL,
    PipSpotter,
    SpotterError,
    load_pip_spotter,
)
from companion.vision.tray import find_in_tray
from companion.vision.types import DieRegion, VisionError


@pytest.fixture(scope="module")
def spotter() -> PipSpotter:
    if not PIP_MODEL.is_file():
        pytest.skip(f"no pip spotter model at {PIP_MODEL}")
    return PipSpotter()


def _pairs(throw, spots, tolerance):
    """(die index, spot index) pairs closer than ``tolerance`` top-face edges."""
    labels = [
        LabelledDie(d.value, *d.center, 2 * tolerance * d.size, 2 * tolerance * d.size)
        for d in throw.dice
    ]
    return match(labels, [s.center for s in spots])


@pytest.mark.parametrize(
    ("seed", "hard", "size"),
    [(61, False, (1280, 960)), (62, True, (1280, 960)), (63, True, (640, 480))],
)
def test_every_die_of_rendered_pip_throws_is_spotted(spotter, seed, hard, size):
    # Seeds far from the evaluation folders (8101, 8102) and not frame seeds of training.
    # The renderer has drawn black, dark blue and marbled dice with red pips since the
    # spotter was trained; it misses some of those on dark felt (the hard renders of seed
    # 8102: 0.962 of dice read right as drawn now, 0.980 as drawn before), so one die in a
    # throw may be missed and one piece of wall taken for a die.
    for k in range(2):
        throw = render_throw(seed + 100 * k, 8, kind="pips", size=size, hard=hard)
        spots = spotter.spot(throw.image)
        pairs = _pairs(throw, spots, 0.25)
        assert len(pairs) >= 7
        assert len(spots) - len(pairs) <= 1
        for i, j in pairs:
            die, s = throw.dice[i], spots[j]
            # The edge the pip net reads: the classical finder's, about 1.3 top faces.
            assert s.size == pytest.approx(KIND_EDGE["pips"] * die.size, rel=0.25)
            assert 0.35 <= s.confidence <= 1.0


def test_the_spotter_edge_matches_the_classical_finder_on_renders(spotter):
    # The pip net was trained on the classical finder's regions: the spotter must give
    # regions of the same size for the same dice (within a fifth, median).
    ratios = []
    for seed in (64, 65, 66):
        throw = render_throw(seed, 6, kind="pips", hard=seed % 2 == 0)
        spots = spotter.spot(throw.image)
        found = find_in_tray(throw.image, None, PIP_WORK_SIDE)
        labels = [LabelledDie(d.value, *d.center, d.size, d.size) for d in throw.dice]
        by_die = {a: spots[b].size for a, b in match(labels, [s.center for s in spots])}
        for a, b in match(labels, [r.center for r in found]):
            if a in by_die:
                ratios.append(by_die[a] / found[b].size)
    assert len(ratios) >= 15
    ratios.sort()
    assert 0.8 <= ratios[len(ratios) // 2] <= 1.2


@pytest.mark.photos
def test_held_out_photos_are_spotted_at_the_pip_nets_edge(spotter):
    """Odd-index tray-a photos (never trained on): dice found, edge ~0.8 of the label box."""
    tray = photos_dir()
    images = sorted((tray / "images").glob("*.jpg"))[1::2][::6]
    found = total = 0
    ratios = []
    for path in images:
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        labels = read_labels(tray / "labels" / f"{path.stem}.txt", frame.shape[1], frame.shape[0])
        spots = spotter.spot(frame)
        pairs = match(labels, [s.center for s in spots])
        found += len(pairs)
        total += len(labels)
        ratios += [spots[b].size / max(labels[a].w, labels[a].h) for a, b in pairs]
    # Extra spots (the tray's screw holes, specks) are left to the pip net, which reads
    # them as "not a die"; what the spotter misses, nothing reads.
    assert found >= 0.97 * total
    ratios.sort()
    assert ratios[len(ratios) // 2] == pytest.approx(PHOTO_EDGE, rel=0.15)


def test_the_recognizer_picks_its_finder(spotter):
    throw = render_throw(67, 6, kind="pips", hard=True)
    auto = PipRecognizer()
    classic = PipRecognizer(finder="classic")
    assert classic.spotter is None and "finder='classic'" in repr(classic)
    assert isinstance(PipRecognizer(finder="spotter").spotter, PipSpotter)
    # With the model file there, the spotter is the default (it read more dice right on
    # hard renders and the hold-out photos: models/pipspot.json).
    assert auto.finder == "spotter" and "finder='spotter'" in repr(auto)
    for recognizer in (auto, classic, PipRecognizer(finder="spotter", spotter=spotter)):
        reading = recognizer.read(throw.image)
        # Without a profile the tray is looked for first ("tray").
        assert set(reading.timings_ms) == {"tray", "rectify", "detect", "pips", "total"}
        assert sorted(reading.values) == sorted(d.value for d in throw.dice)
    with pytest.raises(VisionError, match="unknown die finder"):
        PipRecognizer(finder="yolo")


def test_a_missing_pip_spotter_is_a_clear_error(tmp_path):
    missing = tmp_path / "pipspot.onnx"
    assert load_pip_spotter(missing) is None
    with pytest.raises(SpotterError, match=r"not found.*restore models/pipspot\.onnx"):
        PipSpotter(missing)


def test_metadata_describes_the_shipped_pip_spotter():
    if not PIP_MODEL.is_file():
        pytest.skip(f"no pip spotter model at {PIP_MODEL}")
    meta = json.loads(PIP_MODEL.with_suffix(".json").read_text(encoding="utf-8"))
    assert meta["kind"] == "pips" and meta["model"] == PIP_MODEL.name
    assert meta["bytes"] == PIP_MODEL.stat().st_size
    assert meta["opset"] <= 11
    assert (Path(__file__).resolve().parents[2] / meta["made_by"]).is_file()
    assert math.isfinite(meta["export_drift"]) and meta["export_drift"] < 1e-3



def _region(x, y, size, confidence):
    half = size / 2
    corners = ((x - half, y - half), (x + half, y - half), (x + half, y + half),
               (x - half, y + half))
    return DieRegion((x, y), size, 0.0, corners, confidence)


def test_pip_groups_found_on_a_large_die_do_not_set_half_its_size(spotter, monkeypatch):
    """What the spotter reported at each working size of an 826-pixel view on the first
    rest of validation camera evening 88-5 (hq-near, dice of 65 frame pixels): at 320
    and 640 the dice about 38 pixels across, one of them not taken for a die by the pip
    net in some frames; at the view's own size three pip groups of a six, 0.51-0.52 of
    its edge, and a part of another die. The groups scored more than the two dice left,
    so half the die won in 4 of 11 frames, and the evening was read at that scale. A
    region up to ``PIP_PARTS`` of a pip die it lies on is now a part of it."""
    found = {
        320: [_region(496, 592, 36.0, 0.81), _region(172, 380, 38.0, 0.77),
              _region(595, 572, 39.0, 0.65)],
        640: [_region(594, 573, 38.5, 0.78), _region(498, 592, 36.0, 0.67)],
        826: [_region(592, 579, 20.1, 0.73), _region(585, 567, 19.8, 0.69),
              _region(599, 561, 20.0, 0.67), _region(175, 387, 21.0, 0.62)],
    }
    monkeypatch.setattr(spotter, "spot_at",
                        lambda frame, scale, norm_box=None: found.get(round(scale * 826), []))

    def accept(frame, regions):  # the pip net's opinion in the frames that flipped
        return [r.center != (595, 572) for r in regions]

    view = np.zeros((826, 826, 3), np.uint8)
    assert spotter.estimate_die_size(view, sides=(320, 640, 1280), accept=accept) == (
        pytest.approx(37.0))
