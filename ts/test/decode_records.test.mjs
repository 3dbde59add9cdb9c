// Decoded records are plain objects whatever builds them (a generated constructor per key list, an object literal
// for keys Object.prototype has, closures without new Function): Object.prototype as prototype, no own
// `constructor`, the keys in the encoded order, equal to the literal the user encoded, `__proto__` an own key.
import { test } from "node:test";
import assert from "node:assert/strict";
import { encode, decode } from "../dist/index.js";
import { setCodegen } from "../dist/fast.js";

const LAYOUTS = ["rows", "columns"];
/** Every record's prototype, own `constructor` and keys checked against the value encoded. */
function checkRecords(back, v, what) {
  assert.deepStrictEqual(back, v, what);
  for (let i = 0; i < v.length; i++) {
    assert.equal(Object.getPrototypeOf(back[i]), Object.prototype, what);
    assert.equal(Object.hasOwn(back[i], "constructor"), Object.hasOwn(v[i], "constructor"), what);
    assert.deepStrictEqual(Object.keys(back[i]), Object.keys(v[i]), what);
  }
}

const n = 40;
const cases = {
  // Integers, floats, strings, bools: the generated constructor of the columns' builder and of the rows' reader.
  plain: Array.from({ length: n }, (_, i) => ({ id: i, speed: i / 7, name: `s${i % 3}`, ok: i % 2 === 0 })),
  // A float column stored as a dictionary (few distinct values): the constructor's float fields widened.
  dictionary: Array.from({ length: n }, (_, i) => ({ lon: [0.125, 2.5, -7.75][i % 3], lat: [1.1, 2.2][i % 2], dir: i % 360 })),
  // Integer-like keys: the literal put them first, in ascending order; so does the constructor.
  integerKeys: Array.from({ length: n }, (_, i) => ({ b: i, 7: `x${i}`, a: i / 3, 0: i % 2 === 1 })),
  // Options (nullable) and keys left out.
  optional: Array.from({ length: n }, (_, i) => (i % 3 ? { a: i, b: i % 2 ? null : `s${i}` } : { a: i })),
  // Keys Object.prototype has: own data properties, as a literal defines them.
  prototypeKeys: Array.from({ length: n }, (_, i) => ({ constructor: `c${i}`, toString: i, hasOwnProperty: i % 2 === 0, valueOf: i / 4 })),
  // Key names a hostile message may carry into the generated constructor's source: quotes, backslashes, line
  // terminators, template and comment syntax, code after a closed string. Each must stay a key, never code.
  hostileKeys: Array.from({ length: n }, (_, i) => ({
    ['a"); globalThis.xbfPwned = 1; ("']: i,
    ["b\\"]: `s${i}`,
    ["c\u2028d\u2029e\n"]: i / 3,
    ["${globalThis.xbfPwned = 2}`"]: i % 2 === 0,
    ["*/ } ]; globalThis.xbfPwned = 3; /*"]: i,
  })),
};

for (const [name, v] of Object.entries(cases)) {
  test(`records: ${name}, rows and columns, with and without generated code`, () => {
    for (const layout of LAYOUTS) {
      const bytes = encode(v, { layout });
      checkRecords(decode(bytes), v, `${name} ${layout}`);
      checkRecords(decode(bytes), v, `${name} ${layout} (again: cached builders)`);
      setCodegen(false);
      try { checkRecords(decode(bytes), v, `${name} ${layout} without new Function`); } finally { setCodegen(undefined); }
    }
    assert.equal(globalThis.xbfPwned, undefined, `${name}: a key ran as code`);
  });
}

test("records: a key named __proto__ is an own enumerable key and leaves the prototype alone", () => {
  const v = Array.from({ length: n }, (_, i) => {
    const o = { a: i };
    Object.defineProperty(o, "__proto__", { value: `p${i}`, enumerable: true, writable: true, configurable: true });
    o.z = i / 2;
    return o;
  });
  for (const layout of LAYOUTS) {
    const back = decode(encode(v, { layout }));
    checkRecords(back, v, layout);
    for (let i = 0; i < n; i++) {
      assert.deepStrictEqual(Object.getOwnPropertyDescriptor(back[i], "__proto__"), { value: `p${i}`, enumerable: true, writable: true, configurable: true });
      assert.deepStrictEqual(Object.keys(back[i]), ["a", "__proto__", "z"]);
    }
  }
});

test("records: int64 as bigints get the same plain objects", () => {
  const v = Array.from({ length: n }, (_, i) => ({ big: 2 ** 40 + i, x: i / 3 }));
  for (const layout of LAYOUTS) {
    const back = decode(encode(v, { layout }), { int64: "bigint" });
    for (let i = 0; i < n; i++) {
      assert.deepStrictEqual(back[i], { big: BigInt(2 ** 40 + i), x: i / 3 });
      assert.equal(Object.getPrototypeOf(back[i]), Object.prototype);
      assert.equal(Object.hasOwn(back[i], "constructor"), false);
    }
  }
});

test("records: a key Object.prototype has as an accessor is defined on the record, as a literal does, not set", () => {
  // A setter where a key's name is (polluted or shimmed prototype): a store in a constructor would call it.
  let calls = 0;
  Object.defineProperty(Object.prototype, "xbfSetterKey", { set() { calls++; }, get() { return "inherited"; }, configurable: true });
  try {
    const v = Array.from({ length: n }, (_, i) => {
      const o = { a: i };
      Object.defineProperty(o, "xbfSetterKey", { value: i / 2, enumerable: true, writable: true, configurable: true });
      return o;
    });
    for (const layout of LAYOUTS) {
      const back = decode(encode(v, { layout }));
      for (let i = 0; i < n; i++) {
        assert.deepStrictEqual(Object.getOwnPropertyDescriptor(back[i], "xbfSetterKey"), { value: i / 2, enumerable: true, writable: true, configurable: true }, layout);
        assert.equal(Object.getPrototypeOf(back[i]), Object.prototype);
      }
    }
    assert.equal(calls, 0);
  } finally {
    delete Object.prototype.xbfSetterKey;
  }
});
