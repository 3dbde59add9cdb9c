// Edge cases of the direct decoder's column paths (src/fast.ts) against the reference decoder: integer columns
// near 2^30 (where the direct path changes the kind of array it fills) and 2^53, delta blocks of every width,
// decimal and XOR float columns (also as a message's last column, read from a padded copy), f32 columns, -0.0,
// NaN, infinities and subnormals; damaged copies give the reference's value or its exact error.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { encode, decode, decodeWithType, typeFromJson, XbfNaN } from "../dist/index.js";

const reference = (bytes, opts = {}) => decodeWithType(bytes, opts).value;
/** The same value as the reference decoder, each number the same (Object.is: -0 and NaN too), or its error. */
function sameOutcome(bytes, opts = {}) {
  let want, wantErr;
  try { want = reference(bytes, opts); } catch (e) { wantErr = e; }
  let got, gotErr;
  try { got = decode(bytes, opts); } catch (e) { gotErr = e; }
  if (wantErr) {
    assert.ok(gotErr, `decode gave a value where the reference fails with ${wantErr.message}`);
    assert.deepEqual([gotErr.kind, gotErr.offset, gotErr.path, gotErr.message], [wantErr.kind, wantErr.offset, wantErr.path, wantErr.message]);
  } else {
    assert.ok(!gotErr, `decode fails (${gotErr?.message}) where the reference does not`);
    assert.deepStrictEqual(got, want);
  }
  return got;
}
/** Every byte of `bytes` changed in turn (a bit flipped; 0; 255), and every prefix: sameOutcome. */
function damaged(bytes, step = 1) {
  const opts = { maxDecodedBytes: 4 << 20 };
  for (let i = 0; i < bytes.length; i += step) {
    for (const v of [bytes[i] ^ (1 << (i % 8)), 0, 255]) { const c = bytes.slice(); c[i] = v; sameOutcome(c, opts); }
    sameOutcome(bytes.subarray(0, i), opts);
  }
}
/** n values: a start and random steps (small, wide, or a mix), as a delta block is written from them. */
const walk = (start, step) => fc.tuple(start, fc.array(step, { minLength: 1, maxLength: 80 })).map(([x, ds]) => {
  const out = [x];
  for (const d of ds) out.push(out[out.length - 1] + d);
  return out.filter(Number.isSafeInteger);
}).filter((xs) => xs.length > 0);

test("integer columns around 2^30 (small integers or not), 2^31, 2^32 and 2^53: exact, as the reference decodes them", () => {
  const near = (x) => fc.integer({ min: -300, max: 300 }).map((d) => x + d);
  const value = fc.oneof(near(2 ** 30), near(-(2 ** 30)), near(2 ** 31), near(2 ** 32), fc.integer({ min: -(2 ** 53) + 1, max: -(2 ** 53) + 600 }),
    fc.integer({ min: 2 ** 53 - 600, max: 2 ** 53 - 1 }), fc.nat(100));
  const steps = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.integer({ min: -(2 ** 20), max: 2 ** 20 }), fc.integer({ min: -(2 ** 40), max: 2 ** 40 }));
  fc.assert(fc.property(fc.array(value, { minLength: 1, maxLength: 60 }), walk(fc.oneof(near(2 ** 30), near(0), near(2 ** 52)), steps), (xs, ys) => {
    const rows = xs.map((x, i) => ({ x, y: ys[i % ys.length], run: i < xs.length / 2 ? 2 ** 30 - 1 : 2 ** 30, u: Math.abs(x) }));
    for (const layout of ["columns", "rows"]) {
      const bytes = encode(rows, { layout });
      for (const opts of [{}, { int64: "bigint" }]) sameOutcome(bytes, opts);
      const back = decode(bytes);
      for (let i = 0; i < rows.length; i++) assert.deepStrictEqual(back[i], rows[i]);
    }
  }), { numRuns: 300 });
});

test("delta blocks of every width up to 44 bits, increasing, decreasing and mixed: the reference's values", () => {
  for (let width = 0; width <= 44; width++) {
    const big = 2 ** width;
    const up = Array.from({ length: 50 }, (_, i) => ({ a: 1000 + i * big + (i % 3), b: 2 ** 40 - i * Math.floor(big / 2), c: (i % 2 ? 1 : -1) * i * big }));
    for (const rows of [up, up.slice(0, 1), up.slice(0, 9)]) {
      const bytes = encode(rows, { layout: "columns" });
      assert.deepStrictEqual(sameOutcome(bytes), rows);
      sameOutcome(bytes, { int64: "bigint" });
    }
  }
});

test("decimal and XOR float columns, first, middle or last in the message: every value exact (-0, NaN, infinities, subnormals)", () => {
  const smooth = (n, f) => Array.from({ length: n }, (_, i) => 100 + Math.sin(i / f) / 7);
  const specials = [0, -0, NaN, Infinity, -Infinity, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308];
  const cols = [
    smooth(200, 10), smooth(33, 3), smooth(1, 1),
    smooth(120, 10).map((x, i) => (i % 17 === 5 ? specials[i % specials.length] : x)),
    Array.from({ length: 150 }, (_, i) => Math.round(Math.sin(i) * 1e6) / 100), // decimal
    Array.from({ length: 150 }, (_, i) => (i % 9 === 0 ? -0 : Math.round((1e9 + i * 12345.678) * 1000) / 1000)),
    Array.from({ length: 60 }, (_, i) => (i === 59 ? 0.1 + 0.2 : Math.round(i * 7.3 * 10) / 10)), // decimal with one exception
  ];
  for (const xs of cols) {
    for (const shape of [(x) => ({ x }), (x, i) => ({ x, s: `k${i % 4}` }), (x, i) => ({ s: `k${i % 4}`, x })]) {
      const rows = xs.map(shape);
      const bytes = encode(rows);
      const back = sameOutcome(bytes);
      for (let i = 0; i < xs.length; i++) assert.ok(Object.is(back[i].x, xs[i]), `${i}: ${back[i].x} for ${xs[i]}`);
    }
  }
  // f32 columns (plain, decimal, XOR): the f32 values, widened.
  const t = typeFromJson({ vec: { struct: "R", fields: [["x", "f32"], ["y", "f32"]] } });
  const f32 = Array.from({ length: 100 }, (_, i) => ({ x: Math.fround(100 + Math.sin(i / 9)), y: Math.fround(i / 4) }));
  f32[7].x = NaN; f32[8].x = -0; f32[9].y = Infinity;
  const back = sameOutcome(encode(f32, { type: t, layout: "columns" }));
  for (let i = 0; i < f32.length; i++) assert.ok(Object.is(back[i].x, f32[i].x) && Object.is(back[i].y, f32[i].y), `${i}`);
});

test("NaN payloads in XOR and plain float columns: the default form gives NaN, as the reference decoder does", () => {
  const t = typeFromJson({ vec: { struct: "R", fields: [["x", "f64"], ["y", "f32"]] } });
  const payloads64 = [0x7ff0000000000001n, 0x7ff8000000000123n, 0xfff8000000000000n], payloads32 = [0x7f800001n, 0xffc00000n];
  const rows = Array.from({ length: 120 }, (_, i) => ({
    x: i % 13 === 4 ? new XbfNaN(payloads64[i % 3], 64) : 100 + Math.sin(i / 10) / 7,
    y: i % 11 === 3 ? new XbfNaN(payloads32[i % 2], 32) : Math.fround(100 + Math.sin(i / 10)),
  }));
  const back = sameOutcome(encode(rows, { type: t, layout: "columns" }));
  for (let i = 0; i < rows.length; i++) {
    if (rows[i].x instanceof XbfNaN) assert.ok(Number.isNaN(back[i].x), `${i}`);
    else assert.ok(Object.is(back[i].x, rows[i].x), `${i}`);
    if (rows[i].y instanceof XbfNaN) assert.ok(Number.isNaN(back[i].y), `${i}`);
  }
});

test("shared-prefix string columns: prefixes that shrink, grow, repeat or are whole values; empty, non-ASCII and duplicate strings", () => {
  const words = fc.array(fc.oneof(fc.constantFrom("", "a", "ab", "abc", "abcd", "2019-01-0", "2019-01-1", "2019-02-", "é", "éa", "日本", "日本語", "😀"),
    fc.string({ unit: "grapheme", maxLength: 6 })), { minLength: 1, maxLength: 60 });
  fc.assert(fc.property(words, fc.boolean(), (xs, sorted) => {
    const ys = sorted ? [...xs].sort() : xs;
    const rows = ys.map((s) => ({ s: "2019-" + s }));
    const back = sameOutcome(encode(rows, { layout: "columns" }));
    assert.deepStrictEqual(back, rows);
  }), { numRuns: 300 });
  const dates = Array.from({ length: 400 }, (_, i) => ({ d: new Date(Date.UTC(2019, 0, 1) + i * 86400000).toISOString().slice(0, i % 50 === 0 ? 7 : 10) }));
  assert.deepStrictEqual(sameOutcome(encode(dates)), dates);
});

test("damaged integer, decimal and XOR columns: the reference's value or its exact error", () => {
  const rows = Array.from({ length: 24 }, (_, i) => ({
    big: 2 ** 30 - 12 + i * 3, wide: 1e9 + ((i * 7919) % 1000) * 1e6, x: 100 + Math.sin(i / 5) / 7, d: Math.round(Math.cos(i) * 1e4) / 100,
  }));
  damaged(encode(rows));
  damaged(encode(rows.map(({ x, big }) => ({ big, x })))); // XOR last
  damaged(encode(rows.map(({ d, big }) => ({ big, d })))); // decimal last
  // Float dictionaries (ids unpacked and looked up at once), last and not.
  const dict = Array.from({ length: 300 }, (_, i) => ({ f: [0.1, -0, 2.5e-300, NaN, 7.25][(i * 7) % 5], g: [1.5, 1e300][i % 2], s: "x" }));
  assert.deepStrictEqual(sameOutcome(encode(dict)).map((r) => r.g), dict.map((r) => r.g));
  damaged(encode(dict.slice(0, 40)));
  damaged(encode(dict.slice(0, 40).map(({ f }) => ({ f }))));
});

// Run-length integer columns (encoding 3): short runs are stored by hand, long ones by fill; values on both sides
// of 2^30 (a run past it turns the array into doubles midway) and up to 2^53 - 1.
test("run-length integer columns: short and long runs, values around 2^30 and 2^53", () => {
  const value = fc.oneof(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 2 ** 30 - 3, max: 2 ** 30 + 3 }),
    fc.constantFrom(2 ** 31 - 1, 2 ** 31, 2 ** 53 - 1, 2 ** 53 - 2));
  const runs = fc.array(fc.tuple(value, fc.oneof(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 10, max: 40 }))), { minLength: 1, maxLength: 40 });
  fc.assert(fc.property(runs, (rs) => {
    const xs = rs.flatMap(([x, k]) => new Array(k).fill(x));
    const rows = xs.map((x, i) => ({ x, s: -x, i }));
    const got = sameOutcome(encode(rows));
    assert.deepStrictEqual(got, rows);
  }), { numRuns: 150 });
});

test("dictionary string columns: ids of 1 to 9 bits looked up as unpacked, entries shared; empty, non-ASCII; damaged copies and a small budget as the reference", () => {
  const vocab = fc.array(fc.oneof(fc.constantFrom("", "rain", "sun", "é", "日本", "😀"), fc.string({ unit: "grapheme", maxLength: 5 })), { minLength: 1, maxLength: 300 });
  fc.assert(fc.property(vocab, fc.array(fc.nat(), { minLength: 1, maxLength: 400 }), fc.boolean(), (words, picks, sorted) => {
    // Sorted: the ids come in runs (a run-length block), else mostly a frame-of-reference one.
    const ws = picks.map((k) => words[k % words.length]);
    if (sorted) ws.sort();
    const rows = ws.map((w, i) => ({ w, i }));
    const bytes = encode(rows, { layout: "columns" });
    assert.deepStrictEqual(sameOutcome(bytes), rows);
    sameOutcome(bytes, { maxDecodedBytes: 48 * 3 * rows.length + 40 });
  }), { numRuns: 200 });
  const weather = ["drizzle", "rain", "sun", "snow", "fog"];
  const rows = Array.from({ length: 40 }, (_, i) => ({ weather: weather[(i * 7) % 5], n: i }));
  const bytes = encode(rows, { layout: "columns" });
  const back = sameOutcome(bytes);
  assert.deepStrictEqual(back, rows);
  assert.ok(back[0].weather === back[5].weather);
  damaged(bytes);
});

test("dictionary float and string columns with run-length ids (sorted columns): the reference's values, damaged copies its errors", () => {
  const lats = [45.125, 45.375, -0, 0.1, NaN, 1e300, 5e-324];
  fc.assert(fc.property(fc.array(fc.tuple(fc.nat(6), fc.integer({ min: 1, max: 30 })), { minLength: 1, maxLength: 30 }), (runs) => {
    const rows = [];
    for (const [k, len] of runs) for (let j = 0; j < len; j++) rows.push({ lat: lats[k], s: ["", "é", "rain", "sun"][k % 4] + k, i: rows.length });
    const back = sameOutcome(encode(rows, { layout: "columns" }));
    for (let i = 0; i < rows.length; i++) { assert.ok(Object.is(back[i].lat, rows[i].lat), `${i}`); assert.equal(back[i].s, rows[i].s); }
  }), { numRuns: 200 });
  const rows = Array.from({ length: 60 }, (_, i) => ({ lat: 45 + Math.floor(i / 7) / 8, country: ["Chile", "Peru", "Ísland", "日本"][Math.floor(i / 15)] }));
  const bytes = encode(rows, { layout: "columns" });
  assert.deepStrictEqual(sameOutcome(bytes), rows);
  damaged(bytes);
});

// Signed bit-packed (frame-of-reference) and run-length integer columns have their zigzag mapping undone as they
// are unpacked or filled: every width of small values, negative and positive, around ±2^29 (zigzag values about
// 2^30, where the direct path leaves small integers), with and without int64 as bigints; damaged copies as the
// reference.
test("signed bit-packed and run-length integer columns, zigzag undone while unpacking: the reference's values", () => {
  const around = (x) => fc.integer({ min: -40, max: 40 }).map((d) => x + d);
  const value = fc.oneof(fc.integer({ min: 1, max: 24 }).chain((w) => fc.integer({ min: -(2 ** (w - 1)), max: 2 ** (w - 1) })),
    around(2 ** 29), around(-(2 ** 29)), fc.integer({ min: -3, max: 3 }));
  fc.assert(fc.property(fc.array(value, { minLength: 1, maxLength: 70 }), fc.integer({ min: 1, max: 12 }), (xs, k) => {
    const rows = xs.map((x, i) => ({ x, neg: -x, run: xs[Math.floor(i / k) * k] - 5, i }));
    for (const opts of [{}, { int64: "bigint" }]) sameOutcome(encode(rows), opts);
    assert.deepStrictEqual(decode(encode(rows)), rows);
  }), { numRuns: 300 });
  const rows = Array.from({ length: 40 }, (_, i) => ({ a: ((i * 37) % 23) - 11, r: [-3, 4, -3, 9][i >> 3 & 3] }));
  assert.deepStrictEqual(sameOutcome(encode(rows)), rows);
  damaged(encode(rows));
});
