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
face tapped). Pictures of a face not yet complete are kept on disk too (``pending_dir``),
so a restart in the middle loses none.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from companion.vision.types import VisionError

if TYPE_CHECKING:
    from companion.tray_setup import TraySetup

# Pictures of each face, as ``companion calibrate faces`` is asked for (three frames of
# every face: a set known by its look needs ``FAMILIAR_LOOKS_MIN`` looks of each).
PICTURES = 3

log = logging.getLogger("companion")


class FaceSetup:
    """Pictures taken so far of each face, and enrolling a face once they are complete.

    A face's pictures before its last are also kept on disk beside the calibration file
    (``pending_dir``: ``<face>-<n>.png``, each written atomically), so a restart in the
    middle of enrolling (a power cut, an update) loses none of them; they are read back
    when the companion starts and removed once the face is enrolled or started again.
    """

    def __init__(self, tray: TraySetup) -> None:
        self._tray = tray
        self._lock = threading.Lock()
        self._pictures: dict[str, list[np.ndarray]] = self._kept()
        self._last_frame: int | None = None  # number of the frame taken last

    @property
    def pending_dir(self) -> Path:
        """Where pictures of faces not yet enrolled are kept: ``<calibration>.pictures``."""
        path = self._tray.path
        return path.with_name(path.name + ".pictures")

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
                self._keep(face, len(pictures), frame)
                return {"face": face, "pictures": len(pictures), "dice": len(samples)}
            frames = list(pictures)
            del self._pictures[face]
            self._forget(face)
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
            self._forget(face)
            if dropped:
                self._last_frame = None
        return {"face": face, "dropped": dropped}

    # -- pictures kept across a restart ------------------------------------------

    def _keep(self, face: str, number: int, frame: np.ndarray) -> None:
        """Write picture ``number`` of ``face`` into ``pending_dir`` (a temporary file
        renamed into place: a power cut leaves the picture whole or not there). A picture
        that cannot be written is still counted now, and the log says so."""
        import cv2

        target = self.pending_dir / f"{face}-{number}.png"
        temporary = target.with_name(target.name + ".tmp")
        try:
            ok, data = cv2.imencode(".png", frame, [cv2.IMWRITE_PNG_COMPRESSION, 1])
            if not ok:
                raise OSError("the picture could not be encoded")
            target.parent.mkdir(parents=True, exist_ok=True)
            with temporary.open("wb") as fh:
                fh.write(data.tobytes())
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(temporary, target)
        except OSError as exc:
            with contextlib.suppress(OSError):
                temporary.unlink()
            log.warning("picture %d of %s not kept on disk (%s): it is lost on a restart",
                        number, face, exc)

    def _forget(self, face: str) -> None:
        """Remove the pictures of ``face`` kept in ``pending_dir``."""
        folder = self.pending_dir
        if not folder.is_dir():
            return
        for path in folder.glob(f"{face}-*.png*"):
            with contextlib.suppress(OSError):
                path.unlink()

    def _kept(self) -> dict[str, list[np.ndarray]]:
        """The pictures of each face kept in ``pending_dir`` by an earlier run, in the
        order they were taken. A face whose kept pictures are not 1, 2, ... up to one
        short of ``PICTURES``, or one of which cannot be read as a picture, starts
        again (its files are removed, the log says why); other files are left alone."""
        from companion.vision.faces_look import FACES

        folder = self.pending_dir
        if not folder.is_dir():
            return {}
        import cv2

        kept: dict[str, list[np.ndarray]] = {}
        for face in FACES:
            files = sorted(folder.glob(f"{face}-*.png"))
            if not files:
                continue
            numbers = sorted(path.stem[len(face) + 1:] for path in files)
            frames = [cv2.imread(str(folder / f"{face}-{n}.png")) for n in numbers]
            expected = [str(n) for n in range(1, len(files) + 1)]
            if numbers != expected or len(files) >= PICTURES or any(f is None for f in frames):
                log.warning("pictures of %s kept in %s are not whole (%s); that face starts"
                            " again", face, folder, ", ".join(p.name for p in files))
                self._forget(face)
                continue
            kept[face] = [f for f in frames if f is not None]
            log.info("%d picture(s) of %s taken before the restart are kept", len(files), face)
        return kept

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
