"""The dice's looks the runtime keeps: one list of faces, the built-in drawing, no renderer."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import numpy as np
import pytest

import companion.vision
from companion.games import rockthebock
from companion.vision.faces_look import (
    DEFAULT_PALETTE,
    DRAW,
    FACES,
    TEXTURE,
    draw_face,
    face_texture,
)

RUNTIME = sorted(
    f"companion.vision.{m.name}" for m in pkgutil.iter_modules(companion.vision.__path__)
)


def test_every_runtime_vision_module_imports_without_the_scene_renderer():
    # A fresh interpreter: the test session itself has imported companion.synth long ago.
    code = (
        "import importlib, json, sys\n"
        f"for name in {RUNTIME + ['companion.app', 'companion.pipeline']!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('companion.synth'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "companion.vision.faces" in RUNTIME and "companion.vision.enrol" in RUNTIME
    assert json.loads(out.splitlines()[-1]) == []


def test_the_faces_are_the_games_faces_in_class_order():
    # Vision never imports the games, so the names live in both; they must agree.
    assert FACES == rockthebock.FACES
    assert len(DEFAULT_PALETTE.looks) == len(FACES)


def test_the_built_in_drawing_shows_each_face_on_its_background():
    for face in FACES:
        look = DEFAULT_PALETTE.look(face)
        big = draw_face(face)
        assert big.shape == (DRAW, DRAW, 3) and big.dtype == np.uint8
        tex = face_texture(face).astype(np.float32)
        assert tex.shape == (TEXTURE, TEXTURE, 3)
        # Just inside the print's corner: background; the middle holds the skull's colour.
        corner = tex[12:18, 12:18].reshape(-1, 3).mean(axis=0)
        assert np.abs(corner - np.array(look.background)).max() < 30, face
        middle = tex[30:66, 30:66].reshape(-1, 3)
        assert 0.2 < (np.abs(middle - np.array(look.icon)).max(axis=1) < 40).mean() < 0.9, face


def test_an_unknown_face_cannot_be_drawn():
    with pytest.raises(ValueError, match="unknown face 'goat_pink'"):
        draw_face("goat_pink")
