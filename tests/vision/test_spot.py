"""The learned die spotter: decoding its maps, the model on rendered throws, profiles, errors."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from companion.synth.render import render_throw, shifted_palette
from companion.vision.faces import BockRecognizer
from companion.vision.faces_look import DEFAULT_PALETTE
from companion.vision.spot import (
    ALIGN,
    DEFAULT_MODEL,
    MAPS,
    PIP_MODEL,
    SIZE_UNIT,
    STRIDE,
    TILE_MARGIN,
    BockSpotter,
    PipSpotter,
    SpotterError,
    _cuts,
    cell_to_frame,
    decode,
    frame_to_cell,
    load_spotter,
    to_blob,
    to_working,
    working_scale,
)
from companion.vision.tray import TrayProfile
from companion.vision.types import VisionError

needs_model = pytest.mark.skipif(
    not DEFAULT_MODEL.is_file(), reason=f"no spotter model at {DEFAULT_MODEL}"
)


def _maps(cells=(30, 40)):
    maps = np.zeros((MAPS, *cells), np.float32)
    maps[0] = -8.0  # p ~ 0.0003 everywhere: no die
    maps[4] = 1.0  # cos 4θ = 1: turn 0
    return maps


def _put(maps, cell, logit, offset, edge_work, angle):
    y, x = cell
    a = math.radians(4 * angle)
    maps[:, y, x] = (
        logit,
        offset[0],
        offset[1],
        math.log(edge_work / SIZE_UNIT),
        math.cos(a),
        math.sin(a),
    )


def test_decode_places_dice_in_frame_pixels():
    maps = _maps()
    _put(maps, (10, 20), 3.0, (0.25, -0.4), 17.0, 30.0)
    _put(maps, (25, 5), 1.0, (0.0, 0.0), 15.0, 80.0)
    dice = decode(maps, scale=0.25)
    assert len(dice) == 2
    first, second = dice  # surest first
    assert first.confidence == pytest.approx(1 / (1 + math.exp(-3.0)), abs=1e-4)
    x, y = cell_to_frame(20.25, 9.6, 0.25)
    assert first.center == pytest.approx((x, y), abs=1e-3)
    assert first.size == pytest.approx(17.0 * 4, rel=1e-4)
    assert first.angle == pytest.approx(30.0, abs=1e-3)
    assert second.angle == pytest.approx(80.0, abs=1e-3)
    # The corners are a square of that edge around the centre, clockwise on screen.
    pts = np.array(first.corners)
    assert pts.mean(axis=0) == pytest.approx(first.center, abs=1e-3)
    sides = np.linalg.norm(np.roll(pts, -1, axis=0) - pts, axis=1)
    assert sides == pytest.approx([68.0] * 4, rel=1e-4)
    d = pts[1] - pts[0]
    assert math.degrees(math.atan2(d[1], d[0])) % 90 == pytest.approx(30.0, abs=1e-3)


def test_cell_and_frame_coordinates_invert_each_other():
    for scale in (0.25, 0.5, 1 / 3):
        u, v = frame_to_cell(123.4, 56.7, scale)
        assert cell_to_frame(u, v, scale) == pytest.approx((123.4, 56.7), abs=1e-9)


def test_decode_keeps_only_peaks_above_the_threshold():
    maps = _maps()
    _put(maps, (10, 10), 0.0, (0, 0), 17.0, 0.0)  # p = 0.5
    _put(maps, (20, 30), -2.0, (0, 0), 17.0, 0.0)  # p = 0.12
    assert len(decode(maps, 0.25, threshold=0.3)) == 1
    assert len(decode(maps, 0.25, threshold=0.1)) == 2


def test_a_die_is_reported_once():
    maps = _maps()
    # A plateau of two equal neighbours and a weaker second peak two cells away whose
    # regressed centre lands on the same die: one die.
    _put(maps, (10, 10), 2.0, (0.5, 0), 17.0, 10.0)
    _put(maps, (10, 11), 2.0, (-0.5, 0), 17.0, 10.0)
    _put(maps, (10, 13), 1.0, (-2.3, 0), 17.0, 10.0)
    assert len(decode(maps, 0.25)) == 1
    # Two touching dice, 4.25 cells (one edge) apart, stay two.
    maps = _maps()
    _put(maps, (10, 10), 2.0, (0, 0), 17.0, 0.0)
    _put(maps, (10, 14), 2.0, (0.25, 0), 17.0, 0.0)
    assert len(decode(maps, 0.25)) == 2


def test_decode_rejects_maps_of_the_wrong_shape():
    with pytest.raises(SpotterError, match="maps of shape"):
        decode(np.zeros((4, 30, 40), np.float32), 0.25)


def test_working_image_size_scale_and_padding():
    assert working_scale(1280, 960) == pytest.approx(0.25)
    assert working_scale(640, 480) == pytest.approx(0.5)
    # A calibrated die the net would see at its usual size keeps the plain scale...
    assert working_scale(1280, 960, die_size=68.0) == pytest.approx(0.25)
    # ...a small one (10 working px) makes the working image larger, a huge one smaller,
    # within limits.
    assert working_scale(1280, 960, die_size=40.0) == pytest.approx(17.0 / 40.0)
    assert working_scale(1280, 960, die_size=8.0) == pytest.approx(640 / 1280)
    assert working_scale(1280, 960, die_size=150.0) == pytest.approx(160 / 1280)
    frame = np.zeros((721, 1000, 3), np.uint8)
    work = to_working(frame, working_scale(1000, 721))
    assert work.shape[0] % ALIGN == 0 and work.shape[1] % ALIGN == 0
    assert work.shape[1] == 320 and 231 <= work.shape[0] < 231 + ALIGN


def test_blob_undoes_a_colour_cast_and_dim_light():
    throw = render_throw(5, 6, kind="bock", size=(640, 480))
    work = to_working(throw.image, 0.5)
    cast = np.clip(work.astype(np.float32) * (0.45, 0.6, 0.9), 0, 255).astype(np.uint8)
    a, b = to_blob(work), to_blob(cast)
    assert a.shape == (1, 3, 240, 320) and a.dtype == np.float32
    assert np.abs(a.mean(axis=(2, 3))).max() < 1e-3
    np.testing.assert_allclose(a.std(axis=(2, 3)), 1.0, atol=1e-3)
    assert np.median(np.abs(a - b)) < 0.05


def test_blob_keeps_the_channels_in_order_and_leaves_flat_ones_flat():
    work = np.full((16, 24, 3), 90, np.uint8)
    work[:, :12, 0] = 200  # blue varies, green and red are flat
    blob = to_blob(work)
    assert blob.shape == (1, 3, 16, 24)
    np.testing.assert_allclose(blob[0, 0, :, :12], 1.0, atol=1e-5)
    np.testing.assert_allclose(blob[0, 0, :, 12:], -1.0, atol=1e-5)
    assert np.abs(blob[0, 1:]).max() == 0.0


def _found(throw, spots, tolerance=0.1):
    """Pairs (die, spot) closer than ``tolerance`` edges, each die and spot used once."""
    used = set()
    pairs = []
    for i, die in enumerate(throw.dice):
        best = None
        for j, s in enumerate(spots):
            d = math.dist(die.center, s.center) / die.size
            if j not in used and d < tolerance and (best is None or d < best[0]):
                best = (d, j)
        if best is not None:
            used.add(best[1])
            pairs.append((i, best[1]))
    return pairs


@pytest.fixture(scope="module")
def spotter():
    if not DEFAULT_MODEL.is_file():
        pytest.skip(f"no spotter model at {DEFAULT_MODEL}")
    return BockSpotter()


@needs_model
@pytest.mark.parametrize(
    ("seed", "hard", "palette"),
    [
        (71, False, DEFAULT_PALETTE),
        (72, True, DEFAULT_PALETTE),
        (73, True, shifted_palette()),
    ],
)
def test_every_die_of_rendered_throws_is_spotted(spotter, seed, hard, palette):
    # Two throws of ten dice each. Every die is found within a fifth of an edge (the
    # face classifier's disc tolerates about an eighth) and nine in ten within a tenth;
    # on the tuning frames about 5 % of dice lie between a tenth and a fifth of an edge
    # from their true centre (models/bockspot.json).
    close = 0
    for k in range(2):
        throw = render_throw(seed + 100 * k, 10, kind="bock", hard=hard, palette=palette)
        spots = spotter.spot(throw.image)
        assert len(_found(throw, spots, 0.2)) == 10 and len(spots) == 10
        close += len(_found(throw, spots, 0.1))
        for i, j in _found(throw, spots, 0.2):
            die, s = throw.dice[i], spots[j]
            # Within a fifth, the sampled disc (0.3 edge) stays on the print (0.42 edge).
            assert s.size == pytest.approx(die.size, rel=0.2)
            # The face is sampled on a disc, so its turn only needs to be roughly right.
            turn = abs(s.angle - die.angle) % 90
            assert min(turn, 90 - turn) < 15.0
            assert 0.35 <= s.confidence <= 1.0
    assert close >= 18


@needs_model
def test_an_empty_tray_has_no_dice(spotter):
    throw = render_throw(74, 1, kind="bock", size=(640, 480))
    tray = throw.image.copy()
    die = throw.dice[0]
    # Paint the one die over with the floor next to it: nothing is left to spot.
    x, y = (int(v) for v in die.center)
    r = int(die.size)
    patch = tray[max(0, y - 3 * r) : y - 2 * r, max(0, x - r) : x + r]
    floor = np.median(patch.reshape(-1, 3), axis=0).astype(np.uint8)
    cv2.circle(tray, (x, y), int(1.1 * r), tuple(int(v) for v in floor), -1)
    assert spotter.spot(tray) == []
    assert len(spotter.spot(throw.image)) == 1


@needs_model
def test_the_tray_profile_mask_is_honoured(spotter):
    throw = render_throw(75, 10, kind="bock")
    h, w = throw.image.shape[:2]
    left = ((0.0, 0.0), (w / 2, 0.0), (w / 2, float(h)), (0.0, float(h)))
    profile = TrayProfile((w, h), left, 88.0, (120.0, 120.0, 120.0))
    spots = spotter.spot(throw.image, profile)
    inside = [d for d in throw.dice if d.center[0] < w / 2]
    outside = [d for d in throw.dice if d.center[0] > w / 2]
    assert inside and outside  # the seed puts dice on both sides
    assert all(s.center[0] < w / 2 for s in spots)
    assert len(_found(throw, spots)) == len(inside) == len(spots)
    # The calibrated size (the classical finder's outline) does not replace each die's
    # edge; a profile made at another resolution is scaled to the frame.
    plain = {s.center: s.size for s in spotter.spot(throw.image)}
    assert [s.size for s in spots] == [plain[s.center] for s in spots]
    small = TrayProfile(
        (w // 2, h // 2), tuple((x / 2, y / 2) for x, y in left), 44.0, (120.0, 120.0, 120.0)
    )
    assert [s.center for s in spotter.spot(throw.image, small)] == [s.center for s in spots]


@needs_model
def test_a_small_calibrated_die_enlarges_the_working_image(spotter):
    # Dice of 30 px in a 1280x960 frame are 7.5 px at the plain scale, smaller than the
    # net was trained on; the calibrated size makes the working image twice as large.
    throw = render_throw(78, 8, kind="bock", size=(640, 480))
    frame = cv2.copyMakeBorder(throw.image, 0, 480, 0, 640, cv2.BORDER_REPLICATE)
    plain = spotter.spot(frame)
    whole = ((0.0, 0.0), (1280.0, 0.0), (1280.0, 960.0), (0.0, 960.0))
    profile = TrayProfile((1280, 960), whole, 40.0, (120.0, 120.0, 120.0))
    maps, scale = spotter.maps(frame, 40.0)
    assert scale == pytest.approx(17.0 / 40.0) and maps.shape[1:] == (408 // 4, 544 // 4)
    calibrated = spotter.spot(frame, profile)
    assert len(_found(throw, calibrated, 0.2)) == 8 == len(calibrated)
    assert len(_found(throw, plain, 0.2)) < 8


def test_missing_and_broken_models_are_clear_errors(tmp_path):
    with pytest.raises(SpotterError, match="not found; train it with tools/train_spotter.py"):
        BockSpotter(tmp_path / "nothing.onnx")
    assert load_spotter(tmp_path / "nothing.onnx") is None
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"this is not an onnx file")
    with pytest.raises(SpotterError, match="cannot load the spotter model"):
        BockSpotter(broken)


def test_a_model_that_gives_other_maps_is_refused():
    # The pip net is a valid ONNX model, but of fixed 48x48 crops: not a spotter.
    pipnet = DEFAULT_MODEL.parent / "pipnet.onnx"
    if not pipnet.is_file():
        pytest.skip(f"no pip model at {pipnet}")
    spotter = BockSpotter(pipnet)
    frame = render_throw(76, 2, kind="bock", size=(640, 480)).image
    with pytest.raises(SpotterError, match="spotter model"):
        spotter.spot(frame)


@needs_model
def test_bad_frames_are_refused(spotter):
    with pytest.raises(VisionError, match="8-bit BGR"):
        spotter.spot(np.zeros((240, 320), np.uint8))
    with pytest.raises(VisionError, match="8-bit BGR"):
        spotter.spot(np.zeros((240, 320, 3), np.float32))
    with pytest.raises(VisionError, match="too small"):
        spotter.spot(np.zeros((16, 16, 3), np.uint8))


@needs_model
def test_the_recognizer_uses_the_spotter_or_the_classical_finder_on_request(spotter):
    throw = render_throw(77, 10, kind="bock", hard=True)
    auto = BockRecognizer()
    assert auto.finder == "spotter" and "finder='spotter'" in repr(auto)
    classic = BockRecognizer(finder="classic")
    assert classic.spotter is None
    spotted = auto.read(throw.image)
    found = classic.read(throw.image)
    assert {"spot", "measure", "classify", "total"} <= set(spotted.timings_ms)
    assert {"find", "locate", "measure", "classify", "total"} <= set(found.timings_ms)
    assert "find" not in spotted.timings_ms
    right = sum(
        1
        for i, j in _found(throw, [d.region for d in spotted.dice], 0.15)
        if spotted.dice[j].value == throw.dice[i].value
    )
    assert right == 10
    with pytest.raises(VisionError, match="unknown die finder"):
        BockRecognizer(finder="yolo")


@pytest.mark.parametrize("kind", ["pips", "bock"])
def test_a_large_working_image_is_run_in_tiles_that_give_the_whole_images_maps(
    kind, monkeypatch
):
    # The die size estimate runs the spotter on a 1280x960 frame at full size; in one
    # piece the net's layers took 70 MB (bench/bench_pi.py's budget is 150 MB for all).
    model = PIP_MODEL if kind == "pips" else DEFAULT_MODEL
    if not model.is_file():
        pytest.skip(f"no spotter model at {model}")
    net = PipSpotter() if kind == "pips" else BockSpotter()
    throw = render_throw(81, 10, kind=kind, size=(1280, 960))
    runs = []
    forward = net._forward
    monkeypatch.setattr(net, "_forward", lambda blob: runs.append(blob.shape) or forward(blob))
    tiled, _ = net.maps(throw.image, scale=1.0)
    assert len(runs) == 4
    assert all(h * w <= (480 + TILE_MARGIN) * (640 + TILE_MARGIN) for *_, h, w in runs)
    runs.clear()
    monkeypatch.setattr("companion.vision.spot.TILE_AREA", 1280 * 960)
    whole, _ = net.maps(throw.image, scale=1.0)
    assert runs == [(1, 3, 960, 1280)]
    assert tiled.shape == whole.shape == (MAPS, 240, 320)
    np.testing.assert_allclose(tiled, whole, atol=1e-4)
    # The same dice (on OpenCV 4.x a tile's convolutions may round differently in the
    # last bits, so positions are compared to a thousandth of a pixel).
    a, b = decode(tiled, 1.0), decode(whole, 1.0)
    assert a and len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert x.center == pytest.approx(y.center, abs=1e-3)
        assert x.size == pytest.approx(y.size, abs=1e-3)
        assert x.confidence == pytest.approx(y.confidence, abs=1e-3)


def test_tiles_are_cut_on_the_grid_and_cover_the_image():
    assert _cuts(960, 2) == [0, 480, 960]
    assert _cuts(1000, 3) == [0, 336, 672, 1000]
    assert _cuts(64, 1) == [0, 64]
    for length, parts in ((1280, 2), (968, 3), (2032, 4)):
        cuts = _cuts(length, parts)
        assert cuts[0] == 0 and cuts[-1] == length and len(cuts) == parts + 1
        assert all(c % ALIGN == 0 for c in cuts)


def test_decode_drops_the_same_peaks_as_comparing_with_every_kept_die():
    # Thousands of peaks of every size (a printed menu): the bucketed comparison keeps
    # exactly the dice that comparing each peak with every die kept before keeps.
    rng = np.random.default_rng(12)
    maps = rng.normal(0, 1, (MAPS, 90, 120)).astype(np.float32)
    maps[0] = rng.normal(1.0, 2.0, (90, 120))
    maps[3] = rng.uniform(-3.0, 3.0, (90, 120))  # edges of 0.2 to 80 cells
    got = decode(maps, 0.5, threshold=0.3)
    prob = 1.0 / (1.0 + np.exp(-maps[0]))
    peak = (prob >= cv2.dilate(prob, np.ones((3, 3), np.uint8))) & (prob >= 0.3)
    ys, xs = np.nonzero(peak)
    kept: list[tuple[float, float, float]] = []
    for k in np.argsort(-prob[ys, xs], kind="stable"):
        y, x = int(ys[k]), int(xs[k])
        u, v = x + float(maps[1, y, x]), y + float(maps[2, y, x])
        e = SIZE_UNIT * math.exp(float(maps[3, y, x])) / STRIDE
        if all(math.hypot(u - a, v - b) >= 0.5 * max(e, f) for a, b, f in kept):
            kept.append((u, v, e))
    assert len(peak.nonzero()[0]) > 1000 and len(got) == len(kept) > 20
    for die, (u, v, e) in zip(got, kept, strict=True):
        assert die.center == pytest.approx(tuple(cell_to_frame(u, v, 0.5)), abs=1e-6)
        assert die.size == pytest.approx(e * STRIDE / 0.5)
