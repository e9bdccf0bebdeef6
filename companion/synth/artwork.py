"""Rock the Bock dice sets for the renderer: their colours and the drawings on their faces.

A set is an artwork (the drawings) in a palette (the colours). ``classic`` is the built-in
set as ``companion.vision.faces_look`` draws it; the others are sets the project's models
were never made from, for testing recognition of an unknown set honestly
(``ARTWORKS``, ``artwork_palette``, ``draw_artwork``; ``sticker``, added last, is the
one no rule was chosen with). ``shifted_palette`` recolours a
set. ``companion.synth.render`` puts the faces on dice in a scene.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.faces_look import (
    BGR,
    DEFAULT_PALETTE,
    DRAW,
    FACES,
    FaceLook,
    Palette,
    draw_face,
    rounded_rect,
)


class RenderError(ValueError):
    """The renderer was asked for something it cannot draw."""


def shifted_palette(palette: Palette = DEFAULT_PALETTE) -> Palette:
    """A differently coloured set: other hues, a cream bock, a brown wolf, black plastic.

    Used to check that enrolment, not the built-in model, carries recognition of a set
    whose colours were never seen before.
    """
    looks = []
    for face, look in zip(FACES, palette.looks, strict=True):
        if face == "bock":
            bg: BGR = (170, 214, 232)  # cream instead of white
            icon: BGR = (40, 50, 70)  # dark brown print
        elif face == "wolf":
            bg = (45, 62, 92)  # dark brown instead of grey
            icon = (150, 175, 200)
        else:
            bg = _shift_hsv(look.background, hue_deg=14.0, sat=0.8, val=0.88)
            icon = (175, 200, 215)  # greyer bone
        looks.append(FaceLook(background=bg, icon=icon))
    return Palette(looks=tuple(looks), body=(28, 28, 30))


def _shift_hsv(bgr: BGR, hue_deg: float, sat: float, val: float) -> BGR:
    px = np.array([[bgr]], np.uint8)
    hsv = cv2.cvtColor(px, cv2.COLOR_BGR2HSV_FULL).astype(np.float32)[0, 0]
    hsv[0] = (hsv[0] + hue_deg * 256.0 / 360.0) % 256.0
    hsv[1] = min(255.0, hsv[1] * sat)
    hsv[2] = min(255.0, hsv[2] * val)
    out = cv2.cvtColor(np.clip(hsv, 0, 255).astype(np.uint8)[None, None], cv2.COLOR_HSV2BGR_FULL)
    b, g, r = (int(v) for v in out[0, 0])
    return (b, g, r)


# --- other artwork ------------------------------------------------------------------------
#
# Sets the project's models were never made from: other drawings on other backgrounds, so
# that "a set whose artwork we have never seen" can be tested honestly. Nothing in
# ``companion.vision`` is fitted to them; they exist for evaluation and enrolment tests.
#
# ``stencil``: whole animal heads (not skulls) as flat silhouettes; the goats are dark on
# their colour (the classic goats are light on it), a thin frame line runs round the print.
# ``badge``: a round badge in the middle of a striped face holds a small cartoon head; the
# goats are coloured heads on a white badge, the bock a gold ram on black.


def _stencil_frame(img: np.ndarray, look: FaceLook) -> None:
    d = img.shape[0]
    m = round(d * 0.07)
    rounded_rect(img, m, m, d - 1 - m, d - 1 - m, round(d * 0.06), look.background)
    inset = round(d * 0.13)
    cv2.rectangle(img, (inset, inset), (d - 1 - inset, d - 1 - inset), look.icon, 3, cv2.LINE_AA)
    for cx in (inset + 9, d - 1 - inset - 9):
        for cy in (inset + 9, d - 1 - inset - 9):
            cv2.circle(img, (cx, cy), 4, look.icon, -1, cv2.LINE_AA)


def _stencil_head(mask: np.ndarray, holes: np.ndarray, animal: str) -> None:
    """A flat silhouette of the whole head, filling the middle of a 192 px canvas."""
    if animal == "wolf":
        # Broad brow narrowing to a long muzzle, tall pointed ears, slit eyes.
        head = np.array([[58, 70], [134, 70], [124, 112], [104, 156], [88, 156], [68, 112]],
                        np.int32)
        cv2.fillConvexPoly(mask, head, 255, cv2.LINE_AA)
        for sign in (-1, 1):
            ear = np.array([[96 + sign * 14, 74], [96 + sign * 40, 30], [96 + sign * 40, 78]],
                           np.int32)
            cv2.fillConvexPoly(mask, ear, 255, cv2.LINE_AA)
            cv2.ellipse(holes, (96 + sign * 18, 94), (10, 4), sign * 20, 0, 360, 255, -1,
                        cv2.LINE_AA)
        cv2.ellipse(holes, (96, 148), (7, 4), 0, 0, 360, 255, -1, cv2.LINE_AA)
    elif animal == "bock":
        # A narrow ram face between two heavy horn spirals curling down beside it.
        cv2.ellipse(mask, (96, 110), (20, 46), 0, 0, 360, 255, -1, cv2.LINE_AA)
        for sign in (-1, 1):
            centre = (96 + sign * 40, 84)
            cv2.ellipse(mask, centre, (26, 24), 0, 0, 360, 255, 14, cv2.LINE_AA)
            cv2.circle(mask, centre, 6, 255, -1, cv2.LINE_AA)
            cv2.circle(holes, (96 + sign * 9, 96), 5, 255, -1, cv2.LINE_AA)
        for sign in (-1, 1):
            cv2.circle(holes, (96 + sign * 7, 146), 3, 255, -1, cv2.LINE_AA)
    else:
        # A goat: a long face, two straight horns raked back, ears out, a pointed beard.
        face = np.array([[80, 66], [112, 66], [106, 140], [86, 140]], np.int32)
        cv2.fillConvexPoly(mask, face, 255, cv2.LINE_AA)
        for sign in (-1, 1):
            horn = np.array([[96 + sign * 4, 70], [96 + sign * 16, 66], [96 + sign * 46, 22],
                             [96 + sign * 40, 20]], np.int32)
            cv2.fillConvexPoly(mask, horn, 255, cv2.LINE_AA)
            ear = np.array([[96 + sign * 14, 82], [96 + sign * 52, 92], [96 + sign * 14, 98]],
                           np.int32)
            cv2.fillConvexPoly(mask, ear, 255, cv2.LINE_AA)
            cv2.circle(holes, (96 + sign * 9, 90), 4, 255, -1, cv2.LINE_AA)
        beard = np.array([[86, 134], [106, 134], [96, 176]], np.int32)
        cv2.fillConvexPoly(mask, beard, 255, cv2.LINE_AA)


def _draw_stencil(img: np.ndarray, face: str, look: FaceLook) -> None:
    _stencil_frame(img, look)
    d = img.shape[0]
    mask = np.zeros((d, d), np.uint8)
    holes = np.zeros((d, d), np.uint8)
    _stencil_head(mask, holes, face.split("_")[0])
    img[(mask > 0) & (holes == 0)] = look.icon


def _badge_head(mask: np.ndarray, holes: np.ndarray, animal: str) -> None:
    """A small round cartoon head for the badge (192 px canvas, within 0.3 of the middle)."""
    if animal == "wolf":
        cv2.circle(mask, (96, 92), 26, 255, -1, cv2.LINE_AA)
        for sign in (-1, 1):
            ear = np.array([[96 + sign * 8, 72], [96 + sign * 30, 44], [96 + sign * 28, 82]],
                           np.int32)
            cv2.fillConvexPoly(mask, ear, 255, cv2.LINE_AA)
        cv2.ellipse(mask, (96, 120), (14, 18), 0, 0, 360, 255, -1, cv2.LINE_AA)
        cv2.circle(holes, (96, 130), 5, 255, -1, cv2.LINE_AA)
    elif animal == "bock":
        cv2.circle(mask, (96, 100), 22, 255, -1, cv2.LINE_AA)
        for sign in (-1, 1):
            cv2.ellipse(mask, (96 + sign * 26, 80), (16, 16), 0, 0, 360, 255, 8, cv2.LINE_AA)
        beard = np.array([[88, 118], [104, 118], [96, 146]], np.int32)
        cv2.fillConvexPoly(mask, beard, 255, cv2.LINE_AA)
    else:
        cv2.ellipse(mask, (96, 100), (18, 28), 0, 0, 360, 255, -1, cv2.LINE_AA)
        for sign in (-1, 1):
            horn = np.array([[96 + sign * 6, 76], [96 + sign * 14, 74], [96 + sign * 22, 50],
                             [96 + sign * 18, 48]], np.int32)
            cv2.fillConvexPoly(mask, horn, 255, cv2.LINE_AA)
            cv2.ellipse(mask, (96 + sign * 26, 88), (12, 5), sign * 15, 0, 360, 255, -1,
                        cv2.LINE_AA)
    for sign in (-1, 1):
        cv2.circle(holes, (96 + sign * 9, 94), 4, 255, -1, cv2.LINE_AA)


def _draw_badge(img: np.ndarray, face: str, look: FaceLook) -> None:
    d = img.shape[0]
    outer = look.outer or look.background
    m = round(d * 0.07)
    rounded_rect(img, m, m, d - 1 - m, d - 1 - m, round(d * 0.1), outer)
    # Diagonal stripes of a darker tone of the outer colour.
    stripes = np.zeros((d, d), np.uint8)
    for k in range(-d, 2 * d, 24):
        cv2.line(stripes, (k, 0), (k - d, d), 255, 8, cv2.LINE_AA)
    inside = np.zeros((d, d), np.uint8)
    rounded_rect(inside, m, m, d - 1 - m, d - 1 - m, round(d * 0.1), 255)
    dark = tuple(int(v * 0.7) for v in outer)
    img[(stripes > 0) & (inside > 0)] = dark
    cv2.circle(img, (96, 96), round(d * 0.37), look.icon, 3, cv2.LINE_AA)
    cv2.circle(img, (96, 96), round(d * 0.35), look.background, -1, cv2.LINE_AA)
    mask = np.zeros((d, d), np.uint8)
    holes = np.zeros((d, d), np.uint8)
    _badge_head(mask, holes, face.split("_")[0])
    img[(mask > 0) & (holes == 0)] = look.icon


# ``etched``: the heads as line drawings (strokes, not filled shapes) inside a double
# border. Its wolf and bock are both dark lines on a pale face, told apart by the
# face's tint (silver against cream) and the drawing; the goats are white lines on
# their colour. Kept for hold-out measurements: nothing was tuned on it.


def _etched_head(lines: np.ndarray, dots: np.ndarray, animal: str) -> None:
    """The head of ``animal`` as strokes on a 192 px canvas (within 0.35 of the middle)."""
    w = 9
    if animal == "wolf":
        outline = np.array([[62, 78], [78, 40], [92, 70], [100, 70], [114, 40], [130, 78],
                            [122, 120], [96, 158], [70, 120]], np.int32)
        cv2.polylines(lines, [outline], True, 255, w, cv2.LINE_AA)
        cv2.line(lines, (96, 100), (96, 140), 255, w - 2, cv2.LINE_AA)
    elif animal == "bock":
        cv2.ellipse(lines, (96, 104), (24, 40), 0, 0, 360, 255, w, cv2.LINE_AA)
        for sign in (-1, 1):
            cv2.ellipse(lines, (96 + sign * 44, 78), (18, 18), 0, 0, 300, 255, w, cv2.LINE_AA)
    else:
        cv2.ellipse(lines, (96, 108), (18, 36), 0, 0, 360, 255, w, cv2.LINE_AA)
        for sign in (-1, 1):
            cv2.line(lines, (96 + sign * 8, 76), (96 + sign * 34, 34), 255, w, cv2.LINE_AA)
            cv2.line(lines, (96 + sign * 18, 92), (96 + sign * 46, 100), 255, w - 2,
                     cv2.LINE_AA)
    for sign in (-1, 1):
        cv2.circle(dots, (96 + sign * 10, 96), 6, 255, -1, cv2.LINE_AA)


def _draw_etched(img: np.ndarray, face: str, look: FaceLook) -> None:
    d = img.shape[0]
    m = round(d * 0.07)
    rounded_rect(img, m, m, d - 1 - m, d - 1 - m, round(d * 0.05), look.background)
    for inset in (round(d * 0.11), round(d * 0.15)):
        cv2.rectangle(img, (inset, inset), (d - 1 - inset, d - 1 - inset), look.icon, 2,
                      cv2.LINE_AA)
    lines = np.zeros((d, d), np.uint8)
    dots = np.zeros((d, d), np.uint8)
    _etched_head(lines, dots, face.split("_")[0])
    img[(lines > 0) | (dots > 0)] = look.icon


# ``mosaic``: low-poly heads, each a handful of flat shards in two tones of the print's
# colour, on a face split into a sunburst of two tones of its background. Its wolf is
# pale shards on deep plum, its bock black shards on orange, its goats cream shards on
# pastel colours (coral, sky, mint, lemon) that lie closer together than any other
# set's. Drawn as the clean hold-out of the enrolled-set figures: nothing was tuned on
# it, and its figures were read once, at the end.


def _shards(animal: str) -> list[np.ndarray]:
    """The head of ``animal`` as convex shards (192 px canvas, within 0.38 of the middle)."""
    def poly(*pts: tuple[int, int]) -> np.ndarray:
        return np.array(pts, np.int32)

    if animal == "wolf":
        return [
            poly((66, 72), (96, 62), (96, 118)), poly((126, 72), (96, 62), (96, 118)),
            poly((66, 72), (72, 30), (88, 66)), poly((126, 72), (120, 30), (104, 66)),
            poly((66, 72), (96, 118), (84, 150)), poly((126, 72), (96, 118), (108, 150)),
            poly((84, 150), (96, 118), (108, 150), (96, 164)),
        ]
    if animal == "bock":
        out = [poly((78, 70), (114, 70), (96, 150)), poly((78, 70), (96, 150), (82, 132)),
               poly((114, 70), (110, 132), (96, 150))]
        for sign in (-1, 1):
            out += [
                poly((96 + sign * 16, 70), (96 + sign * 52, 48), (96 + sign * 40, 78)),
                poly((96 + sign * 52, 48), (96 + sign * 66, 84), (96 + sign * 40, 78)),
                poly((96 + sign * 66, 84), (96 + sign * 50, 110), (96 + sign * 44, 90)),
            ]
        return out
    out = [poly((84, 74), (108, 74), (96, 150)), poly((84, 74), (96, 150), (88, 124)),
           poly((108, 74), (104, 124), (96, 150)), poly((90, 146), (102, 146), (96, 172))]
    for sign in (-1, 1):
        out += [
            poly((96 + sign * 4, 76), (96 + sign * 12, 74), (96 + sign * 26, 22)),
            poly((96 + sign * 10, 86), (96 + sign * 46, 78), (96 + sign * 12, 98)),
        ]
    return out


def _draw_mosaic(img: np.ndarray, face: str, look: FaceLook) -> None:
    d = img.shape[0]
    m = round(d * 0.07)
    inside = np.zeros((d, d), np.uint8)
    rounded_rect(inside, m, m, d - 1 - m, d - 1 - m, round(d * 0.08), 255)
    img[inside > 0] = look.background
    # A sunburst: every other wedge around the middle a darker tone of the background.
    rays = np.zeros((d, d), np.uint8)
    for k in range(0, 16, 2):
        a0, a1 = np.radians(k * 22.5), np.radians((k + 1) * 22.5)
        far = 2.0 * d
        tri = np.array([[96, 96], [96 + far * np.cos(a0), 96 + far * np.sin(a0)],
                        [96 + far * np.cos(a1), 96 + far * np.sin(a1)]], np.int32)
        cv2.fillConvexPoly(rays, tri, 255, cv2.LINE_AA)
    dim = tuple(int(v * 0.82) for v in look.background)
    img[(rays > 0) & (inside > 0)] = dim
    shade = tuple(int(v * 0.78) for v in look.icon)
    for i, shard in enumerate(_shards(face.split("_")[0])):
        cv2.fillConvexPoly(img, shard, look.icon if i % 2 == 0 else shade, cv2.LINE_AA)


# ``woodcut``: skulls in bone with thick ink outlines, as a woodcut prints them, on faces
# with a wood grain and a light falling off from top to bottom. Its wolf is on charcoal,
# its bock on off-white (bone on white, told by the outline), its goats on their colours;
# the plastic is ivory, close to the bock's face. Added on 2026-12-07 after every rule of
# the recogniser of that day was chosen, and measured once as the clean hold-out of
# artwork: nothing was tuned on it.

_WOODCUT_INK: BGR = (28, 30, 36)


def _woodcut_skull(fill: np.ndarray, sockets: np.ndarray, animal: str) -> None:
    """The skull of ``animal`` as a filled shape and its dark sockets (192 px canvas)."""
    cv2.ellipse(fill, (96, 88), (30, 28), 0, 0, 360, 255, -1, cv2.LINE_AA)
    if animal == "wolf":
        snout = np.array([[72, 98], [120, 98], [106, 160], [86, 160]], np.int32)
        cv2.fillConvexPoly(fill, snout, 255, cv2.LINE_AA)
        for sign in (-1, 1):
            ear = np.array([[96 + sign * 8, 66], [96 + sign * 36, 26], [96 + sign * 30, 76]],
                           np.int32)
            cv2.fillConvexPoly(fill, ear, 255, cv2.LINE_AA)
        cv2.line(sockets, (96, 126), (96, 154), 255, 3, cv2.LINE_AA)
    elif animal == "bock":
        jaw = np.array([[74, 100], [118, 100], [110, 140], [82, 140]], np.int32)
        cv2.fillConvexPoly(fill, jaw, 255, cv2.LINE_AA)
        beard = np.array([[84, 136], [108, 136], [96, 174]], np.int32)
        cv2.fillConvexPoly(fill, beard, 255, cv2.LINE_AA)
        for sign in (-1, 1):
            # A heavy horn curling out and down, then in again.
            cv2.ellipse(fill, (96 + sign * 46, 76), (24, 26), 0, 0, 360, 255, 12, cv2.LINE_AA)
            cv2.ellipse(fill, (96 + sign * 46, 84), (8, 8), 0, 0, 360, 255, -1, cv2.LINE_AA)
    else:
        jaw = np.array([[80, 100], [112, 100], [104, 150], [88, 150]], np.int32)
        cv2.fillConvexPoly(fill, jaw, 255, cv2.LINE_AA)
        beard = np.array([[90, 146], [102, 146], [96, 170]], np.int32)
        cv2.fillConvexPoly(fill, beard, 255, cv2.LINE_AA)
        for sign in (-1, 1):
            # Long horns swept back: a thin curve rising from the brow.
            t = np.linspace(0.0, 1.0, 12)
            xs = 96 + sign * (16 + 10 * t + 20 * t * t)
            ys = 66 - 44 * t + 6 * t * t
            horn = np.stack([xs, ys], axis=1).astype(np.int32)
            cv2.polylines(fill, [horn], False, 255, 9, cv2.LINE_AA)
    for sign in (-1, 1):
        cv2.ellipse(sockets, (96 + sign * 13, 90), (9, 11), 0, 0, 360, 255, -1, cv2.LINE_AA)
    nose = np.array([[90, 108], [102, 108], [96, 120]], np.int32)
    cv2.fillConvexPoly(sockets, nose, 255, cv2.LINE_AA)


def _draw_woodcut(img: np.ndarray, face: str, look: FaceLook) -> None:
    d = img.shape[0]
    m = round(d * 0.07)
    inside = np.zeros((d, d), np.uint8)
    rounded_rect(inside, m, m, d - 1 - m, d - 1 - m, round(d * 0.05), 255)
    # The face's colour falling off from 1.06 at the top to 0.88 at the bottom, with a
    # wavy grain of a darker tone across it.
    fall = np.linspace(1.06, 0.88, d, dtype=np.float32)[:, None, None]
    face_img = np.clip(np.array(look.background, np.float32) * fall, 0, 255)
    face_img = np.repeat(face_img, d, axis=1)
    grain = np.zeros((d, d), np.uint8)
    xs = np.arange(d)
    for y in range(4, d, 9):
        ys = y + 2.5 * np.sin(xs / 14.0 + y * 0.7)
        pts = np.stack([xs, ys], axis=1).astype(np.int32)
        cv2.polylines(grain, [pts], False, 255, 2, cv2.LINE_AA)
    face_img[grain > 0] *= 0.86
    img[inside > 0] = face_img.astype(np.uint8)[inside > 0]
    cv2.rectangle(img, (m + 6, m + 6), (d - 1 - m - 6, d - 1 - m - 6), _WOODCUT_INK, 2,
                  cv2.LINE_AA)
    fill = np.zeros((d, d), np.uint8)
    sockets = np.zeros((d, d), np.uint8)
    _woodcut_skull(fill, sockets, face.split("_")[0])
    outline = cv2.dilate(fill, np.ones((7, 7), np.uint8))
    img[outline > 0] = _WOODCUT_INK
    img[fill > 0] = look.icon
    img[sockets > 0] = _WOODCUT_INK


# ``sticker``: a small shaded skull (light at the top left, greyer at the bottom right)
# with black sockets and teeth, horns and ears in horn colour, inside a thin white line
# on a flat face. Its wolf is on navy, its bock a black skull on white, its goats white
# skulls on orange-red, cobalt, teal and lemon; the plastic is black. Added on
# 2026-12-07 after the bright-print rule (``faces_models.reads_bright``) was chosen on
# the woodcut set, and measured once as the clean hold-out of artwork.

_STICKER_HORN: BGR = (120, 170, 200)
_STICKER_INK: BGR = (20, 20, 24)


def _sticker_skull(skull: np.ndarray, horns: np.ndarray, holes: np.ndarray,
                   animal: str) -> None:
    """The skull of ``animal`` (192 px canvas): its bone, its horns or ears, its holes."""
    cv2.circle(skull, (96, 92), 24, 255, -1, cv2.LINE_AA)
    jaw = np.array([[80, 104], [112, 104], [106, 130], [86, 130]], np.int32)
    if animal == "wolf":
        jaw = np.array([[78, 100], [114, 100], [104, 146], [88, 146]], np.int32)
        for sign in (-1, 1):
            ear = np.array([[96 + sign * 8, 74], [96 + sign * 30, 44], [96 + sign * 26, 84]],
                           np.int32)
            cv2.fillConvexPoly(horns, ear, 255, cv2.LINE_AA)
    elif animal == "bock":
        for sign in (-1, 1):
            cv2.ellipse(horns, (96 + sign * 36, 82), (18, 20), 0, 0, 360, 255, 9, cv2.LINE_AA)
    else:
        for sign in (-1, 1):
            horn = np.array([[96 + sign * 6, 72], [96 + sign * 14, 70], [96 + sign * 30, 40],
                             [96 + sign * 24, 38]], np.int32)
            cv2.fillConvexPoly(horns, horn, 255, cv2.LINE_AA)
    cv2.fillConvexPoly(skull, jaw, 255, cv2.LINE_AA)
    for sign in (-1, 1):
        cv2.circle(holes, (96 + sign * 10, 90), 7, 255, -1, cv2.LINE_AA)
    cv2.fillConvexPoly(holes, np.array([[92, 102], [100, 102], [96, 110]], np.int32), 255,
                       cv2.LINE_AA)
    for x in range(88, 106, 5):
        cv2.line(holes, (x, 116), (x, 124), 255, 2, cv2.LINE_AA)


def _draw_sticker(img: np.ndarray, face: str, look: FaceLook) -> None:
    d = img.shape[0]
    m = round(d * 0.07)
    rounded_rect(img, m, m, d - 1 - m, d - 1 - m, round(d * 0.07), look.background)
    inset = round(d * 0.12)
    line = np.zeros((d, d), np.uint8)
    rounded_rect(line, inset, inset, d - 1 - inset, d - 1 - inset, round(d * 0.05), 255)
    inner = np.zeros((d, d), np.uint8)
    rounded_rect(inner, inset + 3, inset + 3, d - 4 - inset, d - 4 - inset, round(d * 0.04), 255)
    img[(line > 0) & (inner == 0)] = (235, 235, 235)
    skull = np.zeros((d, d), np.uint8)
    horns = np.zeros((d, d), np.uint8)
    holes = np.zeros((d, d), np.uint8)
    _sticker_skull(skull, horns, holes, face.split("_")[0])
    img[horns > 0] = _STICKER_HORN
    # Shading: the skull's colour at the top left, 0.7 of it at the bottom right.
    ys, xs = np.mgrid[0:d, 0:d].astype(np.float32)
    shade = 1.0 - 0.3 * np.clip(((xs - 72) + (ys - 68)) / 96.0, 0.0, 1.0)
    shaded = np.array(look.icon, np.float32)[None, None, :] * shade[:, :, None]
    img[skull > 0] = shaded.astype(np.uint8)[skull > 0]
    img[(holes > 0) & (skull > 0)] = (
        (235, 235, 235) if sum(look.icon) < 300 else _STICKER_INK
    )


_ARTWORK_DRAW = {"stencil": _draw_stencil, "badge": _draw_badge, "etched": _draw_etched,
                 "mosaic": _draw_mosaic, "woodcut": _draw_woodcut, "sticker": _draw_sticker}
ARTWORKS: tuple[str, ...] = ("classic", *_ARTWORK_DRAW)

_DARK_ICON: BGR = (22, 22, 26)
STENCIL_PALETTE = Palette(
    looks=(
        FaceLook(background=(30, 28, 32), icon=(222, 226, 228)),  # wolf: white head on black
        FaceLook(background=(150, 196, 222), icon=(30, 44, 70)),  # bock: brown ram on sand
        FaceLook(background=(60, 32, 150), icon=_DARK_ICON),  # goat_red: crimson
        FaceLook(background=(140, 110, 36), icon=_DARK_ICON),  # goat_blue: teal blue
        FaceLook(background=(70, 172, 118), icon=_DARK_ICON),  # goat_green: lime
        FaceLook(background=(64, 178, 214), icon=_DARK_ICON),  # goat_yellow: mustard
    ),
    body=(44, 44, 48),  # black plastic
)
_BADGE_WHITE: BGR = (236, 238, 240)
BADGE_PALETTE = Palette(
    looks=(
        FaceLook(background=(112, 86, 66), icon=(206, 206, 200), outer=(72, 42, 30)),  # wolf
        FaceLook(background=(34, 32, 32), icon=(52, 166, 214), outer=(40, 40, 118)),  # bock
        FaceLook(background=_BADGE_WHITE, icon=(50, 44, 200), outer=(50, 44, 200)),  # red
        FaceLook(background=_BADGE_WHITE, icon=(190, 104, 40), outer=(190, 104, 40)),  # blue
        FaceLook(background=_BADGE_WHITE, icon=(64, 156, 58), outer=(64, 156, 58)),  # green
        FaceLook(background=_BADGE_WHITE, icon=(40, 196, 236), outer=(40, 196, 236)),  # yellow
    ),
    body=(224, 228, 232),
)
_ETCHED_WHITE: BGR = (232, 236, 238)
ETCHED_PALETTE = Palette(
    looks=(
        FaceLook(background=(176, 174, 168), icon=(44, 40, 40)),  # wolf: dark lines on silver
        FaceLook(background=(150, 206, 232), icon=(30, 42, 64)),  # bock: dark lines on cream
        FaceLook(background=(44, 34, 172), icon=_ETCHED_WHITE),  # goat_red: brick
        FaceLook(background=(124, 64, 24), icon=_ETCHED_WHITE),  # goat_blue: navy
        FaceLook(background=(48, 128, 54), icon=_ETCHED_WHITE),  # goat_green: moss
        FaceLook(background=(40, 164, 222), icon=_ETCHED_WHITE),  # goat_yellow: amber
    ),
    body=(52, 74, 112),  # brown plastic
)
_MOSAIC_CREAM: BGR = (200, 230, 240)
MOSAIC_PALETTE = Palette(
    looks=(
        FaceLook(background=(86, 36, 92), icon=(214, 206, 196)),  # wolf: pale shards on plum
        FaceLook(background=(40, 132, 236), icon=(26, 24, 28)),  # bock: black shards on orange
        FaceLook(background=(120, 120, 236), icon=_MOSAIC_CREAM),  # goat_red: coral
        FaceLook(background=(224, 170, 104), icon=_MOSAIC_CREAM),  # goat_blue: sky
        FaceLook(background=(150, 204, 120), icon=_MOSAIC_CREAM),  # goat_green: mint
        FaceLook(background=(110, 222, 234), icon=_MOSAIC_CREAM),  # goat_yellow: lemon
    ),
    body=(46, 84, 36),  # dark green plastic
)
_WOODCUT_BONE: BGR = (196, 214, 222)
WOODCUT_PALETTE = Palette(
    looks=(
        FaceLook(background=(58, 62, 70), icon=_WOODCUT_BONE),  # wolf: charcoal
        FaceLook(background=(222, 232, 236), icon=(178, 198, 208)),  # bock: off-white
        FaceLook(background=(48, 56, 182), icon=_WOODCUT_BONE),  # goat_red
        FaceLook(background=(168, 104, 46), icon=_WOODCUT_BONE),  # goat_blue
        FaceLook(background=(72, 146, 66), icon=_WOODCUT_BONE),  # goat_green
        FaceLook(background=(46, 186, 226), icon=_WOODCUT_BONE),  # goat_yellow
    ),
    body=(196, 212, 218),  # ivory plastic
)
_STICKER_BONE: BGR = (235, 235, 235)
STICKER_PALETTE = Palette(
    looks=(
        FaceLook(background=(90, 40, 20), icon=_STICKER_BONE),  # wolf: navy
        FaceLook(background=(240, 240, 240), icon=(40, 40, 40)),  # bock: black on white
        FaceLook(background=(30, 80, 230), icon=_STICKER_BONE),  # goat_red: orange-red
        FaceLook(background=(190, 90, 20), icon=_STICKER_BONE),  # goat_blue: cobalt
        FaceLook(background=(140, 150, 20), icon=_STICKER_BONE),  # goat_green: teal
        FaceLook(background=(60, 220, 240), icon=_STICKER_BONE),  # goat_yellow: lemon
    ),
    body=(35, 35, 35),  # black plastic
)
_ARTWORK_PALETTES = {
    "classic": DEFAULT_PALETTE,
    "stencil": STENCIL_PALETTE,
    "badge": BADGE_PALETTE,
    "etched": ETCHED_PALETTE,
    "mosaic": MOSAIC_PALETTE,
    "woodcut": WOODCUT_PALETTE,
    "sticker": STICKER_PALETTE,
}


def artwork_palette(artwork: str) -> Palette:
    """The colours a set of ``artwork`` (one of ``ARTWORKS``) comes in."""
    if artwork not in _ARTWORK_PALETTES:
        raise RenderError(f"unknown artwork {artwork!r}; use one of {', '.join(ARTWORKS)}")
    return _ARTWORK_PALETTES[artwork]


def draw_artwork(face: str, palette: Palette, artwork: str = "classic") -> np.ndarray:
    """The face ``face`` of ``artwork`` in ``palette``, upright, at DRAW px (BGR uint8):
    the die's plastic round the print included."""
    if artwork == "classic":
        return draw_face(face, palette)
    artwork_palette(artwork)  # checks the name
    img = np.zeros((DRAW, DRAW, 3), np.uint8)
    img[:] = palette.body
    _ARTWORK_DRAW[artwork](img, face, palette.look(face))
    return img
