"""Drop-in, measured by the reference libraries' own tests: scikit-learn's test modules
for lowdim's namesakes, run with the estimator imports swapped for lowdim's.

For each module: the installed copy is rewritten (``from sklearn.cluster import
HDBSCAN`` -> ``from lowdim import HDBSCAN``; every other name still comes from
scikit-learn), run by pytest in a scratch folder with a junit report, and each test
counted as passed, failed, skipped, or deliberate (failed, and listed with its reason
in ``peer_deliberate.txt``). umap-learn's tests are not in its wheel, so they
are not run here. Not part of CI.
Run:  scripts/bench.sh peer [MODULE ...]     (MODULE: e.g. test_hdbscan; failures listed on stderr)
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

HOMES = {"non_negative_factorization": "lowdim.decomposition"}  # names not exported at the top level


def swapped(source, names):
    """The module's source with ``names`` imported from lowdim instead of scikit-learn
    (only ``from sklearn... import`` statements are rewritten)."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sklearn"):
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


def run_module(relative, names, folder):
    import shutil

    import sklearn

    root = os.path.dirname(sklearn.__file__)
    shutil.copy(os.path.join(root, "conftest.py"), os.path.join(folder, "conftest.py"))  # its fixtures
    source = open(os.path.join(root, relative), encoding="utf-8").read()
    name = os.path.basename(relative)
    with open(os.path.join(folder, name), "w", encoding="utf-8") as fh:
        fh.write(swapped(source, set(names)))
    report = os.path.join(folder, name + ".xml")
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", name, f"--junitxml={report}"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    return _counts(report, name[:-3])


def _counts(report, module):
    listed = deliberate()
    counts = {"passed": 0, "failed": 0, "deliberate": 0, "skipped": 0}
    failures = []
    for case in ET.parse(report).getroot().iter("testcase"):
        test = f"{module}::{case.get('name')}"
        if case.find("skipped") is not None:
            counts["skipped"] += 1
        elif case.find("failure") is not None or case.find("error") is not None:
            base = test.split("[")[0]
            if test in listed or base in listed:
                counts["deliberate"] += 1
            else:
                counts["failed"] += 1
                failures.append(test)
        else:
            counts["passed"] += 1
    return counts, failures


def main(argv):
    chosen = [m for m in MODULES if not argv or os.path.basename(m)[:-3] in argv]
    total = {"passed": 0, "failed": 0, "deliberate": 0, "skipped": 0}
    print("| module | passed | failed | deliberate | skipped | pass rate |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for relative in chosen:
            counts, failures = run_module(relative, MODULES[relative], folder)
            for k in total:
                total[k] += counts[k]
            ran = counts["passed"] + counts["failed"] + counts["deliberate"]
            rate = (counts["passed"] + counts["deliberate"]) / ran if ran else float("nan")
            print(
                f"| {os.path.basename(relative)} | {counts['passed']} | {counts['failed']} | "
                f"{counts['deliberate']} | {counts['skipped']} | {rate:.1%} |",
                flush=True,
            )
            print("\n".join(f"  failed: {f}" for f in failures), file=sys.stderr, flush=True)
    ran = total["passed"] + total["failed"] + total["deliberate"]
    print(
        f"| all | {total['passed']} | {total['failed']} | {total['deliberate']} | {total['skipped']} | "
        f"{(total['passed'] + total['deliberate']) / ran:.1%} |"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
