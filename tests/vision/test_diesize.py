"""How both recognisers keep a camera set-up's die size: one measure per rest of dice."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.faces import BockRecognizer
from companion.vision.recognizer import PipRecognizer
from companion.vision.spot import BockSpotter, PipSpotter


@pytest.mark.parametrize(("recognizer_class", "spotter_class", "options"), [
    (PipRecognizer, PipSpotter, {"look_for_tray": False}),
    (BockRecognizer, BockSpotter, {}),
])
def test_each_rest_is_one_die_size_measure_and_a_bad_first_rest_is_outvoted(
    recognizer_class, spotter_class, options
):
    # The runtime reads up to three frames of one rest. When each counted as a measure,
    # a first rest measured at half the die (pip groups taken for dice) outvoted the next
    # two rests and set the pip scale for the next 50 reads, the Rock the Bock scale for
    # the whole evening (it measured five frames, then kept the size).
    measures = []
    sizes = iter([20.0, 40.0, 41.0, 39.0, 40.0])

    class Scripted(spotter_class):
        def estimate_die_size(self, frame, *args, **kwargs):
            measures.append(frame.shape)
            return next(sizes)

    rng = np.random.default_rng(5)
    recognizer = recognizer_class(spotter=Scripted(), **options)
    kept = []
    for _ in range(6):
        rest = rng.integers(0, 256, (480, 640, 3), dtype=np.uint8)
        for _ in range(3):
            noisy = np.clip(rest + rng.normal(0, 1.0, rest.shape), 0, 255)
            kept.append(recognizer.die_size(noisy.astype(np.uint8)))
    # Five rests measured once each; the sixth is not measured: the size is kept.
    assert len(measures) == 5
    # Two rests that differ do not say which is right: the first is kept until a third
    # is measured; then the median of the rests measured.
    assert kept == [20.0] * 6 + [40.0] * 3 + [39.5] * 3 + [40.0] * 6
