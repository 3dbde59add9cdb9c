// Records whose keys are array indices ("1962", "0": an object's elements to V8), which the generated code of
// inference (values.ts' record adders) and of the encoder (fast_encode.ts' gatherers and row writers) reads by number
// and checks with Object.keys instead of a for…in walk; and records of 65 to 256 keys, which inference now adds by
// generated code too. The same types as the reference inference (infer_reference.mjs), and the reference writer's
// bytes (normalize, then encodeInternal), with the type inferred, given, or remembered by an Encoder.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { encode, inferType, Encoder } from "../dist/index.js";
import { encodeInternal } from "../dist/codec.js";
import { normalize } from "../dist/values.js";
import { isIndexKey, setCodegen } from "../dist/fast.js";
import { referenceInferType } from "./infer_reference.mjs";

const outcome = (f) => { try { return f(); } catch (e) { return `error ${e.kind ?? ""} ${e.message}`; } };
const json = (x) => JSON.stringify(x, (_, y) => (typeof y === "bigint" ? `${y}n` : y));
const sameType = (v) => assert.equal(outcome(() => json(inferType(v))), outcome(() => json(referenceInferType(v))), json(v));
/** encode(v) with its inferred type in every layout, and with a given type t, against the reference writer. */
function sameBytes(v, t = undefined) {
  const ty = t ?? outcome(() => inferType(v));
  if (typeof ty === "string") return;
  for (const layout of ["rows", "columns", "auto"]) {
    const want = outcome(() => encodeInternal(ty, normalize(ty, v), { layout }));
    assert.deepStrictEqual(outcome(() => encode(v, t ? { type: t, layout } : { layout })), want, `${layout} ${json(v)}`);
  }
}

test("isIndexKey: canonical array indices only", () => {
  for (const k of ["0", "7", "1962", "4294967294"]) assert.ok(isIndexKey(k), k);
  for (const k of ["", "01", "-1", "1.5", "1e3", " 1", "4294967295", "99999999999", "a", "0x1", "١"]) assert.ok(!isIndexKey(k), k);
});

// Keys of every sort a record may hold: indices (elements), numeric strings that are not indices (named
// properties), and names; values of a few kinds (strings that are numbers, as the wide tables hold them).
const KEYS = ["0", "1", "7", "1962", "1963", "2021", "4294967294", "4294967295", "01", "-1", "1.5", "a", "b", "name 0"];
const value = fc.oneof(fc.constantFrom("0", "-1234", "x", ""), fc.integer({ min: -1000, max: 1000 }), fc.constant(null), fc.double({ noNaN: true }), fc.boolean());
/** Records of one key list (runs of them, as a file has: the generated code is made for a list after it came twice). */
const records = fc.tuple(fc.uniqueArray(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 10 }), fc.array(fc.array(value, { minLength: 10, maxLength: 10 }), { minLength: 1, maxLength: 12 }))
  .map(([keys, rows]) => rows.map((r) => Object.fromEntries(keys.map((k, i) => [k, r[i]]))));

test("records with index keys: the reference's type and bytes (runs of key lists, odd records among them)", () => {
  const proto = (o) => Object.assign(Object.create({ 1962: "inherited" }), o);
  const hidden = (o) => Object.defineProperty({ ...o }, "1962", { value: "hidden", enumerable: false });
  const odd = fc.constantFrom(proto({ 1963: "1" }), proto({}), hidden({ 1963: "2" }), { 1962: "0", 1963: undefined }, { 1962: "0", extra: 1 }, {}, { 1963: "3", 1962: "4" });
  for (const codegen of [undefined, false]) {
    setCodegen(codegen);
    try {
      fc.assert(fc.property(fc.array(fc.oneof({ weight: 4, arbitrary: records }, { weight: 1, arbitrary: odd.map((o) => [o]) }), { minLength: 1, maxLength: 5 }), (parts) => {
        const v = parts.flat();
        sameType(v);
        sameBytes(v);
        // The type of the first run given, and remembered by an Encoder.
        const t = outcome(() => inferType(parts[0]));
        if (typeof t === "string") return;
        sameBytes(v, t);
        const e = new Encoder();
        e.encode(parts[0]);
        const got = outcome(() => e.encode(v));
        if (json(e.type) === json(t)) assert.deepStrictEqual(got, outcome(() => encodeInternal(t, normalize(t, v), {})));
        else assert.deepStrictEqual(got, outcome(() => encode(v)));
      }), { numRuns: codegen === false ? 100 : 300 });
    } finally { setCodegen(undefined); }
  }
});

test("records of the same keys in another order (named keys after index keys): the reference's type and bytes", () => {
  const run = (keys, n) => Array.from({ length: n }, (_, i) => Object.fromEntries(keys.map((k, j) => [k, j % 2 ? i : String(i)])));
  for (const [a, b] of [[["1962", "a", "b"], ["1962", "b", "a"]], [["a", "b", "7"], ["b", "a", "7"]], [["0", "x", "y", "1"], ["y", "x", "1", "0"]]]) {
    for (const v of [[...run(a, 5), ...run(b, 5)], [...run(a, 5), ...run(b, 1), ...run(a, 3)], [...run(b, 4), ...run(a, 4), ...run(b, 4)]]) {
      sameType(v);
      sameBytes(v);
      sameBytes(v, inferType(run(a, 2)));
    }
  }
});

test("wide records (60 index keys and up to 256 keys in all): the reference's type and bytes", () => {
  const years = Array.from({ length: 60 }, (_, i) => String(1962 + i));
  const wide = (n, extra, rnd) => Array.from({ length: n }, (_, r) => {
    const o = {};
    for (let k = 0; k < 6; k++) o[`name ${k}`] = ["alpha", "Office of Stuff", "On-budget"][(r + k) % 3];
    for (let k = 0; k < extra; k++) o[`code ${k}`] = (r * 7 + k) % 1000;
    for (const y of years) o[y] = rnd() < 0.7 ? "0" : String(Math.floor(rnd() * 990000) - 90000);
    return o;
  });
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (const extra of [0, 4, 100, 190, 191]) { // 66, 70, 166, 256 and 257 keys
    const v = wide(40, extra, rnd);
    sameType(v);
    sameBytes(v);
    // One record of other keys in the middle, and one missing a year.
    const w = v.map((o) => ({ ...o }));
    delete w[20]["1990"];
    sameType(w);
    sameBytes(w);
    sameBytes(w, inferType(v.slice(0, 5).concat([{ ...v[0], 1990: null }])));
  }
});

test("index keys compared with the strings earlier records gave (the adder's kept strings): a record whose key differs at one position, after runs that kept them", () => {
  // Runs of one key list make the adder and keep Object.keys' strings; then records of the same length whose index
  // key differs at one position (dense years, sparse ids, indices past the small integers, with and without named
  // keys), each twice (the second after the first was refused: a kept string must still be the key's own), then
  // the first list again, and the same with numbers as values. The bytes are the reference writer's, and those of the
  // general path (no generated code).
  const lists = [
    [["1962", "1963", "1964"], ["1962", "1965", "1964"].sort((a, b) => a - b)],
    [["1962", "1963", "a", "b"], ["1962", "1964", "a", "b"]],
    [["0", "7", "4000", "name"], ["0", "8", "4000", "name"]],
    [["3", "1073741823", "4294967294", "x"], ["3", "1073741824", "4294967294", "x"]],
    [["1962", "1963", "TQ"], ["1962", "1963", "TR"]],
  ];
  const rec = (keys, i, num) => Object.fromEntries(keys.map((k, j) => [k, num ? i * 3 + j : String((i * 7 + j) % 5)]));
  // (A record of b may also inherit a's keys it lacks: its loads then all find values, and only the key test refuses it.)
  const inherit = (a, b, o) => Object.assign(Object.create(Object.fromEntries(a.filter((k) => !b.includes(k)).map((k) => [k, "inherited"]))), o);
  const runs = (a, b, num, proto = false) => {
    const rb = (i) => (proto ? inherit(a, b, rec(b, i, num)) : rec(b, i, num));
    return [...Array.from({ length: 20 }, (_, i) => rec(a, i, num)), rb(20), rb(21), ...Array.from({ length: 5 }, (_, i) => rec(a, 22 + i, num)), rb(27)];
  };
  for (const codegen of [undefined, false]) {
    setCodegen(codegen);
    try {
      for (const [a, b] of lists) {
        for (const [num, proto] of [[false, false], [true, false], [false, true]]) {
          const v = runs(a, b, num, proto);
          sameType(v);
          sameBytes(v);
          sameBytes(v.slice(0, 22));
          sameBytes(v, inferType(v.slice(0, 3)));
        }
        // Two places of a's records (the adder made for a's keys serves both), then a record of b at each: the first
        // place's adder refuses it, and the second's (the same code, and the strings it keeps) must too.
        const nested = [...Array.from({ length: 10 }, (_, i) => ({ p: rec(a, i), q: rec(a, i + 1) })), { p: inherit(a, b, rec(b, 10)), q: inherit(a, b, rec(b, 11)) }];
        sameType(nested);
        sameBytes(nested);
      }
    } finally { setCodegen(undefined); }
  }
  // The same file twice in one process (the adder and its kept strings from the first call), then its records
  // rebuilt (Object.keys' strings made again), each against the general path.
  for (const [a, b] of lists) {
    for (const proto of [false, true]) {
      const v = runs(a, b, false, proto);
      setCodegen(false);
      const want = outcome(() => encode(v));
      setCodegen(undefined);
      for (const w of [v, runs(a, b, false, proto)]) assert.deepStrictEqual(outcome(() => encode(w)), want);
    }
    const v = runs(a, b, false);
    assert.deepStrictEqual(encode(JSON.parse(JSON.stringify(v))), encode(v));
  }
});
