"""The architecture holds: layers only point down (import-linter, contract in pyproject.toml), no import cycle."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_layers_point_down():
    pytest.importorskip("importlinter", reason="import-linter is a test dependency: pip install -e '.[test]'")
    from importlinter.cli import lint_imports

    assert lint_imports(config_filename=str(ROOT / "pyproject.toml")) == 0, "see the broken contract above"


def test_no_module_imports_itself_through_others():
    grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter")
    graph = grimp.build_graph("iotune", cache_dir=None)
    modules = sorted(graph.modules)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in modules}
    cycles = [component for component in _strongly_connected(modules, edges) if len(component) > 1]
    assert cycles == [], f"import cycles: {cycles}"


def _strongly_connected(nodes, edges):
    """Tarjan's algorithm, iterative."""
    index, low, on_stack, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(edges.get(root, ())))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges.get(child, ()))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                out.append(sorted(component))
    return out
