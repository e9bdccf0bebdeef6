"""A stand-in for ``cv2.VideoCapture`` (a USB webcam) that keeps OpenCV's contract."""

from __future__ import annotations

import numpy as np


class FakeCapture:
    """cv2.VideoCapture's contract: set() answers whether the driver took the property."""

    def __init__(self, supported=None):
        import cv2

        self.cv2 = cv2
        self.props = {cv2.CAP_PROP_EXPOSURE: 156.0, cv2.CAP_PROP_WB_TEMPERATURE: 4600.0}
        self.supported = supported
        self.log = []

    def isOpened(self):  # noqa: N802 - cv2's spelling
        return True

    def set(self, prop, value):
        self.log.append((prop, value))
        if self.supported is not None and prop not in self.supported:
            return False
        self.props[prop] = value
        return True

    def get(self, prop):
        return self.props.get(prop, 0.0)

    def read(self):
        return True, np.zeros((480, 640, 3), np.uint8)

    def release(self):
        pass
