// End-to-end: the built inspector page (inspector/inspector.html, opened from file://) driven in headless
// Chromium through playwright-core. Uses the system's chromium (Debian's package at /usr/bin/chromium, or
// $CHROMIUM); playwright never downloads a browser. Checks what the page shows, not the model's functions.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { encode as msgpack } from "@msgpack/msgpack";
import { encode } from "../../dist/index.js";
import { fromHex } from "../../dist/metadata.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const PAGE = pathToFileURL(join(root, "inspector", "inspector.html")).href;
const BROWSER = process.env.CHROMIUM ?? "/usr/bin/chromium";
const POINT_V1 = "120500000000000000506f696e740200050000000000000066697273740704000000000000006c617374072afb";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

let context, page, profile;
const pageErrors = [];

before(async () => {
  assert.ok(existsSync(BROWSER), `no chromium at ${BROWSER} (apt-get install chromium, or set CHROMIUM)`);
  execFileSync(process.execPath, [join(root, "inspector", "build.mjs")], { cwd: root, stdio: "pipe" });
  profile = mkdtempSync(join(tmpdir(), "xbf-e2e-chromium-"));
  context = await chromium.launchPersistentContext(profile, { executablePath: BROWSER, headless: true, args: ARGS, timeout: 20000 });
  page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(5000);
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") pageErrors.push(m.text()); });
  // Nothing leaves the machine: every request but the page's own file is refused.
  await page.route((url) => url.protocol !== "file:", (r) => r.abort());
  await page.goto(PAGE);
});

after(async () => {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** Opens bytes through the page's file input, as a user choosing a file does. */
async function openBytes(name, bytes) {
  await page.setInputFiles("#file", { name, mimeType: "application/octet-stream", buffer: Buffer.from(bytes) });
  await page.waitForFunction((n) => document.querySelector("#summary")?.textContent.includes(n), name);
}

const text = (sel) => page.locator(sel).innerText();
const byteLines = () => page.$$eval("#bytes table.bytes tbody tr", (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent.trim())));

test("the paper's Point v1 message: schema, value and annotated bytes", async () => {
  await openBytes("point.xbf", fromHex(POINT_V1));
  assert.match(await text("#summary"), /point\.xbf — XBF v1 message, 45 bytes/);
  assert.equal(await page.locator("#error").isHidden(), true, "no error box for a valid file");
  assert.equal(await text("#schema"), "struct Point {\n    first: i8,\n    last: i8,\n}");
  const tree = await text("#records");
  assert.match(tree, /first: 42/);
  assert.match(tree, /last: -5/);
  const lines = await byteLines();
  assert.deepEqual(lines[0], ["0", "12", "discriminant: struct"]);
  assert.ok(lines.some((l) => l[0] === "43" && l[1] === "2a" && l[2] === "Point.first = 42 (i8)"), JSON.stringify(lines));
  assert.ok(lines.some((l) => l[0] === "44" && l[1] === "fb" && l[2] === "Point.last = -5 (i8)"));
  assert.deepEqual(pageErrors, []);
});

test("a columnar file: schema, the records table, the column list and byte annotations", async () => {
  const type = { kind: "vec", element: { kind: "struct", name: "Trade", fields: [
    { name: "sym", type: { kind: "string" } }, { name: "qty", type: { kind: "u32" } }, { name: "px", type: { kind: "f64" } }] } };
  const rows = Array.from({ length: 1234 }, (_, i) => ({ sym: ["AAPL", "MSFT", "GOOG"][i % 3], qty: 100 + i, px: 10 + i / 4 }));
  const bytes = encode(rows, { type, layout: "columns" });
  await openBytes("trades.xbf", bytes);
  assert.match(await text("#summary"), new RegExp(`trades\\.xbf — XBF 2 message, columnar, ${bytes.length.toLocaleString("en")} bytes`));
  assert.equal(await page.locator("#error").isHidden(), true);
  assert.equal(await text("#schema"), "vec<struct Trade {\n    sym: string,\n    qty: u32,\n    px: f64,\n}>");
  const head = await page.$$eval("#records table.data thead th", (ths) => ths.map((t) => t.textContent));
  assert.deepEqual(head, ["#", "symstring", "qtyu32", "pxf64"]);
  const body = await page.$$eval("#records table.data tbody tr", (trs) => trs.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.equal(body.length, 1000, "the first page of 1000 rows");
  assert.deepEqual(body[0], ["0", '"AAPL"', "100", "10"]);
  assert.deepEqual(body[5], ["5", '"GOOG"', "105", "11.25"]);
  assert.match(await page.locator("#records .pager").first().innerText(), /Rows 1–1000 of 1,234/);
  await page.locator("#records .pager").first().getByRole("button", { name: "Next ›" }).click();
  const last = await page.$$eval("#records table.data tbody tr:last-child", (trs) => [...trs[0].cells].map((c) => c.textContent));
  assert.deepEqual(last, ["1233", '"AAPL"', "1333", "318.25"]);
  assert.equal(await page.locator("#columns-section").isVisible(), true);
  const cols = await text("#columns");
  for (const p of ["sym", "qty", "px"]) assert.match(cols, new RegExp(p));
  const lines = await byteLines();
  assert.equal(lines[0][0], "0");
  assert.match(lines[0][1], /^c2/);
  assert.ok(lines.some((l) => /column/i.test(l[2])), "some byte line names a column");
  assert.deepEqual(pageErrors, []);
});

test("a damaged file shows the error box with kind, offset and path, and the rest of the page", async () => {
  const good = fromHex(POINT_V1);
  const bytes = good.subarray(0, good.length - 1); // the last field's byte is missing
  await openBytes("truncated.xbf", bytes);
  const box = page.locator("#error");
  assert.equal(await box.isVisible(), true, "the error box is shown");
  const err = await box.innerText();
  assert.match(err, /This input is damaged/);
  assert.match(err, /Kind\s+truncated/);
  assert.match(err, /Offset\s+byte 44 \(the end of the input\)/);
  assert.match(err, /Path\s+Point\.last/);
  assert.equal(await page.locator("#error mark").count() > 0, true, "the byte is marked");
  assert.equal(await text("#schema"), "struct Point {\n    first: i8,\n    last: i8,\n}", "the schema read before the damage is still shown");
  const lines = await byteLines();
  assert.ok(lines.length > 5, "annotated bytes up to the damage");
  assert.equal(await page.locator("#error-line").count(), 1);
  assert.deepEqual(pageErrors, []);
});

test("bytes that are not XBF at all: an error, not a blank page", async () => {
  await openBytes("garbage.bin", new TextEncoder().encode("{\"json\": true}"));
  assert.equal(await page.locator("#error").isVisible(), true);
  assert.match(await text("#error"), /Kind/);
  assert.match(await text("#summary"), /garbage\.bin — not XBF/);
  assert.deepEqual(pageErrors, []);
});

test("pasted JSON is converted with encode and shown like an opened file, with the size comparison", async () => {
  const rows = Array.from({ length: 300 }, (_, i) => ({ id: i, name: `user ${i}`, score: i % 7 === 0 ? null : i / 4, admin: i % 5 === 0 }));
  const json = JSON.stringify(rows, null, 1);
  await page.locator("#paste summary").click();
  // As a paste: the whole text at once (typing 20 KB key by key through fill() takes seconds).
  await page.$eval("#json", (el, v) => { el.value = v; el.dispatchEvent(new Event("input", { bubbles: true })); }, json);
  await page.selectOption("#layout", "columns");
  await page.click("#convert");
  await page.waitForFunction(() => document.querySelector("#summary")?.textContent.includes("pasted JSON"));
  const bytes = encode(rows, { layout: "columns" });
  assert.match(await text("#summary"), new RegExp(`pasted JSON \\(columns\\) — XBF 2 message, columnar, ${bytes.length.toLocaleString("en")} bytes`));
  assert.match(await text("#schema"), /^vec<struct Object \{/);
  const body = await page.$$eval("#records table.data tbody tr", (trs) => trs.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.equal(body.length, 300);
  assert.deepEqual(body[1], ["1", "1", '"user 1"', "0.25", "false"]);
  assert.equal(body[7][3], "null");
  const sizes = Object.fromEntries(await page.$$eval("#sizes tbody tr", (trs) => trs.map((r) => [r.cells[0].textContent, r.cells[1].textContent])));
  const n = (x) => x.toLocaleString("en");
  assert.equal(sizes["this input (XBF 2 message, columnar)"], n(bytes.length));
  assert.equal(sizes["XBF 2, rows"], n(encode(rows, { layout: "rows" }).length));
  assert.equal(sizes["XBF 2, columns"], n(bytes.length));
  assert.equal(sizes["JSON (compact)"], n(Buffer.byteLength(JSON.stringify(rows))));
  assert.equal(sizes["MessagePack (field names)"], n(msgpack(rows).length));
  assert.equal(sizes["JSON as pasted"], n(Buffer.byteLength(json)));

  await page.fill("#json", "{not json");
  await page.click("#convert");
  assert.match(await text("#json-error"), /^Not JSON: /);
  assert.match(await text("#summary"), /pasted JSON/, "the last good conversion stays on the page");
  assert.deepEqual(pageErrors, []);
});

test("opening a file from ?sample= works and a message's size comparison is shown", async () => {
  await page.goto(PAGE + "?sample=Cities (rows)");
  await page.waitForSelector("#sizes tbody tr");
  const formats = await page.$$eval("#sizes tbody th", (ths) => ths.map((t) => t.textContent));
  assert.deepEqual(formats, ["this input (XBF 2 message)", "XBF 2, rows", "XBF 2, columns", "JSON (compact)", "MessagePack (field names)"]);
  assert.deepEqual(pageErrors, []);
});

test("an XBF file (a file vector): its blocks, each column's encoding and statistics, the records of a chosen block", async () => {
  const vectors = JSON.parse(readFileSync(join(root, "..", "vectors", "files", "files.json"), "utf8"));
  const v = vectors.find((x) => x.name.startsWith("options and NaN"));
  const bytes = fromHex(v.hex);
  await openBytes("options.xbf", bytes);
  assert.match(await text("#summary"), new RegExp(`options\\.xbf — XBF file, ${bytes.length} bytes, 4 records in 2 blocks; block 0 shown`));
  assert.equal(await page.locator("#error").isHidden(), true);
  assert.equal(await text("#schema"), "struct M {\n    note: option<string>,\n    x: f64,\n}");
  const cells = (sel) => page.$$eval(sel, (trs) => trs.map((r) => [...r.cells].map((c) => c.textContent)));
  // Blocks: offset, length, records, CRC-32C (the last four bytes of each block).
  const blocks = await cells("#file-blocks tbody tr");
  const crcOf = (end) => Buffer.from(bytes.subarray(end - 4, end)).readUInt32LE(0).toString(16).padStart(8, "0");
  assert.deepEqual(blocks.map((b) => b.slice(0, 6)), [["0", "16", "29", "2", crcOf(45), "ok"], ["1", "45", "99", "2", crcOf(144), "ok"]]);
  // Block 0's columns: encodings and statistics (the null of note, the NaN of x).
  assert.equal(await text("#block-columns-title"), "Columns of block 0");
  assert.deepEqual(await cells("#block-columns tbody tr"), [
    ["note.(present)", "varint", "18", "4", "—", "—", "—", "—", "—"],
    ["note", "plain strings", "22", "7", '"é"', '"é"', "exact", "1", "0"],
    ["x", "XOR float", "29", "12", "1.5", "1.5", "exact", "0", "1"],
  ]);
  assert.equal(await text("#records-title"), "Records of block 0");
  assert.deepEqual((await cells("#records table.data tbody tr")).map((r) => r.slice(1)), [["null", "NaN"], ['"é"', "1.5"]]);
  // Block 1: a 70-byte string whose bounds are cut to 64 bytes (not exact).
  await page.locator("#file-blocks tbody tr").nth(1).getByRole("button", { name: "Show records" }).click();
  await page.waitForFunction(() => document.querySelector("#block-columns-title")?.textContent === "Columns of block 1");
  const note = (await cells("#block-columns tbody tr"))[1];
  assert.equal(note[6], "bounds");
  assert.equal(note[4], `"${"z".repeat(64)}"`);
  assert.equal(note[5], `"${"z".repeat(63)}{"`);
  assert.deepEqual((await cells("#records table.data tbody tr")).map((r) => r.slice(1)), [["null", "-2"], [`"${"z".repeat(48)}"…`, "NaN"]]);
  const lines = await byteLines();
  assert.ok(lines.some((l) => l[2] === "magic XBFF"), "the footer part is annotated");
  assert.ok(lines.some((l) => l[2] === "block 1: body length 94"));
  assert.deepEqual(pageErrors, []);
});

test("a damaged file: the damaged block is marked in the block list, the others stay readable", async () => {
  const vectors = JSON.parse(readFileSync(join(root, "..", "vectors", "files", "files.json"), "utf8"));
  const v = vectors.find((x) => x.name.startsWith("bad-checksum in block 1"));
  await openBytes("damaged.xbf", fromHex(v.hex));
  const blocks = await page.$$eval("#file-blocks tbody tr", (trs) => trs.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.equal(blocks.length, 3);
  assert.equal(blocks[0][5], "ok");
  assert.match(blocks[1][5], /^at byte 20: bad-checksum: block 1 \(bytes 14\.\.24\)/);
  await page.locator("#file-blocks tbody tr").nth(1).getByRole("button", { name: "Show records" }).click();
  await page.waitForFunction(() => !document.querySelector("#error").hidden);
  assert.match(await text("#error"), /Kind\s+bad-checksum/);
  assert.match(await text("#error"), /Offset\s+byte 20/);
  await page.locator("#file-blocks tbody tr").nth(2).getByRole("button", { name: "Show records" }).click();
  await page.waitForFunction(() => document.querySelector("#error").hidden);
  assert.deepEqual(pageErrors, []);
});
