// The decimal column's integers (float_columns.ts planDecimal): a whole number's scaled integer taken from its exact
// product (no rounding, no division), every other value by the rounding and the division back; both give what the
// rule gives, checked here value by value against it (scaled, then the same bits back), at every exponent, f64 and f32.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { planDecimal } from "../dist/float_columns.js";

const bits = (x, f32) => {
  const b = new DataView(new ArrayBuffer(8));
  if (f32) { b.setFloat32(0, x); return b.getUint32(0); }
  b.setFloat64(0, x); return b.getBigUint64(0);
};
/** The rule: v × 10^e rounded half away from zero, within the cap, whose quotient gives v's bits back. */
function reference(values, e, f32) {
  const zz = [], exc = [], cap = f32 ? 1.6e7 : 9.0e15;
  values.forEach((v, i) => {
    const x = v * 10 ** e, a = Math.round(Math.abs(x));
    if (a < cap) {
      const m = a === 0 ? 0 : x < 0 ? -a : a, q = f32 ? Math.fround(m / 10 ** e) : m / 10 ** e;
      if (bits(q, f32) === bits(v, f32)) { zz.push(m >= 0 ? 2 * m : -2 * m - 1); return; }
    }
    zz.push(0); exc.push(i);
  });
  return { zz, exc };
}
const whole = fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: -(2 ** 53), max: 2 ** 53 }), fc.constantFrom(0, -0, 1, -1),
  fc.integer({ min: 0, max: 18 }).chain((k) => fc.integer({ min: -3, max: 3 }).map((d) => Math.round(9.0e15 / 10 ** k) + d)),
  fc.integer({ min: 0, max: 10 }).chain((k) => fc.integer({ min: -3, max: 3 }).map((d) => Math.round(1.6e7 / 10 ** k) + d)),
  fc.constantFrom(2 ** 49, 2 ** 49 - 1, -(2 ** 49), 2 ** 52, 2 ** 53, 1e16, 1e300));
const other = fc.oneof(fc.double(), fc.integer({ min: -99999, max: 99999 }).chain((n) => fc.integer({ min: 0, max: 6 }).map((e) => n / 10 ** e)),
  fc.constantFrom(NaN, Infinity, -Infinity, 0.5, -2.5, 5e-324));

test("a decimal column's integers and exceptions are the rule's, whole numbers or not, f64 and f32", () => {
  fc.assert(fc.property(fc.array(fc.oneof(whole, whole, other), { minLength: 1, maxLength: 60 }), fc.integer({ min: 0, max: 18 }), fc.boolean(), (vs, e, f32) => {
    if (f32) { vs = vs.map(Math.fround); if (e > 10) e = 10; }
    const d = planDecimal(vs, e, f32, Infinity), r = reference(vs, e, f32);
    assert.deepEqual({ zz: Array.from(d.zz), exc: d.exc }, r, `${vs} at ${e}`);
  }), { numRuns: 3000 });
});
