// The direct decoder's decimal float columns (fast_bits.ts decimalsFor, decimalsForSmall) at every bit width of their
// frame-of-reference block, with the zigzag base even or odd (values all positive, all negative, or mixed), exponents
// from 1 to 12, exceptions (NaN, -0, infinities, a value with more digits) and nulls; and the prefix-coded string
// columns' one-character suffixes (fast_strings.ts), ASCII or not. Every value is compared with the reference
// decoder's (Object.is: -0 and NaN too) and with the value encoded. Which width and base a column got is the
// writer's choice, so the first test reads them from the bytes and checks that every pair it means to cover was met.
import { test } from "node:test";
import assert from "node:assert/strict";
import { encode, decode, decodeWithType } from "../dist/index.js";
import { inspect } from "../inspector/model.mjs";

/** A seeded generator (the same columns on every run). */
function rng(seed) {
  let s = seed >>> 0;
  return () => { s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0; return s / 2 ** 32; };
}
function varint(b, p) {
  let v = 0n;
  for (let shift = 0n; ; shift += 7n) {
    const x = b[p++];
    v |= BigInt(x & 0x7f) << shift;
    if (!(x & 0x80)) return [v, p];
  }
}
/** The frame-of-reference block of a decimal float column (SPEC 22.2: `11`, e, a length-prefixed integer block
 * `01` base width bits): its base and width, or null where the writer chose another encoding. */
function decimalFrame(bytes, path) {
  const col = inspect(bytes).columns.find((c) => c.path === path);
  let p = col.offset + col.bytes - col.payload;
  if (bytes[p] !== 0x11) return null;
  [, p] = varint(bytes, p + 2);
  if (bytes[p] !== 0x01) return null;
  const [base, q] = varint(bytes, p + 1);
  return { base, width: bytes[q] };
}
function sameAsReference(bytes, want, field) {
  const ref = decodeWithType(bytes).value, got = decode(bytes);
  assert.equal(got.length, want.length);
  for (let i = 0; i < want.length; i++) {
    const w = want[i][field];
    assert.ok(Object.is(got[i][field], w), `${field}[${i}]: ${got[i][field]} for ${w}`);
    assert.ok(Object.is(ref[i][field], w), `reference ${field}[${i}]: ${ref[i][field]} for ${w}`);
  }
  assert.deepStrictEqual(got, ref);
}

test("decimal columns of every frame-of-reference width (1 to 44 bits), zigzag base even or odd, exponents 1 to 12", () => {
  const r = rng(23);
  const met = new Set();
  for (let w = 1; w <= 44; w++) {
    for (const sign of ["positive", "negative", "mixed", "mixed, -1 nearest zero"]) {
      const e = 1 + (w % 12), span = 2 ** (w - 1);
      // Integers k whose zigzag values span about w bits; an offset puts the base past 2^31 and 2^32 (the wide loops).
      const off = sign === "positive" ? 2 ** Math.min(52 - w, 33) : sign === "negative" ? -(2 ** Math.min(52 - w, 33)) - span : -Math.floor(span / 2);
      let ks = Array.from({ length: 97 }, () => off + Math.floor(r() * span));
      // Positive and negative columns of a few distinct values take a float dictionary, and a mixed one's base is
      // zigzag(0) = 0: so the narrow widths' odd bases come from mixed columns with -1 (zigzag 1) and no 0.
      if (sign === "mixed, -1 nearest zero") ks = ks.map((k, i) => (i === 0 ? -1 : k >= 0 ? k + 1 : k));
      const xs = ks.map((k) => k / 10 ** e).filter((x) => Number.isFinite(x));
      for (const shape of [(x) => ({ x }), (x, i) => ({ x, s: `k${i % 3}` })]) {
        const rows = xs.map(shape);
        const bytes = encode(rows);
        const frame = decimalFrame(bytes, "[].x");
        if (frame) met.add(`${frame.width} ${frame.base % 2n === 0n ? "even" : "odd"}`);
        sameAsReference(bytes, rows, "x");
      }
    }
  }
  const missed = [];
  for (let w = 1; w <= 44; w++) for (const base of ["even", "odd"]) if (!met.has(`${w} ${base}`)) missed.push(`width ${w}, ${base} base`);
  assert.deepEqual(missed, [], "frame-of-reference blocks the test means to decode");
});

test("decimal columns with exceptions and nulls, first, middle and last in the message", () => {
  const r = rng(7);
  const specials = [NaN, -0, Infinity, -Infinity, 0.1 + 0.2, 1e300];
  for (const w of [3, 17, 24, 25, 29, 31, 33, 40]) {
    const ks = Array.from({ length: 130 }, () => 2 ** 31 + Math.floor(r() * 2 ** (w - 1)));
    const xs = ks.map((k, i) => (i % 23 === 11 ? specials[i % specials.length] : k / 1e6));
    const rows = xs.map((x, i) => ({ a: i, x, y: i % 5 === 0 ? null : xs[(i * 7) % xs.length], z: `z${i % 4}` }));
    for (const keys of [["x", "a", "y", "z"], ["a", "x", "z", "y"], ["a", "z", "y", "x"]]) {
      const shaped = rows.map((o) => Object.fromEntries(keys.map((k) => [k, o[k]])));
      const bytes = encode(shaped);
      sameAsReference(bytes, shaped, "x");
      sameAsReference(bytes, shaped, "y");
    }
  }
});

test("prefix-coded strings with one-character suffixes: ASCII, non-ASCII, whole values of one character", () => {
  const dates = [];
  for (let m = 1; m <= 12; m++) for (let d = 1; d <= 28; d += 1 + (m % 3)) dates.push(`2019-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`);
  const cases = [
    dates,
    dates.map((s, i) => (i % 9 === 4 ? s.slice(0, -1) + "é" : s)), // a non-ASCII suffix: the bytes rebuilt
    dates.map((s, i) => (i % 7 === 3 ? s.slice(0, -1) : s)), // empty suffixes (a value the prefix of the next)
    Array.from({ length: 120 }, (_, i) => "abcdefghij".slice(0, 1 + (i % 10))), // each value the one before plus a character
    Array.from({ length: 120 }, (_, i) => String.fromCharCode(33 + (i % 90))), // one character, no shared prefix
    Array.from({ length: 120 }, (_, i) => `item-${String(i).padStart(4, "0")}${i % 11 === 0 ? "😀" : ""}`),
  ];
  for (const xs of cases) {
    const rows = xs.map((s, i) => ({ s, n: i }));
    sameAsReference(encode(rows), rows, "s");
    const last = xs.map((s, i) => ({ n: i, s }));
    sameAsReference(encode(last), last, "s");
  }
});
