// int64: "bigint" columns made as their blocks are read (src/fast_numbers.ts `bigInts`, src/fast_int_values.ts
// `bigFrame` and `bigDelta`): a narrow frame of reference through its table of shared bigints (each field value's
// bigint made once: a dictionary of years, ages, codes), a wider one sharing a field equal to the one before, the
// widest (25 to 44 bits) from two loads, delta blocks in 31-bit steps and wider ones with steps of 0, run-length
// blocks (short runs by a loop, long ones by fill), signed columns' zigzag mapping, and the values past 2^53 that
// still take the other path. Every value is checked against BigInt of the value encoded and the whole table against
// the reference decoder, first and once the code is optimised.
import { test } from "node:test";
import assert from "node:assert/strict";
import { encode, decode, decodeWithType } from "../dist/index.js";

const BIG = { int64: "bigint" };
/** A repeatable pseudo-random integer in [0, k) (mulberry32). */
function rng(seed) {
  let a = seed >>> 0;
  return (k) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * k);
  };
}
/** Run lengths: shorter and longer than the fill loop's 64. */
const RUNS = [1, 2, 70, 5, 130, 64, 65, 3];
/** The columns of a table of n records: each a function of the record's index and a random source. */
function columns(n, seed) {
  const r = rng(seed);
  let last = 0, near = 0, leap = 0, walk = 2 ** 34, run = 0, runEnd = RUNS[0];
  const cols = {
    // Frames of reference narrow enough for the table (2^width <= n), unsigned and signed, with both ends present.
    year: (i) => 1850 + 10 * r(16),
    sex: (i) => 1 + r(2),
    age: (i) => (i === 0 ? 0 : i === 1 ? 90 : 5 * r(19)),
    code: (i) => (i % 97 === 0 ? 70000 : i % 89 === 0 ? 70000 + 511 : 70000 + r(512)),
    small: (i) => r(7) - 3,
    signed: (i) => (i === 0 ? -256 : i === 1 ? 255 : r(512) - 256),
    // Wider frames: 13 to 24 bits, a field often equal to the one before; 25 to 44 bits; negative ones.
    mid: (i) => 1e6 + (i % 4 === 3 ? last : (last = r(2 ** 20))),
    near: (i) => 3e6 + (i % 3 === 0 ? (near = r(2 ** 16)) : ++near),
    wide: (i) => 2 ** 40 + r(2 ** 20) * 2 ** 14 + r(2 ** 14),
    wideNeg: (i) => -(2 ** 42) + r(2 ** 20) * 2 ** 18 + r(2 ** 18),
    // Delta blocks: ascending with steps of 0, narrow steps from a large start, descending below zero, wide steps.
    rising: (i) => 2 ** 33 + i * 3 + (i >> 2),
    flat: (i) => 5000000000 + 7 * Math.floor(i / 3),
    falling: (i) => 100 - i * 17 - (i % 2),
    leaps: (i) => (i % 5 === 4 ? leap : (leap = 2 ** 45 - i * 2 ** 33 - r(2 ** 30))),
    walk: (i) => (walk += r(3) - 1),
    // Runs, short and longer than the fill loop's 64, of small, negative and 33-bit values.
    runs: (i) => {
      while (i >= runEnd) { run++; runEnd += RUNS[run % RUNS.length]; }
      return [3, -4, 2 ** 32 + 5, 0, -(2 ** 35), 2 ** 33][run % 6];
    },
    // Past 2^53 (as bigints): not exact numbers, the reference reader's path.
    huge: (i) => 2n ** 60n + BigInt(r(1000)),
  };
  const rows = [];
  for (let i = 0; i < n; i++) {
    const o = {};
    for (const [k, f] of Object.entries(cols)) o[k] = f(i);
    rows.push(o);
  }
  return rows;
}

function check(rows, times) {
  const bytes = encode(rows, { layout: "columns" });
  const want = decodeWithType(bytes, BIG).value;
  for (let k = 0; k < times; k++) {
    const got = decode(bytes, BIG);
    if (k !== 0 && k !== times - 1) continue;
    assert.deepStrictEqual(got, want);
    for (let i = 0; i < rows.length; i++) for (const key of Object.keys(rows[i])) {
      assert.equal(typeof got[i][key], "bigint", `${i}.${key}`);
      assert.equal(got[i][key], BigInt(rows[i][key]), `${rows.length} rows, ${i}.${key}`);
    }
  }
  // The default mode's values are unchanged (numbers where exact).
  const plain = decode(bytes);
  for (let i = 0; i < rows.length; i++) for (const key of Object.keys(rows[i])) {
    const x = rows[i][key];
    assert.equal(plain[i][key], typeof x === "bigint" ? x : x, `default ${i}.${key}`);
  }
}

test("int64 as bigints made as the column's block is read: frames, deltas, runs, both signs, past 2^53", () => {
  for (const [n, seed] of [[1, 1], [2, 2], [3, 3], [63, 4], [600, 5], [5000, 6]]) check(columns(n, seed), 3);
});

test("int64 as bigints made as the column's block is read, once the readers are optimised", () => {
  check(columns(600, 7), 400);
  check(columns(4100, 8), 40);
});

test("int64 as bigints: a narrow frame whose every field value occurs, each made once and shared", () => {
  // Every value of a 3-bit frame and of a 12-bit one (4,096 values in 8,192 records), in a shuffled order.
  const r = rng(9);
  const rows = Array.from({ length: 8192 }, (_, i) => ({ a: 40 + (i % 8), b: 2 ** 35 + (i % 4096), c: -2048 + ((i * 2654435761) % 4096) }));
  for (let i = rows.length - 1; i > 0; i--) { const j = r(i + 1); [rows[i], rows[j]] = [rows[j], rows[i]]; }
  check(rows, 30);
});

/** decode(bytes, BIG) gives the reference decoder's value, or fails with its error (kind, offset, path). */
function sameOutcome(bytes, what) {
  let want, wantErr, got, gotErr;
  try { want = decodeWithType(bytes, BIG).value; } catch (e) { wantErr = e; }
  try { got = decode(bytes, BIG); } catch (e) { gotErr = e; }
  if (wantErr) {
    assert.ok(gotErr, `${what}: decode gave a value where the reference fails with ${wantErr.message}`);
    assert.deepEqual([gotErr.kind, gotErr.offset, gotErr.path], [wantErr.kind, wantErr.offset, wantErr.path], what);
  } else {
    assert.ok(!gotErr, `${what}: decode fails (${gotErr?.message}) where the reference does not`);
    assert.deepStrictEqual(got, want, what);
  }
}

test("int64 as bigints from hostile columns: every byte nudged, every prefix: the reference's value or its error", () => {
  // Frames (narrow ones through the table), deltas and runs of 20 records: a width, base, first value, run length
  // or padding bit made wrong, or a column cut short, must fail where and as the reference fails.
  const bytes = encode(columns(20, 10), { layout: "columns" });
  sameOutcome(bytes, "as written");
  for (let i = 0; i < bytes.length; i++) {
    for (const d of [-3, -2, -1, 1, 2, 3, 128]) {
      const c = bytes.slice();
      c[i] = (c[i] + d) & 255;
      sameOutcome(c, `byte ${i} ${d > 0 ? "+" : ""}${d}`);
    }
    sameOutcome(bytes.subarray(0, i), `the first ${i} bytes`);
  }
});
