// The direct decoder (src/fast.ts) against the reference decoder (decode_rows.ts, columnar.ts + toPublic):
// the same values on valid input, and on damaged input either the same value or the reference's error.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { encode, decode, decodeWithType, Decoder, XbfDate, XbfTimestamp } from "../dist/index.js";
import { fromHex } from "../dist/metadata.js";
import { decodeDirect } from "../dist/codec.js";
import { jsonish } from "./arbitraries.mjs";
import { load } from "./helpers.mjs";

// Dates compare by their exact day or microsecond (an out-of-range one is an Invalid Date, which
// deepStrictEqual never finds equal to another).
function canon(v) {
  if (v instanceof XbfDate) return { date: v.days };
  if (v instanceof XbfTimestamp) return { timestamp: v.micros };
  if (Array.isArray(v)) return v.map(canon);
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [canon(k), canon(x)]));
  if (v && typeof v === "object" && !ArrayBuffer.isView(v)) {
    const o = Object.create(Object.getPrototypeOf(v));
    for (const k of Object.keys(v)) Object.defineProperty(o, k, { value: canon(v[k]), enumerable: true, writable: true, configurable: true });
    return o;
  }
  return v;
}
const reference = (bytes, opts = {}) => canon(decodeWithType(bytes, opts).value);
const direct = (bytes, opts = {}) => canon(decodeDirect(bytes, opts));
function sameOutcome(bytes, opts = {}) {
  let want, wantErr;
  try { want = reference(bytes, opts); } catch (e) { wantErr = e; }
  let got, gotErr;
  try { got = decode(bytes, opts); } catch (e) { gotErr = e; }
  if (wantErr) {
    assert.ok(gotErr, `decode gave a value where the reference fails with ${wantErr.message}`);
    assert.equal(gotErr.message, wantErr.message);
    assert.equal(gotErr.kind, wantErr.kind);
    assert.equal(gotErr.offset, wantErr.offset);
    assert.equal(gotErr.path, wantErr.path);
  } else {
    assert.ok(!gotErr, `decode fails (${gotErr?.message}) where the reference does not`);
    assert.deepStrictEqual(canon(got), want);
  }
}

test("JSON-like values: the direct path gives the reference's values, rows and columns, without falling back", () => {
  fc.assert(fc.property(jsonish, (v) => {
    for (const layout of ["rows", "columns"]) {
      const bytes = encode(v, { layout });
      assert.deepStrictEqual(direct(bytes), reference(bytes), layout);
      assert.deepStrictEqual(direct(bytes, { int64: "bigint" }), reference(bytes, { int64: "bigint" }), layout);
    }
  }), { numRuns: 400 });
});

test("records of every column type: direct equals reference", () => {
  const rec = fc.record({
    i: fc.integer(), u: fc.nat(), big: fc.bigInt({ min: -(1n << 70n), max: 1n << 70n }), w: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
    f: fc.double(), g: fc.constantFrom(0.5, 1.25, 3.0, 2.75), s: fc.string({ unit: "binary", maxLength: 20 }),
    tag: fc.constantFrom("a", "bb", "é", "日本", "😀x"), id: fc.constantFrom("2001/01/14 21:55", "2001/01/14 22:10", "2001/02/01 06:00"),
    b: fc.boolean(), opt: fc.option(fc.integer({ min: -5, max: 5 })), xs: fc.array(fc.double(), { maxLength: 4 }),
    bytes: fc.uint8Array({ maxLength: 6 }), day: fc.integer({ min: -1e5, max: 1e5 }), at: fc.bigInt({ min: -(1n << 55n), max: 1n << 55n }),
  }, { requiredKeys: ["i", "u", "big", "w", "f", "g", "s", "tag", "id", "b", "xs", "bytes", "day", "at"] });
  fc.assert(fc.property(fc.array(rec, { maxLength: 40 }), (rows) => {
    const value = rows.map((r) => ({ ...r, day: new XbfDate(r.day), at: new XbfTimestamp(r.at) }));
    for (const layout of ["rows", "columns"]) {
      const bytes = encode(value, { layout });
      for (const opts of [{}, { int64: "bigint" }]) assert.deepStrictEqual(direct(bytes, opts), reference(bytes, opts), layout);
    }
  }), { numRuns: 200 });
});

const seeds = [];
for (const f of ["v1.json", "v2.json", "columnar.json"]) for (const v of load(f)) seeds.push(fromHex(v.hex));

test("every vector: decode gives the reference's value or its exact error", () => {
  for (const b of seeds) sameOutcome(b);
});

test("damaged vectors and encodings: decode gives the reference's value or its exact error", () => {
  const more = [];
  fc.assert(fc.property(jsonish, fc.constantFrom("rows", "columns"), (v, layout) => { more.push(encode(v, { layout })); }), { numRuns: 60 });
  const all = [...seeds, ...more];
  const arb = fc.tuple(fc.nat(all.length - 1), fc.array(fc.tuple(fc.nat(), fc.nat(255)), { minLength: 1, maxLength: 3 }), fc.nat());
  // A mutated count can ask for millions of zero-size values within the default GiB budget (13 bytes made
  // 22,369,552 units, 735 MB of heap); this test holds four decodings of each at once, so it reads with the
  // 4 MiB budget the differential fuzzer gives every implementation.
  const opts = { maxDecodedBytes: 4 << 20 };
  fc.assert(fc.property(arb, ([i, edits, cut]) => {
    const b = all[i].slice();
    for (const [at, byte] of edits) if (b.length) b[at % b.length] = byte;
    sameOutcome(b, opts);
    sameOutcome(b.subarray(0, cut % (b.length + 1)), opts);
  }), { numRuns: 3000 });
});

test("the number integer encoder writes the bigint encoder's bytes", async () => {
  const { encodeInts, putIntsColumn, putColumn } = await import("../dist/int_columns.js");
  const { Writer } = await import("../dist/varint.js");
  const column = (xs, direct) => { const w = new Writer(); if (direct) putIntsColumn(w, xs); else putColumn(w, encodeInts(xs.map(BigInt))); return w.finish(); };
  // (Around 2^28 and 2^30 too: where a varint takes a fifth byte, and where the 32-bit measuring pass ends.)
  const edges = fc.integer({ min: -4, max: 4 }).chain((d) => fc.constantFrom(2 ** 28 + d, 2 ** 30 + d, 2 ** 21 + d));
  const small = fc.oneof(fc.nat(3), fc.nat(300), fc.integer({ min: 0, max: 2 ** 40 }), fc.constant(2 ** 51 - 1), edges, fc.integer({ min: 2 ** 29, max: 2 ** 30 - 1 }));
  fc.assert(fc.property(fc.array(small, { maxLength: 60 }), fc.boolean(), (xs, sorted) => {
    if (sorted) xs.sort((a, b) => a - b);
    assert.deepStrictEqual(encodeInts(xs), encodeInts(xs.map(BigInt)));
    // (The column writer's own packing, straight into the buffer, too.)
    assert.deepStrictEqual(column(xs, true), column(xs, false));
  }), { numRuns: 500 });
});

test("the XOR size that picks the encoding is the length it writes", async () => {
  const { xorSize, xorEncode } = await import("../dist/float_columns.js");
  const drift = fc.array(fc.double({ min: -1e6, max: 1e6 }), { minLength: 1, maxLength: 40 });
  fc.assert(fc.property(drift, fc.boolean(), (xs, f32) => {
    const v = f32 ? xs.map(Math.fround) : xs.map((x, i) => (i % 3 ? x : (xs[i - 1] ?? x)));
    assert.equal(xorSize(v, f32), xorEncode(v, f32).length);
  }), { numRuns: 500 });
});

test("readers cached by metadata: options and damaged values still give the reference's answer", () => {
  const bytes = encode({ id: 12345678901234, name: "x", when: new XbfDate(3) }, { layout: "rows" });
  for (let i = 0; i < 3; i++) {
    assert.equal(decode(bytes).id, 12345678901234);
    assert.equal(decode(bytes, { int64: "bigint" }).id, 12345678901234n);
    assert.equal(decode(bytes).id, 12345678901234);
  }
  const cut = bytes.subarray(0, bytes.length - 1);
  sameOutcome(cut);
  const deep = encode([[[[1]]]], { layout: "rows" });
  assert.deepEqual(decode(deep), [[[[1]]]]);
  sameOutcome(deep, { maxDepth: 2 });
  assert.deepEqual(decode(deep), [[[[1]]]]);
});

test("types cached by metadata in columns, and a Decoder's own cache, give the reference's answer", () => {
  const rows = Array.from({ length: 40 }, (_, i) => ({ id: 2 ** 40 + i, x: i / 8, s: `s${i % 3}` }));
  const bytes = encode(rows, { layout: "columns" });
  const big = new Decoder({ int64: "bigint" }), plain = new Decoder();
  for (let i = 0; i < 3; i++) {
    assert.equal(decode(bytes)[3].id, 2 ** 40 + 3);
    assert.equal(big.decode(bytes)[3].id, BigInt(2 ** 40 + 3));
    assert.deepStrictEqual(plain.decode(bytes), rows);
    assert.equal(decode(bytes, { int64: "bigint" })[3].id, BigInt(2 ** 40 + 3));
  }
  // Damaged columns after the same metadata: the cached type, then the reference's error.
  for (let cut = bytes.length - 1; cut > bytes.length - 30; cut -= 7) {
    sameOutcome(bytes.subarray(0, cut));
    const errOf = (f) => { try { f(); } catch (e) { return [e.kind, e.offset, e.path]; } return "no error"; };
    assert.deepEqual(errOf(() => plain.decode(bytes.subarray(0, cut))), errOf(() => decode(bytes.subarray(0, cut))));
  }
});

test("without generated code (a CSP that forbids new Function) the same bytes and values", async () => {
  const { setCodegen } = await import("../dist/fast.js");
  const records = fc.array(fc.record({ a: fc.integer(), b: fc.option(fc.string(), { nil: undefined }), c: fc.double({ noNaN: true }), d: fc.array(fc.boolean(), { maxLength: 3 }) },
    { requiredKeys: ["a", "c", "d"] }), { minLength: 1, maxLength: 40 });
  fc.assert(fc.property(records, fc.constantFrom("rows", "columns"), (v, layout) => {
    const bytes = encode(v, { layout }), value = decode(bytes), big = decode(bytes, { int64: "bigint" });
    setCodegen(false);
    try {
      assert.deepStrictEqual(encode(v, { layout }), bytes);
      assert.deepStrictEqual(decode(bytes), value);
      assert.deepStrictEqual(decode(bytes, { int64: "bigint" }), big);
    } finally { setCodegen(undefined); }
  }), { numRuns: 150 });
});

test("the direct encoder writes the reference encoder's bytes, or leaves the value to it", async () => {
  const { encodeDirect, encodeInternal } = await import("../dist/codec.js");
  const { inferType } = await import("../dist/index.js");
  const { normalize } = await import("../dist/values.js");
  const check = (v, t, layout) => {
    let want, wantErr;
    try { want = encodeInternal(t, normalize(t, v), { layout }); } catch (e) { wantErr = e; }
    let got;
    try { got = encodeDirect(t, v, { layout }); } catch { got = undefined; }
    if (wantErr) assert.equal(got, undefined, `the direct encoder wrote a value the reference rejects: ${wantErr.message}`);
    else if (got !== undefined) assert.deepStrictEqual(got, want, layout);
    // encode itself: the reference's bytes or its error.
    let e2, b2;
    try { b2 = encode(v, { type: t, layout }); } catch (e) { e2 = e; }
    if (wantErr) assert.equal(e2?.message, wantErr.message);
    else assert.deepStrictEqual(b2, want);
  };
  fc.assert(fc.property(jsonish, fc.constantFrom("rows", "columns", "auto"), (v, layout) => check(v, inferType(v), layout)), { numRuns: 400 });
  // Records of the type with one defect (a wrong kind, a missing or extra key, an integer out of range), and
  // values the reference takes but the direct writer leaves to it (bigints, integers past 2^50).
  const t = inferType([{ a: 1, b: "x", c: [1.5], d: null, e: true, f: -3 }, { a: 2, b: "y", c: [], d: 4, e: false, f: 5 }]);
  const good = fc.record({ a: fc.nat(), b: fc.string(), c: fc.array(fc.double()), d: fc.option(fc.nat()), e: fc.boolean(), f: fc.integer() });
  const defects = [["a", -1], ["a", 2 ** 60], ["a", 1.5], ["a", "1"], ["a", 5n], ["a", 2 ** 53 - 1], ["b", 3], ["c", "no"], ["c", [1n]], ["d", -2],
    ["e", 0], ["f", 2 ** 52], ["f", -(2 ** 51)], ["f", 7n], ["f", 2 ** 64], ["g", 1], ["b", undefined], ["d", undefined]];
  fc.assert(fc.property(fc.array(good, { minLength: 1, maxLength: 20 }), fc.nat(), fc.nat(defects.length - 1), fc.constantFrom("rows", "columns", "auto"), (v, at, k, layout) => {
    const [key, value] = defects[k];
    const rows = v.map((r) => ({ ...r }));
    const r = rows[at % rows.length];
    if (value === undefined) delete r[key]; else r[key] = value;
    check(rows, t, layout);
  }), { numRuns: 600 });
});

test("row objects built by closures: many fields, absent keys, a __proto__ key", () => {
  const wide = Array.from({ length: 20 }, (_, i) => Object.fromEntries(Array.from({ length: 300 }, (_, k) => [`f${k}`, i * k])));
  const odd = Array.from({ length: 20 }, (_, i) => {
    const o = { a: i };
    if (i % 3) o.b = `s${i}`;
    Object.defineProperty(o, "__proto__", { value: i, enumerable: true, writable: true, configurable: true });
    return o;
  });
  for (const v of [wide, odd]) for (const layout of ["rows", "columns"]) {
    const bytes = encode(v, { layout });
    assert.deepStrictEqual(direct(bytes), reference(bytes), layout);
    const back = decodeDirect(bytes);
    assert.equal(Object.getPrototypeOf(back[1]), Object.prototype);
    assert.deepStrictEqual(Object.keys(back[1]), Object.keys(v[1]));
  }
});

test("arrays sized before they are filled: every index present, lengths 0, 1 and many, rows and columns", () => {
  const plain = (n) => Array.from({ length: n }, (_, i) => ({ u: i / 7, v: -i }));
  const sparse = (n) => Array.from({ length: n }, (_, i) => (i % 2 ? { a: i, b: `s${i}` } : { a: i }));
  const nested = (n) => Array.from({ length: n }, (_, i) => ({ xs: Array.from({ length: i % 4 }, (_, k) => ({ k })), t: [i, i + 1] }));
  for (const make of [plain, sparse, nested]) for (const n of [0, 1, 2, 300]) for (const layout of ["rows", "columns"]) {
    const v = make(n), bytes = encode(v, { layout });
    const back = decodeDirect(bytes);
    assert.deepStrictEqual(direct(bytes), reference(bytes), `${make.name} ${n} ${layout}`);
    assert.deepStrictEqual(back, v, `${make.name} ${n} ${layout}`);
    // No hole anywhere: each array's own keys are exactly its indices.
    const holes = (x) => Array.isArray(x) ? Object.keys(x).length !== x.length || x.some(holes) : x !== null && typeof x === "object" && Object.values(x).some(holes);
    assert.equal(holes(back), false, `${make.name} ${n} ${layout}`);
  }
});

test("layout auto: the direct writer keeps the same layout as the reference (rows skipped only when surely larger)", async () => {
  const { encodeInternal } = await import("../dist/codec.js");
  const { inferType } = await import("../dist/index.js");
  const { normalize } = await import("../dist/values.js");
  const rec = fc.record({ id: fc.oneof(fc.nat(), fc.constant(7)), s: fc.oneof(fc.string({ maxLength: 6 }), fc.constant("same"), fc.string({ unit: "binary", maxLength: 4 })),
    x: fc.oneof(fc.double(), fc.constant(0.5)), b: fc.boolean(), o: fc.option(fc.integer({ min: -3, max: 3 })) }, { requiredKeys: ["id", "s", "x", "b"] });
  let rows = 0, cols = 0;
  fc.assert(fc.property(fc.array(rec, { minLength: 14, maxLength: 60 }), (v) => {
    const t = inferType(v);
    const want = encodeInternal(t, normalize(t, v), { layout: "auto" });
    const got = encode(v);
    assert.deepStrictEqual(got, want);
    if (got[1] & 2) cols++; else rows++;
  }), { numRuns: 300 });
  assert.ok(rows > 0 && cols > 0, `both layouts chosen (rows ${rows}, columns ${cols})`);
});

test("row records with float fields read in the generated reader: the reference's values, and its errors on every cut and damaged byte", async () => {
  const { typeFromJson } = await import("../dist/index.js");
  const { setCodegen } = await import("../dist/fast.js");
  const t = typeFromJson({ vec: { struct: "R", fields: [["x", "f64"], ["y", "f32"], ["s", "string"], ["z", "f64"], ["n", "i32"]] } });
  const f32s = [0, -0, 1.5, Math.fround(0.1), NaN, Infinity, -Infinity, Math.fround(3.4e38), 1e-45];
  const f64s = [0, -0, 0.1, NaN, -Infinity, 1e300, 5e-324, 2 ** 53 + 2, -1.5];
  const value = f64s.map((x, i) => ({ x, y: f32s[i], s: "é".repeat(i % 3), z: f64s[(i + 4) % f64s.length], n: i - 4 }));
  const bytes = encode(value, { type: t, layout: "rows" });
  assert.deepStrictEqual(direct(bytes), reference(bytes));
  assert.ok(Object.is(direct(bytes)[1].x, -0) && Object.is(direct(bytes)[1].y, -0));
  for (let cut = 0; cut < bytes.length; cut++) sameOutcome(bytes.subarray(0, cut));
  for (let at = 0; at < bytes.length; at++) for (const byte of [0, 1, 0x7f, 0x80, 0xff]) { const b = bytes.slice(); b[at] = byte; sameOutcome(b); }
  // The same without generated code (the closures read every field).
  setCodegen(false);
  try { assert.deepStrictEqual(direct(bytes), reference(bytes)); } finally { setCodegen(undefined); }
});
