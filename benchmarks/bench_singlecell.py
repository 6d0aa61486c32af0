"""Single-cell: scanpy's standard embedding pipeline against lowdim's, on counts that look
like cells.

Data: ``n`` cells x 2,000 genes of negative-binomial counts (dispersion 2) drawn from 300
cluster profiles (gamma-distributed gene means, 100 marker genes of each profile
raised about sevenfold), each cell with its own library size (median 1,500 counts, about a quarter of the
cells filled, as for 2,000 variable genes of 10x data); then scanpy's ``normalize_total`` (1e4)
and ``log1p``, as a sparse CSR float32 AnnData written once to an .h5ad cache.
Pipelines, each in a fresh process that reads the cache (not timed) and then times its
four steps:
- scanpy: ``pp.pca`` (50) -> ``pp.neighbors`` (15) -> ``tl.umap`` -> ``tl.leiden``, all
  scanpy's defaults;
- lowdim: ``lowdim.anndata`` ``pca`` (50) -> ``neighbors`` (15) -> ``umap`` -> ``leiden``;
- scanpy+lowdim: scanpy's pipeline with ``pp.neighbors(transformer=lowdim's
  KNeighborsTransformer(15))``.
Quality: trustworthiness (15 neighbours, 5,000 random query cells ranked against all) of
each map against that pipeline's own 50 principal components; ARI of the clusters against
the 300 generating profiles. Peak: the process's resident high-water mark (data
included). Runs alternate; medians of ``--repeats`` (one at a million cells).
Targets: lowdim's whole pipeline <= 0.3x scanpy's; trustworthiness within 0.005; ARI no
lower.
'seeds': each pipeline once at 100,000 cells with four more Leiden seeds on its graph
(untimed): the spread of the clusters' ARI from the seed alone. 'flavours': Leiden's two
optimisers (igraph's, lowdim's default, and leidenalg's, scanpy's) on lowdim's graph, the
modularity each reaches beside its ARI.
Run:  scripts/bench.sh singlecell [CASE ...] [--repeats 3]   (cases: 100k, 1m, seeds, flavours)
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bench_pca import PAUSE_S, run_cli  # noqa: E402

GENES, PROFILES, MARKERS = 2000, 300, 100
CACHE = os.path.join(tempfile.gettempdir(), "lowdim-bench-singlecell")


def cells(n, seed=0, block=50_000):
    """The cached .h5ad of ``n`` synthetic cells (made on first use) and its profile labels."""
    import anndata
    import scipy.sparse as sp

    path = os.path.join(CACHE, f"cells_{n}.h5ad")
    if os.path.exists(path):
        return path
    os.makedirs(CACHE, exist_ok=True)
    rng = np.random.default_rng(seed)
    base = rng.gamma(0.3, 1.0, size=GENES)
    profiles = np.tile(base, (PROFILES, 1))
    for p in range(PROFILES):  # each profile raises its own marker genes
        marked = rng.choice(GENES, MARKERS, replace=False)
        profiles[p, marked] *= rng.lognormal(2.0, 0.5, MARKERS)
    profiles /= profiles.sum(axis=1, keepdims=True)
    labels = rng.integers(0, PROFILES, n)
    parts = []
    for start in range(0, n, block):
        lab = labels[start : start + block]
        size = rng.lognormal(np.log(1500), 0.4, lab.size)[:, None]
        mean = profiles[lab] * size
        counts = rng.negative_binomial(2.0, 2.0 / (2.0 + mean)).astype(np.float32)
        normalised = np.log1p(counts / counts.sum(axis=1, keepdims=True) * 1e4)
        parts.append(sp.csr_matrix(normalised.astype(np.float32)))
    adata = anndata.AnnData(sp.vstack(parts, format="csr"))
    adata.obs["profile"] = labels.astype(str)
    adata.write_h5ad(path)
    return path


RUN = r"""
import json, resource, sys, time, warnings
warnings.filterwarnings("ignore")
import anndata, numpy as np
path, kind, out, seeds = sys.argv[1:5]
adata = anndata.read_h5ad(path)
steps = {}
def step(name, fn):
    start = time.perf_counter(); fn(); steps[name] = time.perf_counter() - start
if kind == "lowdim":
    from lowdim import anndata as la
    step("pca", lambda: la.pca(adata, n_comps=50))
    step("neighbors", lambda: la.neighbors(adata, n_neighbors=15))
    step("umap", lambda: la.umap(adata, random_state=0))
    step("leiden", lambda: la.leiden(adata, random_state=0))
else:
    import scanpy as sc
    step("pca", lambda: sc.pp.pca(adata, n_comps=50))
    if kind == "scanpy":
        step("neighbors", lambda: sc.pp.neighbors(adata, n_neighbors=15))
    else:
        from lowdim.neighbors import KNeighborsTransformer
        step("neighbors", lambda: sc.pp.neighbors(adata, transformer=KNeighborsTransformer(n_neighbors=15)))
    step("umap", lambda: sc.tl.umap(adata))
    step("leiden", lambda: sc.tl.leiden(adata))
labels = [adata.obs["leiden"].astype(int).to_numpy()]
for seed in range(1, int(seeds)):  # more Leiden seeds on the same graph, untimed
    if kind == "lowdim":
        la.leiden(adata, random_state=seed, key_added="again")
    else:
        sc.tl.leiden(adata, random_state=seed, key_added="again")
    labels.append(adata.obs["again"].astype(int).to_numpy())
np.savez(out, pca=adata.obsm["X_pca"], umap=adata.obsm["X_umap"], leiden=np.array(labels))
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"steps": steps, "peak": peak}))
"""


def run(path, kind, seeds=1):
    """One pipeline in a fresh process: its step times, peak and results (the Leiden
    labels of ``seeds`` seeds on its graph, the first timed)."""
    time.sleep(PAUSE_S)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result.npz")
        argv = [sys.executable, "-c", RUN, path, kind, out, str(seeds)]
        done = subprocess.run(argv, capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"{kind} pipeline failed:\n{done.stderr[-3000:]}")
        report = json.loads(done.stdout.strip().splitlines()[-1])
        with np.load(out) as f:
            report.update({k: f[k] for k in f.files})
    return report


def quality(report, labels):
    from lowdim.metrics import trustworthiness

    tw = trustworthiness(report["pca"], report["umap"], n_neighbors=15, max_queries=5000, random_state=0)
    return tw, statistics.median(adjusted_rand_score_of(labels, report["leiden"]))


def _pipeline_case(n, repeats, kinds=("lowdim", "scanpy", "scanpy+lowdim")):
    import anndata

    path = cells(n)
    labels = anndata.read_h5ad(path, backed="r").obs["profile"].to_numpy()
    runs = {k: [] for k in kinds}
    if repeats > 1:  # a first, untimed run of each fills numba's on-disk caches
        for kind in kinds:
            run(path, kind)
    for _ in range(repeats):
        for kind in kinds:
            runs[kind].append(run(path, kind))
    return _rows(n, runs, labels)


def _rows(n, runs, labels):
    total = {k: [sum(r["steps"].values()) for r in rs] for k, rs in runs.items()}
    med = {k: statistics.median(v) for k, v in total.items()}
    scores = {k: quality(rs[-1], labels) for k, rs in runs.items()}
    rows = []
    for kind, target in (("lowdim", 0.3), ("scanpy+lowdim", None)):
        if kind not in runs:
            continue
        tw, ari = scores[kind]
        tw_ref, ari_ref = scores["scanpy"]
        steps = {s: round(statistics.median(r["steps"][s] for r in runs[kind]), 1) for s in runs[kind][0]["steps"]}
        ref_steps = {s: round(statistics.median(r["steps"][s] for r in runs["scanpy"]), 1) for s in steps}
        accurate = tw >= tw_ref - 0.005 and ari >= ari_ref - 0.005
        peak = max(r["peak"] for r in runs[kind]) / 2**30
        peak_ref = max(r["peak"] for r in runs["scanpy"]) / 2**30
        rows.append(
            {
                "case": f"{kind} {n:,} cells",
                "lowdim_s": med[kind],
                "reference_s": med["scanpy"],
                "ratio": round(med[kind] / med["scanpy"], 3),
                "target": "" if target is None else f"<= {target}x",
                "accuracy": f"trust {tw:.4f} vs {tw_ref:.4f}, ARI {ari:.3f} vs {ari_ref:.3f}, "
                f"peak {peak:.1f} vs {peak_ref:.1f} GiB, steps {steps} vs {ref_steps}",
                "met": bool(accurate and (target is None or med[kind] / med["scanpy"] <= target)),
                "runs_lowdim": [round(t, 1) for t in total[kind]],
                "runs_reference": [round(t, 1) for t in total["scanpy"]],
            }
        )
    return rows


def case_100k(repeats):
    return _pipeline_case(100_000, repeats)


def case_1m(repeats):
    return _pipeline_case(1_000_000, 1, kinds=("lowdim", "scanpy"))


def case_seeds(repeats):
    """The clusters' ARI is a median over Leiden seeds on each pipeline's own graph: 300
    profiles give ~170 communities, and one seed's ARI moves by a few hundredths."""
    import anndata

    path = cells(100_000)
    labels = anndata.read_h5ad(path, backed="r").obs["profile"].to_numpy()
    rows = []
    for kind in ("lowdim", "scanpy"):
        report = run(path, kind, seeds=5)
        scores = sorted(adjusted_rand_score_of(labels, report["leiden"]))
        rows.append(
            {
                "case": f"{kind} 100,000 cells, Leiden ARI over 5 seeds",
                "lowdim_s": sum(report["steps"].values()),
                "reference_s": None,
                "ratio": None,
                "target": "",
                "accuracy": f"ARI median {statistics.median(scores):.3f}, range {scores[0]:.3f}-{scores[-1]:.3f}",
                "met": True,
                "runs_lowdim": [round(v, 3) for v in scores],
                "runs_reference": [],
            }
        )
    return rows


def case_flavours(repeats):
    """Leiden's two optimisers on lowdim's graph of the 100,000 cells, seeds 0-2: the
    modularity each reaches (the objective both maximise) beside its ARI, so that an ARI
    gap is told from an optimiser's shortfall."""
    import anndata

    from lowdim import anndata as la

    adata = anndata.read_h5ad(cells(100_000))
    la.pca(adata, n_comps=50)
    la.neighbors(adata, n_neighbors=15)
    graph = adata.obsp["connectivities"].tocsr()
    rows = []
    for flavor in ("igraph", "leidenalg"):
        found, seconds = [], []
        for seed in range(3):
            start = time.perf_counter()
            la.leiden(adata, random_state=seed, flavor=flavor, key_added="found")
            seconds.append(time.perf_counter() - start)
            found.append(adata.obs["found"].astype(int).to_numpy())
        scores = adjusted_rand_score_of(adata.obs["profile"].to_numpy(), found)
        rows.append(
            {
                "case": f"Leiden flavor={flavor!r} on lowdim's graph, 100,000 cells, seeds 0-2",
                "lowdim_s": round(statistics.median(seconds), 3),
                "reference_s": None,
                "ratio": None,
                "target": "",
                "accuracy": "modularity "
                + ", ".join(f"{_modularity(graph, f):.5f}" for f in found)
                + "; ARI "
                + ", ".join(f"{v:.3f}" for v in scores),  # fmt: skip
                "met": True,
                "runs_lowdim": [round(v, 3) for v in seconds],
                "runs_reference": [],
            }
        )
    return rows


def _modularity(graph, labels):
    """Newman's modularity of a partition of a weighted undirected graph (resolution 1)."""
    import scipy.sparse as sp

    member = sp.csr_matrix((np.ones(labels.size), (labels, np.arange(labels.size))))
    total, degrees = graph.sum(), member @ np.asarray(graph.sum(axis=1)).ravel()
    return float(((member @ graph @ member.T).diagonal().sum() - (degrees**2).sum() / total) / total)


def adjusted_rand_score_of(labels, partitions):
    """The ARI of each partition (one per Leiden seed) against the generating profiles."""
    from lowdim.metrics import adjusted_rand_score

    return [adjusted_rand_score(labels, found) for found in partitions]


CASES = {"100k": case_100k, "1m": case_1m, "seeds": case_seeds, "flavours": case_flavours}


def main(argv=None):
    run_cli(CASES, __doc__, argv)


if __name__ == "__main__":
    main()
