// The current inferType against the reference kept in infer_reference.mjs (the inference before its generated
// per-key-list code): the same type, or the same error kind, on random records and on every benchmark file.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { inferType } from "../dist/index.js";
import { referenceInferType } from "./infer_reference.mjs";
import { jsonish } from "./arbitraries.mjs";

function outcome(f, v) {
  try { return JSON.stringify(f(v)); } catch (e) { return `error ${e.kind ?? e.message}`; }
}
const same = (v) => assert.equal(outcome(inferType, v), outcome(referenceInferType, v));

// Leaves that move a place between kinds: ints and floats mixed, -0, NaN, bigints, unsafe integers, absent values.
const leaf = fc.oneof(
  fc.constant(null), fc.constant(undefined), fc.boolean(), fc.integer({ min: -1e6, max: 1e6 }), fc.constant(0), fc.constant(-0),
  fc.double(), fc.constant(NaN), fc.bigInt({ min: -(1n << 70n), max: 1n << 70n }), fc.constant(2 ** 53), fc.constant(-(2 ** 60)),
  fc.string({ maxLength: 3 }),
);
const key = fc.constantFrom("a", "b", "c", "d", "0", "7", "__proto__", "constructor");
// Records of a few key lists (so that objects of one key list follow each other, as in real data), whose values
// are leaves, or records again.
const records = fc.letrec((tie) => ({
  value: fc.oneof({ maxDepth: 2 }, leaf, leaf, tie("list")),
  list: fc.tuple(fc.array(fc.uniqueArray(key, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 3 }),
    fc.array(fc.tuple(fc.nat(), fc.array(tie("value"), { minLength: 5, maxLength: 5 })), { maxLength: 12 }))
    .map(([lists, rows]) => rows.map(([pick, vals]) => {
      const keys = lists[pick % lists.length];
      return Object.fromEntries(keys.map((k, i) => [k, vals[i]]));
    })),
})).list;

test("inference gives the reference's type on random records", () => {
  fc.assert(fc.property(records, same), { numRuns: 400 });
});

test("inference gives the reference's type on JSON-like values", () => {
  fc.assert(fc.property(jsonish, same), { numRuns: 300 });
});

test("inference gives the reference's type on long runs of one key list, deep records and data keys", () => {
  const run = (n, f) => Array.from({ length: n }, (_, i) => f(i));
  same(run(50, (i) => ({ x: i % 3 ? i : i + 0.5, y: i % 7 ? "s" : null, z: i === 40 ? 2n ** 70n : i })));
  same(run(50, (i) => (i % 10 === 9 ? { y: 1, x: 2 } : { x: i, y: i % 5 ? -0 : 3 })));
  same(run(50, (i) => ({ a: i, b: i === 30 ? undefined : i })));
  same(run(30, (i) => Object.fromEntries(run(70, (j) => [`k${(i * 70 + j) % 500}`, j]))));
  let deep = { v: 1 };
  for (let i = 0; i < 140; i++) deep = { v: i, next: [deep] };
  same(deep);
  let chain = [];
  for (let i = 0; i < 126; i++) { const c = chain; chain = [{ c }, { c: [] }, { c: [] }, { c: [] }]; }
  same(chain);
});

test("inference gives the reference's type where a record's keys come from its prototype or are not enumerable", () => {
  // The generated code walks a record's keys with for…in (own enumerable keys, then inherited ones): a record whose
  // own keys are the first of the usual list and whose prototype has the rest, one with a hidden own key, a
  // null-prototype one and a class instance, each after a run of plain records (its code made).
  const run = (n, f) => Array.from({ length: n }, (_, i) => f(i));
  const proto = { b: "inherited" };
  const inherits = Object.assign(Object.create(proto), { a: 5 });
  const hidden = Object.defineProperty({ a: 6 }, "b", { value: "hidden", enumerable: false });
  const bare = Object.assign(Object.create(null), { a: 7, b: "bare" });
  class Row { constructor() { this.a = 8; this.b = "row"; } }
  Row.prototype.c = 1;
  for (const odd of [inherits, hidden, bare, new Row()]) {
    same(run(12, (i) => (i === 9 ? odd : { a: i, b: "s" })));
    same([...run(12, (i) => ({ a: i, b: "s" })), odd, odd, { a: 1, b: "t" }]);
  }
});

const repo = fileURLToPath(new URL("../../", import.meta.url));
const vega = process.env.VEGA_DATA ?? repo + "target/data/vega-datasets/";
function csvRecords(text) {
  const [head, ...lines] = text.trim().split(/\r?\n/);
  const keys = head.split(",");
  return lines.map((l) => Object.fromEntries(l.split(",").map((c, i) => [keys[i], c !== "" && !Number.isNaN(Number(c)) ? Number(c) : c])));
}
const BENCH = ["flights-20k.json", "movies.json", "earthquakes.json", "football.json", "jobs.json", "political-contributions.json",
  "income.json", "gapminder.json", "cars.json", "penguins.json", "countries.json", "budgets.json", "normal-2d.json",
  "birdstrikes.csv", "seattle-weather.csv", "windvectors.csv", "us-employment.csv"];
test("inference gives the reference's type on every benchmark file", { skip: !existsSync(vega) && "no vega-datasets" }, () => {
  same(csvRecords(readFileSync(repo + "crates/xbf-cli/data/sp500-2019.csv", "utf8")));
  for (const f of BENCH) {
    const text = readFileSync(vega + f, "utf8");
    const v = f.endsWith(".csv") ? csvRecords(text) : JSON.parse(text);
    same(v);
    if (f === "earthquakes.json") same(v.features);
  }
});
