// The inspector's pure functions (inspector/model.mjs): schema text, table model, byte annotations,
// the column list and damaged input. The page itself (app.mjs) is checked by hand in a browser.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { encode, StreamWriter, typeFromJson } from "../dist/index.js";
import { fromHex } from "../dist/metadata.js";
import { inspect, schemaText, tableModel, treeNode, annotationText, cellText, floatText, dayText } from "../inspector/model.mjs";
import { load } from "./helpers.mjs";

const POINT_V1 = "120500000000000000506f696e740200050000000000000066697273740704000000000000006c617374072afb";

test("the paper's Point in v1: schema, value, and the bytes as xbf inspect annotates them", () => {
  const b = fromHex(POINT_V1);
  const r = inspect(b);
  assert.equal(r.format, "v1");
  assert.equal(r.error, null);
  assert.deepEqual(r.value, { first: 42, last: -5 });
  assert.equal(schemaText(r.type), "struct Point {\n    first: i8,\n    last: i8,\n}");
  assert.equal(schemaText(r.type, false), "struct Point { first: i8, last: i8 }");
  assert.equal(annotationText(b, r.annotations), [
    " 0  12                         discriminant: struct",
    " 1  05 00 00 00 00 00 00 00    struct name length 5",
    ' 9  50 6f 69 6e 74             "Point"',
    "14  02 00                      field count 2",
    "16  05 00 00 00 00 00 00 00    field name length 5",
    '24  66 69 72 73 74             "first"',
    "29  07                         type of Point.first: i8",
    "30  04 00 00 00 00 00 00 00    field name length 4",
    '38  6c 61 73 74                "last"',
    "42  07                         type of Point.last: i8",
    "43  2a                         Point.first = 42 (i8)",
    "44  fb                         Point.last = -5 (i8)",
  ].join("\n"));
  assert.equal(tableModel(r.type, r.value), null, "a single struct is a tree, not a table");
  const tree = treeNode(r.value);
  assert.equal(tree.count, 2);
  assert.deepEqual(tree.children().map((c) => [c.label, c.text]), [["first", "42"], ["last", "-5"]]);
});

test("schema text follows Rust's {:#}: nesting, quoted names, unit variants, one-tuples", () => {
  const t = typeFromJson({ vec: { struct: "Row", fields: [["id", "u64"], ["my key", { option: "string" }],
    ["kind", { enum: "K", variants: [["a", "unit"], ["b", { struct: "In", fields: [["x", "f32"]] }]] }],
    ["pair", { tuple: ["u8"] }], ["m", { map: ["string", { array: "i16", len: 3 }] }]] } });
  assert.equal(schemaText(t), [
    "vec<struct Row {",
    "    id: u64,",
    '    "my key": option<string>,',
    "    kind: enum K {",
    "        a,",
    "        b: struct In {",
    "            x: f32,",
    "        },",
    "    },",
    "    pair: (u8,),",
    "    m: map<string, [i16; 3]>,",
    "}>",
  ].join("\n"));
  assert.equal(schemaText({ kind: "struct", name: "E", fields: [] }), "struct E {}");
});

test("a list of flat structs is a table with pages; nested values are a tree", () => {
  const rows = Array.from({ length: 2500 }, (_, i) => ({ id: i, name: `n${i}`, big: 2n ** 60n + BigInt(i), tag: i % 2 ? null : "x" }));
  const b = encode(rows);
  const r = inspect(b);
  const t = tableModel(r.type, r.value);
  assert.ok(t);
  assert.deepEqual(t.columns.map((c) => c.name), ["id", "name", "big", "tag"]);
  assert.equal(t.rowCount, 2500);
  assert.deepEqual(t.rows(1000, 1002), [["1000", '"n1000"', "1152921504606847976", '"x"'], ["1001", '"n1001"', "1152921504606847977", "null"]]);
  assert.equal(t.rows(2400, 3400).length, 100);
  const nested = inspect(encode({ a: [1, 2], m: new Map([[1, "one"]]), k: new Uint8Array([1, 255]) }));
  assert.equal(tableModel(nested.type, nested.value), null);
  const root = treeNode(nested.value);
  assert.deepEqual(root.children().map((c) => [c.label, c.text, c.count]), [["a", "2 items", 2], ["m", "map, 1 entries", 1], ["k", "0x01ff", 0]]);
  assert.deepEqual(root.children()[1].children().map((c) => [c.label, c.text]), [["1", '"one"']]);
});

test("a columnar message: its columns with path, encoding and bytes (SPEC 22.4's example)", () => {
  const b = encode([{ a: 1, b: "x" }, { a: 2, b: "y" }], { layout: "columns" });
  assert.equal(Buffer.from(b).toString("hex"), "c20211120" + "64f626a656374020161040162100200020300010207200300010178" + "79");
  const r = inspect(b);
  assert.equal(r.format, "columns");
  assert.equal(r.error, null);
  assert.deepEqual(r.columns.map((c) => [c.path, c.role, c.encoding, c.offset, c.bytes]), [
    ["the value", "lengths", "varint", 18, 3],
    ["[].a", "u64 values", "varint", 21, 4],
    ["[].b", "string values", "plain strings", 25, 8],
  ]);
  assert.equal(r.annotations.at(-1).text, "[].b: string values column, 7 bytes, plain strings");
  assert.equal(r.annotations.at(-1).end, b.length);
  assert.deepEqual(tableModel(r.type, r.value).rows(0, 2), [["1", '"x"'], ["2", '"y"']]);
  // vec<any>: a types column, type indices, then a column for each type
  const any = inspect(fromHex("c202111902000204300204100300000102000105200200016" + "1"));
  assert.deepEqual(any.columns.map((c) => c.role), ["lengths", "types", "type index", "u64 values", "string values"]);
  assert.deepEqual(any.value, [1, "a"]);
});

test("a record stream: records as a table, blocks and checksums annotated", () => {
  const type = typeFromJson({ struct: "Ev", fields: [["id", "u32"], ["at", "date"]] });
  const w = new StreamWriter({ type, checksums: true, blockBytes: 8 });
  for (let i = 0; i < 5; i++) w.write({ id: i, at: 17898 + i });
  const b = w.finish();
  const r = inspect(b);
  assert.equal(r.format, "stream");
  assert.equal(r.error, null);
  assert.equal(r.records.length, 5);
  const t = tableModel(r.type, undefined, r.records);
  assert.deepEqual(t.rows(0, 2), [["0", "2019-01-02"], ["1", "2019-01-03"]]);
  const texts = r.annotations.map((a) => a.text);
  assert.equal(texts[0], "version byte: XBF 2");
  assert.equal(texts[1], "flags: record stream, block checksums");
  assert.ok(texts.includes("block 0: body length 9"), texts.join("\n"));
  assert.ok(texts.includes("#0.at = 2019-01-02 (day 17898) (date)"));
  assert.ok(texts.some((x) => /^CRC-32C of block 1's body: [0-9a-f]{8}$/.test(x)));
  assert.equal(r.annotations.at(-1).end, b.length);
});

test("damaged input: the error's kind, offset and path, the byte marked, what came before annotated", () => {
  // Point in XBF 2, cut before its last value
  const cut = fromHex("c2001205506f696e740205666972737407046c617374072a");
  let r = inspect(cut);
  assert.deepEqual([r.error.kind, r.error.offset, r.error.path], ["truncated", 24, "Point.last"]);
  assert.equal(r.value, undefined);
  assert.equal(schemaText(r.type, false), "struct Point { first: i8, last: i8 }", "the type is read even when the value is not");
  const last = r.annotations.at(-1);
  assert.ok(last.error);
  assert.equal(last.start, 24);
  assert.match(last.text, /^error: at byte 24, in Point\.last: truncated/);
  assert.equal(r.annotations.at(-2).text, "Point.first = 42 (i8)");
  // an unknown discriminant in the metadata: no type, the byte marked
  const bad = fromHex("c2001205506f696e740205666972737457046c617374072afb");
  r = inspect(bad);
  assert.equal(r.error.kind, "unknown-discriminant");
  assert.equal(r.error.offset, 16);
  assert.deepEqual([r.annotations.at(-1).start, r.annotations.at(-1).end, r.annotations.at(-1).error], [16, 17, true]);
  // a stream with a flipped byte: the records before the bad block, then bad-checksum
  const type = typeFromJson({ vec: "u8" });
  const w = new StreamWriter({ type, checksums: true, blockBytes: 4 });
  for (let i = 0; i < 4; i++) w.write([i, i, i, i]);
  const s = w.finish();
  s[s.length - 6] ^= 1;
  r = inspect(s);
  assert.equal(r.error.kind, "bad-checksum");
  assert.equal(r.records.length, 3);
  assert.ok(r.annotations.at(-1).error);
  // not XBF, and nothing at all
  assert.equal(inspect(new TextEncoder().encode("{}")).format, "unknown");
  assert.equal(inspect(new Uint8Array()).format, "empty");
});

test("every conformance vector: no crash; a valid one is annotated to its end", () => {
  for (const file of ["v1.json", "v2.json", "v2-streams.json", "columnar.json"]) {
    for (const v of load(file)) {
      if (!v.hex) continue;
      const b = fromHex(v.hex);
      const r = inspect(b);
      if (!r.error) assert.ok(!r.annotations.some((a) => a.note), `${v.name}: bytes left unannotated`);
      else if (r.error.offset !== undefined) assert.ok(r.annotations.at(-1).error, v.name);
    }
  }
});

test("values as xbf inspect prints them: floats, dates, strings", () => {
  assert.deepEqual([floatText(1), floatText(-0), floatText(0.1), floatText(1e16), floatText(1.5e-7), floatText(Math.fround(0.1), true), floatText(NaN), floatText(-Infinity)],
    ["1.0", "-0.0", "0.1", "1e16", "1.5e-7", "0.1", "NaN", "-inf"]);
  assert.deepEqual([dayText(0), dayText(-1), dayText(17898), dayText(-2147483648)], ["1970-01-01", "1969-12-31", "2019-01-02", "-5877641-06-23"]);
  assert.equal(cellText("a\n\"b\""), '"a\\n\\"b\\""');
});

const XBF = fileURLToPath(new URL("../../target/debug/xbf", import.meta.url));
test("annotations match xbf inspect on every vector (when the CLI is built)", { skip: !existsSync(XBF) && "no ../target/debug/xbf" }, () => {
  let checked = 0;
  for (const file of ["v1.json", "v2.json", "v2-streams.json"]) {
    for (const v of load(file)) {
      if (!v.hex) continue;
      const b = fromHex(v.hex);
      const mine = annotationText(b, inspect(b).annotations.filter((a) => !a.error && !a.note));
      let cli;
      try { cli = execFileSync(XBF, ["inspect", "-"], { input: b, stdio: ["pipe", "pipe", "ignore"] }).toString(); } catch (e) { cli = e.stdout.toString(); }
      assert.equal(mine, cli.split("\n").filter((l) => l && !l.startsWith("#")).join("\n"), v.name);
      checked++;
    }
  }
  assert.ok(checked > 500);
});

test("the page builds into one self-contained file", () => {
  const here = fileURLToPath(new URL("../inspector/", import.meta.url));
  execFileSync(process.execPath, [here + "build.mjs"], { stdio: "ignore" });
  const html = readFileSync(here + "inspector.html", "utf8");
  assert.ok(!/<script[^>]+src=/.test(html), "no external script");
  assert.ok(!/\bimport\s*\{/.test(html) && !/from\s*"\.\.?\//.test(html), "no module imports left");
  assert.equal(html.match(/<script\b/g).length, 1, "one inline script");
  assert.match(html, /function schemaText\(/, "the model is in the page");
  assert.match(html, /function decodeWithType\(/, "the package is in the page");
});

test("an XBF file: every block with its columns' encodings and statistics, the records of the block asked for", () => {
  const v = load("files/files.json").find((x) => x.name.startsWith("u32 records in blocks of 2, 2 and 1"));
  const b = fromHex(v.hex);
  const r = inspect(b, { block: 1 });
  assert.equal(r.format, "file");
  assert.equal(r.error, null);
  assert.deepEqual(r.file.blocks.map((x) => [x.index, x.offset, x.size, x.records, x.error]), [[0, 3, 11, 2, null], [1, 14, 10, 2, null], [2, 24, 11, 1, null]]);
  assert.deepEqual(r.file.blocks[0].columns.map((c) => [c.path, c.encoding, c.min, c.max, c.exact, c.nulls, c.nans]), [["(the record)", "varint", "5", "300", true, 0, 0]]);
  assert.equal(r.file.chosen, 1);
  assert.deepEqual(r.records, v.records.slice(2, 4));
  assert.equal(r.annotations.at(-1).text, "magic XBFF");
  assert.equal(r.annotations.at(-1).end, b.length);
  // Without a footer (cut after block 1): read forward, then the error.
  const cut = inspect(fromHex(load("files/files.json").find((x) => x.name.startsWith("cut after block 1")).hex));
  assert.equal(cut.file.blocks, null);
  assert.equal(cut.file.footerError.kind, "truncated");
  assert.equal(cut.records.length, 4);
  assert.equal(cut.error.kind, "truncated");
});
