"""The package's layering: no import cycles between modules or between subpackages, and
the infrastructure layers never reach up into the estimators (docs/architecture.md)."""

import ast
import pathlib

import pytest

SRC = pathlib.Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "lowdim"


def _module_name(path):
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(importer, path, node):
    """The lowdim modules an ``ImportFrom`` node names (relative imports only)."""
    package = importer if path.name == "__init__.py" else importer.rsplit(".", 1)[0]
    base = package.split(".")[: len(package.split(".")) - node.level + 1]
    target = ".".join(base + ([node.module] if node.module else []))
    modules = []
    for alias in node.names:  # ``from . import _csv`` names a module, not a function
        candidate = f"{target}.{alias.name}"
        as_path = SRC.joinpath(*candidate.split("."))
        if as_path.with_suffix(".py").exists() or as_path.is_dir():
            modules.append(candidate)
    return modules or [target]


def import_graph():
    """module -> the lowdim modules it imports anywhere in its file (inside functions too)."""
    graph = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module_name(path)
        edges = graph.setdefault(name, set())
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                edges.update(m for m in _resolve(name, path, node) if m != name)
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lowdim."):
                edges.add(node.module)
    return graph


def _collapse(graph, depth):
    """The graph between the first ``depth`` parts of the names (2: subpackages)."""

    def key(name):
        return ".".join(name.split(".")[:depth])

    out = {}
    for a, targets in graph.items():
        out.setdefault(key(a), set()).update(key(b) for b in targets if key(b) != key(a))
    return out


def _cycle(graph):
    """One import cycle as a list of names, or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def _package_edges(graph):
    """Edges between modules, ignoring a package's ``__init__`` re-exporting its own modules."""
    return {a: {b for b in targets if not b.startswith(a + ".")} for a, targets in graph.items()}


def test_no_import_cycle_between_modules():
    assert _cycle(_package_edges(import_graph())) is None


def test_no_import_cycle_between_subpackages():
    assert _cycle(_collapse(import_graph(), 2)) is None


@pytest.mark.parametrize("layer", ["lowdim.linalg", "lowdim.neighbors", "lowdim.distributed", "lowdim._kernels"])
def test_infrastructure_does_not_import_estimators(layer):
    estimators = {
        "lowdim.cluster",
        "lowdim.decomposition",
        "lowdim.manifold",
        "lowdim.embedding",
        "lowdim.diffusion",
        "lowdim.cli",
        "lowdim.report",
    }
    reached = _collapse(import_graph(), 2).get(layer, set())
    assert not reached & estimators, f"{layer} imports {sorted(reached & estimators)}"


def test_the_cycle_finder_finds_cycles():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_packages_use_each_other_through_public_names():
    """A package reaches another only through names its ``__init__`` exports (the numba
    kernels, which each caller imports from the module it drives, excepted)."""
    crossings = []
    for name, targets in import_graph().items():
        own = ".".join(name.split(".")[:2])
        for target in targets:
            parts = target.split(".")
            private = len(parts) > 2 and parts[2].startswith("_")
            other = ".".join(parts[:2]) != own
            if other and private and parts[1] != "_kernels":
                crossings.append(f"{name} -> {target}")
    assert not crossings, crossings


# docs/architecture.md's layer table, top to bottom: a unit imports units of its own
# layer or of layers below it, never above (cycles inside a layer are the cycle test's)
LAYERS = (
    ("front ends", ("lowdim", "lowdim.cli", "lowdim.report", "lowdim.plot", "lowdim.anndata")),
    ("registry", ("lowdim.methods", "lowdim._memory_models")),
    ("files", ("lowdim.io", "lowdim.datasets")),
    ("applications", ("lowdim.images",)),
    ("composite estimators", ("lowdim.diffusion",)),
    (
        "estimators",
        ("lowdim.neural", "lowdim.cluster", "lowdim.embedding", "lowdim.manifold", "lowdim.decomposition"),
    ),
    ("preprocessing", ("lowdim.preprocessing", "lowdim._mixed_input")),
    ("quality", ("lowdim.metrics",)),
    ("infrastructure", ("lowdim.neighbors", "lowdim.linalg", "lowdim.distributed")),
    ("kernels", ("lowdim._kernels",)),
    (
        "shared",
        (
            "lowdim._exports",
            "lowdim._estimator",
            "lowdim._validation",
            "lowdim._params",
            "lowdim._random",
            "lowdim._iterative",
            "lowdim._threads",
            "lowdim._memory",
            "lowdim._warnings",
            "lowdim._messages",
            "lowdim._progress",
            "lowdim.exceptions",
            "lowdim._version",
        ),
    ),
)
RANK = {unit: rank for rank, (_, units) in enumerate(LAYERS) for unit in units}


def test_every_module_has_a_layer():
    assert sorted(set(_collapse(import_graph(), 2)) - set(RANK)) == []


def test_every_import_points_down_or_within_its_layer():
    upward = [
        f"{a} ({LAYERS[RANK[a]][0]}) -> {b} ({LAYERS[RANK[b]][0]})"
        for a, targets in _collapse(import_graph(), 2).items()
        for b in targets
        if RANK[b] < RANK[a]
    ]
    assert not upward, upward


def _unit_of(cell):
    """``cli/`` -> lowdim.cli, ``_validation.py`` -> lowdim._validation, ``lowdim`` -> lowdim."""
    name = cell.strip("`").removesuffix("/").removesuffix(".py")
    return "lowdim" if name == "lowdim" else f"lowdim.{name}"


def test_the_documents_layer_table_is_this_one():
    """The table in docs/architecture.md lists the same layers, in the same order, with the
    same packages and modules."""
    import re

    text = (SRC.parent / "docs" / "architecture.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| Layer")]
    documented = []
    for row in rows:
        layer, packages = (cell.strip() for cell in row.strip("|").split("|")[:2])
        documented.append((layer, tuple(_unit_of(cell) for cell in re.findall(r"`[^`]+`", packages))))
    assert documented == [(layer, tuple(units)) for layer, units in LAYERS]


def test_numba_is_imported_by_the_first_kernel_call_not_by_an_import():
    """docs/architecture.md: kernel modules are imported inside the functions that call
    them, so ``import lowdim`` imports neither scikit-learn nor numba, and importing every
    package and every public name still loads no numba."""
    import subprocess
    import sys

    code = (
        "import sys, importlib, lowdim\n"
        "assert 'sklearn' not in sys.modules and 'numba' not in sys.modules, 'import lowdim'\n"
        "import pkgutil\n"
        "for m in pkgutil.iter_modules(lowdim.__path__):\n"
        "    if not m.name.startswith('_') or m.name == '_kernels':\n"
        "        importlib.import_module('lowdim.' + m.name)\n"
        "for name in lowdim.__all__:\n"
        "    getattr(lowdim, name)\n"
        "assert 'numba' not in sys.modules, sorted(k for k in sys.modules if k.startswith('lowdim._kernels.'))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
