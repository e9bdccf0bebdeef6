"""Enrolling the table's Rock the Bock dice from the dashboard, one face at a time.

``companion calibrate faces`` enrols a face from a few frames in which every die shows
it; at the table the scorekeeper does the same on the phone: turn the dice to one face,
lay them apart in the tray, tap that face on the camera page; move them about (same
face up) and tap again, ``PICTURES`` times. ``FaceSetup`` is the running companion's
side: each tap takes the camera's latest raw frame (``TraySetup.latest``) for that
face, once it holds a die; the last one enrols the face from them as the command does
(``enrol.enrol_face``, the same recogniser and the faces enrolled so far), writes it
into the calibration file (the tray and the other faces are kept) and rebuilds the
recognisers with it at once (``TraySetup.write``). Nothing is written until a face's
pictures are complete and agree; a picture that shows no die, or the same frame again,
is refused and not counted; ``start_again`` drops a face's pictures so far (a wrong
face tapped).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from companion.vision.types import VisionError

if TYPE_CHECKING:
    from companion.tray_setup import TraySetup

# Pictures of each face, as ``companion calibrate faces`` is asked for (three frames of
# every face: a set known by its look needs ``FAMILIAR_LOOKS_MIN`` looks of each).
PICTURES = 3


class FaceSetup:
    """Pictures taken so far of each face, and enrolling a face once they are complete."""

    def __init__(self, tray: TraySetup) -> None:
        self._tray = tray
        self._lock = threading.Lock()
        self._pictures: dict[str, list[np.ndarray]] = {}
        self._last_frame: int | None = None  # number of the frame taken last

    def __repr__(self) -> str:
        return f"FaceSetup({str(self._tray.path)!r})"

    def status(self) -> dict[str, Any]:
        """Each face in the set's order: how many dice its enrolled model was learnt
        from (None: the built-in model) and how many pictures of it are taken so far;
        ``pictures`` how many a face needs."""
        from companion.vision.faces_look import FACES

        enrolled = self._enrolled()
        with self._lock:
            taken = {face: len(frames) for face, frames in self._pictures.items()}
        return {
            "faces": [
                {
                    "face": face,
                    "enrolled": enrolled[face].count if face in enrolled else None,
                    "pictures": taken.get(face, 0),
                }
                for face in FACES
            ],
            "pictures": PICTURES,
        }

    def capture(self, face: object) -> dict[str, Any]:
        """Take the latest frame as a picture of ``face``; with the last one, enrol it.

        Returns ``face``, ``pictures`` taken of it now (0 once enrolled) and ``dice``
        seen in this picture; after enrolling also ``enrolled`` (dice learnt from),
        ``dropped``, ``nearest`` (the face it lies closest to) and ``confusable`` (so
        close the two may be mixed up: check the dice and enrol it again). Raises a
        ``VisionError`` (a ``ValueError``) saying what is wrong -- an unknown face, a
        frame with no die, the frame taken last once more, pictures that disagree --
        and ``NoFrameYet`` without a frame; nothing is then counted or written.
        """
        from companion.vision.enrol import enrol_face, save_models
        from companion.vision.faces_classify import MIN_SEPARATION

        face = _face(face)
        frame, number = self._tray.latest()
        recognizer = self._recognizer()
        samples, _ = recognizer.sample(frame)
        with self._lock:
            if number == self._last_frame:
                raise VisionError(
                    "this frame was taken already; move the dice a little and wait for the"
                    " next picture", key="faces_same_picture",
                )
            if not samples:
                raise VisionError(
                    "no die seen in this picture; lay the dice apart in the tray",
                    key="faces_no_dice",
                )
            self._last_frame = number
            pictures = self._pictures.setdefault(face, [])
            pictures.append(frame)
            if len(pictures) < PICTURES:
                return {"face": face, "pictures": len(pictures), "dice": len(samples)}
            frames = list(pictures)
            del self._pictures[face]
        # Enrolled as ``companion calibrate faces`` enrols: the same recogniser, the faces
        # enrolled so far; a failure (too few dice, dice that disagree) drops the pictures.
        result = enrol_face(face, frames, recognizer, self._enrolled())

        def save(path: Any) -> None:
            # Read again under the file's lock: a face enrolled meanwhile is kept.
            models = self._enrolled()
            models[face] = result.model
            save_models(path, models)

        self._tray.write(save)
        return {
            "face": face,
            "pictures": 0,
            "dice": len(samples),
            "enrolled": result.dice,
            "dropped": result.dropped,
            "nearest": result.nearest,
            "confusable": result.separation < MIN_SEPARATION,
        }

    def start_again(self, face: object) -> dict[str, Any]:
        """Drop the pictures of ``face`` taken so far (a wrong face tapped, dice that
        moved over): it starts from its first picture again, and the frame taken last
        may be taken again (for the face it showed). Returns ``face`` and ``dropped``
        (how many pictures). Raises a ``VisionError`` for an unknown face."""
        face = _face(face)
        with self._lock:
            dropped = len(self._pictures.pop(face, []))
            if dropped:
                self._last_frame = None
        return {"face": face, "dropped": dropped}

    def _recognizer(self) -> Any:
        """The recogniser ``companion calibrate faces`` measures with: the calibration
        file's tray and faces when there is a file, else the plain one."""
        from companion.vision.enrol import load_recognizer
        from companion.vision.faces import BockRecognizer

        path = self._tray.path
        return load_recognizer(path) if path.is_file() else BockRecognizer()

    def _enrolled(self) -> dict[str, Any]:
        """The faces enrolled in the calibration file (none without a file)."""
        from companion.vision.enrol import load_models

        path = self._tray.path
        return load_models(path) if path.is_file() else {}


def _face(face: object) -> str:
    """``face`` when it is one of the set's faces; else a ``VisionError`` saying so."""
    from companion.vision.faces_look import FACES

    if not isinstance(face, str) or face not in FACES:
        raise VisionError(
            f"unknown face {face!r}; use one of {', '.join(FACES)}",
            key="faces_unknown", face=str(face)[:40],
        )
    return face
