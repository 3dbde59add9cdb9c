// The encoder's kept types (known_types.ts): found by structure, kept as private copies, at most 16. A type object
// changed in place between calls, or another type with the same names, gets its own bytes, not the ones kept for
// what the object used to be (the reference writer's bytes: encodeInternal after normalize).
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { Encoder, encode, decode, inferType } from "../dist/index.js";
import { encodeInternal } from "../dist/codec.js";
import { normalize } from "../dist/values.js";
import { isKept, knownTypeCount } from "../dist/known_types.js";

// (A copy of the type: normalize keeps per-type caches of its own, which a type changed in place would mislead.)
const reference = (v, t, layout) => { const c = structuredClone(t); return encodeInternal(c, normalize(c, v), { layout }); };
const struct = (fields) => ({ kind: "struct", name: "R", fields: fields.map(([name, kind]) => ({ name, type: typeof kind === "string" ? { kind } : kind })) });
const records = (n, make) => Array.from({ length: n }, (_, i) => make(i));

test("a type object changed in place between calls: each call writes the bytes of the type as it is then", () => {
  for (const layout of ["rows", "columns", "auto"]) {
    const S = struct([["a", "u8"], ["b", "string"]]), T = { kind: "vec", element: S };
    const e = new Encoder({ type: T, layout });
    const check = (v) => {
      const want = reference(v, T, layout);
      assert.deepStrictEqual(encode(v, { type: T, layout }), want);
      assert.deepStrictEqual(e.encode(v), want);
      assert.deepStrictEqual(decode(want), JSON.parse(JSON.stringify(v, (_, x) => (typeof x === "bigint" ? Number(x) : x))));
    };
    check(records(20, (i) => ({ a: i, b: "x" + i })));
    S.fields[0].name = "z"; // a field renamed
    check(records(20, (i) => ({ z: i, b: "x" + i })));
    S.fields[0].type = { kind: "string" }; // a field's type replaced
    check(records(20, (i) => ({ z: "s" + i, b: "x" + i })));
    S.fields[1].type.kind = "u16"; // a field's type object changed itself
    check(records(20, (i) => ({ z: "s" + i, b: 300 + i })));
    S.fields.push({ name: "c", type: { kind: "option", inner: { kind: "f64" } } }); // a field added
    check(records(20, (i) => ({ z: "s" + i, b: 300 + i, c: i % 3 ? i / 4 : null })));
    S.fields.reverse(); // the order changed
    check(records(20, (i) => ({ c: i % 3 ? i / 4 : null, b: 300 + i, z: "s" + i })));
    S.fields.splice(1, 1); // a field removed
    check(records(20, (i) => ({ c: i % 3 ? i / 4 : null, z: "s" + i })));
    S.name = "Other"; // the struct renamed
    check(records(20, (i) => ({ c: i % 3 ? i / 4 : null, z: "s" + i })));
    S.fields.push({ name: "d", type: { kind: "u64" } }); // a value the direct writer leaves to normalize (a bigint)
    check(records(20, (i) => ({ c: i % 3 ? i / 4 : null, z: "s" + i, d: BigInt(i) })));
    S.fields[2].name = "e";
    check(records(20, (i) => ({ c: i % 3 ? i / 4 : null, z: "s" + i, e: BigInt(i) })));
  }
});

test("an Encoder's remembered type changed in place by its caller: the next message has the changed type", () => {
  const e = new Encoder();
  const v = records(20, (i) => ({ a: i, b: "x" + i }));
  e.encode(v);
  e.type.element.fields[0].name = "z";
  const w = records(20, (i) => ({ z: i, b: "x" + i }));
  const bytes = e.encode(w);
  assert.deepStrictEqual(bytes, reference(w, e.type, "auto"));
  assert.deepStrictEqual(decode(bytes), w);
});

test("types with the same names and other field types, alternating: each call its own bytes", () => {
  const kinds = ["u8", "i64", "f64", "string", "bool", { kind: "option", inner: { kind: "u8" } }, { kind: "vec", element: { kind: "u8" } }];
  const value = (kind, i) => {
    switch (typeof kind === "string" ? kind : kind.kind) {
      case "u8": return i % 200;
      case "i64": return -i * 1000;
      case "f64": return i / 8;
      case "string": return "v" + i;
      case "bool": return i % 2 === 0;
      case "option": return i % 3 ? i : null;
      default: return [i % 7, i % 5];
    }
  };
  fc.assert(fc.property(fc.array(fc.tuple(fc.nat(kinds.length - 1), fc.nat(kinds.length - 1)), { minLength: 2, maxLength: 8 }), fc.constantFrom("rows", "columns", "auto"), (pairs, layout) => {
    for (const [x, y] of pairs) {
      const T = { kind: "vec", element: struct([["a", kinds[x]], ["b", kinds[y]]]) };
      const v = records(17, (i) => ({ a: value(kinds[x], i), b: value(kinds[y], i) }));
      assert.deepStrictEqual(encode(v, { type: T, layout }), reference(v, T, layout));
      assert.deepStrictEqual(encode(v, { layout }), encode(v, { type: inferType(v), layout }));
    }
  }), { numRuns: 100 });
});

test("at most 16 types are kept, and a type past them or too large to keep (nodes, metadata bytes) still encodes", () => {
  for (let k = 0; k < 40; k++) {
    const v = records(20, (i) => ({ ["f" + k]: i, g: "x" }));
    assert.deepStrictEqual(decode(encode(v)), v);
    assert.ok(knownTypeCount() <= 16, `${knownTypeCount()} types kept`);
  }
  // A struct of 5,000 fields: copied for the call, not kept; the same bytes as the reference's.
  const wide = struct(Array.from({ length: 5000 }, (_, j) => ["k" + j, "u8"]));
  const row = Object.fromEntries(wide.fields.map((f, j) => [f.name, j % 256]));
  const T = { kind: "vec", element: wide };
  for (const layout of ["rows", "columns"]) assert.deepStrictEqual(encode([row, row], { type: T, layout }), reference([row, row], T, layout));
  assert.ok(!isKept(T));
  // Names of 100,000 characters: more than 64 KiB of metadata, not kept either.
  const long = struct([["a".repeat(100000), "u8"], ["b".repeat(100000), "string"]]);
  const lv = records(20, (i) => ({ ["a".repeat(100000)]: i, ["b".repeat(100000)]: "x" }));
  const L = { kind: "vec", element: long };
  for (const layout of ["rows", "columns"]) assert.deepStrictEqual(encode(lv, { type: L, layout }), reference(lv, L, layout));
  assert.ok(!isKept(L));
  // An ordinary one is.
  const small = { kind: "vec", element: struct([["a", "u8"]]) };
  encode([{ a: 1 }], { type: small });
  assert.ok(isKept(small));
});

test("a type refused (a duplicate field) is not kept and is refused again", () => {
  const T = { kind: "vec", element: struct([["a", "u8"], ["a", "u8"]]) };
  for (let i = 0; i < 2; i++) assert.throws(() => encode([{ a: 1 }], { type: T }), (e) => e.kind === "duplicate-field");
});
