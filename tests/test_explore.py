"""The interactive map (lowdim.plot.explore, `lowdim explore`): what the page carries,
checked by decoding it in Python, and what a person does with it, checked in headless
Chromium: hover a known point, box-select in one map and find the same rows lit in the
other, search an id, colour by a column, download the selection."""

import base64
import html
import json
import re
import zlib

import numpy as np
import pytest

from lowdim.cli.main import main
from lowdim.plot import InteractiveMap, explore

ARRAYS = {"uint8": np.uint8, "uint16": np.uint16, "int32": np.int32, "float32": np.float32}


def unpack(page):
    """The page's JSON header and its blobs decoded as numpy arrays (or lists of text)."""
    header = json.loads(re.search(r'<script type="application/json" class="lowdim-header">(.*?)</script>', page)[1])
    blobs = dict(re.findall(r'<script type="application/octet-stream" data-blob="(\w+)">([^<]*)</script>', page))

    def blob(spec):
        raw = base64.b64decode(blobs[spec["blob"]])
        raw = zlib.decompress(raw) if spec["deflate"] else raw
        return raw.decode("utf-8").split("\n") if spec["dtype"] == "text" else np.frombuffer(raw, ARRAYS[spec["dtype"]])

    return header, blob


def two_maps(n=300, seed=0):
    """Map A: four well-separated groups and row 0 alone in a corner; map B: the same rows
    rotated and shuffled between groups, so a selection in A is scattered in B."""
    rng = np.random.default_rng(seed)
    group = np.arange(n) % 4
    A = rng.normal(scale=0.4, size=(n, 2)) + np.array([[0, 0], [6, 0], [0, 6], [6, 6]])[group]
    A[0] = [-6.0, -6.0]
    B = rng.normal(size=(n, 2)) * [3.0, 1.0]
    B[0] = [9.0, 9.0]
    labels = np.array(["north", "east", "south", "west"])[group]
    ids = np.array([f"id-{i:03d}" for i in range(n)])
    return {"A": A, "B": B}, labels, ids


def test_coordinates_travel_as_float32_scaled_to_the_view_with_the_aspect_kept():
    maps, labels, ids = two_maps()
    header, blob = unpack(explore(maps, labels, ids=ids))
    assert [m["name"] for m in header["maps"]] == ["A", "B"] and header["n"] == 300
    for spec, Z in zip(header["maps"], maps.values()):
        x, y = blob(spec["x"]), blob(spec["y"])
        assert x.dtype == np.float32 and x.shape == (300,)
        assert max(np.abs(x).max(), np.abs(y).max()) == pytest.approx(0.95, abs=1e-6)
        # one scale for both axes: distances keep their ratios
        scale = np.ptp(x) / np.ptp(Z[:, 0])
        assert np.ptp(y) / np.ptp(Z[:, 1]) == pytest.approx(scale, rel=1e-5)
        np.testing.assert_allclose((x - x[0]) / scale, Z[:, 0] - Z[0, 0], atol=1e-4)
    assert blob(header["ids"]) == ids.tolist()


def test_fields_categories_noise_numbers_and_text():
    maps, labels, ids = two_maps()
    clusters = np.arange(300) % 3 - 1  # -1 is noise
    columns = {"size": np.linspace(0, 1, 300), "note": np.array([f"n{i}" for i in range(300)]), "few": labels}
    header, blob = unpack(explore(maps, labels, clusters=clusters, columns=columns))
    label, cluster, size, note, few = header["fields"]
    assert label["categories"] == ["east", "north", "south", "west"]
    assert [label["categories"][c] for c in blob(label)[:4]] == labels[:4].tolist()
    assert cluster["categories"] == ["0", "1", "noise"] and cluster["colors"][-1] == "#c8c8c8"
    assert cluster["counts"] == [100, 100, 100] and blob(cluster)[0] == 2  # row 0 is noise
    assert size["kind"] == "number" and (size["min"], size["max"]) == (0.0, 1.0)
    assert note["kind"] == "category" and few["kind"] == "category"
    assert header["colorBy"] == 0
    # floats with many distinct values are a measurement: a colour scale, not 300 categories
    header, _ = unpack(explore(maps, np.linspace(0, 5, 300)))
    assert header["fields"][0]["kind"] == "number"


def test_a_missing_label_is_its_own_grey_category_after_noise():
    maps, labels, _ = two_maps()
    holed = labels.astype(object)
    holed[:5] = None
    clusters = np.arange(300) % 3 - 1
    header, blob = unpack(explore(maps, holed, clusters=clusters))
    label = header["fields"][0]
    assert label["categories"][-1] == "missing" and "" not in label["categories"] and "None" not in label["categories"]
    assert label["colors"][-1] == "#737373" and label["counts"][-1] == 5
    assert [label["categories"][c] for c in blob(label)[:6]] == ["missing"] * 5 + [labels[5]]


def test_natural_order_of_text_labels():
    header, _ = unpack(explore(np.zeros((3, 2)) + np.arange(3)[:, None], ["person 10", "person 9", "person 1"]))
    assert header["fields"][0]["categories"] == ["person 1", "person 9", "person 10"]


def test_thumbnails_as_uint8_and_a_budget_that_keeps_a_random_subset():
    rng = np.random.default_rng(1)
    images = rng.random((300, 6, 5))
    maps, _, _ = two_maps()
    header, blob = unpack(explore(maps, images=images))
    spec = header["images"]
    assert (spec["height"], spec["width"], spec["channels"]) == (6, 5, 1) and spec["rows"] is None
    pixels = blob(spec["pixels"]).reshape(300, 6, 5)
    expected = np.round((images - images.min()) * 255 / np.ptp(images))
    np.testing.assert_allclose(pixels, expected, atol=1)  # rounded in float32
    with pytest.warns(UserWarning, match=r"thumbnails for 100 of 300 rows .* max_image_bytes=3,000"):
        header, blob = unpack(explore(maps, images=images.reshape(300, -1), image_shape=(6, 5), max_image_bytes=3000))
    rows = blob(header["images"]["rows"])
    assert rows.size == 100 and np.all(np.diff(rows) > 0)
    np.testing.assert_allclose(blob(header["images"]["pixels"]).reshape(100, 6, 5), expected[rows], atol=1)


def test_bad_input_is_refused_with_the_fix():
    maps, labels, _ = two_maps()
    with pytest.raises(ValueError, match="same rows to link selections; got A: 300, B: 299"):
        explore({"A": maps["A"], "B": maps["B"][:-1]})
    Z = maps["A"].copy()
    Z[7, 1] = np.nan
    with pytest.raises(ValueError, match=r"1 rows with NaN or infinite coordinates \(first: row 7\)"):
        explore(Z)
    with pytest.raises(ValueError, match="needs an \\(n, 2\\) array"):
        explore(np.zeros((5, 1)))
    with pytest.raises(ValueError, match="clusters need one integer per row .* minimum -2"):
        explore(maps, clusters=np.full(300, -2))
    with pytest.raises(TypeError, match="columns must map names"):
        explore(maps, columns=np.zeros((300, 2)))
    with pytest.raises(ValueError, match="image_shape \\(5, 5\\) holds 25 values but each image has 30"):
        explore(maps, images=np.zeros((300, 30)), image_shape=(5, 5))
    with pytest.raises(ValueError, match="labels need one value per row \\(300\\)"):
        explore(maps, labels[:10])


def test_page_is_self_contained_and_shows_inline_in_jupyter(tmp_path):
    maps, labels, ids = two_maps()
    page = explore(maps, labels, ids=ids, title="a <b> map")
    assert isinstance(page, InteractiveMap) and isinstance(page, str)
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)  # nothing fetched from a network
    assert "regl-scatterplot 1.16.0" in page and "<title>a &lt;b&gt; map</title>" in page
    frame = page._repr_html_()
    assert frame.startswith("<iframe srcdoc=") and html.unescape(frame.split('"')[1]) == page
    path = page.save(tmp_path / "map.html")
    assert open(path, encoding="utf-8").read() == page


def test_a_million_points_on_three_maps_stay_far_under_60_mb():
    """Bytes per point and map, measured at 200,000 rows: the page grows linearly."""
    rng = np.random.default_rng(0)
    n = 200_000
    page = explore({m: rng.normal(size=(n, 2)) for m in "abc"}, rng.integers(0, 10, n))
    per_row = len(page) / n
    assert per_row * 1_000_000 < 40e6, per_row  # 3 x 8 bytes of float32 per row, base64, and a label byte


# ---------------------------------------------------------------- in the browser


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    maps, labels, ids = two_maps()
    rng = np.random.default_rng(2)
    images = rng.integers(0, 256, size=(300, 7, 9), dtype=np.uint8)
    columns = {"weight": np.linspace(10, 20, 300)}
    path = tmp_path_factory.mktemp("explore") / "map.html"
    explore(maps, labels, clusters=np.arange(300) % 2, ids=ids, columns=columns, images=images).save(path)
    return path, images


def open_map(chromium, path):
    from selenium.webdriver.support.ui import WebDriverWait

    chromium.get(path.as_uri())
    WebDriverWait(chromium, 30).until(
        lambda d: d.execute_script(
            "return !!(window.lowdimExplorers[0] && window.lowdimExplorers[0].timing.firstFrame)"
        )
    )
    return "window.lowdimExplorers[0]"


def canvases(chromium):
    from selenium.webdriver.common.by import By

    return chromium.find_elements(By.CSS_SELECTOR, ".lx-canvas")


def screen(chromium, ex, m, i):
    return chromium.execute_script(f"return {ex}.maps[{m}].plot.getScreenPosition({i})")


def point_at(chromium, canvas, x, y):
    """Selenium offsets count from the element's centre."""
    return x - canvas.size["width"] / 2, y - canvas.size["height"] / 2


def test_renders_every_map_without_console_errors(page_file, chromium):
    path, _ = page_file
    ex = open_map(chromium, path)
    errors = [e for e in chromium.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == []
    assert len(canvases(chromium)) == 2
    drawn = chromium.execute_script(f"return {ex}.maps.map(m => m.plot.get('isPointsDrawn'))")
    assert drawn == [True, True]
    legend = chromium.execute_script(f"return {ex}.legend.innerText")
    assert "north (75)" in legend and "west (75)" in legend


def test_hover_over_a_known_point_shows_its_row_and_image(page_file, chromium):
    from selenium.webdriver.common.action_chains import ActionChains

    path, images = page_file
    ex = open_map(chromium, path)
    canvas = canvases(chromium)[0]
    x, y = screen(chromium, ex, 0, 0)  # row 0 sits alone in a corner of map A
    ActionChains(chromium).move_to_element_with_offset(canvas, *point_at(chromium, canvas, x, y)).perform()
    ActionChains(chromium).move_by_offset(1, 1).perform()
    tip = chromium.execute_script(f"const t = {ex}.tooltip; return [t.hidden, t.dataset.row, t.innerText]")
    assert tip[0] is False and tip[1] == "0"
    assert "id-000" in tip[2] and "north" in tip[2] and "weight\t10" in tip[2]
    shown = chromium.execute_script(
        f"const c = {ex}.tooltip.querySelector('canvas.lx-thumb');"
        "return [c.width, c.height, Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data)]"
    )
    assert shown[:2] == [9, 7]
    np.testing.assert_array_equal(np.array(shown[2]).reshape(7, 9, 4)[..., 0], images[0])
    # the same row is hovered in the other map
    assert chromium.execute_script(f"return {ex}.maps[1].plot.get('hoveredPoint')") == 0


def test_box_selection_in_one_map_lights_the_same_rows_in_the_other(page_file, chromium):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    path, _ = page_file
    ex = open_map(chromium, path)
    chromium.find_element(By.CSS_SELECTOR, 'button[data-mode="box"]').click()
    canvas = canvases(chromium)[0]
    # a box around the group at (6, 0) in map A: take its points' screen positions
    east = chromium.execute_script(
        f"const e = {ex}; return Array.from({{length: e.n}}, (_, i) => i).filter(i => i % 4 === 1)"
        ".map(i => e.maps[0].plot.getScreenPosition(i))"
    )
    east = np.array(east)
    (x0, y0), (x1, y1) = east.min(axis=0) - 12, east.max(axis=0) + 12
    start = point_at(chromium, canvas, x0, y0)
    steps = [(x1 - x0) / 4, (y1 - y0) / 4]
    # the box starts where the pointer first moves with the button down, as in a real drag
    chain = ActionChains(chromium).move_to_element_with_offset(canvas, *start).click_and_hold()
    chain = chain.move_by_offset(1, 1).pause(0.05)
    for _ in range(4):
        chain = chain.move_by_offset(*steps).pause(0.05)
    chain.release().perform()
    WebDriverWait(chromium, 5).until(lambda d: d.execute_script(f"return {ex}.selection.length > 0"))
    selected = chromium.execute_script(
        f"const e = {ex}; return [e.selection, ...e.maps.map(m => m.plot.get('selectedPoints'))]"
    )
    inside = chromium.execute_script(
        f"const e = {ex}; return Array.from({{length: e.n}}, (_, i) => i).filter(i => {{"
        f"const [x, y] = e.maps[0].plot.getScreenPosition(i);"
        f"return x >= {x0} && x <= {x1} && y >= {y0} && y <= {y1}; }})"
    )
    assert len(inside) >= 70 and set(inside) == {i for i in range(300) if i % 4 == 1}
    assert sorted(selected[0]) == sorted(selected[1]) == sorted(selected[2]) == sorted(inside)
    lines = chromium.execute_script(f"return {ex}.download()")
    assert lines[0] == "id,label,cluster" and lines[1] == "id-001,east,1" and len(lines) == 1 + len(inside)
    assert chromium.execute_script(f"return {ex}.status.textContent") == f"{len(inside)} of 300 selected"


def test_search_an_id_and_colour_by_a_column(page_file, chromium):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    path, _ = page_file
    ex = open_map(chromium, path)
    box = chromium.find_element(By.CSS_SELECTOR, ".lx-search input")
    box.send_keys("id-123\n")
    WebDriverWait(chromium, 5).until(lambda d: d.execute_script(f"return {ex}.tooltip.dataset.row === '123'"))
    assert chromium.execute_script(f"return {ex}.maps.map(m => m.plot.get('selectedPoints'))") == [[123], [123]]
    box.clear()
    box.send_keys("nobody\n")
    assert chromium.execute_script(f"return {ex}.status.textContent") == 'no row with id "nobody"'
    Select(chromium.find_element(By.CSS_SELECTOR, ".lx-colour")).select_by_visible_text("weight")
    legend = chromium.execute_script(f"return [{ex}.legend.innerText, {ex}.maps[0].plot.get('pointColor').length]")
    assert (
        legend[0].split() == ["weight:", "10", "20"] and legend[1] == 256
    )  # the range at the ends of a 256-colour scale
    errors = [e for e in chromium.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == []


def test_colouring_by_a_number_paints_its_range(tmp_path, chromium):
    """Pixels, not the legend: points low and high on a numeric column are drawn in
    different colours of the scale (a value channel the library ignored once painted
    every point alike under a correct legend)."""
    import io

    from PIL import Image

    n = 200
    x = np.linspace(0.0, 1.0, n)
    path = tmp_path / "line.html"
    explore({"line": np.c_[x, 1e-3 * np.sin(np.arange(n))]}, columns={"value": 100 * x}, point_size=12).save(path)
    ex = open_map(chromium, path)
    chromium.execute_script(f"{ex}.colourBy({ex}.header.fields.findIndex(f => f.name === 'value'))")
    canvas = canvases(chromium)[0]
    shot = Image.open(io.BytesIO(canvas.screenshot_as_png)).convert("RGB")
    ratio = shot.width / canvas.size["width"]
    colours = []
    for i in (n // 10, n // 2, 9 * n // 10):
        sx, sy = screen(chromium, ex, 0, i)
        colours.append(np.array(shot.getpixel((int(sx * ratio), int(sy * ratio))), dtype=int))
    low, middle, high = colours
    white = np.array([255, 255, 255])
    assert all(np.abs(c - white).sum() > 60 for c in colours)  # points, not the background
    assert np.abs(low - high).sum() > 150 and np.abs(low - middle).sum() > 60 and np.abs(middle - high).sum() > 60


def test_a_date_column_is_a_scale_shown_as_dates(tmp_path, chromium):
    """Dates colour on a scale like numbers, and the legend and the hover say dates, not
    day counts (a CSV's ISO dates reach the page as days since 1970-01-01)."""
    from selenium.webdriver.common.action_chains import ActionChains

    n = 120
    when = np.datetime64("2021-03-01") + np.arange(n).astype("timedelta64[D]")
    when = when.astype("datetime64[s]")
    when[5] += np.timedelta64(9 * 3600 + 30 * 60, "s")  # a time of day: shown with the date
    x = np.linspace(0.0, 1.0, n)
    path = tmp_path / "dates.html"
    explore({"line": np.c_[x, np.zeros(n)]}, columns={"when": when}, point_size=12).save(path)
    header, blob = unpack(path.read_text())
    field = header["fields"][0]
    assert field["kind"] == "number" and field["date"] and field["origin"] == 18687.0  # 2021-03-01
    assert blob(field)[1] == 1.0 and field["max"] == n - 1  # days since the first
    ex = open_map(chromium, path)
    chromium.execute_script(f"{ex}.colourBy(0)")
    assert chromium.execute_script(f"return {ex}.legend.innerText").split() == ["when:", "2021-03-01", "2021-06-28"]
    canvas = canvases(chromium)[0]
    x5, y5 = screen(chromium, ex, 0, 5)
    ActionChains(chromium).move_to_element_with_offset(canvas, *point_at(chromium, canvas, x5, y5)).perform()
    ActionChains(chromium).move_by_offset(1, 0).perform()
    tip = chromium.execute_script(f"return [{ex}.tooltip.dataset.row, {ex}.tooltip.innerText]")
    assert tip[0] == "5" and "2021-03-06 09:30" in tip[1]


# ---------------------------------------------------------------- the command


def test_explore_command_on_a_csv_with_row_names(tmp_path, capsys):
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(c, 0.3, size=(40, 3)) for c in (0, 4)])
    path = tmp_path / "cells.csv"
    with open(path, "w") as fh:
        fh.write(",a,b,c,kind\n")
        for i, row in enumerate(X):
            fh.write(f"cell{i}," + ",".join(f"{v:.4f}" for v in row) + f",{'xy'[i // 40]}\n")
    out = tmp_path / "map.html"
    code = main(
        ["explore", str(path), "--methods", "pca,umap", "--label-column", "kind", "--cluster", "kmeans", "-k", "2"]
        + ["-o", str(out), "--json"]
    )
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert set(summary["methods"]) == {"pca", "umap"} and summary["columns"] == ["a", "b", "c"]
    assert summary["clusters"] == 2 and summary["images"] is None
    header, blob = unpack(out.read_text())
    assert blob(header["ids"])[:2] == ["cell0", "cell1"]
    assert [f["name"] for f in header["fields"]] == ["kind", "cluster", "a", "b", "c"]  # the label column's name
    label, cluster = header["fields"][:2]
    assert abs(np.corrcoef(blob(label), blob(cluster))[0, 1]) == pytest.approx(1.0)  # k-means finds the two groups


def test_explore_command_images_from_the_builtin_data_and_bad_shapes(tmp_path, capsys):
    out = tmp_path / "digits.html"
    assert main(["explore", "--dataset", "digits", "--methods", "pca", "-o", str(out), "--quiet"]) == 0
    header, blob = unpack(out.read_text())
    assert (header["images"]["height"], header["images"]["width"]) == (8, 8)
    assert blob(header["images"]["pixels"]).size == 1797 * 64 and header["fields"][0]["categories"][:3] == list("012")
    assert main(["explore", "--dataset", "digits", "--images", "9x8", "-o", str(tmp_path / "x.html")]) == 2
    assert "72 values per image, but the rows have 64 columns" in capsys.readouterr().err
    assert main(["explore", "--dataset", "iris", "--columns", "petal", "-o", str(tmp_path / "y.html")]) == 2
    assert "no column named petal" in capsys.readouterr().err
    table = tmp_path / "t.csv"
    table.write_text("a,b,c,uid\n1,2,3,u1\n4,5,7,u2\n7,8,8,u3\n2,1,0,u4\n")
    assert main(["explore", str(table), "--columns", "uid", "--exclude", "uid", "-o", str(tmp_path / "t.html")]) == 2
    assert "--columns: uid left out by --exclude; the map shows the columns it reads" in capsys.readouterr().err
    quiet = ["--methods", "pca", "--no-images", "--quiet"]
    assert main(["explore", "--dataset", "digits", *quiet, "-o", str(tmp_path / "z.html")]) == 0
    assert "images" not in unpack((tmp_path / "z.html").read_text())[0]


def test_a_large_map_draws_a_sample_while_it_moves_and_keeps_the_selection(tmp_path, chromium):
    """Above 100,000 points a moving map draws an even sample (and every selected row),
    and all points once it is still; selections made meanwhile are not cut to the sample."""
    import time

    rng = np.random.default_rng(5)
    n = 120_000
    path = tmp_path / "large.html"
    explore({"A": rng.normal(size=(n, 2)), "B": rng.normal(size=(n, 2))}).save(path)
    ex = open_map(chromium, path)
    state = f"const p = {ex}.maps.map(m => m.plot); return [p.map(q => q.get('isPointsFiltered')), " + (
        "p.map(q => q.get('selectedPoints'))]"
    )
    chromium.execute_script(
        f"{ex}.maps[0].plot.zoomToLocation([0.1, 0.1], 0.3, {{transition: true, transitionDuration: 3000}})"
    )

    def wait_for(moving_now, seconds):
        """Poll until the first map is (or is not) drawing its sample: the browser's frames
        come late on a loaded machine, so a fixed sleep would guess at its clock."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if chromium.execute_script(state)[0][0] == moving_now:
                return True
            time.sleep(0.05)
        return False

    assert wait_for(True, 10.0), "the map never drew its sample while moving"
    # select and read in one script: the page runs it between two frames, so a loaded
    # machine cannot let the map settle in between
    moving, selected = chromium.execute_script(
        f"{ex}.select(-1, [5, 11, 17]); " + state
    )  # rows 5, 11 and 17 are not in the sample (rows floor(1.2 k))
    assert moving == [True, False] and selected == [[5, 11, 17], [5, 11, 17]]
    assert wait_for(False, 20.0), "the map kept drawing its sample after it stopped"
    still, selected = chromium.execute_script(state)
    assert still == [False, False] and selected == [[5, 11, 17], [5, 11, 17]]
    assert [e for e in chromium.get_log("browser") if e["level"] in ("SEVERE", "ERROR")] == []


def test_markup_in_names_stays_inside_the_pages_json():
    import json

    from lowdim.plot._explore_data import header_json

    hostile = {"labels": ["<!--<script>", "</script><b>&amp;"], "columns": ["a<b>"]}
    text = header_json(hostile)
    assert not set("<>&") & set(text)  # nothing the HTML parser reads as markup
    assert json.loads(text) == hostile  # and the same data for the page's JSON.parse
