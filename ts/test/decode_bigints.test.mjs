// 64-bit integer columns decoded with int64: "bigint" (src/fast.ts `bigints`): small values (0 to 4095) shared
// from one table, a run's values one bigint, others made one by one; every value the reference decoder's bigint
// (negative, around 4095/4096, 2^30, 2^53), in frame-of-reference, delta, run-length and varint blocks, also
// once the code is optimised; the default mode still gives numbers.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { encode, decode, decodeWithType } from "../dist/index.js";

const reference = (bytes, opts) => decodeWithType(bytes, opts).value;
const BIG = { int64: "bigint" };

test("int64 as bigints: the reference's values for small, repeated, negative and large integers", () => {
  const value = fc.oneof(fc.nat(5000), fc.integer({ min: 4090, max: 4100 }), fc.integer({ min: -3, max: 3 }), fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
    fc.integer({ min: 2 ** 30 - 3, max: 2 ** 30 + 3 }));
  fc.assert(fc.property(fc.array(value, { minLength: 1, maxLength: 120 }), fc.integer({ min: 1, max: 9 }), (xs, k) => {
    const rows = xs.map((x, i) => ({ x, run: xs[Math.floor(i / k) * k], small: Math.abs(x) % 4096, i }));
    for (const layout of ["columns", "rows"]) {
      const bytes = encode(rows, { layout });
      const got = decode(bytes, BIG);
      assert.deepStrictEqual(got, reference(bytes, BIG));
      for (let i = 0; i < rows.length; i++) {
        assert.equal(typeof got[i].x, "bigint");
        assert.equal(got[i].x, BigInt(rows[i].x));
        assert.equal(got[i].run, BigInt(rows[i].run));
        assert.equal(got[i].small, BigInt(rows[i].small));
      }
      assert.deepStrictEqual(decode(bytes), rows);
    }
  }), { numRuns: 300 });
});

test("int64 as bigints after many calls (optimised code): runs, a small range, years, large values", () => {
  const rows = Array.from({ length: 500 }, (_, i) => ({ dirCat: [0, 45, 90, 4095, 4096][Math.floor(i / 20) % 5], dir: (i * 37) % 360, year: 1950 + (i % 60), pop: 7971931 + i * 1000003, neg: (i % 7) - 3 }));
  const bytes = encode(rows, { layout: "columns" });
  const want = reference(bytes, BIG);
  for (let k = 0; k < 2000; k++) { const got = decode(bytes, BIG); if (k % 400 === 0 || k === 1999) assert.deepStrictEqual(got, want); }
  const got = decode(bytes, BIG);
  for (let i = 0; i < rows.length; i++) for (const key of Object.keys(rows[i])) assert.equal(got[i][key], BigInt(rows[i][key]), `${i}.${key}`);
  assert.deepStrictEqual(decode(bytes), rows);
});
