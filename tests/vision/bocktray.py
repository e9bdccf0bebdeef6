"""Test helper: a rendered Rock the Bock throw's tray floor as a tray photo, for composing
into camera frames (``companion.synth.scene.compose``)."""

from __future__ import annotations

import numpy as np

from companion.evaluation import LabelledDie


def tray_photo(throw):
    """The rendered tray floor cut out edge to edge, as ``compose`` takes a tray photo, and
    its dice labelled with their face names (``scene.label_line`` writes pip values)."""
    xs = sorted(x for x, _ in throw.tray_corners)
    ys = sorted(y for _, y in throw.tray_corners)
    x0, y0 = int(np.ceil(xs[1])), int(np.ceil(ys[1]))
    x1, y1 = int(xs[2]), int(ys[2])
    labels = []
    for die in throw.dice:
        bx0, by0, bx1, by1 = die.box()
        labels.append(
            LabelledDie(die.value, die.center[0] - x0, die.center[1] - y0, bx1 - bx0, by1 - by0)
        )
    return throw.image[y0:y1, x0:x1].copy(), labels
