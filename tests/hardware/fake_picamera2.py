"""A stand-in for picamera2's ``Picamera2`` that keeps the real API's contract.

Written from picamera2's documented behaviour (not its code): ``sensor_modes`` reconfigures
the camera, so it may only be read while stopped; ``create_video_configuration`` takes
``main``/``lores``/``raw`` stream dicts whose ``size`` is a tuple, with lores no larger
than main and in a YUV format (what every Pi model supports); ``configure`` only while
stopped; ``capture_request`` only while started, and every request must be released
(``captured_request`` does that) before the camera runs out of buffers; ``make_array``
returns a copy (YUV420 as a (h*3/2, w) plane array); controls set with ``set_controls``
show up in the metadata of later frames. Automatic exposure and white balance walk
towards the scene's values a step per frame, as the real algorithms do.
"""

from __future__ import annotations

import contextlib

import cv2
import numpy as np

IMX477_MODES = [  # the HQ camera's modes, as sensor_modes reports them
    {"format": "SRGGB10_CSI2P", "bit_depth": 10, "size": (1332, 990), "fps": 120.05},
    {"format": "SBGGR12_CSI2P", "bit_depth": 12, "size": (2028, 1080), "fps": 50.03},
    {"format": "SBGGR12_CSI2P", "bit_depth": 12, "size": (2028, 1520), "fps": 40.01},
    {"format": "SBGGR12_CSI2P", "bit_depth": 12, "size": (4056, 3040), "fps": 10.0},
]


class FakeRequest:
    def __init__(self, camera: FakePicamera2, frame: dict[str, np.ndarray], metadata: dict):
        self._camera = camera
        self._frame = frame
        self._metadata = metadata
        self.released = False

    def make_array(self, name: str) -> np.ndarray:
        if self.released:
            raise RuntimeError("request already released")
        if name not in self._frame:
            raise KeyError(f"no stream {name!r} configured")
        return np.copy(self._frame[name])

    def get_metadata(self) -> dict:
        return dict(self._metadata)

    def release(self) -> None:
        if not self.released:
            self.released = True
            self._camera.outstanding -= 1


class FakePicamera2:
    def __init__(self, modes=IMX477_MODES, scene_exposure: float = 30000.0,
                 scene_gain: float = 2.0, scene_colour=(1.9, 1.6)) -> None:
        self._modes = [dict(m) for m in modes]
        self.scene = (scene_exposure, scene_gain, *scene_colour)
        self.config: dict | None = None
        self.started = False
        self.closed = False
        self.outstanding = 0
        self.frames = 0
        self.control_log: list[dict] = []
        self.controls = {"AeEnable": True, "AwbEnable": True}
        self._values = [10000.0, 1.0, 1.0, 1.0]  # exposure, gain, red, blue at power-on

    @property
    def sensor_modes(self) -> list[dict]:
        if self.started:
            raise RuntimeError("reading sensor_modes reconfigures the camera: stop it first")
        return [dict(m) for m in self._modes]

    def create_video_configuration(self, main=None, lores=None, raw=None, buffer_count=6,
                                   controls=None, queue=True, **_):
        main = {"format": "XBGR8888", "size": (1280, 720), **(main or {})}
        for name, stream in (("main", main), ("lores", lores), ("raw", raw)):
            if stream is None:
                continue
            if not isinstance(stream, dict):
                raise RuntimeError(f"{name} stream should be a dictionary")
            size = stream.get("size")
            if size is not None and (type(size) is not tuple or len(size) != 2):
                raise RuntimeError(f"size in {name} stream should be (width, height)")
        if lores is not None:
            lores = {"format": "YUV420", **lores}
            if not lores["format"].startswith("YUV"):
                raise RuntimeError("lores stream must be YUV on this Pi")
            if lores["size"][0] > main["size"][0] or lores["size"][1] > main["size"][1]:
                raise RuntimeError("lores stream dimensions may not exceed main stream")
        if raw and "size" in raw and tuple(raw["size"]) not in [m["size"] for m in self._modes]:
            raise RuntimeError(f"no sensor mode of size {raw['size']}")
        return {"use_case": "video", "main": main, "lores": lores, "raw": raw,
                "buffer_count": buffer_count, "queue": queue, "controls": dict(controls or {})}

    def configure(self, config: dict) -> None:
        if self.started:
            raise RuntimeError("Camera must be stopped before configuring")
        self.config = config
        self.controls.update(config["controls"])

    def start(self) -> None:
        if self.config is None:
            raise RuntimeError("Camera has not been configured")
        self.started = True

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        self.started = False
        self.closed = True

    def set_controls(self, controls: dict) -> None:
        self.control_log.append(dict(controls))
        self.controls.update(controls)

    def _step(self) -> None:
        exposure, gain, red, blue = self.scene
        if self.controls.get("AeEnable", True):
            self._values[0] += (exposure - self._values[0]) * 0.5
            self._values[1] += (gain - self._values[1]) * 0.5
        else:
            self._values[0] = float(self.controls.get("ExposureTime", self._values[0]))
            self._values[1] = float(self.controls.get("AnalogueGain", self._values[1]))
        if self.controls.get("AwbEnable", True):
            self._values[2] += (red - self._values[2]) * 0.5
            self._values[3] += (blue - self._values[3]) * 0.5
        else:
            self._values[2], self._values[3] = self.controls.get("ColourGains", self._values[2:])

    def capture_request(self, wait=None, flush=None) -> FakeRequest:
        if not self.started:
            raise RuntimeError("Camera must be started before capture")
        assert self.config is not None
        if self.outstanding >= self.config["buffer_count"] - 1:
            raise RuntimeError("all buffers held: release your requests")
        self._step()
        self.frames += 1
        w, h = self.config["main"]["size"]
        main = np.full((h, w, 3), (40 + self.frames) % 256, np.uint8)  # B, G, R order
        frame = {"main": main}
        if self.config["lores"] is not None:
            lw, lh = self.config["lores"]["size"]
            small = cv2.resize(main, (lw, lh), interpolation=cv2.INTER_AREA)
            frame["lores"] = cv2.cvtColor(small, cv2.COLOR_BGR2YUV_I420)
        metadata = {
            "ExposureTime": int(self._values[0]), "AnalogueGain": self._values[1],
            "ColourGains": (self._values[2], self._values[3]), "SensorTimestamp": self.frames,
        }
        self.outstanding += 1
        return FakeRequest(self, frame, metadata)

    @contextlib.contextmanager
    def captured_request(self, wait=None, flush=None):
        request = self.capture_request(wait=wait, flush=flush)
        try:
            yield request
        finally:
            request.release()
