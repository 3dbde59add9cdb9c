// Inference of a list's records in runs (values.ts addItems and addRun): records of one key list added by their
// generated code until one is not, which goes through add, then the next run. Every way a run can stop (null, a
// number, a list, a class instance, an object without prototype, other keys, an undefined field, a getter item)
// at every place, at the top (gathered columns, with keys that are array indices) and below it: the type inferred
// is the one inferred without generated code (add for every item), the message the reference writer's, and an
// item given by a getter is read once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { encode, inferType } from "../dist/index.js";
import { encodeInternal } from "../dist/codec.js";
import { normalize } from "../dist/values.js";
import { setCodegen } from "../dist/fast.js";

class Point { constructor(i) { this.a = i; this.b = `s${i}`; } }
const plain = (i) => ({ a: i, b: `s${i}` });
const years = (i) => ({ name: `n${i % 3}`, 1990: i, 1991: i / 2 });
const stops = {
  null: () => null,
  number: () => 7,
  list: () => [1, 2],
  instance: (i) => new Point(i),
  noProto: (i) => Object.assign(Object.create(null), plain(i)),
  otherKeys: (i) => ({ b: `s${i}`, a: i }),
  undefinedField: (i) => ({ a: i, b: undefined }),
  float: (i) => ({ a: i + 0.5, b: `s${i}` }),
};
const noCodegen = (f) => { setCodegen(false); try { return f(); } finally { setCodegen(undefined); } };
const outcome = (f) => { try { return Array.from(f()); } catch (e) { return `error ${e.kind ?? ""} ${e.message}`; } };
function check(v, what) {
  const t = inferType(v);
  assert.deepStrictEqual(t, noCodegen(() => inferType(v)), `${what}: type`);
  assert.deepStrictEqual(outcome(() => encode(v)), outcome(() => encodeInternal(t, normalize(t, v), {})), `${what}: bytes`);
}

test("a run of records stopped by each kind of item at each place, at the top and below it", () => {
  for (const [name, make] of [["plain", plain], ["years", years]]) {
    for (const n of [1, 5, 16, 40]) {
      for (const [stop, item] of Object.entries(stops)) {
        for (const at of [0, 1, 4, 5, n >> 1, n - 1]) {
          if (at >= n) continue;
          const v = Array.from({ length: n }, (_, i) => (i === at ? item(i) : make(i)));
          check(v, `${name} ${n} ${stop} at ${at}`);
          check({ rows: v }, `${name} ${n} ${stop} at ${at}, below the top`);
          check([v, v.slice(0, 3)], `${name} ${n} ${stop} at ${at}, in a list of lists`);
        }
        // Two stops, then the records' run again, then the other key list's own run.
        const w = Array.from({ length: n + 30 }, (_, i) => (i === 3 || i === 9 ? item(i) : i >= n ? stops.otherKeys(i) : make(i)));
        check(w, `${name} ${n} ${stop} twice, then another key list`);
      }
    }
  }
});

test("an item given by a getter is read once where it stops a run, and where it continues one", () => {
  for (const [what, give] of [["stops", (i) => ({ z: i })], ["continues", (i) => plain(i)], ["differs each read", null]]) {
    const v = Array.from({ length: 30 }, (_, i) => plain(i));
    let reads = 0;
    Object.defineProperty(v, 12, {
      get() { reads++; return give ? give(reads) : reads === 1 ? plain(1) : "a string"; },
      enumerable: true, configurable: true,
    });
    const t = inferType(v);
    assert.equal(reads, 1, `${what}: one read`);
    reads = 0;
    assert.deepStrictEqual(t, noCodegen(() => inferType(v)), `${what}: type`);
    assert.equal(reads, 1, `${what}: one read without generated code`);
  }
});
