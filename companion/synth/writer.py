"""Play the events of a camera sequence frame by frame, and keep the truth about them.

A :class:`Writer` plays *events* frame by frame on a *stage* (an empty tray and die
sprites, :mod:`companion.synth.stage`), with the hands, cups and coasters of
:mod:`companion.synth.occluders`; :func:`occluder` plays one of ``OCCLUDERS``:

- ``throw``: a hand comes in, dice tumble in (blurred, turning) and come to rest;
  ``keep`` dice of the last rest may stay where they lay (Schocken's kept-aside dice);
- ``hidden``: the dice are thrown under a dice cup that stays upside down in the tray,
  then the cup is lifted and shows them (or, ``stay``, it is left standing until
  ``lift``; ``take`` clears the dice beside it);
- ``start_with``: a hand, cup or coaster already lies in the tray at the first frame;
- ``pass``: a hand passes over the tray without stopping;
- ``rest``: a hand (and forearm, bare or in a sleeve) reaches in and rests 1-2 s;
- ``cup``: a dice cup is put upside down over the dice, stays, and is lifted again;
- ``coaster``: a beer mat is slid in, lies there, and is slid out;
- ``phone``: a phone is laid at one end of the tray, face up or face down, and taken
  away again (or, ``stay``, left lying until ``take_phone``); not one of ``OCCLUDERS``,
  so the evenings those write stay as they were;
- ``shadow``: a shadow sweeps in, stays a moment, and goes;
- ``nudge``: a finger pushes one die by a fraction of its edge.

Hands come in several skin tones, with and without sleeves, quick and slow. Every
frame gets fresh sensor noise and a slight gain flicker. ``Writer.write`` stores the
folder format of ``companion eval throws`` (``frames/``, ``sequence.json``,
``expected.json``) plus ``script.json`` (the events with their frames and the Schocken
turns, for tests).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from companion.synth.occluders import (
    COASTER_COLOURS,
    CUP_COLOURS,
    PHONE_BACKS,
    PHONE_EDGES,
    SKIN_TONES,
    SLEEVES,
    HandLook,
    draw_coaster,
    draw_cup,
    draw_hand,
    draw_phone,
    phone_corners,
)
from companion.synth.stage import Placed, Stage, paste


@dataclass
class Writer:
    """Collects frames of one sequence and the truth about them."""

    stage: Stage
    rng: np.random.Generator
    fps: float
    noise: float = 2.0
    frames: list[np.ndarray] = field(default_factory=list)
    expected: list[dict] = field(default_factory=list)
    events: list[dict] = field(default_factory=list)
    dice: list[Placed] = field(default_factory=list)
    # A cup left upside down in the tray (centre, colour) over the dice ``under`` it.
    cup_over: tuple[tuple[float, float], tuple[int, int, int]] | None = None
    under: list[Placed] = field(default_factory=list)
    # A beer mat left lying in the tray (centre, colour, square, ink), by ``coaster(stay)``.
    mat: tuple[tuple[float, float], tuple[int, int, int], bool, tuple[int, int, int]] | None = None
    # A phone left lying in the tray (centre, angle, face down, back), by ``phone(stay)``.
    phone_lying: tuple[tuple[float, float], float, bool, tuple[int, int, int]] | None = None

    def scene(self) -> np.ndarray:
        canvas = self.stage.background.copy()
        if self.mat is not None:
            draw_coaster(canvas, self.mat[0], self.stage.edge, *self.mat[1:])
        if self.phone_lying is not None:
            draw_phone(canvas, self.phone_lying[0], self.stage.edge, *self.phone_lying[1:])
        for d in self.dice:
            paste(canvas, d.sprite, d.x, d.y, d.turns)
        if self.cup_over is not None:
            draw_cup(canvas, self.cup_over[0], self.stage.edge, self.cup_over[1])
        return canvas

    def emit(self, canvas: np.ndarray, count: int = 1) -> None:
        for _ in range(count):
            gain = float(self.rng.normal(1.0, 0.006))
            noisy = canvas * gain + self.rng.normal(0, self.noise, canvas.shape).astype(np.float32)
            self.frames.append(np.clip(noisy + 0.5, 0, 255).astype(np.uint8))

    def seconds(self, s: float) -> int:
        return max(1, int(round(s * self.fps)))

    def hold(self, seconds: float) -> None:
        self.emit(self.scene(), self.seconds(seconds))

    def look(self) -> HandLook:
        skin = SKIN_TONES[int(self.rng.integers(len(SKIN_TONES)))]
        sleeve = SLEEVES[int(self.rng.integers(len(SLEEVES)))]
        return HandLook(skin, sleeve, float(self.rng.uniform(0.85, 1.15)))

    def entry(self) -> tuple[float, float]:
        h, w = self.stage.background.shape[:2]
        side = int(self.rng.integers(3))  # bottom, left, right: where the players sit
        if side == 0:
            return (float(self.rng.uniform(0.2, 0.8) * w), h * 1.3)
        if side == 1:
            return (-0.3 * w, float(self.rng.uniform(0.3, 0.9) * h))
        return (w * 1.3, float(self.rng.uniform(0.3, 0.9) * h))

    def spot(self, avoid: Sequence[Placed], gap: float = 1.8) -> tuple[float, float]:
        x0, y0, x1, y1 = self.stage.area
        e = self.stage.edge
        standing = [thing[0] for thing in (self.cup_over, self.mat) if thing is not None]
        for _ in range(400):
            x, y = float(self.rng.uniform(x0, x1)), float(self.rng.uniform(y0, y1))
            # Not under (nor against) a cup left standing, nor on a beer mat left lying.
            if any(math.hypot(x - cx, y - cy) < 4.5 * e for cx, cy in standing):
                continue
            if self.phone_lying is not None and cv2.pointPolygonTest(
                phone_corners(self.phone_lying[0], e, self.phone_lying[1]), (x, y), True
            ) > -1.0 * e:
                continue  # nor on (nor against) a phone left lying
            if all(math.hypot(x - d.x, y - d.y) > gap * e for d in avoid):
                return x, y
        raise RuntimeError("no free spot for a die; the tray area is too small")

    def new_die(self, avoid: Sequence[Placed], value: int | None = None) -> Placed:
        if value is None:
            value = int(self.rng.integers(1, 7))
        pool = self.stage.sprites[value]
        sprite = pool[int(self.rng.integers(len(pool)))]
        x, y = self.spot(avoid)
        return Placed(sprite, x, y, int(self.rng.integers(4)))

    def _hand_path(self, look: HandLook, tip: tuple[float, float], entry: tuple[float, float],
                   frames: int, back: bool, finger: bool = False) -> None:
        base = self.scene()
        for k in range(frames):
            t = (k + 1) / frames
            t = 1 - t if back else t
            pos = (entry[0] + (tip[0] - entry[0]) * t, entry[1] + (tip[1] - entry[1]) * t)
            canvas = base.copy()
            draw_hand(canvas, look, pos, entry, self.stage.edge, finger)
            self.emit(canvas)

    # -- events -----------------------------------------------------------------

    def throw(self, keep: int = 0, quick: bool = True, n: int = 3,
              values: Sequence[int] | None = None) -> None:
        """Throw ``n - keep`` dice (the others stay where they lay); ``values`` fixes what
        the thrown dice show (``n - keep`` pip values), else they are drawn at random."""
        if values is not None and len(values) != n - keep:
            raise ValueError(f"{n - keep} dice are thrown, {len(values)} values given")
        start = len(self.frames)
        kept = list(self.rng.choice(len(self.dice), keep, replace=False)) if keep else []
        stay = [self.dice[int(i)] for i in kept]
        old = list(self.dice)
        new = list(stay)
        for k in range(n - keep):
            new.append(self.new_die(old + new, None if values is None else int(values[k])))
        flying = new[keep:]
        look, entry = self.look(), self.entry()
        frames = int(self.rng.integers(3, 5)) if quick else int(self.rng.integers(7, 11))
        self.dice = stay
        base = self.scene()
        e = self.stage.edge
        for k in range(frames):
            t = (k + 1) / (frames + 1)
            canvas = base.copy()
            for d in flying:
                x = entry[0] + (d.x - entry[0]) * (0.45 + 0.55 * t) + self.rng.normal(0, e * 0.3)
                y = entry[1] + (d.y - entry[1]) * (0.45 + 0.55 * t) + self.rng.normal(0, e * 0.3)
                paste(canvas, d.sprite, x, y, int(self.rng.integers(4)), blur=int(e * 0.4))
            if k < frames // 2 + 1:
                tip = (entry[0] + (d.x - entry[0]) * 0.35, entry[1] + (d.y - entry[1]) * 0.35)
                draw_hand(canvas, look, tip, entry, e)
            self.emit(canvas)
        self.dice = new
        self.expected.append({"frame": len(self.frames), "values": self.values()})
        self.events.append({"event": "throw", "start": start, "frame": len(self.frames),
                            "keep": keep, "values": self.values(), "sources": self.sources(),
                            "quick": quick})

    def hidden(self, hold_seconds: float = 3.0, stay: bool = False,
               colour: tuple[int, int, int] | None = None) -> None:
        """Dice thrown under the cup: the cup stays upside down, then is lifted.

        With ``stay`` the cup is left standing over them (the round's first player keeps
        the third throw hidden) until :meth:`lift`; the next throws land beside it.
        ``colour`` is the cup's (BGR; by default one of ``CUP_COLOURS``, all darker than a
        tray's floor).
        """
        start = len(self.frames)
        e = self.stage.edge
        if colour is None:
            colour = CUP_COLOURS[int(self.rng.integers(len(CUP_COLOURS)))]
        centre = self.spot([], 0)
        x0, y0, x1, y1 = self.stage.area
        centre = (min(max(centre[0], x0 + 2 * e), x1 - 2 * e),
                  min(max(centre[1], y0 + 2 * e), y1 - 2 * e))
        new: list[Placed] = []
        turn = float(self.rng.uniform(0, 2 * math.pi))
        for k in range(3):
            # Apart (1.5 edges) and under the cup (2.8 edges): on a triangle 1.2 edges
            # from its middle, each shaken a little.
            a = turn + k * 2 * math.pi / 3 + float(self.rng.uniform(-0.3, 0.3))
            r = float(self.rng.uniform(1.05, 1.35)) * e
            x, y = centre[0] + r * math.cos(a), centre[1] + r * math.sin(a)
            value = int(self.rng.integers(1, 7))
            pool = self.stage.sprites[value]
            new.append(Placed(pool[int(self.rng.integers(len(pool)))], x, y,
                              int(self.rng.integers(4))))
        look, entry = self.look(), self.entry()
        self.dice = []
        empty = self.scene()
        for k in range(4):  # the cup comes down over the tray
            canvas = empty.copy()
            draw_cup(canvas, centre, e, colour, height=(3 - k) / 3 * 1.5)
            draw_hand(canvas, look, (centre[0], centre[1]), entry, e)
            self.emit(canvas)
        self.dice = new
        self.cup_over = (centre, colour)
        self._hand_path(look, centre, entry, 3, back=True)  # the hand lets go
        cover_frame = len(self.frames)
        self.hold(hold_seconds)
        if stay:
            self.under, self.dice = new, []
            self.events.append({"event": "hidden", "start": start, "covered": cover_frame,
                                "values": sorted(d.value for d in new), "stay": True})
            return
        self.cup_over = None
        base = self.scene()
        for k in range(3):  # lifted
            canvas = base.copy()
            draw_cup(canvas, centre, e, colour, height=(k + 1) / 3 * 1.5)
            draw_hand(canvas, look, centre, entry, e)
            self.emit(canvas)
        self._hand_path(look, centre, entry, 3, back=True)
        self.expected.append({"frame": len(self.frames), "values": self.values()})
        self.events.append({"event": "hidden", "start": start, "covered": cover_frame,
                            "frame": len(self.frames), "values": self.values(),
                            "sources": self.sources()})

    def lift(self) -> None:
        """Lift the cup left standing by ``hidden(stay=True)``: its dice are shown."""
        if self.cup_over is None:
            raise ValueError("no cup is standing in the tray")
        (centre, colour), e = self.cup_over, self.stage.edge
        look, entry = self.look(), self.entry()
        start = len(self.frames)
        self._hand_path(look, centre, entry, 3, back=False)
        self.cup_over, self.dice, self.under = None, self.dice + self.under, []
        base = self.scene()
        for k in range(3):
            canvas = base.copy()
            draw_cup(canvas, centre, e, colour, height=(k + 1) / 3 * 1.5)
            draw_hand(canvas, look, centre, entry, e)
            self.emit(canvas)
        self._hand_path(look, centre, entry, 3, back=True)
        self.expected.append({"frame": len(self.frames), "values": self.values()})
        self.events.append({"event": "lift", "start": start, "frame": len(self.frames),
                            "values": self.values(), "sources": self.sources()})

    def take(self) -> None:
        """A hand takes the dice out of the tray (a cup left standing stays)."""
        look, entry = self.look(), self.entry()
        start = len(self.frames)
        tip = (self.dice[0].x, self.dice[0].y) if self.dice else self.spot([], 0)
        self._hand_path(look, tip, entry, 4, back=False)
        self.dice = []
        self._hand_path(look, tip, entry, 4, back=True)
        self.events.append({"event": "take", "start": start, "end": len(self.frames)})

    def pass_over(self) -> None:
        look, entry = self.look(), self.entry()
        h, w = self.stage.background.shape[:2]
        start = len(self.frames)
        exit_ = (w - entry[0], entry[1]) if entry[1] < h else (entry[0], -0.3 * h)
        base = self.scene()
        frames = int(self.rng.integers(4, 8))
        for k in range(frames):
            t = (k + 1) / (frames + 1)
            tip = (w / 2 + (exit_[0] - entry[0]) * (t - 0.5) * 0.6,
                   h / 2 + (exit_[1] - entry[1]) * (t - 0.5) * 0.6)
            canvas = base.copy()
            draw_hand(canvas, look, tip, entry, self.stage.edge)
            self.emit(canvas)
        self.events.append({"event": "pass", "start": start, "end": len(self.frames)})

    def rest(self, seconds: float, quick: bool = True) -> None:
        look, entry = self.look(), self.entry()
        tip = self.spot([], 0)
        start = len(self.frames)
        n = 3 if quick else 7
        self._hand_path(look, tip, entry, n, back=False)
        canvas = self.scene()
        draw_hand(canvas, look, tip, entry, self.stage.edge)
        still = len(self.frames)
        self.emit(canvas, self.seconds(seconds))
        self._hand_path(look, tip, entry, n, back=True)
        self.events.append({"event": "rest", "start": start, "still": still,
                            "end": len(self.frames)})

    def cup(self, seconds: float) -> None:
        """A cup put upside down over the dice (or beside them), then lifted."""
        e = self.stage.edge
        colour = CUP_COLOURS[int(self.rng.integers(len(CUP_COLOURS)))]
        if self.dice:
            d = self.dice[int(self.rng.integers(len(self.dice)))]
            centre = (d.x, d.y)
        else:
            centre = self.spot([], 0)
        look, entry = self.look(), self.entry()
        start = len(self.frames)
        base = self.scene()
        for k in range(4):
            canvas = base.copy()
            draw_cup(canvas, centre, e, colour, height=(3 - k) / 3 * 1.5)
            draw_hand(canvas, look, centre, entry, e)
            self.emit(canvas)
        covered = base.copy()
        draw_cup(covered, centre, e, colour)
        still = len(self.frames)
        self.emit(covered, self.seconds(seconds))
        for k in range(4):
            canvas = base.copy()
            draw_cup(canvas, centre, e, colour, height=(k + 1) / 4 * 1.5)
            draw_hand(canvas, look, centre, entry, e)
            self.emit(canvas)
        self.events.append({"event": "cup", "start": start, "still": still,
                            "end": len(self.frames)})

    def coaster(self, seconds: float, stay: bool = False,
                colour: tuple[int, int, int] | None = None,
                square: bool | None = None) -> None:
        """A beer mat slid in beside the dice, left ``seconds``, slid out again; with
        ``stay`` it is left lying (``mat``) and only the hand goes. ``colour`` (BGR) and
        ``square`` are drawn at random unless given (the draws are made either way, so a
        seed gives the same throws)."""
        e = self.stage.edge
        h, w = self.stage.background.shape[:2]
        drawn_square = bool(self.rng.integers(2))
        drawn_colour = COASTER_COLOURS[int(self.rng.integers(len(COASTER_COLOURS)))]
        square = drawn_square if square is None else square
        colour = drawn_colour if colour is None else colour
        ink = ((40, 40, 170), (120, 60, 20), (30, 110, 30))[int(self.rng.integers(3))]
        target = self.spot(self.dice, 4.0) if len(self.dice) < 6 else self.spot([], 0)
        start = len(self.frames)
        still = self._slide(
            lambda canvas, at: draw_coaster(canvas, at, e, colour, square, ink),
            target, h + 4 * e, seconds, stay, 3.0 * e,
        )
        if stay:
            self.mat = (target, colour, square, ink)
        self.events.append({"event": "coaster", "start": start, "still": still,
                            "end": len(self.frames)})

    def _slide(self, draw: Callable[[np.ndarray, tuple[float, float]], None],
               target: tuple[float, float], from_y: float, seconds: float, stay: bool,
               reach: float, look: HandLook | None = None) -> int:
        """A hand slides a flat thing (``draw(canvas, centre)``) in from below the frame
        (``from_y``) to ``target``, leaves it ``seconds`` and slides it out again; with
        ``stay`` only the hand goes. The fingertips are ``reach`` pixels below the
        thing's centre. ``look`` is the hand's (None: drawn afresh each frame, as the
        beer mat's always was, so old seeds give the same frames). Returns the first
        frame the thing lies still in."""
        e, h = self.stage.edge, self.stage.background.shape[0]
        base = self.scene()
        frames = 5
        still: int | None = None
        for k in list(range(frames)) + [-1] + list(range(frames - 1, -1, -1)):
            if k == -1:
                canvas = base.copy()
                draw(canvas, target)
                still = len(self.frames)
                self.emit(canvas, self.seconds(seconds))
                continue
            t = (k + 1) / frames
            pos = (target[0], from_y + (target[1] - from_y) * t)
            canvas = base.copy()
            draw(canvas, target if stay and still is not None else pos)
            tip = (pos[0], pos[1] + reach)
            draw_hand(canvas, self.look() if look is None else look, tip, (tip[0], h * 1.5), e,
                      finger=True)
            self.emit(canvas)
        assert still is not None
        return still

    def phone(self, seconds: float, stay: bool = False, face_down: bool | None = None,
              back: tuple[int, int, int] | None = None) -> None:
        """A phone laid at the end of the tray farther from the dice (its long side across
        the tray), left ``seconds`` and taken away; with ``stay`` it is left lying
        (``phone_lying``) until :meth:`take_phone`. ``face_down`` and ``back`` are drawn at
        random unless given (the draws are made either way)."""
        e = self.stage.edge
        h = self.stage.background.shape[0]
        drawn_down = bool(self.rng.integers(2))
        drawn_back = PHONE_BACKS[int(self.rng.integers(len(PHONE_BACKS)))]
        face_down = drawn_down if face_down is None else face_down
        back = drawn_back if back is None else back
        x0, y0, x1, y1 = self.stage.area
        margin = PHONE_EDGES[0] / 2 * e + 0.3 * e
        mean_x = float(np.mean([d.x for d in self.dice])) if self.dice else x1
        target = (x0 + margin if mean_x > (x0 + x1) / 2 else x1 - margin, (y0 + y1) / 2)
        angle = 90.0 + float(self.rng.uniform(-8, 8))
        start = len(self.frames)
        still = self._slide(
            lambda canvas, at: draw_phone(canvas, at, e, angle, face_down, back),
            target, h + 5 * e, seconds, stay, PHONE_EDGES[1] / 2 * e, self.look(),
        )
        if stay:
            self.phone_lying = (target, angle, face_down, back)
        self.events.append({"event": "phone", "start": start, "still": still,
                            "end": len(self.frames), "face_down": face_down})

    def take_phone(self) -> None:
        """A hand takes away the phone left lying by ``phone(stay=True)``."""
        if self.phone_lying is None:
            raise ValueError("no phone is lying in the tray")
        centre, angle, face_down, back = self.phone_lying
        e, h = self.stage.edge, self.stage.background.shape[0]
        self.phone_lying = None
        base = self.scene()
        start = len(self.frames)
        look = self.look()
        for k in range(6):
            pos = (centre[0], centre[1] + (h + 5 * e - centre[1]) * k / 5)
            canvas = base.copy()
            draw_phone(canvas, pos, e, angle, face_down, back)
            tip = (pos[0], pos[1] + PHONE_EDGES[1] / 2 * e)
            draw_hand(canvas, look, tip, (tip[0], h * 1.5), e, finger=True)
            self.emit(canvas)
        self.events.append({"event": "phone-taken", "start": start, "end": len(self.frames)})

    def shadow(self, seconds: float) -> None:
        h, w = self.stage.background.shape[:2]
        start = len(self.frames)
        base = self.scene()
        mask: np.ndarray = np.zeros((h, w), np.float32)
        cv2.ellipse(mask, (0, 0), (int(w * 0.7), int(h * 0.55)), 20, 0, 360, 1.0, -1)
        mask = cv2.GaussianBlur(mask, (0, 0), w * 0.04)[:, :, None]
        for k in list(range(1, 6)) + [0] + list(range(5, 0, -1)):
            shift = np.roll(mask, (-int(h * 0.1 * (5 - k)) if k else 0,
                                   -int(w * 0.1 * (5 - k)) if k else 0), axis=(0, 1))
            canvas = base * (1.0 - 0.45 * shift)
            self.emit(canvas, self.seconds(seconds) if k == 0 else 1)
        self.events.append({"event": "shadow", "start": start, "end": len(self.frames)})

    def nudge(self) -> None:
        if not self.dice:
            return
        i = int(self.rng.integers(len(self.dice)))
        d = self.dice[i]
        e = self.stage.edge
        look, entry = self.look(), self.entry()
        start = len(self.frames)
        self._hand_path(look, (d.x, d.y + 0.3 * e), entry, 4, back=False, finger=True)
        a = float(self.rng.uniform(0, 2 * math.pi))
        step = float(self.rng.uniform(0.15, 0.3)) * e
        self.dice[i] = Placed(d.sprite, d.x + step * math.cos(a), d.y + step * math.sin(a),
                              d.turns)
        self._hand_path(look, (d.x, d.y + 0.3 * e), entry, 4, back=True, finger=True)
        self.events.append({"event": "nudge", "start": start, "end": len(self.frames),
                            "moved_edges": round(step / e, 3)})

    def start_with(self, kind: str, seconds: float) -> None:
        """Begin the sequence with an occluder already lying still in the tray (a hand
        resting, a cup upside down, a coaster) when the camera starts; then it leaves.

        Only as the first event: the frames before the occluder lay still are dropped,
        so the first frame the camera sees has it in the tray.
        """
        if self.frames or self.expected:
            raise ValueError("start_with must be the first event of a sequence")
        if kind not in STARTERS:
            raise ValueError(f"unknown start-up occluder {kind!r}; use one of {STARTERS}")
        {"rest": self.rest, "cup": self.cup, "coaster": self.coaster}[kind](seconds)
        event = self.events[-1]
        cut = event["still"]
        del self.frames[:cut]
        self.events[-1] = {"event": f"start-{kind}", "start": 0, "still": 0,
                           "end": event["end"] - cut}

    def values(self) -> list[int]:
        return sorted(d.value for d in self.dice)

    def sources(self) -> list[str]:
        """Where each die in the tray was cut from (``Sprite.source``), in ``values``'
        order: a reading gone wrong can be traced to its photo and label line."""
        return [d.sprite.source for d in sorted(self.dice, key=lambda d: d.value)]

    def write(self, folder: Path, quality: int = 85, turns: list[dict] | None = None) -> None:
        """Store the sequence: frames/, sequence.json, expected.json, script.json."""
        frames = folder / "frames"
        frames.mkdir(parents=True, exist_ok=True)
        for i, image in enumerate(self.frames):
            cv2.imwrite(str(frames / f"{i:05d}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        (folder / "sequence.json").write_text(
            json.dumps({"fps": self.fps, "frames": len(self.frames)}) + "\n")
        (folder / "expected.json").write_text(json.dumps(self.expected, indent=1) + "\n")
        (folder / "script.json").write_text(
            json.dumps({"events": self.events, "turns": turns or []}, indent=1) + "\n")


OCCLUDERS = ("pass", "rest", "cup", "coaster", "shadow", "nudge")
# What may already lie in the tray when the camera starts (``Writer.start_with``).
STARTERS = ("rest", "cup", "coaster")


def occluder(w: Writer, kind: str) -> None:
    """Play one occluder event of ``kind`` (one of ``OCCLUDERS``), then a quiet second."""
    if kind == "pass":
        w.pass_over()
    elif kind == "rest":
        w.rest(float(w.rng.uniform(1.0, 2.0)), quick=bool(w.rng.integers(2)))
    elif kind == "cup":
        w.cup(float(w.rng.uniform(1.2, 2.5)))
    elif kind == "coaster":
        w.coaster(float(w.rng.uniform(1.0, 2.0)))
    elif kind == "shadow":
        w.shadow(float(w.rng.uniform(1.0, 2.0)))
    elif kind == "nudge":
        w.nudge()
    else:
        raise ValueError(f"unknown occluder {kind!r}; use one of {', '.join(OCCLUDERS)}")
    w.hold(1.0)
