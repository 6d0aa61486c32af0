"""
An interactive map: hover, select, compare
==========================================

A PNG shows that a map has an odd island; it cannot say what is in it.
:func:`lowdim.plot.explore` writes one self-contained HTML page (no server, no network)
with the maps side by side: hover a point to see its row and its image, drag a box or a
lasso in one map and the same rows light up in the others, colour by label, cluster or
any column, search a row id, download the selection as CSV.

Here: the handwritten digits mapped by UMAP, t-SNE and PCA, with HDBSCAN's clusters of
the UMAP map and every digit's image as a hover thumbnail.
"""

import os
import shutil
import time

import matplotlib.pyplot as plt
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from sklearn.datasets import load_digits

import lowdim
from lowdim.plot import explore

X, y = load_digits(return_X_y=True)
pixels = X[:, X.std(axis=0) > 0]  # three pixels are blank in every image
umap = lowdim.UMAP(random_state=0).fit(pixels)
maps = {
    "UMAP": umap.embedding_,
    "t-SNE": lowdim.TSNE(random_state=0).fit_transform(pixels),
    "PCA": lowdim.PCA(2).fit_transform(pixels),
}
clusters = lowdim.HDBSCAN(min_cluster_size=30).fit(umap.embedding_).labels_
page = explore(
    maps,
    labels=y,
    clusters=clusters,
    columns={"ink": X.sum(axis=1)},
    images=X,
    image_shape=(8, 8),
    title="Handwritten digits: three maps",
)
page.save("digits_map.html")  # open it in any browser; in Jupyter, `page` shows inline
print(f"{len(page) / 1e6:.1f} MB for {len(X)} rows, 3 maps and {len(X)} thumbnails")

# %%
# What a person sees: the pointer on a digit of the UMAP map (its row, label, cluster,
# ink and image) and the rows of one HDBSCAN cluster, chosen by clicking its entry in
# the legend, lit in all three maps. The picture is the page in headless Chromium
# (selenium drives it: the imports at the top).
options = webdriver.ChromeOptions()
options.binary_location = shutil.which("chromium")
for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader", "--window-size=1400,760"):
    options.add_argument(flag)
browser = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
browser.get("file://" + os.path.abspath("digits_map.html"))
ex = "window.lowdimExplorers[0]"
for _ in range(600):  # the first frame comes within a second or two
    if browser.execute_script(f"return !!({ex} && {ex}.timing.firstFrame)"):
        break
    time.sleep(0.05)
browser.execute_script(f"{ex}.colourSelect.value = '1'; {ex}.colourBy(1);")  # colour by cluster
browser.find_elements(By.CSS_SELECTOR, ".lx-key")[2].click()  # select the third cluster
canvas = browser.find_elements(By.CSS_SELECTOR, ".lx-canvas")[0]
x, y0 = browser.execute_script(f"return {ex}.maps[0].plot.getScreenPosition(0)")
offset = (x - canvas.size["width"] / 2, y0 - canvas.size["height"] / 2)
ActionChains(browser).move_to_element_with_offset(canvas, *offset).move_by_offset(1, 0).perform()
browser.save_screenshot("digits_map.png")
browser.quit()

fig, ax = plt.subplots(figsize=(14, 7.6))
ax.imshow(plt.imread("digits_map.png"))
ax.set_axis_off()
fig.tight_layout()

# %%
# The page itself, live: pan with the mouse, zoom with the wheel, shift-drag to lasso.
page  # noqa: B018 - the last expression of a block is shown (as in a notebook)
