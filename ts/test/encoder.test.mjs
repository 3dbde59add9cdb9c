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

test("a given or remembered struct type takes what the reference takes: odd records in any place of a run", async () => {
  const { encodeInternal } = await import("../dist/codec.js");
  const { normalize } = await import("../dist/values.js");
  const { setCodegen } = await import("../dist/fast.js");
  // A required field a, then every field optional (where a record with no keys fits).
  const first = [[{ a: 1, b: "x", c: null }, { a: 2 }], [{ a: 1, b: "x", c: null }, {}]];
  const proto = (o) => Object.assign(Object.create({ b: "inherited" }), o);
  const hidden = (o) => Object.defineProperty({ ...o }, "b", { value: "hidden", enumerable: false });
  const bare = (o) => Object.assign(Object.create(null), o);
  class R { constructor(a) { this.a = a; } }
  const odd = [{ a: 3, z: 1 }, { a: 3, b: undefined }, proto({ a: 4 }), proto({}), hidden({ a: 5 }), bare({ a: 6, b: "n" }), new R(7), {},
    new Map(), [], new Uint8Array(0), new Date(0), { b: "x", a: 8 }, { a: 9, b: "y", c: null, z: undefined }, { a: 10, c: 1 }, { c: null, b: "q" }];
  const runs = [[{ a: 1, b: "p" }, { a: 2, b: "q" }], [{}, {}], [{ a: 1 }], [], [{ a: 1, b: "b", c: 2 }, { a: 2, b: "c", c: null }]];
  const outcome = (f) => { try { return f(); } catch (e) { return e.message; } };
  for (const codegen of [undefined, false]) {
    setCodegen(codegen);
    try {
      for (const f of first) for (const layout of ["rows", "columns", "auto"]) for (const x of odd) for (const before of runs) for (const after of runs) {
        const v = [...before, x, ...after, ...before], t = inferType(f);
        const want = outcome(() => encodeInternal(t, normalize(t, v), { layout }));
        assert.deepStrictEqual(outcome(() => encode(v, { type: t, layout })), want, `${layout} ${JSON.stringify(v)}`);
        // A remembered type: the record is written with it, or the value is inferred anew (and decodes as given).
        const e = new Encoder({ layout });
        e.encode(f);
        const kept = e.type;
        assert.deepStrictEqual(kept, t);
        const got = outcome(() => e.encode(v));
        if (e.type === kept) assert.deepStrictEqual(got, want, `remembered ${layout} ${JSON.stringify(v)}`);
        else assert.deepStrictEqual(got, outcome(() => encode(v, { layout })));
      }
    } finally { setCodegen(undefined); }
  }
});
