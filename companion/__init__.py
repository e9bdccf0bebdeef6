"""Dice Companion: reads dice on a pub table and keeps score.

Data flows one way: frames -> recognition -> game events -> log -> views. The packages
own one stage each: :mod:`.hardware` (every frame source, the button), :mod:`.vision`
(dice in a frame), :mod:`.games` (pure rules), :mod:`.domain` (entries, the fold, game
logs), :mod:`.table` (what the dashboard talks to), :mod:`.web` (the dashboard),
:mod:`.commands` (the command line), :mod:`.synth` (frames made for tests). The
registry (:mod:`.registry`) names every game and what it plugs in; :mod:`.app` is the
composition root.
"""

__version__ = "0.1.0"
