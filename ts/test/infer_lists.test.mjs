// inferType's loop over a list's records (values.ts, add's array case: a record with the keys of the one before goes
// straight to their generated code, without kindOf's tests) against the reference inference kept in
// infer_reference.mjs: the same type, or the same error, when runs of plain records meet values of other kinds, at
// depths around the limit of 128 levels.
import { test } from "node:test";
import assert from "node:assert/strict";
import { inferType, XbfAny, XbfDate, XbfEnum, XbfNaN, XbfSome, XbfTimestamp } from "../dist/index.js";
import { referenceInferType } from "./infer_reference.mjs";

function outcome(f, v) {
  try { return JSON.stringify(f(v), (_, x) => (typeof x === "bigint" ? `${x}n` : x)); } catch (e) { return `error ${e.kind ?? e.message}`; }
}
const same = (v, what) => assert.equal(outcome(inferType, v), outcome(referenceInferType, v), what);
const run = (n, f) => Array.from({ length: n }, (_, i) => f(i));

test("lists of records meeting other kinds of values infer the reference's type", () => {
  const others = {
    date: new Date(0), xbfDate: new XbfDate(3), map: new Map([["a", 1]]), bytes: new Uint8Array([1, 2]), floats: new Float64Array(2),
    array: [1, 2], empty: [], nul: null, undef: undefined, string: "s", number: 1.5, bigint: 5n, bare: Object.assign(Object.create(null), { a: 1, b: "x" }),
    proxyOfArray: new Proxy([1], {}), proxyOfRecord: new Proxy({ a: 1, b: "p" }, {}), otherKeys: { b: "x", a: 1 }, fewerKeys: { a: 1 },
    undefinedValue: { a: 1, b: undefined }, frozen: Object.freeze({ a: 2, b: "f" }),
  };
  for (const [name, odd] of Object.entries(others)) for (const at of [0, 1, 2, 3, 5, 9]) {
    same(run(10, (i) => (i === at ? odd : { a: i, b: `s${i}` })), `${name} at ${at}`);
    same(run(10, (i) => (i >= at ? odd : { a: i, b: `s${i}` })), `${name} from ${at}`);
  }
});

test("a value of a class, or an array, whose own keys are those of the records before infers the reference's type", () => {
  // The records' generated code would take these (it tests the keys only); kindOf does not.
  const cases = [
    [(i) => ({ value: i }), new XbfSome(5)], [(i) => ({ variant: "x", value: i }), new XbfEnum("x", 1)],
    [(i) => ({ type: { kind: "u8" }, value: i }), new XbfAny({ kind: "u8" }, 1)], [(i) => ({ bits: 1n, width: 64 }), new XbfNaN(1n, 64)],
    [(i) => ({ days: i }), new XbfDate(4)], [(i) => ({ micros: BigInt(i) }), new XbfTimestamp(7n)],
    [(i) => ({ 0: i, 1: i + 1 }), [1, 2]], [(i) => ({ 0: i, 1: i + 1 }), new Proxy([1, 2], { getPrototypeOf: () => Object.prototype })], [(i) => ({ 0: i }), new Uint8Array([1])], [(i) => ({ 0: i, 1: 1.5 }), new Float64Array([1, 2])],
  ];
  for (const [make, odd] of cases) for (const at of [3, 4, 8]) same(run(10, (i) => (i === at ? odd : make(i))), `${Object.keys(make(0))} at ${at}`);
});

test("lists of records at depths around the limit infer the reference's type or its error", () => {
  // Each level a list of records, the first holding the next level: 2 levels of depth a level, the deepest records at
  // depth 2 × levels + 1 (127 and 129 around the limit).
  for (let levels = 60; levels <= 66; levels++) {
    let v = run(5, (i) => ({ a: i, b: "leaf" }));
    for (let k = 0; k < levels; k++) { const inner = v; v = run(5, (i) => ({ a: i, b: i === 0 ? inner : [] })); }
    same(v, `levels ${levels}`);
  }
  // A list in a list a level, the last record holding the next: 3 a level, the deepest records at depth 3 × levels + 2
  // (their values one level past the limit are an error whether added by their code or not).
  // Wrapped in 0 to 2 more lists, so that the deepest records meet the limit at each of the three depths of a level.
  for (let levels = 40; levels <= 44; levels++) for (let wrap = 0; wrap < 3; wrap++) {
    let w = run(5, (i) => ({ a: i, b: "leaf" }));
    for (let k = 0; k < levels; k++) { const inner = w; w = [run(4, (i) => ({ a: i, b: i === 3 ? inner : [] }))]; }
    for (let k = 0; k < wrap; k++) w = [w];
    same(w, `nested levels ${levels} wrapped ${wrap}`);
  }
});
