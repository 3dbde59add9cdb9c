// Float dictionary columns decoded into arrays of shared boxes (src/fast_bits.ts `boxed`, `tagged`) and the
// generated builders' float fields widened to hold them (src/fast.ts `untypedFloats`): the values are the same
// numbers as the reference decoder's (Object.is: -0, NaN, infinities, integers small and large, f32), in every
// id block (frame of reference, runs, others), also once the decoder's code is optimised (many calls), with one
// key list holding floats in one message and integers, strings or nothing in another, with int64 as bigints,
// and without generated code; objects the caller makes with the same keys keep their own values.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { encode, decode, decodeWithType, typeFromJson } from "../dist/index.js";
import { setCodegen } from "../dist/fast.js";

const reference = (bytes, opts = {}) => decodeWithType(bytes, opts).value;
/** Every value of `got` is the reference's (numbers by Object.is). */
function same(got, want, where = "") {
  if (typeof want === "number") { assert.ok(Object.is(got, want), `${where}: ${got} against ${want}`); return; }
  if (want === null || typeof want !== "object") { assert.deepStrictEqual(got, want, where); return; }
  assert.deepStrictEqual(Object.keys(got), Object.keys(want), where);
  for (const k of Object.keys(want)) same(got[k], want[k], `${where}.${k}`);
}
/** The columns' bytes: the message has a float dictionary column (SPEC 22.2 encoding 0x12), as the test needs. */
function columns(rows, type) {
  const bytes = type ? encode(rows, { layout: "columns", type }) : encode(rows, { layout: "columns" });
  assert.ok(bytes.includes(0x12), "a float dictionary column");
  return bytes;
}
const ENTRIES = [-0, 0, 0.5, -2.25, 1, 3, 2 ** 30, 2 ** 31 + 0.5, -(2 ** 53), 1e300, 5e-324, NaN, Infinity, -Infinity, 45.125];

test("float dictionary columns with frame-of-reference, run-length and other ids: the reference's numbers, -0 and NaN included", () => {
  fc.assert(fc.property(fc.array(fc.constantFrom(...ENTRIES), { minLength: 1, maxLength: 9 }), fc.array(fc.nat(), { minLength: 20, maxLength: 300 }),
    fc.constantFrom("shuffled", "sorted", "runs"), (entries, picks, order) => {
      let xs = picks.map((p) => entries[p % entries.length]);
      if (order === "sorted") xs.sort((a, b) => (Number.isNaN(a) ? 1 : Number.isNaN(b) ? -1 : a - b));
      if (order === "runs") xs = xs.flatMap((x, i) => Array(1 + (i % 5)).fill(x));
      const rows = xs.map((x, i) => ({ x, i, y: xs[(i * 7) % xs.length] }));
      const bytes = encode(rows, { layout: "columns" });
      if (!bytes.includes(0x12)) return; // not a dictionary here: other tests cover those columns
      for (const opts of [{}, { int64: "bigint" }]) same(decode(bytes, opts), reference(bytes, opts));
      same(decode(bytes), rows);
    }), { numRuns: 300 });
});

test("after many calls (optimised code), the same numbers: f64 and f32 dictionaries, every entry kind", () => {
  const rows = Array.from({ length: 400 }, (_, i) => ({ lon: ENTRIES[(i * 5) % ENTRIES.length], lat: ENTRIES[Math.floor(i / 30) % ENTRIES.length], dir: i % 360, speed: i / 100 }));
  const bytes = columns(rows);
  const want = reference(bytes);
  for (let k = 0; k < 3000; k++) { const got = decode(bytes); if (k % 500 === 0 || k === 2999) same(got, want, `call ${k}`); }
  same(decode(bytes), rows);
  const f32 = typeFromJson({ vec: { struct: "R", fields: [["a", "f32"], ["b", "u16"]] } });
  const small = [0.5, -0, 3, -1.25, NaN, Infinity, 2 ** 20];
  const r32 = Array.from({ length: 300 }, (_, i) => ({ a: small[(i * 3) % small.length], b: i }));
  const b32 = columns(r32, f32);
  for (let k = 0; k < 2000; k++) decode(b32);
  same(decode(b32), reference(b32));
  same(decode(b32), r32);
});

test("one key list with floats in one message and integers, strings, options or absent keys in others; the caller's objects unchanged", () => {
  const floats = Array.from({ length: 200 }, (_, i) => ({ a: [0.25, -0, 7][i % 3], b: i }));
  const ints = Array.from({ length: 200 }, (_, i) => ({ a: i * 3, b: i }));
  const strings = Array.from({ length: 200 }, (_, i) => ({ a: ["x", "y"][i % 2], b: i }));
  const optional = Array.from({ length: 200 }, (_, i) => (i % 4 ? { a: [0.25, 8][i % 2], b: i } : { b: i }));
  const nulls = Array.from({ length: 200 }, (_, i) => ({ a: i % 3 ? [1.5, -0][i % 2] : null, b: i }));
  const mine = { a: 1.5, b: 2 };
  const messages = [floats, ints, strings, optional, nulls].map((rows) => [rows, encode(rows, { layout: "columns" })]);
  assert.ok(messages[0][1].includes(0x12));
  for (let k = 0; k < 300; k++) {
    for (const [rows, bytes] of messages) if (k % 100 === 0) { same(decode(bytes), reference(bytes)); same(decode(bytes), rows); } else decode(bytes);
    mine.a += 0.5;
  }
  assert.deepStrictEqual(mine, { a: 151.5, b: 2 });
  const theirs = { a: 0.25, b: 1 };
  theirs.a = "now a string";
  theirs.a = -0;
  assert.ok(Object.is(theirs.a, -0));
});

test("without generated code (closures build the objects): the same numbers", () => {
  const rows = Array.from({ length: 300 }, (_, i) => ({ lon: ENTRIES[(i * 5) % ENTRIES.length], n: i }));
  const bytes = columns(rows);
  setCodegen(false);
  try {
    for (let k = 0; k < 500; k++) decode(bytes);
    same(decode(bytes), reference(bytes));
  } finally { setCodegen(undefined); }
  same(decode(bytes), rows);
});
