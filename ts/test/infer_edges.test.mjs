// The key graph kept as one successor per key plus a Set only for keys with more (values.ts), and the kinds of a
// place as bits: the same types as the reference inference (infer_reference.mjs) where keys have several
// successors, where they form a cycle, and where objects holding such objects are keyed by data (mergeShape).
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { inferType } from "../dist/index.js";
import { referenceInferType } from "./infer_reference.mjs";

function outcome(f, v) {
  try { return JSON.stringify(f(v)); } catch (e) { return `error ${e.kind ?? e.message}`; }
}
const same = (v) => assert.equal(outcome(inferType, v), outcome(referenceInferType, v));
const run = (n, f) => Array.from({ length: n }, (_, i) => f(i));

test("keys with several successors, and a cycle, infer the reference's type", () => {
  // a → b, a → c, b → c, c → d: a diamond; then the same with d → a added (a cycle: any).
  const diamond = [{ a: 1, b: 2, c: 3, d: 4 }, { a: 1, c: 3 }, { b: 2, d: 4 }, { a: 5, d: 6 }];
  same(diamond);
  same([...diamond, { d: 1, a: 2 }]);
  // A key seen after many others (one successor each first, then more).
  same(run(40, (i) => Object.fromEntries(run(6, (j) => [`k${(i + j) % 9}`, j]))));
  same(run(40, (i) => Object.fromEntries(run(1 + (i % 5), (j) => [`k${(j * (i % 3 + 1)) % 7}`, i % 2 ? j : `${j}`]))));
});

test("data-keyed objects of objects with branching keys infer the reference's type (merged shapes)", () => {
  // More than 64 distinct keys, each object having few: a map whose values are the objects below, merged.
  const inner = (i) => (i % 3 === 0 ? { x: i, y: "s", z: null } : i % 3 === 1 ? { x: 0.5, z: 1 } : { y: "t", w: true, x: i });
  same(run(10, (i) => Object.fromEntries(run(12, (j) => [`key${(i * 12 + j) % 300}`, inner(i + j)]))));
  // The same where the inner objects' key orders conflict (a cycle inside the merged shape).
  // Each data key seen several times with other inner key lists: a merged shape's own key graph has branches.
  const diamond = [{ a: 1, b: 2, c: 3, d: 4 }, { a: 1, c: 3 }, { b: 2, d: 4 }, { a: 5, d: 6 }];
  same(run(80, (i) => Object.fromEntries(run(3, (j) => [`key${(i * 3 + j) % 100}`, diamond[(i + 2 * j) % 4]]))));
  // Each data key's objects {c, d}, {a, b}, {a, c} in turn: edge a → c only as a second successor, which puts a
  // before c in the merged order (c, d, a, b without it).
  const seq = [{ c: 1, d: 2 }, { a: 3, b: 4 }, { a: 5, c: 6 }];
  same(run(300, (i) => ({ [`key${i % 100}`]: seq[Math.floor(i / 100)] })));
  const conflicting = (i) => (i % 2 ? { p: 1, q: 2 } : { q: 3, p: 4 });
  same(run(10, (i) => Object.fromEntries(run(12, (j) => [`key${(i * 12 + j) % 300}`, conflicting(i + j)]))));
});

test("places of mixed kinds infer the reference's type (kinds as bits)", () => {
  const leaf = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.constant(-0), fc.double(), fc.string({ maxLength: 2 }),
    fc.bigInt({ min: -(1n << 70n), max: 1n << 70n }), fc.constant(new Date(0)), fc.constant(new Uint8Array(2)), fc.constant([1, 2]),
    fc.constant(new Map([["a", 1]])), fc.constant({ o: 1 }));
  fc.assert(fc.property(fc.array(leaf, { maxLength: 6 }), (vs) => {
    same(vs);
    same(vs.map((v) => ({ f: v })));
  }), { numRuns: 400 });
});
