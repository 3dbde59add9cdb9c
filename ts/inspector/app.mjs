// The inspector page: opening files and drawing what model.mjs finds. No framework.
import { encode, StreamWriter, FileWriter, XbfDate, XbfTimestamp } from "../dist/index.js";
import { fromHex } from "../dist/metadata.js";
import { inspect, schemaText, tableModel, treeNode, annotationLines, sizeComparison } from "./model.mjs";

const $ = (id) => document.getElementById(id);
const PAGE = 1000;
const h = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined) e.append(k);
  return e;
};

// ------------------------------------------------------------------ samples
const SAMPLES = {
  "Point (v1)": () => fromHex("120500000000000000506f696e740200050000000000000066697273740704000000000000006c617374072afb"),
  "Cities (rows)": () => encode(cities(), { type: CITY, layout: "rows" }),
  "Cities (columns)": () => encode(cities(), { type: CITY, layout: "columns" }),
  "Log (stream)": () => {
    const w = new StreamWriter({ type: LOG, checksums: true, blockBytes: 64 });
    const levels = ["info", "warn", "error"];
    for (let i = 0; i < 12; i++) w.write({ at: new XbfTimestamp(1700000000000000n + BigInt(i) * 1500000n), level: levels[i % 3], msg: `event ${i}` });
    return w.finish();
  },
  "Nested (tree)": () => encode({ name: "config", tags: ["a", "b"], limits: new Map([[1, "one"], [2, "two"]]), owner: { id: 12345678901234567890n, key: new Uint8Array([1, 2, 254]) } }),
  "Cities (file)": () => {
    const w = new FileWriter({ type: CITY.element, blockRows: 400 });
    for (const c of cities()) w.write(c);
    return w.finish();
  },
  "Damaged (truncated)": () => fromHex("c2001205506f696e740205666972737407046c61737407" + "2a"),
  "Damaged (stream)": () => { const b = SAMPLES["Log (stream)"](); b[Math.floor(b.length * 0.6)] ^= 0x40; return b; },
};
const CITY = { kind: "vec", element: { kind: "struct", name: "City", fields: [
  { name: "name", type: { kind: "string" } }, { name: "country", type: { kind: "string" } },
  { name: "population", type: { kind: "u64" } }, { name: "founded", type: { kind: "option", inner: { kind: "date" } } },
  { name: "lat", type: { kind: "f64" } }, { name: "lon", type: { kind: "f64" } }] } };
const LOG = { kind: "struct", name: "Event", fields: [
  { name: "at", type: { kind: "timestamp" } },
  { name: "level", type: { kind: "enum", name: "Level", variants: ["info", "warn", "error"].map((name) => ({ name, type: { kind: "unit" } })) } },
  { name: "msg", type: { kind: "string" } }] };
function cities() {
  const base = [["Lisbon", "PT", 545923, -1200, 38.72, -9.14], ["Oslo", "NO", 709037, 1048, 59.91, 10.75], ["Kyoto", "JP", 1463723, 794, 35.01, 135.77],
    ["Lagos", "NG", 15388000, null, 6.45, 3.39], ["Quito", "EC", 2800388, 1534, -0.18, -78.47], ["Perth", "AU", 2192229, 1829, -31.95, 115.86]];
  const out = [];
  for (let i = 0; i < 1500; i++) {
    const [name, country, pop, year, lat, lon] = base[i % base.length];
    out.push({ name: i < base.length ? name : `${name} ${i}`, country, population: pop + i, founded: year === null ? null : new XbfDate(Math.round((year - 1970) * 365.2425)), lat, lon });
  }
  return out;
}

// ------------------------------------------------------------------ opening
let current = null;

function open(name, bytes, json = null) {
  current = { name, bytes, limit: 4096, json, block: 0 };
  render();
}

/** The pasted JSON, converted with the package's `encode` (type inferred) and opened like a file. */
function convertJson() {
  const status = $("json-error");
  status.textContent = "";
  const text = $("json").value;
  let value, bytes;
  try { value = JSON.parse(text); } catch (e) { status.textContent = `Not JSON: ${e.message}`; return; }
  try { bytes = encode(value, { layout: $("layout").value }); } catch (e) { status.textContent = `Cannot convert: ${e.message}`; return; }
  open(`pasted JSON (${$("layout").value})`, bytes, text);
}

async function openFile(file) {
  open(file.name, new Uint8Array(await file.arrayBuffer()));
}

function render() {
  const { name, bytes, limit } = current;
  let r;
  try {
    r = inspect(bytes, { limitBytes: limit, block: current.block });
  } catch (e) {
    $("summary").replaceChildren(h("p", { class: "error" }, `The inspector failed: ${e}`));
    return;
  }
  $("results").hidden = false;
  const parts = [h("strong", {}, name), ` — ${r.label}, ${bytes.length.toLocaleString("en")} bytes`];
  if (r.file?.blocks) {
    parts.push(`, ${r.file.recordCount.toLocaleString("en")} records in ${r.file.blocks.length.toLocaleString("en")} blocks`);
    if (r.file.chosen !== null) parts.push(`; block ${r.file.chosen} shown`);
  } else if (r.records) parts.push(`, ${r.records.length.toLocaleString("en")} records read`);
  $("summary").replaceChildren(h("p", {}, ...parts));
  renderError(r, bytes);
  renderFile(r);
  $("schema").textContent = r.type ? schemaText(r.type) : "(no type: the header or metadata is damaged)";
  renderRecords(r);
  renderSizes(r, bytes);
  renderBytes(r, bytes);
}

/** An XBF file's blocks (offset, length, records, CRC-32C; a button shows a block's records) and the columns of
 * the block shown: encoding, place and statistics. */
function renderFile(r) {
  const sec = $("file-section");
  if (!r.file) { sec.hidden = true; return; }
  sec.hidden = false;
  if (!r.file.blocks) {
    $("file-blocks").replaceChildren(h("p", {}, `No footer (${r.file.footerError.message}): the whole blocks were read forward.`));
    $("block-columns-title").hidden = true;
    $("block-columns").replaceChildren();
    return;
  }
  const head = (...names) => h("thead", {}, h("tr", {}, names.map((x) => h("th", { scope: "col" }, x))));
  const num = (x) => h("td", { class: "num" }, typeof x === "number" ? x.toLocaleString("en") : x);
  const rows = r.file.blocks.map((b) => h("tr", { class: b.index === r.file.chosen ? "chosen" : null },
    h("th", { scope: "row" }, String(b.index)), num(b.offset), num(b.size), num(b.records), h("td", {}, h("code", {}, b.crc)),
    h("td", {}, b.error ? h("span", { class: "err" }, b.error.message) : "ok"),
    h("td", {}, h("button", { type: "button", disabled: b.index === r.file.chosen ? "" : null, onclick: () => { current.block = b.index; render(); } }, "Show records"))));
  $("file-blocks").replaceChildren(h("table", { class: "data blocks" }, head("Block", "Offset", "Length", "Records", "CRC-32C", "Check", ""), h("tbody", {}, rows)));
  const chosen = r.file.blocks[r.file.chosen];
  $("block-columns-title").hidden = !chosen;
  if (!chosen) { $("block-columns").replaceChildren(h("p", {}, "The file has no blocks.")); return; }
  $("block-columns-title").textContent = `Columns of block ${chosen.index}`;
  if (!chosen.columns) { $("block-columns").replaceChildren(h("p", { class: "err" }, chosen.error.message)); return; }
  const dash = (x) => (x === null ? "—" : x);
  const cols = chosen.columns.map((c) => h("tr", {},
    h("td", {}, h("code", {}, c.path)), h("td", {}, c.encoding), num(c.offset), num(c.size),
    h("td", {}, dash(c.min)), h("td", {}, dash(c.max)), h("td", {}, c.min === null ? "—" : c.exact ? "exact" : "bounds"),
    num(c.hasStats ? c.nulls : "—"), num(c.hasStats ? c.nans : "—")));
  $("block-columns").replaceChildren(h("table", { class: "data columns" }, head("Column", "Encoding", "Offset", "Bytes", "Min", "Max", "Min/max", "Nulls", "NaN"), h("tbody", {}, cols)));
}

function renderSizes(r, bytes) {
  const sec = $("sizes-section");
  if (r.file || r.error || !r.type || (r.value === undefined && !r.records)) { sec.hidden = true; $("sizes").replaceChildren(); return; }
  const rows = sizeComparison(r.type, r.value, { records: r.records, original: { label: r.label, bytes: bytes.length } });
  if (current.json !== null) rows.push({ format: "JSON as pasted", bytes: new TextEncoder().encode(current.json).length, note: "" });
  const json = rows.find((x) => x.format.startsWith("JSON (compact)"))?.bytes;
  const max = Math.max(1, ...rows.map((x) => x.bytes ?? 0));
  const body = h("tbody", {}, rows.map((x) => h("tr", {},
    h("th", { scope: "row" }, x.format),
    h("td", { class: "num" }, x.bytes === null ? "—" : x.bytes.toLocaleString("en")),
    h("td", { class: "num" }, x.bytes === null || !json ? "" : `${(100 * x.bytes / json).toFixed(1)}%`),
    h("td", { class: "bar", "aria-hidden": "true" }, x.bytes === null ? "" : h("span", { style: `width: ${(100 * x.bytes / max).toFixed(1)}%` })),
    h("td", { class: "note" }, x.note))));
  $("sizes").replaceChildren(h("table", { class: "data sizes" },
    h("thead", {}, h("tr", {}, ["Format", "Bytes", "of JSON", "", ""].map((t) => h("th", { scope: "col" }, t)))), body),
    h("p", { class: "meta" }, "The same data re-encoded in this page: XBF by this package, JSON as compact text (bigints as digits, bytes as base64), MessagePack with field names as @msgpack/msgpack writes it (counted, not encoded)."));
  sec.hidden = false;
}

function renderError(r, bytes) {
  const box = $("error");
  if (!r.error) { box.hidden = true; box.replaceChildren(); return; }
  const e = r.error;
  const dl = h("dl", {},
    h("dt", {}, "Kind"), h("dd", {}, h("code", {}, e.kind)),
    h("dt", {}, "Offset"), h("dd", {}, e.offset === undefined ? "—" : `byte ${e.offset}${e.offset >= bytes.length ? " (the end of the input)" : ""}`),
    h("dt", {}, "Path"), h("dd", {}, e.path ? h("code", {}, e.path) : "—"),
    h("dt", {}, "Message"), h("dd", {}, e.message));
  const kids = [h("h2", {}, "This input is damaged"), dl];
  if (e.offset !== undefined) {
    const from = Math.max(0, e.offset - 12), to = Math.min(bytes.length, e.offset + 12);
    const ctx = h("p", { class: "hexctx", "aria-label": `bytes ${from} to ${to} around the error` }, h("span", { class: "off" }, `${from}: `));
    for (let i = from; i < to; i++) {
      const x = bytes[i].toString(16).padStart(2, "0") + " ";
      ctx.append(i === e.offset ? h("mark", { title: `byte ${i}: the error` }, x) : x);
    }
    if (e.offset >= bytes.length) ctx.append(h("mark", { title: "the input ends here" }, "⟂ end"));
    kids.push(ctx, h("p", {}, h("a", { href: "#error-line" }, "Show it in the annotated bytes")));
  }
  box.replaceChildren(...kids);
  box.hidden = false;
}

function renderRecords(r) {
  const out = $("records");
  $("records-title").textContent = r.file?.chosen != null ? `Records of block ${r.file.chosen}` : r.records ? "Records" : "Value";
  if (r.value === undefined && !r.records) { out.replaceChildren(h("p", {}, "No value: the input could not be decoded.")); return; }
  const table = r.type ? tableModel(r.type, r.value, r.records) : null;
  if (table) {
    if (r.file?.chosen == null) $("records-title").textContent = r.records ? "Records" : "Records (the value is a list)";
    return renderTable(out, table, 0);
  }
  const root = r.records ? treeNode(r.records, "records") : treeNode(r.value, "value");
  out.replaceChildren(h("ul", { class: "tree", role: "tree" }, treeItem(root, true)));
}

function renderTable(out, t, page) {
  const from = page * PAGE, to = Math.min(t.rowCount, from + PAGE);
  const pages = Math.max(1, Math.ceil(t.rowCount / PAGE));
  const pager = () => h("nav", { class: "pager", "aria-label": "record pages" },
    h("button", { type: "button", disabled: page === 0 ? "" : null, onclick: () => renderTable(out, t, page - 1) }, "‹ Previous"),
    ` Rows ${t.rowCount ? from + 1 : 0}–${to} of ${t.rowCount.toLocaleString("en")} (page ${page + 1} of ${pages}) `,
    h("button", { type: "button", disabled: page + 1 >= pages ? "" : null, onclick: () => renderTable(out, t, page + 1) }, "Next ›"));
  const thead = h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), t.columns.map((c) => h("th", { scope: "col" }, c.name, h("br"), h("small", {}, c.type)))));
  const tbody = h("tbody");
  t.rows(from, to).forEach((cells, i) => tbody.append(h("tr", {}, h("th", { scope: "row" }, String(from + i)), cells.map((c) => h("td", {}, c)))));
  out.replaceChildren(pager(), h("div", { class: "scroll" }, h("table", { class: "data" }, thead, tbody)), t.rowCount > PAGE ? pager() : "");
}

function treeItem(node, open = false) {
  const name = node.label ? h("span", { class: "key" }, node.label + ": ") : "";
  if (node.count === 0) return h("li", { role: "treeitem" }, name, h("span", { class: "val" }, node.text));
  const list = h("ul", { role: "group" });
  let shown = 0;
  const more = () => {
    const next = node.children(shown, shown + PAGE);
    shown += next.length;
    list.replaceChildren(...[...list.children].filter((c) => !c.classList.contains("more")), ...next.map((c) => treeItem(c)));
    if (shown < node.count) list.append(h("li", { class: "more" }, h("button", { type: "button", onclick: more }, `Show ${Math.min(PAGE, node.count - shown)} more of ${node.count}`)));
  };
  const d = h("details", { ontoggle: () => { if (d.open && shown === 0) more(); } }, h("summary", {}, name, h("span", { class: "meta" }, node.text)), list);
  if (open) { d.open = true; more(); }
  return h("li", { role: "treeitem" }, d);
}

function renderBytes(r, bytes) {
  const lines = annotationLines(bytes, r.annotations);
  const w = Math.max(2, String(bytes.length).length);
  const tbody = h("tbody");
  let prev = -1;
  for (const l of lines) {
    const cls = l.error ? "error" : l.note ? "note" : l.index % 2 ? "odd" : "";
    const tr = h("tr", { class: cls }, h("td", { class: "off" }, String(l.offset).padStart(w)), h("td", { class: "hex" }, l.error ? h("mark", {}, l.hex || "⟂ end") : l.hex), h("td", {}, l.index !== prev || l.text ? l.text : ""));
    if (l.error) tr.id = "error-line";
    prev = l.index;
    tbody.append(tr);
  }
  const table = h("table", { class: "bytes" }, h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Offset"), h("th", { scope: "col" }, "Bytes"), h("th", { scope: "col" }, "Meaning"))), tbody);
  const kids = [h("div", { class: "scroll tall" }, table)];
  if (r.stopped !== null) {
    kids.push(h("p", {}, `Annotated the items that start in the first ${r.stopped.toLocaleString("en")} bytes of ${bytes.length.toLocaleString("en")}. `,
      h("button", { type: "button", onclick: () => { current.limit *= 8; render(); } }, "Annotate more")));
  }
  $("bytes").replaceChildren(...kids);
  const cols = $("columns-section");
  if (r.columns) {
    cols.hidden = false;
    const body = h("tbody", {}, r.columns.map((c) => h("tr", {}, h("td", {}, h("code", {}, c.path)), h("td", {}, c.role), h("td", {}, c.encoding), h("td", { class: "num" }, String(c.offset)), h("td", { class: "num" }, c.bytes.toLocaleString("en")))));
    $("columns").replaceChildren(h("table", { class: "data" }, h("thead", {}, h("tr", {}, ["Path", "Column", "Encoding", "Offset", "Bytes"].map((x) => h("th", { scope: "col" }, x)))), body));
  } else cols.hidden = true;
}

// ------------------------------------------------------------------ wiring
function init() {
  $("file").addEventListener("change", (e) => { const f = e.target.files?.[0]; if (f) openFile(f); });
  const zone = document.body;
  zone.addEventListener("dragover", (e) => { e.preventDefault(); document.body.classList.add("dragging"); });
  zone.addEventListener("dragleave", (e) => { if (e.target === document.documentElement || e.relatedTarget === null) document.body.classList.remove("dragging"); });
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    document.body.classList.remove("dragging");
    const f = e.dataTransfer?.files?.[0];
    if (f) openFile(f);
  });
  $("convert").addEventListener("click", convertJson);
  $("json").addEventListener("keydown", (e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) convertJson(); });
  const samples = $("samples");
  for (const [name, make] of Object.entries(SAMPLES)) samples.append(h("button", { type: "button", onclick: () => open(`sample: ${name}`, make()) }, name));
  const want = new URLSearchParams(location.search).get("sample") ?? location.hash.slice(1);
  const key = Object.keys(SAMPLES).find((k) => k.toLowerCase().startsWith(decodeURIComponent(want).toLowerCase()));
  if (want && key) open(`sample: ${key}`, SAMPLES[key]());
}
init();
