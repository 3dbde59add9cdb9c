// The columns of a list of records taken from what inference gathered as it loaded the fields (values.ts
// inferGathering, fast_encode.ts gatheredColumns) against the columns loaded again by the gatherer
// (setGatheredUse(false)), and against the reference writer (normalize, then encodeInternal): lists whose records
// change key lists before, at and after the point where inference's generated code takes over (their fifth
// record), keys that are array indices, optional keys, undefined and null values, records that are not objects, and
// lists of 15, 16 and 17 records (gathered from 16 on).
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { encode, inferType } from "../dist/index.js";
import { encodeInternal } from "../dist/codec.js";
import { normalize, inferGathering } from "../dist/values.js";
import { gatheredColumns, setGatheredUse } from "../dist/fast_encode.js";

const outcome = (f) => { try { return Array.from(f()); } catch (e) { return `error ${e.kind ?? ""} ${e.message}`; } };
const json = (x) => JSON.stringify(x, (_, y) => (typeof y === "bigint" ? `${y}n` : y === undefined ? "<undefined>" : y));
function same(v) {
  for (const layout of [undefined, "columns", "auto"]) {
    const o = layout ? { layout } : {};
    const got = outcome(() => encode(v, o));
    setGatheredUse(false);
    let want;
    try { want = outcome(() => encode(v, o)); } finally { setGatheredUse(true); }
    assert.deepStrictEqual(got, want, `${layout} ${json(v).slice(0, 300)}`);
    let ty;
    try { ty = inferType(v); } catch { continue; }
    assert.deepStrictEqual(got, outcome(() => encodeInternal(ty, normalize(ty, v), o)), `reference ${layout} ${json(v).slice(0, 300)}`);
  }
}

const KEYS = ["a", "b", "c", "1962", "1963", "0", "x y"]; // (gathered where a list holds an index: "1962", "0")
const value = fc.oneof(fc.constantFrom("0", "-1234", "x", ""), fc.integer({ min: -1000, max: 1000 }), fc.constant(null), fc.constant(undefined),
  fc.double({ noNaN: true }), fc.boolean());
const record = (keys) => fc.array(value, { minLength: keys.length, maxLength: keys.length }).map((vs) => Object.fromEntries(keys.map((k, i) => [k, vs[i]])));
const keyList = fc.uniqueArray(fc.constantFrom(...KEYS), { minLength: 0, maxLength: 7 });

test("records of one key list with a few others anywhere: gathered columns are the gatherer's", () => {
  fc.assert(fc.property(keyList, fc.integer({ min: 14, max: 40 }), fc.array(fc.tuple(fc.nat(40), keyList), { maxLength: 3 }), fc.array(value, { maxLength: 3 }),
    fc.integer({ min: 1, max: 2 ** 30 }), (keys, n, others, odd, seed) => {
      let x = seed;
      const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
      const pickValue = () => ["0", "12", "x", 5, -3, 2.5, true, null][Math.floor(rnd() * 8)];
      const rec = (ks) => Object.fromEntries(ks.map((k) => [k, pickValue()]));
      const v = Array.from({ length: n }, () => rec(keys));
      for (const [at, ks] of others) if (at < n) v[at] = rec(ks);
      // Records that are not objects, or hold undefined (a key present but undefined: not a field of that record).
      odd.forEach((o, j) => { if (j < n) v[(j * 7) % n] = o; });
      if (rnd() < 0.3) v[Math.floor(rnd() * n)] = { ...rec(keys), [keys[0] ?? "a"]: undefined };
      same(v);
    }), { numRuns: 1500 });
});

test("gathering starts at the fifth record of one key list and stops at the first record of another", () => {
  const rows = (n, keys) => Array.from({ length: n }, (_, i) => Object.fromEntries(keys.map((k, j) => [k, String((i * 7 + j) % 5)])));
  const keys = ["name", "1962", "1963", "code"];
  for (const n of [15, 16, 17, 100]) {
    const v = rows(n, keys);
    const g = inferGathering(v).gathered;
    assert.equal(g === null, n < 16, `${n}`);
    if (g) {
      const ks = Object.keys(v[0]);
      assert.equal(g.from, 4); assert.deepStrictEqual(g.keys, ks);
      assert.deepStrictEqual(g.cols[0].slice(4), v.slice(4).map((r) => r["1962"]));
      // Every column, the records before the fifth filled in.
      assert.deepStrictEqual(gatheredColumns(g, ks, ks.map(() => true), v), ks.map((k) => v.map((r) => r[k])));
      assert.equal(gatheredColumns(g, ks.slice(1), ks.slice(1).map(() => true), v), null);
    }
    same(v);
    // Another key list at the end, in the middle, at the start; keys in another order.
    for (const at of [n - 1, Math.floor(n / 2), 0, 2, 3, 4]) {
      const w = rows(n, keys);
      w[at] = { name: "x", "1962": "1", code: "y" };
      if (at >= 4 && n >= 16) assert.equal(inferGathering(w).gathered, null, `${n} ${at}`);
      same(w);
      const u = rows(n, keys);
      u[at] = { code: "y", name: "x", "1963": "2", "1962": "1" };
      same(u);
    }
  }
});

test("records of a record's fields and lists of lists are not gathered at a depth below the top", () => {
  const inner = Array.from({ length: 20 }, (_, i) => ({ a: String(i % 3), b: i }));
  same({ list: inner });
  same([inner, inner]);
  same(Array.from({ length: 20 }, (_, i) => ({ a: String(i), sub: { c: i % 2 ? "x" : "y" } })));
});
