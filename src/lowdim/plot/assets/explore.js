/* lowdim's interactive map: reads the JSON header and base64 blobs of every
 * .lowdim-explorer element and draws its maps with regl-scatterplot (bundled beside
 * this script), linked: hover, lasso/box selection, colouring, search, CSV download. */
(function () {
  "use strict";

  // viridis at eleven even stops, interpolated to a 256-colour scale
  const VIRIDIS = ["#440154", "#482475", "#414487", "#355f8d", "#2a788e", "#21918c",
    "#22a884", "#44bf70", "#7ad151", "#bddf26", "#fde725"];
  const ARRAYS = { uint8: Uint8Array, uint16: Uint16Array, int32: Int32Array, float32: Float32Array };
  // While a map with more points than this moves, it draws an even sample of them (and
  // the selection), and everything again once it has been still for SETTLE_MS: a
  // renderer without a GPU redraws a million points a few times a second, 100,000 twenty.
  const MOVING_POINTS = 100000;
  const SETTLE_MS = 200;

  function hexRgb(hex) {
    const v = parseInt(hex.slice(1), 16);
    return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
  }

  function scale(stops, k) {
    const rgb = stops.map(hexRgb);
    const out = [];
    for (let i = 0; i < k; i++) {
      const t = (i / (k - 1)) * (rgb.length - 1);
      const j = Math.min(Math.floor(t), rgb.length - 2);
      const f = t - j;
      const c = rgb[j].map((a, m) => Math.round(a + f * (rgb[j + 1][m] - a)));
      out.push("#" + c.map((v) => v.toString(16).padStart(2, "0")).join(""));
    }
    return out;
  }
  const SCALE = scale(VIRIDIS, 256);

  async function decode(root, spec) {
    const el = root.querySelector(`script[data-blob="${spec.blob}"]`);
    let response = await fetch("data:application/octet-stream;base64," + el.textContent.trim());
    if (spec.deflate) response = new Response(response.body.pipeThrough(new DecompressionStream("deflate")));
    const buffer = await response.arrayBuffer();
    el.textContent = ""; // the typed array holds the data now; let the text go
    if (spec.dtype === "text") return new TextDecoder().decode(buffer).split("\n");
    return new ARRAYS[spec.dtype](buffer);
  }

  function el(tag, attrs, parent, text) {
    const node = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => node.setAttribute(k, v));
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  function format(v, field) {
    if (v === undefined || v === null || Number.isNaN(v)) return "missing";
    if (typeof v !== "number") return String(v);
    if (field && field.date) return dateText(v + field.origin);
    return Math.abs(v) >= 1e4 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(3) : String(+v.toPrecision(5));
  }

  // days since 1970-01-01 (UTC) as the date, with the time of day when it has one
  function dateText(days) {
    const minutes = Math.round(days * 1440);
    const iso = new Date(minutes * 60000).toISOString();
    return minutes % 1440 === 0 ? iso.slice(0, 10) : iso.slice(0, 16).replace("T", " ");
  }

  function csvCell(v) {
    const s = String(v);
    return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  }

  class Explorer {
    constructor(root, header, data) {
      this.root = root;
      this.header = header;
      this.data = data;
      this.n = header.n;
      this.selection = [];
      this.maps = [];
      this.lastMouse = null;
      this.idIndex = null;
      this.timing = { decoded: performance.now() }; // milliseconds since the page began to load
      this.buildControls();
      this.buildMaps();
    }

    id(i) {
      return this.data.ids ? this.data.ids[i] : String(i);
    }

    value(field, i) {
      const v = this.data.fields[field.index][i];
      return field.kind === "category" ? field.categories[v] : v;
    }

    buildControls() {
      const bar = el("div", { class: "lx-bar" }, this.root);
      const colour = el("label", {}, bar, "colour by ");
      this.colourSelect = el("select", { class: "lx-colour" }, colour);
      el("option", { value: "-1" }, this.colourSelect, "nothing");
      this.header.fields.forEach((f, j) => {
        f.index = j;
        if (f.kind !== "text") el("option", { value: String(j) }, this.colourSelect, f.name);
      });
      this.colourSelect.value = String(this.header.colorBy);
      this.colourSelect.addEventListener("change", () => this.colourBy(+this.colourSelect.value));
      const modes = el("span", { class: "lx-modes" }, bar);
      this.modeButtons = ["pan", "lasso", "box"].map((mode) => {
        const b = el("button", { type: "button", "data-mode": mode }, modes, mode);
        b.addEventListener("click", () => this.setMode(mode));
        return b;
      });
      const search = el("form", { class: "lx-search" }, bar);
      this.searchInput = el("input", { type: "search", placeholder: this.data.ids ? "row id" : "row number" }, search);
      el("button", { type: "submit" }, search, "find");
      search.addEventListener("submit", (e) => {
        e.preventDefault();
        this.find(this.searchInput.value.trim());
      });
      this.status = el("span", { class: "lx-status" }, bar, `${this.n.toLocaleString()} points`);
      this.downloadButton = el("button", { type: "button", class: "lx-download", disabled: "" }, bar, "download selection (CSV)");
      this.downloadButton.addEventListener("click", () => this.download());
      this.legend = el("div", { class: "lx-legend" }, this.root);
      this.grid = el("div", { class: `lx-grid lx-n${Math.min(this.header.maps.length, 3)}` }, this.root);
      this.tooltip = el("div", { class: "lx-tooltip", hidden: "" }, this.root);
    }

    buildMaps() {
      const renderer = window.createScatterplotRenderer();
      let drawn = 0;
      this.ready = new Promise((resolve) => {
        this.header.maps.forEach((spec, m) => {
          const panel = el("div", { class: "lx-panel" }, this.grid);
          el("div", { class: "lx-name" }, panel, spec.name);
          // the library sizes its canvas to 100% of the parent: a square frame holds it
          const canvas = el("canvas", { class: "lx-canvas" }, el("div", { class: "lx-frame" }, panel));
          const plot = window.createScatterplot({
            renderer, canvas, width: "auto", height: "auto",
            backgroundColor: "#ffffff", pointSize: this.header.pointSize, pointSizeSelected: 1,
            pointOutlineWidth: 1, pointColor: "#4c72b0", pointColorActive: "#000000", pointColorHover: "#000000",
            opacityInactiveScale: 0.15, opacityBy: "density", lassoColor: "#e4572e", lassoMinDelay: 5,
            reticleColor: [0, 0, 0, 0.3], deselectOnDblClick: true,
            spatialIndexUseWorker: false, // the library's worker copies every point: slower than building here
          });
          const map = { spec, panel, canvas, plot, x: this.data.maps[m].x, y: this.data.maps[m].y };
          this.maps.push(map);
          canvas.addEventListener("mousemove", (e) => { this.lastMouse = { x: e.clientX, y: e.clientY }; });
          canvas.addEventListener("mouseleave", () => this.hideTooltip());
          plot.subscribe("pointOver", (i) => this.hover(m, i));
          plot.subscribe("pointOut", () => this.hideTooltip());
          plot.subscribe("select", ({ points }) => this.select(m, points));
          plot.subscribe("deselect", () => this.select(m, []));
          if (this.n > MOVING_POINTS) plot.subscribe("view", () => this.moving(map));
          plot.subscribe("draw", () => {
            if (map.firstFrame === undefined) {
              map.firstFrame = performance.now();
              if (++drawn === this.header.maps.length) {
                this.timing.firstFrame = performance.now();
                resolve(this);
              }
            }
          });
        });
        this.colourBy(this.header.colorBy);
      });
    }

    movingSample() {
      if (!this.sample) { // every (n / MOVING_POINTS)-th row: an even, fixed subset, sorted
        const step = this.n / MOVING_POINTS;
        this.sample = Array.from({ length: MOVING_POINTS }, (_, k) => Math.floor(k * step));
      }
      if (!this.selection.length) return this.sample;
      const chosen = new Set(this.sample);
      this.selection.forEach((i) => chosen.add(i)); // filtered-out points would lose their selection
      return Array.from(chosen).sort((a, b) => a - b);
    }

    moving(map) {
      if (this.timing.firstFrame === undefined) return; // the first frame's own view change
      if (!map.coarse) {
        map.coarse = true;
        map.plot.filter(this.movingSample(), { preventEvent: true });
      }
      clearTimeout(map.settle);
      map.settle = setTimeout(() => {
        map.coarse = false;
        map.plot.unfilter({ preventEvent: true });
      }, SETTLE_MS);
    }

    colourValues(field) {
      // the values every map draws: category codes as they are, numbers scaled to [0, 1]
      if (!field) return {};
      const values = this.data.fields[field.index];
      if (field.kind === "category") return { z: values };
      const span = field.max - field.min || 1;
      const w = new Float32Array(this.n);
      for (let i = 0; i < this.n; i++) {
        const t = (values[i] - field.min) / span;
        w[i] = Number.isFinite(t) ? Math.min(Math.max(t, 0), 1) : 0;
      }
      // regl-scatterplot reads w only beside z: a value channel alone is dropped
      return { z: new Float32Array(this.n), w };
    }

    colourBy(j) {
      this.colourField = j;
      const field = this.header.fields[j];
      const options = { preventFilterReset: true, zDataType: "categorical", wDataType: "continuous" };
      const style = !field ? { colorBy: null, pointColor: "#4c72b0" }
        : field.kind === "category" ? { colorBy: "valueA", pointColor: field.colors }
        : { colorBy: "valueB", pointColor: SCALE };
      const values = this.colourValues(field); // once for all maps
      this.maps.forEach((map) => {
        map.plot.set(style);
        const spatialIndex = map.plot.get("spatialIndex"); // the positions do not change: keep the index
        map.plot.draw({ x: map.x, y: map.y, ...values }, { ...options, select: this.selection, spatialIndex });
      });
      this.drawLegend(field);
    }

    drawLegend(field) {
      this.legend.replaceChildren();
      if (!field) return;
      el("span", { class: "lx-legend-name" }, this.legend, field.name + ": ");
      if (field.kind === "number") {
        el("span", {}, this.legend, format(field.min, field));
        const bar = el("span", { class: "lx-scale" }, this.legend);
        bar.style.background = `linear-gradient(to right, ${VIRIDIS.join(",")})`;
        el("span", {}, this.legend, format(field.max, field));
        return;
      }
      field.categories.forEach((name, c) => {
        const item = el("button", { type: "button", class: "lx-key", title: `select the ${field.counts[c]} rows` }, this.legend);
        el("span", { class: "lx-swatch", style: `background:${field.colors[c]}` }, item);
        item.appendChild(document.createTextNode(`${name} (${field.counts[c].toLocaleString()})`));
        item.addEventListener("click", () => {
          const codes = this.data.fields[field.index];
          const rows = [];
          for (let i = 0; i < this.n; i++) if (codes[i] === c) rows.push(i);
          this.select(-1, rows);
        });
      });
    }

    setMode(mode) {
      this.modeButtons.forEach((b) => b.classList.toggle("lx-active", b.dataset.mode === mode));
      const settings = mode === "pan" ? { mouseMode: "panZoom" }
        : { mouseMode: "lasso", lassoType: mode === "box" ? "rectangle" : "freeform" };
      this.maps.forEach((map) => map.plot.set(settings));
      this.mode = mode;
    }

    select(source, points) {
      this.selection = Array.from(points);
      this.maps.forEach((map, m) => {
        if (m === source) return;
        // a moving map draws a sample: widen it first, or the selection would be cut to it
        if (map.coarse) map.plot.filter(this.movingSample(), { preventEvent: true });
        if (this.selection.length) map.plot.select(this.selection, { preventEvent: true });
        else map.plot.deselect({ preventEvent: true });
      });
      const k = this.selection.length;
      this.status.textContent = k ? `${k.toLocaleString()} of ${this.n.toLocaleString()} selected`
        : `${this.n.toLocaleString()} points`;
      if (k) this.downloadButton.removeAttribute("disabled");
      else this.downloadButton.setAttribute("disabled", "");
    }

    hover(source, i) {
      this.maps.forEach((map, m) => {
        if (m !== source) map.plot.hover(i, { preventEvent: true, showReticleOnce: true });
      });
      this.showTooltip(source, i);
    }

    showTooltip(source, i) {
      const tip = this.tooltip;
      tip.replaceChildren();
      el("div", { class: "lx-id" }, tip, this.data.ids ? this.id(i) : `row ${i}`);
      const table = el("table", {}, tip);
      this.header.fields.forEach((f) => {
        const row = el("tr", {}, table);
        el("th", {}, row, f.name);
        el("td", {}, row, format(this.value(f, i), f));
      });
      this.drawImage(i);
      let at = this.lastMouse;
      const map = this.maps[source];
      if (!at || source < 0) {
        const [px, py] = map.plot.getScreenPosition(i);
        const box = map.canvas.getBoundingClientRect();
        at = { x: box.left + px, y: box.top + py };
      }
      const host = this.root.getBoundingClientRect();
      tip.style.left = `${at.x - host.left + 14}px`;
      tip.style.top = `${at.y - host.top + 14}px`;
      tip.hidden = false;
      tip.dataset.row = String(i);
    }

    hideTooltip() {
      this.tooltip.hidden = true;
      this.maps.forEach((map) => map.plot.hover(undefined, { preventEvent: true }));
    }

    drawImage(i) {
      const spec = this.header.images;
      if (!spec) return;
      const k = this.data.imageRows ? binarySearch(this.data.imageRows, i) : i;
      if (k < 0) {
        el("div", { class: "lx-note" }, this.tooltip, "no thumbnail stored for this row");
        return;
      }
      const { width, height, channels } = spec;
      const size = width * height * channels;
      const pixels = this.data.pixels.subarray(k * size, (k + 1) * size);
      const canvas = el("canvas", { class: "lx-thumb", width, height }, this.tooltip);
      const image = new ImageData(width, height);
      for (let p = 0; p < width * height; p++) {
        for (let c = 0; c < 3; c++) image.data[4 * p + c] = pixels[channels * p + (channels === 3 ? c : 0)];
        image.data[4 * p + 3] = 255;
      }
      canvas.getContext("2d").putImageData(image, 0, 0);
      const scaleUp = Math.max(1, Math.floor(112 / Math.max(width, height)));
      canvas.style.width = `${width * scaleUp}px`;
      canvas.style.height = `${height * scaleUp}px`;
    }

    find(query) {
      if (!query) return -1;
      let i = -1;
      if (this.data.ids) {
        if (!this.idIndex) {
          this.idIndex = new Map();
          this.data.ids.forEach((id, j) => { if (!this.idIndex.has(id)) this.idIndex.set(id, j); });
        }
        i = this.idIndex.has(query) ? this.idIndex.get(query) : -1;
      } else if (/^\d+$/.test(query) && +query < this.n) {
        i = +query;
      }
      if (i < 0) {
        this.status.textContent = `no row ${this.data.ids ? "with id" : "number"} "${query}"`;
        return -1;
      }
      this.select(-1, [i]);
      this.maps.forEach((map) => {
        map.plot.zoomToLocation([map.x[i], map.y[i]], 0.25, { transition: true, transitionDuration: 400 });
        map.plot.hover(i, { preventEvent: true, showReticleOnce: true });
      });
      this.lastMouse = null;
      setTimeout(() => this.showTooltip(0, i), 450);
      return i;
    }

    download() {
      const named = this.header.fields.filter((f) => f.kind !== "number");
      const lines = [[this.data.ids ? "id" : "row", ...named.map((f) => f.name)].map(csvCell).join(",")];
      const rows = Array.from(this.selection).sort((a, b) => a - b);
      rows.forEach((i) => lines.push([this.id(i), ...named.map((f) => this.value(f, i))].map(csvCell).join(",")));
      const url = URL.createObjectURL(new Blob([lines.join("\n") + "\n"], { type: "text/csv" }));
      const link = el("a", { href: url, download: "selection.csv" }, document.body);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
      return lines;
    }
  }

  function binarySearch(sorted, value) {
    let lo = 0, hi = sorted.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid] === value) return mid;
      if (sorted[mid] < value) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
  }

  async function start(root) {
    root.dataset.started = "1";
    const header = JSON.parse(root.querySelector("script.lowdim-header").textContent);
    const data = { maps: [], fields: [] };
    for (const spec of header.maps) data.maps.push({ x: await decode(root, spec.x), y: await decode(root, spec.y) });
    for (const field of header.fields) data.fields.push(await decode(root, field));
    if (header.ids) data.ids = await decode(root, header.ids);
    if (header.images) {
      data.pixels = await decode(root, header.images.pixels);
      if (header.images.rows) data.imageRows = await decode(root, header.images.rows);
    }
    const explorer = new Explorer(root, header, data);
    explorer.setMode("pan");
    window.lowdimExplorers.push(explorer);
    return explorer.ready;
  }

  window.lowdimExplorers = window.lowdimExplorers || [];
  document.querySelectorAll(".lowdim-explorer:not([data-started])").forEach((root) => {
    start(root).catch((error) => {
      const box = document.createElement("p");
      box.className = "lx-error";
      box.textContent = `the map could not be drawn: ${error.message}`;
      root.appendChild(box);
      throw error;
    });
  });
})();
