"""A USB webcam through OpenCV's ``VideoCapture`` (cv2 imported when one is opened)."""

from __future__ import annotations

import time
from typing import Any

from companion.hardware.exposure import MEASURE_FRAMES
from companion.hardware.frames import CameraError, Frame, check_frame


class OpenCVSource:
    """A USB webcam through ``cv2.VideoCapture``.

    As far as the webcam's driver lets OpenCV: one buffered frame (so a read gets the
    newest), automatic exposure and white balance while the first frames settle, then
    both switched to manual at the values they reached. ``locks`` says what the driver
    accepted.
    """

    def __init__(self, index: int = 0, size: tuple[int, int] = (1280, 960), capture: Any = None):
        import cv2

        self._cv2 = cv2
        self._cap = capture if capture is not None else cv2.VideoCapture(index)
        if not self._cap.isOpened():
            raise CameraError(
                f"USB camera {index} could not be opened; is it plugged in (ls /dev/video*)?"
            )
        self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
        self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        self._index = index
        self.locks: dict[str, bool] = {
            "newest_frame": bool(self._cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)),
        }
        self._frames = 0
        self._measure_frames = MEASURE_FRAMES[0] * 2
        self.remeasure()

    def remeasure(self) -> None:
        """Let the webcam find exposure and white balance again; locked after a few frames."""
        cv2 = self._cv2
        # V4L2 through OpenCV: 3 = aperture priority (automatic), 1 = manual.
        self._cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 3)
        self._cap.set(cv2.CAP_PROP_AUTO_WB, 1)
        self._frames = 0
        self.locks.pop("exposure", None)
        self.locks.pop("white_balance", None)

    def _lock(self) -> None:
        cv2 = self._cv2
        exposure = self._cap.get(cv2.CAP_PROP_EXPOSURE)
        temperature = self._cap.get(cv2.CAP_PROP_WB_TEMPERATURE)
        self.locks["exposure"] = bool(
            self._cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 1)
            and self._cap.set(cv2.CAP_PROP_EXPOSURE, exposure)
        )
        self.locks["white_balance"] = bool(
            self._cap.set(cv2.CAP_PROP_AUTO_WB, 0)
            and (temperature <= 0 or self._cap.set(cv2.CAP_PROP_WB_TEMPERATURE, temperature))
        )

    def read(self) -> Frame | None:
        """Grab one frame; a failed grab is a camera fault, not the end of the stream."""
        ok, image = self._cap.read()
        if not ok or image is None:
            raise CameraError(f"USB camera {self._index} stopped delivering frames")
        self._frames += 1
        if self._frames == self._measure_frames:
            self._lock()
        name = f"usb{self._index}"
        return Frame(check_frame(image, name), time.monotonic(), name)

    def close(self) -> None:
        """Release the device so another program may open it."""
        self._cap.release()
