"""Drop-in, measured by the reference libraries' own tests: scikit-learn's and umap-learn's
test modules for lowdim's namesakes, run with the estimator imports swapped for lowdim's.

For each module: the reference's copy is rewritten (``from sklearn.cluster import
HDBSCAN`` -> ``from lowdim import HDBSCAN``; every other name still comes from the
reference), run by pytest in a scratch folder with a junit report, and each test
counted as passed, failed, skipped, or deliberate (failed, and listed with its reason
in ``peer_deliberate.txt``). A probe in the copied conftest records whether a test
builds (or is handed) a lowdim estimator: tests that do not (those of the reference's
own helper functions) are counted apart and left out of the pass rate.

scikit-learn's modules come from its installed copy. umap-learn's tests are in neither
its wheel nor its sdist: pass ``--umap-tests DIR``, a checkout of its repository (the
modules under ``DIR/umap/tests``). Not part of CI.
Run:  scripts/bench.sh peer [MODULE ...] [--umap-tests DIR]   (failures listed on stderr)
"""

import ast
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
# module (relative to the installed sklearn) -> the classes swapped for lowdim's
MODULES = {
    "cluster/tests/test_hdbscan.py": ("HDBSCAN",),
    "cluster/tests/test_spectral.py": ("SpectralClustering",),
    "cluster/tests/test_k_means.py": ("KMeans", "MiniBatchKMeans"),
    "decomposition/tests/test_pca.py": ("PCA",),
    "decomposition/tests/test_incremental_pca.py": ("IncrementalPCA",),
    "decomposition/tests/test_factor_analysis.py": ("FactorAnalysis",),
    "decomposition/tests/test_fastica.py": ("FastICA",),
    "decomposition/tests/test_kernel_pca.py": ("KernelPCA",),
    "decomposition/tests/test_nmf.py": ("NMF", "MiniBatchNMF", "non_negative_factorization"),
    "manifold/tests/test_isomap.py": ("Isomap",),
    "manifold/tests/test_locally_linear.py": ("LocallyLinearEmbedding",),
    "manifold/tests/test_mds.py": ("MDS",),
    "manifold/tests/test_spectral_embedding.py": ("SpectralEmbedding",),
    "manifold/tests/test_t_sne.py": ("TSNE",),
    "mixture/tests/test_gaussian_mixture.py": ("GaussianMixture",),
    "tests/test_discriminant_analysis.py": ("LinearDiscriminantAnalysis",),
}

# umap-learn's modules (under DIR/umap/tests) -> the classes swapped
UMAP_MODULES = {
    "test_umap_on_iris.py": ("UMAP",),
    "test_umap_ops.py": ("UMAP",),
    "test_umap_trustworthiness.py": ("UMAP",),
    "test_umap_validation_params.py": ("UMAP",),
    "test_umap_nn.py": ("UMAP",),
    "test_aligned_umap.py": ("AlignedUMAP", "UMAP"),
    "test_densmap.py": ("UMAP",),
    "test_umap_repeated_data.py": ("UMAP",),
    "test_data_input.py": ("UMAP",),
    "test_umap_get_feature_names_out.py": ("UMAP",),
}

HOMES = {"non_negative_factorization": "lowdim.decomposition"}  # names not exported at the top level

# Appended to the copied conftest: records, per test, whether a lowdim estimator was
# built during it or handed to it by a fixture (junit property "lowdim").
PROBE = """

import functools as _functools
import importlib as _importlib

import pytest as _pytest

_built = []


def _probe(name, home):
    module = _importlib.import_module(home)
    target = getattr(module, name)
    if isinstance(target, type):
        init = target.__init__

        @_functools.wraps(init)
        def wrapped(self, *args, **kwargs):
            _built.append(name)
            init(self, *args, **kwargs)

        target.__init__ = wrapped
        return target
    @_functools.wraps(target)
    def called(*args, **kwargs):
        _built.append(name)
        return target(*args, **kwargs)

    setattr(module, name, called)
    return None


_CLASSES = tuple(c for c in (_probe(n, h) for n, h in {homes!r}) if c is not None)


# Tests that reach a class through the reference's modules (manifold.Isomap, or _mds.MDS
# where the test imports the private module itself) get lowdim's too: those modules hold
# lowdim's class instead. Other private modules keep theirs, so the reference's own
# functions (scikit-learn's fastica()) still build the reference's class.
def _into_reference(package, private):
    import sys

    _importlib.import_module(package)
    for ours in _CLASSES:
        theirs = getattr(sys.modules[package], ours.__name__, None)
        if theirs is None or theirs is ours:
            continue
        for name, module in list(sys.modules.items()):
            public = not any(part.startswith("_") for part in name.split("."))
            if name.split(".")[0] != package.split(".")[0] or not (public or name in private):
                continue
            if getattr(module, ours.__name__, None) is theirs:
                setattr(module, ours.__name__, ours)


if _CLASSES:
    _into_reference({tested!r}, {private!r})


@_pytest.fixture(autouse=True)
def _lowdim_probe(request, record_property):
    _built.clear()
    yield
    handed = any(isinstance(v, _CLASSES) for v in request.node.funcargs.values())
    record_property("lowdim", bool(_built) or handed)
"""


def swapped(source, names, package="sklearn"):
    """The module's source with ``names`` imported from lowdim instead of ``package``
    (only ``from package... import`` statements are rewritten)."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == package:
            taken = [a for a in node.names if a.name in names]
            if not taken:
                continue
            kept = [a for a in node.names if a.name not in names]
            new = []
            if kept:
                parts = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in kept)
                new.append(f"from {node.module} import ({parts})")
            new += [
                f"from {HOMES.get(a.name, 'lowdim')} import {a.name}" + (f" as {a.asname}" if a.asname else "")
                for a in taken
            ]
            indent = " " * node.col_offset
            edits.append((node.lineno, node.end_lineno, "".join(f"{indent}{n}\n" for n in new)))
    for start, end, text in sorted(edits, reverse=True):
        lines[start - 1 : end] = [text]
    return "".join(lines)


def deliberate():
    """``test id -> reason`` from peer_deliberate.txt (``module::test<TAB>reason``)."""
    path = os.path.join(HERE, "peer_deliberate.txt")
    table = {}
    for line in open(path, encoding="utf-8"):
        if line.strip() and not line.startswith("#"):
            key, _, reason = line.rstrip("\n").partition("\t")
            table[key.strip()] = reason.strip()
    return table


def _nose_tools(folder):
    """``nose.tools``' assertions (umap-learn's older tests import them; nose does not run
    on current Python) as unittest's."""
    os.makedirs(os.path.join(folder, "nose"), exist_ok=True)
    open(os.path.join(folder, "nose", "__init__.py"), "w").close()
    with open(os.path.join(folder, "nose", "tools.py"), "w", encoding="utf-8") as fh:
        fh.write(
            "import unittest\n_case = unittest.TestCase()\n"
            "assert_equal, assert_raises, assert_true = _case.assertEqual, _case.assertRaises, _case.assertTrue\n"
            "assert_less, assert_greater, assert_in = _case.assertLess, _case.assertGreater, _case.assertIn\n"
            "assert_greater_equal, assert_less_equal = _case.assertGreaterEqual, _case.assertLessEqual\n"
        )


def _private_modules(source, package):
    """The reference's private modules a test imports as modules (``from
    sklearn.manifold import _mds as mds``)."""
    import importlib.util

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == package:
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                try:
                    is_module = alias.name.startswith("_") and importlib.util.find_spec(name) is not None
                except ModuleNotFoundError:  # a name inside a module, not a module
                    is_module = False
                if is_module:
                    found.append(name)
    return found


def _tested_package(path, package):
    """``sklearn.manifold`` for ``.../sklearn/manifold/tests/test_isomap.py``."""
    parts = os.path.normpath(path).split(os.sep)
    start = len(parts) - 1 - parts[::-1].index(package)
    return ".".join(parts[start : parts.index("tests", start)])


def run_module(path, names, folder, conftest, package="sklearn"):
    """Run the reference's test module at ``path`` (its fixtures from ``conftest``) with
    ``names`` taken from lowdim (none: the reference itself); returns the junit report."""
    homes = [(n, HOMES.get(n, "lowdim")) for n in names]
    _nose_tools(folder)
    source = open(path, encoding="utf-8").read()
    probe = PROBE.format(homes=homes, tested=_tested_package(path, package), private=_private_modules(source, package))
    with open(os.path.join(folder, "conftest.py"), "w", encoding="utf-8") as fh:
        fh.write(swapped(open(conftest, encoding="utf-8").read(), set(names), package) + probe)
    name = os.path.basename(path)
    with open(os.path.join(folder, name), "w", encoding="utf-8") as fh:
        fh.write(swapped(open(path, encoding="utf-8").read(), set(names), package))
    report = os.path.join(folder, name + ".xml")
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "junit_family=xunit1", name]
        + [f"--junitxml={report}"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    return report


def _cases(report, module):
    """``(test id, failed, skipped, built a lowdim estimator)`` per test of a junit report."""
    for case in ET.parse(report).getroot().iter("testcase"):
        probe = [p.get("value") for p in case.iter("property") if p.get("name") == "lowdim"]
        failed = case.find("failure") is not None or case.find("error") is not None
        yield f"{module}::{case.get('name')}", failed, case.find("skipped") is not None, probe == ["True"]


def _counts(report, module, reference_failures=frozenset()):
    listed = deliberate()
    counts = dict.fromkeys(COLUMNS, 0)
    failures = []
    for test, failed, skipped, built in _cases(report, module):
        if skipped:
            counts["skipped"] += 1
        elif failed and test in reference_failures:
            counts["reference"] += 1  # fails on the reference library too
        elif not built and not failed:
            counts["other"] += 1  # the reference's own helpers: no lowdim estimator involved
        elif failed:
            if test in listed or test.split("[")[0] in listed:
                counts["deliberate"] += 1
            else:
                counts["failed"] += 1
                failures.append(test)
        else:
            counts["passed"] += 1
    return counts, failures


def _modules(argv):
    """``(path, names, conftest, package)`` of every module to run (``argv``: module
    names to keep, and ``--umap-tests DIR``)."""
    import sklearn

    keep = [a for a in argv if not a.startswith("--") and not os.path.isdir(a)]
    root = os.path.dirname(sklearn.__file__)
    chosen = [(os.path.join(root, m), MODULES[m], os.path.join(root, "conftest.py"), "sklearn") for m in MODULES]
    if "--umap-tests" in argv:
        tests = os.path.join(argv[argv.index("--umap-tests") + 1], "umap", "tests")
        chosen += [
            (os.path.join(tests, m), names, os.path.join(tests, "conftest.py"), "umap")
            for m, names in UMAP_MODULES.items()
            if os.path.exists(os.path.join(tests, m))
        ]
    return [c for c in chosen if not keep or os.path.basename(c[0])[:-3] in keep]


COLUMNS = ("passed", "failed", "deliberate", "skipped", "other", "reference")


def _row(name, counts):
    ran = counts["passed"] + counts["failed"] + counts["deliberate"]
    rate = (counts["passed"] + counts["deliberate"]) / ran if ran else float("nan")
    return f"| {name} | " + " | ".join(str(counts[k]) for k in COLUMNS) + f" | {rate:.1%} |"


def main(argv):
    total = dict.fromkeys(COLUMNS, 0)
    print(
        "| module | passed | failed | deliberate | skipped | no lowdim estimator | fails on the reference | pass rate |"
    )
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for path, names, conftest, package in _modules(argv):
            module = os.path.basename(path)[:-3]
            reference = set()
            if package == "umap":  # tests from the repository, not the installed release: run them on it first
                own = run_module(path, (), folder, conftest, package)
                reference = {test for test, failed, _, _ in _cases(own, module) if failed}
            report = run_module(path, names, folder, conftest, package)
            counts, failures = _counts(report, module, reference)
            for k in total:
                total[k] += counts[k]
            print(_row(("umap-learn " if package == "umap" else "") + module + ".py", counts), flush=True)
            print("\n".join(f"  failed: {f}" for f in failures), file=sys.stderr, flush=True)
    print(_row("all", total))


if __name__ == "__main__":
    main(sys.argv[1:])
