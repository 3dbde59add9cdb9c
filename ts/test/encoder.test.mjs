// The Encoder kept across calls (codec.ts): its messages are encode's with the type it remembers, and decode to
// the values given; a value that does not fit the remembered type is inferred anew.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { Encoder, encode, decode, inferType, XbfError } from "../dist/index.js";
import { jsonish } from "./arbitraries.mjs";

const same = (a, b) => assert.deepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)));

test("a series of values: each message is encode's with the encoder's type, and decodes to the value", () => {
  fc.assert(fc.property(fc.array(jsonish, { minLength: 1, maxLength: 6 }), fc.constantFrom("rows", "columns", "auto"), (vs, layout) => {
    const e = new Encoder({ layout });
    vs.forEach((v, i) => {
      const bytes = e.encode(v);
      if (i === 0) assert.deepStrictEqual(bytes, encode(v, { layout }));
      assert.deepStrictEqual(bytes, encode(v, { type: e.type, layout }));
      same(decode(bytes), v);
    });
  }), { numRuns: 300 });
});

test("records: the remembered type is kept while values fit it, and replaced when one does not", () => {
  const e = new Encoder();
  const a = [{ id: 1, name: "a", x: 1.5 }, { id: 2, name: null, x: 2 }];
  e.encode(a);
  const t = e.type;
  const b = [{ id: 3, name: "b", x: 0.25 }];
  assert.deepStrictEqual(e.encode(b), encode(b, { type: t }));
  assert.equal(e.type, t);
  assert.notDeepStrictEqual(inferType(b), t); // alone, b infers without the option
  const c = [{ id: -4, name: "c", x: 1 }]; // a negative id passes the remembered u64
  same(decode(e.encode(c)), c);
  assert.notEqual(e.type, t);
  // Each message is a copy: the buffer reused inside does not change messages already returned.
  const m1 = e.encode(c), m2 = e.encode([{ id: 5, name: "zz", x: 3 }]);
  same(decode(m1), c);
  assert.notDeepStrictEqual(m1, m2);
});

test("a given type is kept: values that do not fit it fail as encode's do", () => {
  const t = inferType([{ id: 1 }]);
  const e = new Encoder({ type: t });
  assert.deepStrictEqual(e.encode([{ id: 7 }]), encode([{ id: 7 }], { type: t }));
  let want;
  try { encode([{ id: "x" }], { type: t }); } catch (err) { want = err; }
  assert.throws(() => e.encode([{ id: "x" }]), (err) => err instanceof XbfError && err.message === want.message);
  assert.equal(e.type, t);
});

test("an array is not an empty struct: a remembered type with no fields does not take []", () => {
  for (const layout of ["rows", "columns", "auto"]) {
    const e = new Encoder({ layout });
    e.encode({});
    same(decode(e.encode([])), []);
    same(decode(e.encode([{}, {}])), [{}, {}]);
  }
});
