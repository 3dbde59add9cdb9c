// The generated column builders and row readers name their key list in their source (src/fast.ts keysStatement),
// so that two key lists with as many fields of the same modes get code (and V8 feedback) of their own. Keys that
// need escaping in that source (quotes, a backslash, a comment's end, U+2028, NUL) decode as before, and record
// types of the same shape decoded in turn, each many times, keep their own keys and values, in both layouts,
// against the reference decoder.
import { test } from "node:test";
import assert from "node:assert/strict";
import { encode, decode, decodeWithType } from "../dist/index.js";

const reference = (bytes, o) => decodeWithType(bytes, o).value;

test("keys that need escaping in generated source", () => {
  const keys = ['a"b', "c\\d", "*/", "/*", "e\u2028f", "g\u0000h", "${x}", "`", "i\nj"];
  const rows = Array.from({ length: 50 }, (_, i) => Object.fromEntries(keys.map((k, j) => [k, j % 2 ? i * j : `${k}${i}`])));
  for (const layout of ["rows", "columns"]) {
    const bytes = encode(rows, { layout });
    for (let k = 0; k < 3; k++) assert.deepStrictEqual(decode(bytes), rows, layout);
    assert.deepStrictEqual(decode(bytes, { int64: "bigint" }), reference(bytes, { int64: "bigint" }), layout);
  }
});

test("record types of the same shape decoded in turn keep their own keys", () => {
  // Same field count and kinds (int, string, int, int, float, float), different keys: the builders' and row
  // readers' sources differ only by the key list.
  const make = (ks, n, s) => Array.from({ length: n }, (_, i) => ({ [ks[0]]: 1950 + (i % 12) * 5, [ks[1]]: `c${i % 7}${s}`, [ks[2]]: i % 6,
    [ks[3]]: 1e6 + i * 7919, [ks[4]]: 70 + (i % 10) / 4, [ks[5]]: Math.round(i * 13.7) / 10 }));
  const sets = [["year", "country", "cluster", "pop", "life_expect", "fertility"], ["a", "b", "c", "d", "e", "f"], ["f", "e", "d", "c", "b", "a"]];
  for (const layout of ["rows", "columns"]) {
    const msgs = sets.map((ks, j) => { const v = make(ks, 300 + j, ks[0]); return { v, b: encode(v, { layout }) }; });
    for (let k = 0; k < 400; k++) for (const m of msgs) { const got = decode(m.b); if (k % 100 === 0 || k === 399) assert.deepStrictEqual(got, m.v, layout); }
    for (const m of msgs) {
      const got = decode(m.b, { int64: "bigint" });
      assert.deepStrictEqual(got, reference(m.b, { int64: "bigint" }), layout);
      assert.deepStrictEqual(Object.keys(got[0]), Object.keys(m.v[0]));
    }
  }
});
