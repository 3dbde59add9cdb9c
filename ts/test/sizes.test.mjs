// The inspector's size comparison (inspector/model.mjs): the MessagePack size counter against @msgpack/msgpack
// (a dev dependency only; the page counts without it), JSON text, and the XBF sizes.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { encode as msgpack } from "@msgpack/msgpack";
import { Packr } from "msgpackr";
import { encode, decodeWithType, XbfDate, XbfEnum } from "../dist/index.js";
import { msgpackSize, jsonText, portable, sizeComparison } from "../inspector/model.mjs";

const mp = (v) => msgpack(v, { useBigInt64: true }).length;

test("msgpackSize: every header boundary, as @msgpack/msgpack writes it", () => {
  const ints = [0, 1, 127, 128, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER,
    -1, -32, -33, -128, -129, -32768, -32769, -(2 ** 31), -(2 ** 31) - 1, Number.MIN_SAFE_INTEGER, -0];
  const values = [null, undefined, true, false, 0.5, -1.25, NaN, Infinity, 2 ** 60, ...ints,
    0n, -1n, (1n << 64n) - 1n, -(1n << 63n),
    "", "a", "x".repeat(31), "x".repeat(32), "x".repeat(255), "x".repeat(256), "x".repeat(65535), "x".repeat(65536),
    "é", "€", "😀", "a\ud800b",
    new Uint8Array(0), new Uint8Array(255), new Uint8Array(256), new Uint8Array(65536),
    [], Array(15).fill(1), Array(16).fill(1), Array(65536).fill(0),
    {}, Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, i])),
    new Date(0), new Date(1700000000000), new Date(1700000000123), new Date(2 ** 34 * 1000 + 5), new Date(-5000), new Date(-1),
    new XbfDate(19000), new XbfDate(-3)];
  for (const v of values) assert.equal(msgpackSize(v), mp(v), `size of ${typeof v === "string" ? JSON.stringify(v.slice(0, 10)) : String(v).slice(0, 40)}`);
});

test("msgpackSize counts a Map's entries, as msgpackr writes a Map (@msgpack/msgpack drops them)", () => {
  const packr = new Packr({ useRecords: false, mapsAsObjects: false, variableMapSize: true });
  for (const m of [new Map(), new Map([[1, "a"], [-200, new Uint8Array(3)], ["k", [1, 2.5]]]), new Map(Array.from({ length: 20 }, (_, i) => [i * 1000, i])), new Map([[new Map([[1, 2]]), null]])])
    assert.equal(msgpackSize(m), packr.pack(m).length);
});

test("msgpackSize equals @msgpack/msgpack's length on generated JSON-like values", () => {
  const leaf = fc.oneof(fc.constant(null), fc.boolean(), fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), fc.maxSafeInteger(),
    fc.double(), fc.string({ unit: "grapheme", maxLength: 300 }), fc.bigInt({ min: -(1n << 63n), max: (1n << 64n) - 1n }),
    fc.uint8Array({ maxLength: 300 }), fc.date({ noInvalidDate: true }));
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: "small" }, leaf, fc.array(tie("value"), { maxLength: 20 }), fc.dictionary(fc.string(), tie("value"), { maxKeys: 20 })),
  }));
  fc.assert(fc.property(value, (v) => msgpackSize(v) === mp(v)), { numRuns: 400 });
});

test("jsonText is JSON.stringify's text for JSON values, and the comparison lists every format", () => {
  const rows = Array.from({ length: 200 }, (_, i) => ({ id: i, name: `item ${i}`, price: i / 8, ok: i % 3 === 0, tags: ["a", "b"] }));
  assert.equal(jsonText(rows), JSON.stringify(rows));
  assert.equal(jsonText({ a: 1n << 70n, d: new XbfDate(0), e: new XbfEnum("red", null), b: new Uint8Array([1, 2, 255]) }),
    '{"a":1180591620717411303424,"d":"1970-01-01","e":"red","b":"AQL/"}');
  const bytes = encode(rows, { layout: "rows" });
  const { type, value } = decodeWithType(bytes);
  const sizes = sizeComparison(type, value, { original: { label: "XBF 2 message", bytes: bytes.length } });
  const by = Object.fromEntries(sizes.map((s) => [s.format.replace(/ \(.*/, ""), s.bytes]));
  assert.equal(by["this input"], bytes.length);
  assert.equal(by["XBF 2, rows"], bytes.length);
  assert.equal(by["XBF 2, columns"], encode(rows, { layout: "columns" }).length);
  assert.equal(by["JSON"], new TextEncoder().encode(JSON.stringify(rows)).length);
  assert.equal(by["MessagePack"], mp(rows));
  assert.ok(by["XBF 2, columns"] < by["MessagePack"] / 2, JSON.stringify(by));
  const one = decodeWithType(encode({ x: 1 }));
  const single = sizeComparison(one.type, one.value);
  assert.equal(single.find((s) => s.format === "XBF 2, columns").bytes, null, "a single struct has no columnar form");
  assert.deepEqual(portable(new XbfEnum("v", { a: 1 })), { v: { a: 1 } });
});
