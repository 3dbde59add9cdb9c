// The float planners' shortcut for a value equal to the one before (float_columns.ts: planDecimal, floatDictionary and
// xorSize take its integer, its entry or one bit without working them out again; not for zeros, whose two signs are
// equal with other bits, nor NaNs): columns of runs against the same values planned one at a time, a dictionary keyed
// by the values' bits, and the XOR encoding's written length.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { floatDictionary, planDecimal, xorEncode, xorSize } from "../dist/float_columns.js";

const bitsOf = (x, f32) => {
  const b = new DataView(new ArrayBuffer(8));
  if (f32) { b.setFloat32(0, x); return String(b.getUint32(0)); }
  b.setFloat64(0, x); return String(b.getBigUint64(0));
};
const value = fc.oneof(fc.constantFrom(0, -0, NaN, 1, -1, 0.5, 2.25, 1e300, Infinity, 123456.78, 5e-324, 2 ** 52), fc.double(),
  fc.integer({ min: -99999, max: 99999 }).map((n) => n / 100));
// Runs of values (each repeated 1 to 6 times), zeros of both signs next to each other among them.
const runs = fc.array(fc.tuple(value, fc.integer({ min: 1, max: 6 })), { minLength: 1, maxLength: 30 })
  .map((rs) => rs.flatMap(([v, k]) => Array(k).fill(v)));

test("a decimal column of runs has the integers and exceptions of its values planned one at a time", () => {
  fc.assert(fc.property(runs, fc.integer({ min: 0, max: 18 }), fc.boolean(), (vs, e, f32) => {
    if (f32) { vs = vs.map(Math.fround); if (e > 10) e = 10; }
    const d = planDecimal(vs, e, f32, Infinity), zz = [], exc = [];
    vs.forEach((v, i) => { const one = planDecimal([v], e, f32, Infinity); zz.push(one.zz[0]); if (one.exc.length) exc.push(i); });
    assert.deepEqual({ zz: Array.from(d.zz), exc: d.exc }, { zz, exc }, `${vs} at ${e}`);
  }), { numRuns: 2000 });
});

test("a float dictionary of runs keys its values by their bits", () => {
  fc.assert(fc.property(runs, fc.boolean(), (vs, f32) => {
    if (f32) vs = vs.map(Math.fround);
    const got = floatDictionary(vs, f32, Infinity, false), index = new Map(), distinct = [], ids = [];
    for (const v of vs) {
      const k = bitsOf(v, f32);
      if (!index.has(k)) { index.set(k, distinct.length); distinct.push(v); }
      ids.push(index.get(k));
    }
    assert.deepEqual({ distinct: got.distinct.map((v) => bitsOf(v, f32)), ids: Array.from(got.ids) }, { distinct: distinct.map((v) => bitsOf(v, f32)), ids });
  }), { numRuns: 2000 });
});

test("the XOR size of runs is the length written", () => {
  fc.assert(fc.property(runs, fc.boolean(), (vs, f32) => {
    if (f32) vs = vs.map(Math.fround);
    assert.equal(xorSize(vs, f32), xorEncode(vs, f32).length);
  }), { numRuns: 2000 });
});

test("a column of runs has the decimal exponent of the rule: the largest least exponent, -1 when most are held by none", async () => {
  const { exponent, leastExponent64 } = await import("../dist/float_columns.js");
  // An f32's least exponent by the loop over 0 to 10 (scaled, back by division, the same 32 bits).
  const least32 = (v) => {
    for (let e = 0; e <= 10; e++) {
      const x = v * 10 ** e, a = Math.round(Math.abs(x));
      if (!(a < 1.6e7)) return 11;
      if (bitsOf(Math.fround((a === 0 ? 0 : x < 0 ? -a : a) / 10 ** e), true) === bitsOf(v, true)) return e;
    }
    return 11;
  };
  const reference = (vs, f32) => {
    const step = Math.max(1, Math.floor(vs.length / 256)), maxE = f32 ? 10 : 18;
    let sampled = 0, never = 0, max = 0;
    for (let i = 0; i < vs.length; i += step) { sampled++; const e = f32 ? least32(vs[i]) : leastExponent64(vs[i]); if (e > maxE) never++; else if (e > max) max = e; }
    return never * 2 > sampled ? -1 : max;
  };
  const decimals = fc.oneof(value, fc.tuple(fc.integer({ min: -99999, max: 99999 }), fc.integer({ min: 0, max: 8 })).map(([n, e]) => n / 10 ** e));
  const long = fc.array(fc.tuple(decimals, fc.integer({ min: 1, max: 40 })), { minLength: 1, maxLength: 40 }).map((rs) => rs.flatMap(([v, k]) => Array(k).fill(v)));
  fc.assert(fc.property(fc.oneof(runs, long), fc.boolean(), (vs, f32) => {
    if (f32) vs = vs.map(Math.fround);
    assert.equal(exponent(vs, f32), reference(vs, f32), String(vs));
  }), { numRuns: 3000 });
});
