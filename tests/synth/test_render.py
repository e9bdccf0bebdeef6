"""The renderer: deterministic frames whose labels say where each die is and what it shows."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from companion.evaluation import read_labels
from companion.synth.render import (
    RenderError,
    artwork_texture,
    frame_seed,
    render_throw,
    shifted_palette,
    write_dataset,
)
from companion.vision.faces_look import DEFAULT_PALETTE, FACES, face_texture

SMALL = (640, 480)


def test_same_seed_same_frame_and_other_seed_other_frame():
    a = render_throw(11, 5, kind="bock", size=SMALL)
    b = render_throw(11, 5, kind="bock", size=SMALL)
    c = render_throw(12, 5, kind="bock", size=SMALL)
    assert a.jpeg == b.jpeg
    assert a.dice == b.dice
    assert a.jpeg != c.jpeg
    assert [d.center for d in a.dice] != [d.center for d in c.dice]


def test_image_is_the_decoded_jpeg_of_the_requested_size():
    throw = render_throw(3, 4, kind="pips", size=SMALL)
    assert throw.image.shape == (480, 640, 3) and throw.image.dtype == np.uint8
    decoded = cv2.imdecode(np.frombuffer(throw.jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert np.array_equal(decoded, throw.image)


@pytest.mark.parametrize("kind", ["pips", "bock"])
def test_dice_lie_inside_the_tray_apart_and_with_sane_geometry(kind):
    for seed in range(4):
        throw = render_throw(seed, 10, kind=kind, size=SMALL, hard=seed % 2 == 1)
        assert len(throw.dice) == 10
        tray = np.array(throw.tray_corners, np.float32)
        for die in throw.dice:
            assert 0.03 * 640 < die.size < 0.09 * 640
            assert 0 <= die.angle < 90
            assert cv2.pointPolygonTest(tray, die.center, False) >= 0
            x0, y0, x1, y1 = die.box()
            assert x0 < die.center[0] < x1 and y0 < die.center[1] < y1
            if kind == "pips":
                assert die.value in range(1, 7)
            else:
                assert die.value in FACES
        # Top faces never overlap: centres of any two dice are at least ~an edge apart.
        for i, a in enumerate(throw.dice):
            for b in throw.dice[i + 1 :]:
                assert math.dist(a.center, b.center) > 0.9 * min(a.size, b.size)


def test_hard_frames_are_darker_and_more_colour_cast():
    def cast(gains):
        return max(gains) / min(gains)

    normal = [render_throw(s, 3, kind="bock", size=SMALL) for s in range(6)]
    hard = [render_throw(s, 3, kind="bock", size=SMALL, hard=True) for s in range(6)]
    assert np.mean([t.image.mean() for t in hard]) < 0.8 * np.mean([t.image.mean() for t in normal])
    assert min(cast(t.light_gains) for t in hard) > max(cast(t.light_gains) for t in normal)


def test_hard_frames_press_dice_against_each_other():
    def touching(throw):
        return sum(
            1
            for i, a in enumerate(throw.dice)
            for b in throw.dice[i + 1 :]
            if math.dist(a.center, b.center) < 1.2 * a.size
        )

    normal = sum(touching(render_throw(s, 10, kind="bock", size=SMALL)) for s in range(4))
    hard = sum(touching(render_throw(s, 10, kind="bock", size=SMALL, hard=True)) for s in range(4))
    assert hard > 2 * normal


def _top_face(throw, die, side=60):
    src = np.array(die.corners, np.float32)
    dst = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(throw.image, m, (side, side))


@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 6])
def test_pip_die_shows_as_many_pips_as_its_label(value):
    throw = render_throw(40 + value, 1, kind="pips", size=SMALL, faces=[value], jpeg_quality=95)
    die = throw.dice[0]
    face = cv2.cvtColor(_top_face(throw, die), cv2.COLOR_BGR2GRAY)
    inner = face[6:-6, 6:-6]
    body = float(np.median(inner))
    # Pips are round blobs that differ strongly from the body, whichever way round (the
    # streaks of a marbled die differ too, but are long and thin).
    mask = (np.abs(inner.astype(np.float32) - body) > 40).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    blobs = [
        s
        for s in stats[1:]
        if s[cv2.CC_STAT_AREA] >= 8
        and 0.6 <= s[cv2.CC_STAT_WIDTH] / s[cv2.CC_STAT_HEIGHT] <= 1.6
        and s[cv2.CC_STAT_AREA] >= 0.5 * s[cv2.CC_STAT_WIDTH] * s[cv2.CC_STAT_HEIGHT]
    ]
    assert len(blobs) == value


def test_shifted_palette_changes_every_face_colour():
    shifted = shifted_palette()
    for face in FACES:
        a = np.array(DEFAULT_PALETTE.look(face).background, float)
        b = np.array(shifted.look(face).background, float)
        assert np.abs(a - b).max() > 15, face
    assert shifted.body != DEFAULT_PALETTE.body


def test_rendered_bock_die_shows_the_labelled_background():
    throw = render_throw(5, 6, kind="bock", size=SMALL, faces=list(FACES), jpeg_quality=95)
    for die in throw.dice:
        face = _top_face(throw, die).astype(np.float32)
        ring = np.concatenate([face[7:11, 7:53].reshape(-1, 3), face[49:53, 7:53].reshape(-1, 3)])
        seen = np.median(ring, axis=0)
        # The light multiplies colours, so compare chromaticity rather than raw values.
        want = np.array(DEFAULT_PALETTE.look(die.value).background, float) + 1
        got = seen + 1
        assert np.abs(got / got.sum() - want / want.sum()).max() < 0.12, die.value


def test_fixed_faces_and_bad_requests():
    throw = render_throw(1, 3, kind="bock", size=SMALL, faces=["wolf", "bock", "goat_red"])
    assert [d.value for d in throw.dice] == ["wolf", "bock", "goat_red"]
    with pytest.raises(RenderError, match="between 1 and 10"):
        render_throw(1, 11)
    with pytest.raises(RenderError, match="unknown dice kind"):
        render_throw(1, 2, kind="d20")
    with pytest.raises(RenderError, match="unknown face"):
        render_throw(1, 1, kind="bock", faces=["sheep"])
    with pytest.raises(RenderError, match="pip value"):
        render_throw(1, 1, kind="pips", faces=[7])
    with pytest.raises(RenderError, match="gives 1 values for 2 dice"):
        render_throw(1, 2, kind="pips", faces=[3])


def test_write_dataset_bock_folder(tmp_path):
    paths = write_dataset(tmp_path, 2, seed=9, kind="bock", n_dice=4, size=SMALL)
    assert [p.name for p in paths] == ["bock-9-0000.jpg", "bock-9-0001.jpg"]
    assert (tmp_path / "classes.txt").read_text().split() == list(FACES)
    throw = render_throw(frame_seed(9, 1), 4, kind="bock", size=SMALL)
    assert paths[1].read_bytes() == throw.jpeg
    rows = [
        line.split() for line in (tmp_path / "labels" / "bock-9-0001.txt").read_text().splitlines()
    ]
    assert len(rows) == 4
    for row, die in zip(rows, throw.dice, strict=True):
        assert FACES[int(row[0])] == die.value
        assert float(row[1]) == pytest.approx(die.center[0] / 640, abs=1e-5)
        assert float(row[2]) == pytest.approx(die.center[1] / 480, abs=1e-5)


def test_write_dataset_pips_folder_reads_as_tray_a_yolo(tmp_path):
    write_dataset(tmp_path, 1, seed=4, kind="pips", n_dice=5, size=SMALL)
    assert not (tmp_path / "classes.txt").exists()
    labels = read_labels(tmp_path / "labels" / "pips-4-0000.txt", 640, 480)
    throw = render_throw(frame_seed(4, 0), 5, kind="pips", size=SMALL)
    assert [d.value for d in labels] == [d.value for d in throw.dice]
    for lab, die in zip(labels, throw.dice, strict=True):
        assert lab.x == pytest.approx(die.center[0], abs=0.01)
        assert lab.w == pytest.approx(die.box()[2] - die.box()[0], abs=0.01)


def test_marbled_pip_dice_show_streaks_of_their_swirl_colour():
    from companion.synth.render import PIP_STYLES, _face_texture

    marbled = [s for s in PIP_STYLES if len(s) == 3]
    assert marbled, "the renderer draws marbled dice"
    for style in marbled:
        tex, _ = _face_texture("pips", 1, DEFAULT_PALETTE, style)
        pixels = (tex * 255).reshape(-1, 3)
        # Both the body colour and the swirl colour cover a good share of the face.
        body, swirl = (np.abs(pixels - np.array(c)).max(axis=1) < 40 for c in (style[0], style[2]))
        assert body.mean() > 0.2
        assert swirl.mean() > 0.05


def test_other_artwork_draws_other_faces_in_its_own_colours():
    from companion.synth.render import ARTWORKS, artwork_palette

    assert ARTWORKS[0] == "classic" and len(ARTWORKS) >= 3
    classic = {face: face_texture(face).astype(np.float32) for face in FACES}
    for artwork in ARTWORKS[1:]:
        palette = artwork_palette(artwork)
        apart = []
        for face in FACES:
            tex = artwork_texture(face, artwork).astype(np.float32)
            apart.append(float(np.abs(tex - classic[face]).mean()))
            # A face may keep the classic scheme (the woodcut wolf: a bone skull on
            # charcoal, 24.6 apart) when its drawing differs (below); the set may not.
            assert apart[-1] > 20, (artwork, face)
            # Other drawings, not only other colours: where the face is light and where
            # dark differs from the classic face in a good part of it (either way round).
            shape = _light_dark(tex)
            differ = (shape != _light_dark(classic[face])).mean()
            assert 0.15 < differ < 0.85, (artwork, face, differ)
            # The icon's colour covers part of the middle of the face.
            middle = tex[30:66, 30:66].reshape(-1, 3)
            icon = np.abs(middle - np.array(palette.look(face).icon)).max(axis=1) < 40
            assert 0.05 < icon.mean() < 0.8, (artwork, face)
        assert np.mean(apart) > 30, artwork


def test_artwork_option_keeps_the_classic_frames_and_checks_names(tmp_path):
    plain = render_throw(12, 5, kind="bock", size=SMALL)
    classic = render_throw(12, 5, kind="bock", size=SMALL, artwork="classic")
    other = render_throw(12, 5, kind="bock", size=SMALL, artwork="stencil")
    assert plain.jpeg == classic.jpeg
    assert other.jpeg != plain.jpeg
    # Same throw, other print: dice lie where they lay.
    assert [d.center for d in other.dice] == [d.center for d in plain.dice]
    with pytest.raises(RenderError, match="unknown artwork"):
        render_throw(1, 1, kind="bock", artwork="sheep")
    from companion.cli import main

    assert main(["render", str(tmp_path), "--count", "1", "--seed", "3", "--dice", "3",
                 "--size", "640x480", "--artwork", "badge", "--palette", "shifted"]) == 0
    assert len(list((tmp_path / "images").glob("*.jpg"))) == 1


def _light_dark(tex):
    grey = tex.mean(axis=2)
    return grey > np.median(grey)


def test_unseen_pip_styles_are_other_dice_than_the_nets_trained_on():
    from companion.synth.render import PIP_STYLES, UNSEEN_PIP_STYLES

    def apart(a, b):  # the larger gap of body and pip colours, in the channel most apart
        return max(np.abs(np.subtract(a[0], b[0])).max(), np.abs(np.subtract(a[1], b[1])).max())

    assert len(UNSEEN_PIP_STYLES) >= 6
    assert all(apart(u, s) >= 60 for u in UNSEEN_PIP_STYLES for s in PIP_STYLES)


def test_a_throw_draws_its_pip_dice_from_the_styles_given():
    from companion.synth.render import UNSEEN_PIP_STYLES

    orange = next(s for s in UNSEEN_PIP_STYLES if s[0] == (30, 140, 245))
    throw = render_throw(7, 3, kind="pips", size=SMALL, faces=(2, 2, 2), pip_styles=(orange,))
    for die in throw.dice:
        # The middle of a two is the bare face: orange (red well above blue) under any light.
        x, y = (round(v) for v in die.center)
        b, _, r = np.median(throw.image[y - 2 : y + 3, x - 2 : x + 3].reshape(-1, 3), axis=0)
        assert r > b + 80
    with pytest.raises(RenderError, match="pip_styles"):
        render_throw(7, 3, kind="pips", size=SMALL, pip_styles=())


def test_the_render_command_draws_pip_dice_in_unseen_colours_only_for_pip_dice(
    tmp_path, capsys
):
    from companion.cli import main
    from companion.synth.render import UNSEEN_PIP_STYLES, frame_seed

    args = ["render", str(tmp_path), "--count", "1", "--seed", "3", "--dice", "3",
            "--size", "640x480", "--kind", "pips", "--pip-styles", "unseen"]
    assert main(args) == 0
    written = (tmp_path / "images" / "pips-3-0000.jpg").read_bytes()
    throw = render_throw(frame_seed(3, 0), 3, kind="pips", size=SMALL,
                         pip_styles=UNSEEN_PIP_STYLES)
    assert written == throw.jpeg
    other = tmp_path / "bock"
    assert main(["render", str(other), "--kind", "bock", "--pip-styles", "unseen"]) == 2
    assert "--kind pips" in capsys.readouterr().err
    assert not other.exists()
