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

// Float columns of many lengths in turn (the planner's tables kept across columns: the dictionary's hash table, the
// exponent's histogram), up to one past 65,536 values, in one message each, are the Rust writer's bytes (when the
// CLI is there) and decode back.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encode, decode } from "../dist/index.js";

test("float columns of many lengths in turn are the Rust writer's bytes", () => {
  const cli = process.env.XBF_CLI && existsSync(process.env.XBF_CLI) ? process.env.XBF_CLI : null;
  const dir = mkdtempSync(join(tmpdir(), "xbf-floats-"));
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  // Fractions only (both writers infer f64): decimals, repeats (a dictionary) and random doubles (plain or XOR).
  const fraction = (x) => (Number.isInteger(x) ? x + 0.25 : x); // (JSON's 1 is an integer to Rust)
  const column = (n, k) => Array.from({ length: n }, (_, i) => fraction(k === 0 ? Math.round(rnd() * 1e4) / 100 : k === 1 ? [0.5, 1.25, 7.75][i % 3] : rnd() + 0.001));
  for (const [n, k] of [[1500, 0], [20, 2], [3000, 1], [16, 0], [70000, 2], [17, 1], [70000, 0]]) {
    const v = column(n, k).map((x, i, xs) => ({ x, y: xs[(i * 7) % n] }));
    const bytes = encode(v, { layout: "columns" });
    assert.deepStrictEqual(decode(bytes), v, `${n} values of kind ${k}`);
    if (!cli || n > 5000) continue; // (the long ones: decoded only, to keep the test quick)
    const inFile = join(dir, `f${n}-${k}.json`), outFile = join(dir, `f${n}-${k}.xbf`);
    writeFileSync(inFile, JSON.stringify(v));
    execFileSync(cli, ["from-json", inFile, "--layout", "columns", "-o", outFile]);
    assert.deepStrictEqual(Buffer.from(bytes), readFileSync(outFile), `${n} values of kind ${k}`);
  }
});
