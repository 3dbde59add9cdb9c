import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { encode, decode, decodeWithType, XbfError, StreamReader, StreamWriter, XbfDate, XbfTimestamp, XbfEnum } from "../dist/index.js";
import { fromHex } from "../dist/metadata.js";
import { jsonish } from "./arbitraries.mjs";
import { load } from "./helpers.mjs";

const normalizeJson = (v) => JSON.parse(JSON.stringify(v));

test("JSON-like values round-trip through rows, columns and auto", () => {
  fc.assert(fc.property(jsonish, (v) => {
    const expected = normalizeJson(v);
    for (const layout of ["rows", "columns", "auto"]) {
      const bytes = encode(v, { layout });
      assert.deepStrictEqual(decode(bytes), expected, layout);
    }
  }), { numRuns: 400 });
});

test("typed values keep their exact bytes: decode then encode with the type", () => {
  fc.assert(fc.property(jsonish, fc.constantFrom("rows", "columns"), (v, layout) => {
    const bytes = encode(v, { layout });
    for (const opts of [{}, { exact: true }, { int64: "bigint", maps: "map" }]) {
      const d = decodeWithType(bytes, opts);
      assert.deepStrictEqual(encode(d.value, { type: d.type, layout }), bytes);
    }
  }), { numRuns: 300 });
});

test("bigint, bytes, Date, Map and enum values round-trip", () => {
  const arb = fc.record({
    big: fc.bigInt({ min: -(1n << 200n), max: 1n << 200n }),
    u: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
    bytes: fc.uint8Array({ maxLength: 40 }),
    when: fc.bigInt({ min: -(1n << 50n), max: 1n << 50n }),
    day: fc.integer({ min: -1e6, max: 1e6 }),
    m: fc.array(fc.tuple(fc.integer(), fc.string()), { maxLength: 6 }),
  });
  fc.assert(fc.property(arb, (r) => {
    const m = new Map(r.m);
    const value = { big: r.big, u: r.u, bytes: r.bytes, when: new XbfTimestamp(r.when), day: new XbfDate(r.day), m };
    for (const layout of ["rows", "columns"]) {
      const back = decode(encode(value, { layout }), { int64: "bigint" });
      assert.equal(back.big, r.big);
      assert.equal(back.u, r.u);
      assert.deepStrictEqual(back.bytes, r.bytes);
      assert.equal(back.when.micros, r.when);
      assert.equal(back.day.days, r.day);
      assert.deepStrictEqual([...back.m.entries()].map(([k, v]) => [Number(k), v]), [...m.entries()]);
    }
  }), { numRuns: 200 });
  const t = { kind: "enum", name: "Shape", variants: [{ name: "Empty", type: { kind: "unit" } }, { name: "Circle", type: { kind: "f64" } }] };
  assert.deepStrictEqual(decode(encode(new XbfEnum("Circle", 1.5), { type: t })), new XbfEnum("Circle", 1.5));
});

function onlyXbfErrors(f) {
  try { f(); } catch (e) {
    if (!(e instanceof XbfError)) throw e;
    assert.equal(typeof e.offset, "number", e.message);
  }
}

const seeds = [];
for (const f of ["v1.json", "v2.json", "columnar.json", "v2-streams.json"]) for (const v of load(f)) seeds.push(fromHex(v.hex));

test("random bytes never throw anything but XbfError", () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), fc.constantFrom(0x00, 0x11, 0x12, 0xc2), fc.constantFrom(0, 1, 2, 4, 5, 12, 13), (b, first, flags) => {
    for (const bytes of [b, Uint8Array.of(first, ...b), Uint8Array.of(0xc2, flags, ...b)]) {
      onlyXbfErrors(() => decode(bytes));
      onlyXbfErrors(() => [...new StreamReader(bytes)]);
    }
  }), { numRuns: 3000 });
});

test("damaged vectors and encodings never throw anything but XbfError", () => {
  const arb = fc.tuple(fc.nat(seeds.length - 1), fc.array(fc.tuple(fc.nat(), fc.nat(255)), { minLength: 1, maxLength: 4 }), fc.nat());
  fc.assert(fc.property(arb, ([i, edits, cut]) => {
    const b = seeds[i].slice();
    for (const [at, byte] of edits) if (b.length) b[at % b.length] = byte;
    // The difffuzz budget: a mutated count may otherwise ask for hundreds of MB of zero-size values.
    const opts = { maxDecodedBytes: 4 << 20 };
    for (const bytes of [b, b.subarray(0, cut % (b.length + 1))]) {
      onlyXbfErrors(() => decode(bytes, opts));
      onlyXbfErrors(() => [...new StreamReader(bytes, opts)]);
    }
  }), { numRuns: 5000 });
});

test("stream writer and reader round-trip records in blocks", () => {
  fc.assert(fc.property(fc.array(fc.record({ id: fc.integer({ min: 0, max: 1e9 }), s: fc.string() }), { maxLength: 50 }), fc.boolean(), fc.integer({ min: 1, max: 64 }), (recs, checksums, blockBytes) => {
    const type = { kind: "struct", name: "R", fields: [{ name: "id", type: { kind: "u64" } }, { name: "s", type: { kind: "string" } }] };
    const w = new StreamWriter({ type, checksums, blockBytes });
    for (const r of recs) w.write(r);
    assert.deepStrictEqual([...new StreamReader(w.finish())], recs.map((r) => ({ ...r })));
  }), { numRuns: 200 });
});
