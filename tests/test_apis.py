"""The benchmark's I/O interfaces (POSIX, MPIIO, HDF5) are listed once, in ``iotune.records.APIS``.

Before: the set was typed again in records, the spec reader, the space check, the workload vocabulary and the
IOR reader, so a new interface (HDF5) meant finding every copy.
"""

import ast
from pathlib import Path

from iotune.records import APIS
from iotune.workload import BENCHMARK_API

SRC = Path(__file__).resolve().parents[1] / "src" / "iotune"


def _collections_of_strings(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        elements = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else \
            node.args if isinstance(node, ast.Call) else None  # f.choice("POSIX", "MPIIO") too
        if elements:
            values = {e.value for e in elements if isinstance(e, ast.Constant) and isinstance(e.value, str)}
            if len(values) == len(elements):
                yield node.lineno, values


def test_the_api_set_is_written_once():
    copies = [f"{path.relative_to(SRC)}:{line}" for path in sorted(SRC.rglob("*.py")) if path.name != "records.py"
              for line, values in _collections_of_strings(path) if set(APIS) <= values]
    # workload.INTERFACES names what an application calls (POSIX, STDIO, MPIIO, HDF5, ...): a wider set
    assert copies == ["workload.py:43"]


def test_every_interface_maps_to_a_benchmark_api():
    assert APIS == ("POSIX", "MPIIO", "HDF5")
    assert set(BENCHMARK_API.values()) <= set(APIS)
