"""The Pi's budgets, measured here: memory, settle detection's CPU share, rest to phone.

1. **Peak RSS** of ``companion run`` (a separate process, as systemd starts it) with a
   replay camera at 15 fps (rendered throws, 1280x960) and ``--phones`` phones: each holds
   the live stream open and fetches the picture and the reading on every camera notice.
   Read from the kernel (``VmHWM``). Target ≤ 150 MB (a Pi Zero 2 W has 512 MB).
2. **CPU share of settle detection** (with the occlusion check) on the lores stream
   (320x240) at 15 fps: CPU time per frame x 15 frames per second. Target ≤ 15 % of one core.
3. **Rest to phone**: in one process, frames fed at 15 fps through the companion (settle
   detection, recogniser, turn tracker, annotated picture) to a real waitress server; the
   clock starts when the frame that completes the rest arrives and stops when the last of
   the phones (plain SSE clients) has the proposal (the notice, then ``/camera/latest.json``).
   The settle wait itself (``settle_seconds``) is by design and not part of it. Target ≤ 250 ms.

1 and 3 run twice: with the tray calibrated (a profile made from the rendered tray's own
corners, as ``companion calibrate tray --corners`` makes one at the table: the set-up the
README asks for) and without a calibration (the recogniser reads the whole frame). ``companion
run`` gets the environment the systemd unit gives it (``Environment=`` lines of
``systemd/dice-companion.service``, e.g. the allocator settings), as on the Pi. The load
average of the machine is printed with the figures: this machine's other work slows them.

    .venv/bin/python bench/bench_pi.py [--phones 10] [--seconds 20] [--throws 5]
        [--calibration both|yes|no]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.synth.render import render_throw
from companion.synth.stage import render_stage
from companion.synth.writer import Writer

UNIT = Path(__file__).resolve().parent.parent / "systemd" / "dice-companion.service"

PLAYERS = {"players": ["Anna", "Ben"], "starter": "Anna"}
PIN = "123456"


def evening(seed: int, throws: int, size: tuple[int, int]) -> list[np.ndarray]:
    """Rendered frames at 15 fps: ``throws`` throws, each followed by 2 s of dice at rest."""
    writer = Writer(render_stage(seed, size), np.random.default_rng(seed), 15.0)
    writer.hold(0.5)
    for _ in range(throws):
        writer.throw()
        writer.hold(2.0)
    return writer.frames


def tray_profile(seed: int, size: tuple[int, int], path: Path) -> Path:
    """The calibration of the rendered tray of ``seed`` (``render_stage`` draws the same
    tray), made from its corners as the scorekeeper sets them at the table."""
    from companion.vision.tray import calibrate_tray

    shot = render_throw(seed, 3, size=size, faces=(1, 2, 3), jpeg_quality=95)
    calibrate_tray(shot.image, tuple(shot.tray_corners)).save(path)
    return path


def unit_environment(unit: Path = UNIT) -> dict[str, str]:
    """The variables the systemd unit sets for ``companion run`` (but its config file)."""
    env = {}
    for line in unit.read_text().splitlines():
        if line.startswith("Environment="):
            key, _, value = line.removeprefix("Environment=").partition("=")
            if key != "COMPANION_CONFIG":
                env[key] = value
    return env


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


class Phone(threading.Thread):
    """A phone: the live stream open, the picture and reading fetched on each camera notice."""

    def __init__(self, port: int, number: int, stamps: list[float] | None = None) -> None:
        super().__init__(daemon=True)
        self.port, self.stamps = port, stamps if stamps is not None else []
        # Each phone from its own loopback address, as phones on the Wi-Fi are: the
        # server allows one address only a few live streams.
        self.source = (f"127.0.0.{2 + number}", 0)
        self.ready = threading.Event()
        self.stop = False

    def run(self) -> None:
        try:
            self._listen()
        except OSError:
            if not self.stop:  # the server going away at the end is no failure
                raise

    def _listen(self) -> None:
        stream = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60,
                                            source_address=self.source)
        stream.request("GET", "/events")
        response = stream.getresponse()
        self.ready.set()
        if response.status != 200:
            raise RuntimeError(f"phone {self.source[0]}: live stream refused ({response.status})")
        fetch = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60,
                                           source_address=self.source)
        while not self.stop:
            line = response.fp.readline()
            if not line:
                return
            if not line.startswith(b"data:"):
                continue
            if json.loads(line[5:]).get("kind") != "picture":
                continue
            for path in ("/camera/latest.json", "/camera/latest.jpg"):
                fetch.request("GET", path)
                fetch.getresponse().read()
            self.stamps.append(time.perf_counter())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def make_game(data_dir: Path) -> None:
    from companion.store import Store
    from companion.table import Table

    with Store(data_dir / "companion.sqlite3") as store:
        table = Table(store)
        table.activate(table.create_game("schocken", PLAYERS, PIN))
        table.close()


def peak_rss(phones: int, seconds: float, calibrated: bool) -> dict[str, float]:
    """``companion run`` with a replay camera and phones; its peak RSS in MB."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "frames"
        folder.mkdir()
        frames = evening(5, max(1, int(seconds / 2.5)), (1280, 960))
        for i, frame in enumerate(frames):
            cv2.imwrite(str(folder / f"{i:05d}.jpg"), frame)
        data = Path(tmp) / "data"
        make_game(data)
        port = free_port()
        env = dict(os.environ, **unit_environment(), COMPANION_DATA_DIR=str(data),
                   COMPANION_HOST="127.0.0.1")
        env.pop("COMPANION_CONFIG", None)
        env.pop("COMPANION_CALIBRATION", None)
        if calibrated:
            profile = tray_profile(5, (1280, 960), Path(tmp) / "tray.json")
            env["COMPANION_CALIBRATION"] = str(profile)
        proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "run", "--camera", f"replay:{folder}?fps=15",
             "--port", str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        clients: list[Phone] = []
        try:
            assert proc.stdout is not None
            proc.stdout.readline()  # the banner: the server is up
            started = _memory(proc.pid)
            clients = [Phone(port, i) for i in range(phones)]
            for client in clients:
                client.start()
                client.ready.wait(20)
            time.sleep(len(frames) / 15.0 + 3.0)
            rss = _memory(proc.pid)
            pictures = min(len(c.stamps) for c in clients) if clients else 0
        finally:
            for client in clients:
                client.stop = True
            proc.terminate()
            proc.wait(timeout=20)
    return {"peak_mb": rss["VmHWM"], "now_mb": rss["VmRSS"], "start_mb": started["VmRSS"],
            "frames": len(frames), "pictures_per_phone": pictures}


def _memory(pid: int) -> dict[str, float]:
    status = Path(f"/proc/{pid}/status").read_text()
    return {k: int(v.split()[0]) / 1024 for k, v in
            (line.split(":", 1) for line in status.splitlines()) if k in ("VmHWM", "VmRSS")}


def settle_share(fps: float = 15.0) -> dict[str, float]:
    """CPU ms per lores frame of settle detection with the occlusion check, and its share."""
    from companion.vision.occlusion import OcclusionDetector
    from companion.vision.settle import SettleDetector

    cv2.setNumThreads(1)
    frames = [cv2.resize(f, (320, 240), interpolation=cv2.INTER_AREA)
              for f in evening(3, 3, (640, 480))]
    detector = SettleDetector(0.6, occlusion=OcclusionDetector())
    cpu0 = time.process_time()
    for i, frame in enumerate(frames * 3):
        detector.update(frame, i / fps, size=(2028, 1520))
    cpu_ms = (time.process_time() - cpu0) * 1000 / (3 * len(frames))
    return {"cpu_ms": cpu_ms, "share": cpu_ms * fps / 1000}


def rest_to_phone(phones: int, throws: int, calibrated: bool) -> dict[str, Any]:
    """From the frame that completes a rest to the last phone having the proposal (ms)."""
    from companion.app import Companion, default_recognizers, default_settle
    from companion.config import Settings
    from companion.store import Store
    from companion.table import Table
    from companion.web import create_app
    from companion.web.server import ServerThread, make_server

    latencies: list[float] = []
    reading: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        profile = tray_profile(7, (1280, 960), Path(tmp) / "tray.json") if calibrated else None
        settings = Settings(data_dir=Path(tmp), host="127.0.0.1", threads=40,
                            calibration=profile)
        with Store(settings.database) as store:
            table = Table(store)
            table.activate(table.create_game("schocken", PLAYERS, PIN))
            companion = Companion(table, default_recognizers(settings), default_settle(settings))
            app = create_app(table, settings, {"SECRET_KEY": "bench-" + "k" * 30})
            server = ServerThread(make_server(app, settings, host="127.0.0.1", port=0)).start()
            stamps: list[list[float]] = [[] for _ in range(phones)]
            clients = [Phone(server.port, i, stamps[i]) for i in range(phones)]
            for client in clients:
                client.start()
                client.ready.wait(20)
            time.sleep(0.5)
            frames = evening(7, throws, (1280, 960))
            start = time.perf_counter()
            for i, frame in enumerate(frames):
                due = start + i / 15.0
                time.sleep(max(0.0, due - time.perf_counter()))
                arrived = time.perf_counter()
                seen = [len(s) for s in stamps]
                if companion.process(frame, i / 15.0) is None:
                    continue
                reading.append((time.perf_counter() - arrived) * 1000)
                deadline = time.perf_counter() + 5
                while any(len(s) <= n for s, n in zip(stamps, seen, strict=True)):
                    if time.perf_counter() > deadline:
                        break
                    time.sleep(0.001)
                else:
                    latencies.append(
                        (max(s[n] for s, n in zip(stamps, seen, strict=True)) - arrived) * 1000)
            for client in clients:
                client.stop = True
            table.close()
            server.stop()
    return {"throws": len(latencies),
            "read_ms": statistics.median(reading) if reading else float("nan"),
            "median_ms": statistics.median(latencies) if latencies else float("nan"),
            "max_ms": max(latencies) if latencies else float("nan"),
            "each_ms": latencies, "reads_ms": reading}


def _ms(values: list[float]) -> str:
    return " ".join(f"{v:.0f}" for v in values) + " ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--phones", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=20.0, help="replay length for RSS")
    parser.add_argument("--throws", type=int, default=5, help="throws for rest to phone")
    parser.add_argument("--calibration", choices=("both", "yes", "no"), default="both",
                        help="measure 1 and 3 with the tray calibrated, without, or both")
    args = parser.parse_args()
    kinds = {"both": (True, False), "yes": (True,), "no": (False,)}[args.calibration]
    print(f"numpy {np.__version__}, OpenCV {cv2.__version__}; load average {load_average()}",
          flush=True)
    share = settle_share()
    print(f"settle detection, 320x240 lores at 15 fps: {share['cpu_ms']:.2f} ms CPU per frame "
          f"= {share['share'] * 100:.1f} % of one core (target ≤ 15 %)", flush=True)
    for calibrated in kinds:
        name = "tray calibrated" if calibrated else "no calibration"
        latency = rest_to_phone(args.phones, args.throws, calibrated)
        print(f"{name}: rest to {args.phones} phones: {latency['throws']} throws, median "
              f"{latency['median_ms']:.0f} ms, max {latency['max_ms']:.0f} ms (target ≤ 250 ms);"
              f" of it reading the rest (recogniser on the kept still frames): median "
              f"{latency['read_ms']:.0f} ms; load average {load_average()}", flush=True)
        print(f"  each throw, rest to the last phone: {_ms(latency['each_ms'])}; reading: "
              f"{_ms(latency['reads_ms'])} (the recogniser measures the die size on its "
              "first reads with dice and on every 50th)", flush=True)
    for calibrated in kinds:
        name = "tray calibrated" if calibrated else "no calibration"
        rss = peak_rss(args.phones, args.seconds, calibrated)
        print(f"{name}: companion run, replay camera 1280x960 at 15 fps ({rss['frames']} "
              f"frames), {args.phones} phones ({rss['pictures_per_phone']} pictures each): "
              f"peak RSS {rss['peak_mb']:.0f} MB (target ≤ 150 MB), {rss['start_mb']:.0f} MB "
              f"when the dashboard was up, {rss['now_mb']:.0f} MB at the end", flush=True)


if __name__ == "__main__":
    main()
