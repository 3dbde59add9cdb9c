// Inference's shortcuts (values.ts resolve and keyOrder): an integer place of numbers only typed from the sign of its
// least value (no bigint range), and the key order of objects whose keys form one chain taken as it is (no heap),
// against the reference inference (infer_reference.mjs), where they apply and where they must not.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { inferType } from "../dist/index.js";
import { referenceInferType } from "./infer_reference.mjs";

function outcome(f, v) {
  try { return JSON.stringify(f(v)); } catch (e) { return `error ${e.kind ?? e.message}`; }
}
const same = (v) => assert.equal(outcome(inferType, v), outcome(referenceInferType, v), JSON.stringify(v, (_, x) => (typeof x === "bigint" ? `${x}n` : x)));

test("integer places of numbers, bigints, nulls and other kinds infer the reference's type", () => {
  const int = fc.oneof(
    fc.integer({ min: -5, max: 5 }), fc.constantFrom(0, -0, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 31, -(2 ** 31), 2 ** 63, -(2 ** 63)),
    fc.maxSafeInteger(), fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }), fc.constantFrom(2n ** 64n - 1n, -(2n ** 63n), 2n ** 63n),
  );
  const value = fc.oneof({ weight: 6, arbitrary: int }, fc.constant(null), fc.constant(0.5), fc.constant("s"));
  fc.assert(fc.property(fc.array(value, { minLength: 1, maxLength: 30 }), (xs) => {
    same(xs);
    same(xs.map((x) => ({ x })));
    same(xs.map((x, i) => ({ a: i, x, b: -i })));
  }), { numRuns: 1500 });
});

test("key orders: one chain, chains that skip keys, branches and cycles infer the reference's type", () => {
  const keys = ["a", "b", "c", "d", "e", "f"];
  const rec = fc.subarray(keys, { minLength: 0 }).chain((ks) => fc.shuffledSubarray(ks, { minLength: ks.length, maxLength: ks.length }))
    .map((ks) => Object.fromEntries(ks.map((k, i) => [k, i])));
  fc.assert(fc.property(fc.array(rec, { minLength: 1, maxLength: 8 }), (rs) => same(rs)), { numRuns: 1500 });
  // One key list (one chain), then one object with a key missing, added, or two swapped.
  const base = Array.from({ length: 20 }, (_, i) => ({ a: i, b: "x", c: i / 2, d: null }));
  same(base);
  same([...base, { a: 1, c: 2, d: null }]);
  same([...base, { a: 1, b: "y", c: 2, d: null, e: true }]);
  same([{ e: 1 }, ...base]);
  same([...base, { b: "y", a: 1, c: 2, d: null }]);
  same([{}, {}]);
});
