// int64: "bigint" through `bigintOf` (src/fast.ts) as the rows reader and the columns' `bigints` call it: 0 to 4095
// from the shared table, other 32-bit values from their low half and its sign, wider ones from both halves. Checked
// against BigInt(x) at the edges of each of those ranges (and -0), and in rows and columns of such values decoded
// often enough for V8 to optimise the readers, against the reference decoder.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { encode, decode, decodeWithType } from "../dist/index.js";
import { bigintOf } from "../dist/fast.js";

const BIG = { int64: "bigint" };
const EDGES = [-0, 0, 1, -1, 4095, 4096, 4097, -4095, -4096, 65535, 2 ** 30 - 1, 2 ** 30, 2 ** 31 - 2, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1,
  -(2 ** 31) + 1, -(2 ** 31), -(2 ** 31) - 1, 2 ** 32 - 1, 2 ** 32, -(2 ** 32), 2 ** 53 - 1, -(2 ** 53) + 1, 2 ** 53, -(2 ** 53)];

test("bigintOf: BigInt(x) at the edges of the shared table, of 32 bits and of 2^53", () => {
  for (const x of EDGES) { const b = bigintOf(x); assert.equal(typeof b, "bigint"); assert.equal(b, BigInt(x), String(x)); }
  // Shared small values come back equal however often they are asked for, and the table is not overwritten.
  for (let k = 0; k < 3; k++) for (let x = 0; x < 4100; x++) assert.equal(bigintOf(x), BigInt(x));
  fc.assert(fc.property(fc.integer({ min: -(2 ** 31) - 5, max: 2 ** 31 + 5 }), (x) => assert.equal(bigintOf(x), BigInt(x))), { numRuns: 3000 });
});

test("int64 as bigints in optimised rows and columns readers: small, 32-bit and wide values, negative, runs, nulls", () => {
  const pick = [0, 1, 4095, 4096, -1, -4096, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 53 - 1, -(2 ** 53) + 1, 123456, -987654];
  const rows = Array.from({ length: 400 }, (_, i) => ({
    a: pick[i % pick.length],
    b: i < 200 ? 7 : 3733160000 + i * 10000, // a run, then wide values
    c: i % 5 === 0 ? null : (i * 2654435761) % 2 ** 32 - 2 ** 31, // nullable 32-bit values
    d: i - 200, // small, both signs
  }));
  for (const layout of ["rows", "columns"]) {
    const bytes = encode(rows, { layout });
    const want = decodeWithType(bytes, BIG).value;
    for (let k = 0; k < 1200; k++) { const got = decode(bytes, BIG); if (k % 400 === 0 || k === 1199) assert.deepStrictEqual(got, want, layout); }
    const got = decode(bytes, BIG);
    for (let i = 0; i < rows.length; i++) for (const key of ["a", "b", "c", "d"]) {
      const x = rows[i][key];
      assert.equal(got[i][key], x === null ? null : BigInt(x), `${layout} ${i}.${key}`);
    }
    assert.deepStrictEqual(decode(bytes), rows);
  }
});
