// int64: "bigint" where bigintOf takes V8's small-integer path (`BigInt(x | 0)` for x in 32 bits) and where it
// leaves it for the scratch halves: values on both sides of ±2^31, with nulls (optional columns) and runs, in
// columns and rows; each value is BigInt of the plain decode's number and the reference decoder's value.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { encode, decode, decodeWithType } from "../dist/index.js";
import { bigintOf } from "../dist/fast.js";

const BIG = { int64: "bigint" };
const EDGE = [0, -0, 1, -1, 2 ** 31 - 2, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, -(2 ** 31) + 1, -(2 ** 31), -(2 ** 31) - 1, 2 ** 32, -(2 ** 32), 2 ** 53 - 1, -(2 ** 53) + 1];

test("bigintOf on both sides of the 32-bit edge", () => {
  for (const x of EDGE) assert.equal(bigintOf(x), BigInt(x), String(x));
  for (let x = -(2 ** 31) - 300; x < -(2 ** 31) + 300; x++) assert.equal(bigintOf(x), BigInt(x));
  for (let x = 2 ** 31 - 300; x < 2 ** 31 + 300; x++) assert.equal(bigintOf(x), BigInt(x));
});

test("int64 as bigints around ±2^31 with nulls and runs, columns and rows", () => {
  const value = fc.oneof(fc.constantFrom(...EDGE, null), fc.integer({ min: -(2 ** 31) - 5, max: -(2 ** 31) + 5 }),
    fc.integer({ min: 2 ** 31 - 5, max: 2 ** 31 + 5 }), fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }));
  const runs = fc.array(fc.tuple(value, fc.integer({ min: 1, max: 40 })), { minLength: 1, maxLength: 10 });
  fc.assert(fc.property(runs, (rs) => {
    const rows = rs.flatMap(([x, k]) => new Array(k).fill(x)).map((x, i) => ({ i, x: Object.is(x, -0) ? 0 : x }));
    if (!rows.some((r) => r.x !== null && !Number.isInteger(r.x))) {
      for (const layout of ["columns", "rows"]) {
        const bytes = encode(rows, { layout });
        const plain = decode(bytes), got = decode(bytes, BIG);
        assert.deepStrictEqual(got, decodeWithType(bytes, BIG).value);
        for (let i = 0; i < rows.length; i++) {
          if (rows[i].x === null) { assert.equal(got[i].x, null); continue; }
          assert.equal(typeof got[i].x, "bigint");
          assert.equal(got[i].x, BigInt(plain[i].x));
          assert.equal(got[i].x, BigInt(rows[i].x));
        }
      }
    }
  }), { numRuns: 200 });
});
