// int64: "bigint" made from two 32-bit halves (src/fast.ts `bigintOf`, a scratch BigInt64Array) and the zigzag
// mapping undone as each bigint is made (`bigints(xs, n, zig)`); run-length blocks filled by a loop up to 64 values
// and by `fill` past that (FILL_LOOP). Every value is compared with BigInt(x) of the plain decode and with the
// reference decoder, at the 32-bit and 53-bit edges, negative, in runs of 1 to 200, and past 2^53 (bigints given to
// encode, which the direct path leaves to the reference reader).
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { encode, decode, decodeWithType } from "../dist/index.js";
import { bigintOf } from "../dist/fast.js";

const BIG = { int64: "bigint" };
const reference = (bytes) => decodeWithType(bytes, BIG).value;
const EDGES = [0, 1, -1, 4095, 4096, -4096, 2 ** 30, -(2 ** 30), 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1,
  -(2 ** 32), -(2 ** 32) + 1, -(2 ** 32) - 1, 2 ** 52, 2 ** 53 - 1, -(2 ** 53) + 1, 2 ** 53, -(2 ** 53), 3733160000, -3733160000];

test("bigintOf is BigInt(x) for every integer of magnitude at most 2^53", () => {
  for (const x of EDGES) assert.equal(bigintOf(x), BigInt(x), String(x));
  fc.assert(fc.property(fc.integer({ min: 0, max: 53 }), fc.double({ min: -1, max: 1, noNaN: true }), (k, f) => {
    const x = Math.trunc(f * 2 ** k);
    assert.equal(bigintOf(x), BigInt(x));
  }), { numRuns: 2000 });
});

// ±2^53 are not safe integers: encode writes them as floats, so the columns take the others.
const SAFE_EDGES = EDGES.filter((x) => Number.isSafeInteger(x));
const column = (xs) => xs.map((x, i) => ({ i, x }));
function check(rows) {
  for (const layout of ["columns", "rows"]) {
    const bytes = encode(rows, { layout });
    const plain = decode(bytes), got = decode(bytes, BIG);
    assert.deepStrictEqual(got, reference(bytes));
    for (let i = 0; i < rows.length; i++) {
      assert.equal(typeof got[i].x, "bigint");
      assert.equal(got[i].x, typeof plain[i].x === "bigint" ? plain[i].x : BigInt(plain[i].x));
      assert.equal(got[i].x, BigInt(rows[i].x));
    }
  }
}

test("int64 as bigints: runs of 1 to 200 of values at the 32- and 53-bit edges, negative or not", () => {
  const value = fc.oneof(fc.constantFrom(...SAFE_EDGES), fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }), fc.integer({ min: -5000, max: 5000 }),
    fc.integer({ min: 2 ** 32 - 3, max: 2 ** 32 + 3 }));
  const runs = fc.array(fc.tuple(value, fc.integer({ min: 1, max: 200 })), { minLength: 1, maxLength: 8 });
  fc.assert(fc.property(runs, (rs) => check(column(rs.flatMap(([x, k]) => new Array(k).fill(x))))), { numRuns: 150 });
});

test("int64 as bigints: frame-of-reference and delta blocks of wide signed values, and values past 2^53", () => {
  const n = 300;
  check(column(Array.from({ length: n }, (_, i) => 3733160000 + i * 7919 * (i % 2 ? -1 : 1))));
  check(column(Array.from({ length: n }, (_, i) => -(2 ** 40) + i * 1000003)));
  check(column(Array.from({ length: n }, (_, i) => 2 ** 53 - 1 - i * 3)));
  check(column(Array.from({ length: n }, (_, i) => -(2 ** 53) + 1 + ((i * 2654435761) % 2 ** 32))));
  // Past 2^53: given as bigints, read by the reference reader; those within 2^53 in the same column alike.
  const big = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 2n ** 62n + BigInt(i) : -(2n ** 63n) + BigInt(i * i)));
  const rows = big.map((x, i) => ({ i, x }));
  for (const layout of ["columns", "rows"]) {
    const got = decode(encode(rows, { layout }), BIG);
    for (let i = 0; i < n; i++) assert.equal(got[i].x, big[i]);
  }
});

test("int64 as bigints in optimised code: a delta column over 2^32 and a run-length one of long runs", () => {
  const rows = Array.from({ length: 500 }, (_, i) => ({ volume: 3733160000 + ((i * 104729) % 999983) * 1000, cluster: Math.floor(i / 70) - 3, small: Math.floor(i / 9) }));
  const bytes = encode(rows, { layout: "columns" });
  const want = reference(bytes);
  for (let k = 0; k < 1500; k++) { const got = decode(bytes, BIG); if (k % 500 === 0 || k === 1499) assert.deepStrictEqual(got, want); }
  const got = decode(bytes, BIG);
  for (let i = 0; i < rows.length; i++) for (const key of Object.keys(rows[i])) assert.equal(got[i][key], BigInt(rows[i][key]), `${i}.${key}`);
  assert.deepStrictEqual(decode(bytes), rows);
});
