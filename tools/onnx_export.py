"""Write a hand-built ONNX graph the way every model of this project is shipped.

Shared by ``tools/train_pipnet.py`` and ``tools/train_spotter.py``: opset 11 and IR
version 6, which the ONNX reader bundled with OpenCV 4.6 (Debian 12, the Pi) knows;
the graph is checked before it is written.
"""

from __future__ import annotations

from pathlib import Path

import onnx
from onnx import helper


def save_graph(
    nodes: list,
    inits: list,
    name: str,
    inputs: list,
    outputs: list,
    producer: str,
    path: Path,
) -> None:
    """Check the graph made of ``nodes`` and initialisers ``inits`` and save it at ``path``."""
    graph = helper.make_graph(nodes, name, inputs, outputs, inits)
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
    proto.ir_version = 6  # what OpenCV 4.6's bundled ONNX reader knows
    proto.producer_name = producer
    onnx.checker.check_model(proto)
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(proto, str(path))
