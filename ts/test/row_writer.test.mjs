// The generated row writer (fast_encode.ts, rowWriter: lists of 16 or more records of a type inferred from them,
// written in rows) against the reference encoder (normalize, then encodeInternal): the same bytes for every kind of
// field it writes inline (bools, floats, strings, integers of every inferred kind and range), for absent keys
// (`json.optional`), nulls (options), nested lists and records, `any` and unit fields, at lengths around 16.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { decode, encode, inferType } from "../dist/index.js";
import { encodeDirect, encodeInternal } from "../dist/codec.js";
import { setInferred } from "../dist/fast_encode.js";
import { normalize } from "../dist/values.js";

const reference = (v, layout) => { const t = inferType(v); return encodeInternal(t, normalize(t, v), { layout }); };
/** The direct writer's bytes with the type inferred from v (as encode sets it up), which must not leave v to the
 * reference path (a BAIL there would hide a fault behind the reference's bytes). */
const direct = (v, layout) => {
  setInferred(true);
  try { return encodeDirect(inferType(v), v, { layout }); } finally { setInferred(false); }
};
const same = (v, what, layouts = ["rows", "auto"], mayBail = false) => {
  for (const layout of layouts) {
    const want = reference(v, layout);
    assert.deepStrictEqual(encode(v, { layout }), want, `${what} ${layout}`);
    if (!mayBail) assert.deepStrictEqual(direct(v, layout), want, `${what} ${layout}, direct`);
  }
};

test("rows of inferred records: the reference's bytes for each kind of field, at lengths around 16", () => {
  const kinds = {
    bool: (i) => i % 3 === 0,
    float: (i) => i / 7 - 3,
    floatWhole: (i) => (i % 2 ? 0.5 : 2) * i, // a whole number among fractions: f64
    string: (i) => "é".repeat(i % 3) + "s" + i + "x".repeat(i % 200 === 7 ? 300 : 0),
    unsigned: (i) => i * 1000,
    unsignedBig: (i) => (i % 2 ? 2 ** 53 - 1 - i : i), // u64 up to the last safe integer
    signed: (i) => (i % 2 ? -i : i) * 99,
    signedWide: (i) => (i % 2 ? -(2 ** 50) : 2 ** 50 - i), // i64 at the direct writer's bounds
    signedPast: (i) => (i === 9 ? -(2 ** 52) : -i), // past ±2^50: the reference path writes it
    option: (i) => (i % 4 ? i : null),
    optionString: (i) => (i % 5 ? `o${i}` : null),
    absent: (i) => (i % 3 ? i * 1.5 : undefined), // a key left out: json.optional
    absentString: (i) => (i % 2 ? undefined : `a${i}`),
    list: (i) => Array.from({ length: i % 4 }, (_, k) => k * i),
    record: (i) => ({ a: i, b: `b${i}` }),
    records: (i) => Array.from({ length: i % 3 }, (_, k) => ({ k, s: String(k) })),
    any: (i) => [1, "one", true, null, 2.5][i % 5],
    unit: () => null,
  };
  const names = Object.keys(kinds);
  for (const n of [15, 16, 17, 40]) {
    // Each kind alone with a string beside it, then all at once, and in another key order.
    for (const k of names) {
      const v = Array.from({ length: n }, (_, i) => { const o = { id: i }; const x = kinds[k](i); if (x !== undefined) o[k] = x; return o; });
      same(v, `${k} n=${n}`, undefined, k === "signedPast");
    }
    const all = (order) => Array.from({ length: n }, (_, i) => {
      const o = {};
      for (const k of order) { const x = kinds[k](i); if (x !== undefined) o[k] = x; }
      return o;
    });
    same(all(names), `all n=${n}`, undefined, true);
    same(all(names.filter((k) => k !== "signedPast")), `all n=${n}`);
    same(all(names.filter((k) => k !== "signedPast").reverse()), `all reversed n=${n}`);
  }
});

test("rows of inferred records: values the direct writer leaves to the reference path, and records with other keys", () => {
  const base = (n) => Array.from({ length: n }, (_, i) => ({ a: i, s: `s${i}`, x: i + 0.25 }));
  const cases = {
    bigint: (v) => { v[5].a = 5n; },
    nan: (v) => { v[3].x = NaN; },
    infinity: (v) => { v[3].x = -Infinity; },
    negativeZero: (v) => { v[3].x = -0; },
    extraKey: (v) => { v[7].extra = 1; },
    missingKey: (v) => { delete v[7].s; },
    undefinedValue: (v) => { v[7].s = undefined; },
    date: (v) => { v[2].s = new Date(0); },
    nested: (v) => { v[4].x = { y: 1 }; },
  };
  for (const [name, change] of Object.entries(cases)) for (const n of [16, 33]) {
    const v = base(n);
    change(v);
    same(v, `${name} n=${n}`, undefined, true);
  }
});

test("rows of inferred records: property test against the reference", () => {
  const num = fc.oneof(fc.integer({ min: -(2 ** 52), max: 2 ** 52 }), fc.nat(), fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)));
  const field = fc.oneof(num, fc.string({ maxLength: 6 }), fc.boolean(), fc.constant(null), fc.array(fc.nat(9), { maxLength: 3 }));
  const rec = fc.record({ a: field, b: field, c: fc.oneof(num, fc.constant(null)), d: fc.string({ unit: "binary", maxLength: 4 }), e: fc.integer({ min: -300, max: 300 }) },
    { requiredKeys: ["d", "e"] });
  fc.assert(fc.property(fc.array(rec, { minLength: 16, maxLength: 40 }), (v) => same(v, "", undefined, true)), { numRuns: 400 });
  // Without values past ±2^50 (the one thing of these records the direct writer leaves to the reference path).
  const recSafe = fc.record({ a: fc.oneof(fc.integer({ min: -(2 ** 50), max: 2 ** 50 }), fc.string({ maxLength: 3 }), fc.constant(null)), b: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
    c: fc.option(fc.nat()), d: fc.string({ unit: "binary", maxLength: 4 }), e: fc.integer({ min: -300, max: 300 }) }, { requiredKeys: ["b", "d", "e"] });
  fc.assert(fc.property(fc.array(recSafe, { minLength: 16, maxLength: 40 }), (v) => same(v, "")), { numRuns: 400 });
});

test("columns of long lists: the gatherer's arrays sized up to 65,536 records, grown past it (the reference's bytes)", () => {
  const rec = (i) => (i % 3 ? { a: i, s: `s${i % 97}`, x: i / 4, o: i % 5 ? i : null } : { a: i, s: `t${i % 13}`, x: -i, o: null, extra: i % 7 === 0 ? "e" : undefined });
  for (const n of [4095, 4096, 4097, 20000, 65536, 65537, 70001]) {
    const v = Array.from({ length: n }, (_, i) => rec(i));
    same(v, `n=${n}`, ["columns", "auto"]);
  }
});

test("rows of inferred records whose keys need quoting in generated code: the reference's bytes, the same values back", () => {
  const keys = ["constructor", "toString", 'a"b', "back\\slash", "line\nbreak", "sep\u2028ar", "nul\u0000", "é", "", "1", "$x"];
  for (const n of [16, 40]) {
    const v = Array.from({ length: n }, (_, i) => Object.fromEntries(keys.map((k, j) => [k, j % 2 ? `s${i}` : i * j])));
    same(v, `quoted keys, ${n} records`);
    assert.deepStrictEqual(decode(encode(v, { layout: "rows" })), v);
  }
});
