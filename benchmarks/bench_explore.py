"""The interactive map (lowdim.plot.explore): page size and time to the first frame in
headless Chromium (software WebGL, as on a machine without a GPU).

Cases:
  1m          1,000,000 rows of the augmented Fashion-MNIST (the scale benchmark's data:
              principal-component pairs of its PCA-50 scores as maps, the 10 classes as
              labels): one map, and three maps side by side (PC1/PC2, PC3/PC4, PC5/PC6),
              runs alternating. Target: first frame under 5 s; the three-map page under 60 MB
  70k-images  Fashion-MNIST's 70,000 images: the UMAP map (as bench_density's) and the
              PCA map, labels, and every image as a hover thumbnail
The first frame is the browser's clock (performance.now(), from the start of navigation)
when every map has drawn for the first time: reading the page, decoding the binary
coordinates, building each map's spatial index and drawing. One browser, the page loaded
afresh each run; no reference library draws such a page, so there is no ratio. After the
timed runs, frames per second of the first map during a 2-second animated 3x zoom.
Run:  scripts/bench.sh explore [CASE ...] [--repeats 5]
"""

import os
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
import _scale_data  # noqa: E402
from bench_density import fashion_map  # noqa: E402
from bench_pca import run_cli  # noqa: E402
from conftest import CHROMIUM_FLAGS  # noqa: E402

TARGET_S = 5.0
MAX_MB = 60.0


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    driver.set_window_size(1600, 1000)
    return driver


def first_frame(driver, path, timeout=120):
    """Seconds from navigation start to every map's first frame (the page's own clock)."""
    driver.get("about:blank")
    driver.get(path.as_uri() if hasattr(path, "as_uri") else "file://" + path)
    deadline = time.time() + timeout
    while time.time() < deadline:
        ms = driver.execute_script(
            "const e = window.lowdimExplorers && window.lowdimExplorers[0]; return e && e.timing.firstFrame"
        )
        if ms:
            return ms / 1000
        time.sleep(0.05)
    raise TimeoutError(f"{path}: no first frame within {timeout} s")


def zoom_fps(driver, seconds=2.0):
    """Frames per second of the first map while the camera glides to a 3x zoom."""
    return driver.execute_async_script(
        """const done = arguments[arguments.length - 1];
        const plot = window.lowdimExplorers[0].maps[0].plot;
        let frames = 0;
        const sub = plot.subscribe("draw", () => frames++);
        plot.zoomToLocation([0.1, 0.1], 0.33, {transition: true, transitionDuration: arguments[0] * 1000});
        setTimeout(() => { plot.unsubscribe(sub); done(frames / arguments[0]); }, arguments[0] * 1000);""",
        seconds,
    )


def _page(folder, name, *args, **kwargs):
    from lowdim.plot import explore

    start = time.perf_counter()
    page = explore(*args, **kwargs)
    seconds = time.perf_counter() - start
    path = os.path.join(folder, name)
    page.save(path)
    return path, len(page) / 1e6, seconds


def _rows(label, pages, repeats, limits):
    driver = browser()
    try:
        for path, _, _ in pages:  # warm-up: the browser's caches and compilers
            first_frame(driver, path)
        runs, fps = [[] for _ in pages], []
        for _ in range(repeats):
            for j, (path, _, _) in enumerate(pages):
                time.sleep(1)
                runs[j].append(first_frame(driver, path))
        for path, _, _ in pages:
            first_frame(driver, path)
            fps.append(zoom_fps(driver))
    finally:
        driver.quit()
    rows = []
    for (_, mb, built), times, (case, max_mb), rate in zip(pages, runs, limits, fps):
        median = statistics.median(times)
        rows.append(
            {
                "case": f"{label}: {case}",
                "lowdim_s": median,
                "reference_s": None,
                "ratio": None,
                "target": f"first frame < {TARGET_S:.0f} s" + (f", < {max_mb:.0f} MB" if max_mb else ""),
                "met": median < TARGET_S and (max_mb is None or mb < max_mb),
                "accuracy": f"page {mb:.1f} MB, written in {built:.1f} s; {rate:.0f} frames/s zooming",
                "runs_lowdim": ", ".join(f"{t:.2f}" for t in times),
                "runs_reference": "",
            }
        )
    return rows


def case_1m(repeats):
    Z, y = _scale_data.pca50(1_000_000)
    folder = tempfile.mkdtemp(prefix="lowdim-explore-")
    classes = np.array(["T-shirt", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Boot"])
    labels = classes[y]
    one = _page(folder, "one.html", {"PC1/PC2": Z[:, 0:2]}, labels)
    three = _page(folder, "three.html", {f"PC{j + 1}/PC{j + 2}": Z[:, j : j + 2] for j in (0, 2, 4)}, labels)
    limits = [("1 map", None), ("3 maps", MAX_MB)]
    return _rows("1,000,000 points", [one, three], repeats, limits)


def case_70k_images(repeats):
    from lowdim import PCA
    from lowdim.datasets import load_fashion_mnist

    X, y = load_fashion_mnist()
    maps = {"UMAP": fashion_map(), "PCA": PCA(2).fit_transform(X)}
    folder = tempfile.mkdtemp(prefix="lowdim-explore-")
    page = _page(folder, "fashion.html", maps, y, images=X, image_shape=(28, 28))
    return _rows("Fashion-MNIST 70,000", [page], repeats, [("2 maps + every image as a thumbnail", None)])


CASES = {"1m": case_1m, "70k-images": case_70k_images}


def main(argv=None):
    run_cli(CASES, __doc__, argv)


if __name__ == "__main__":
    main()
