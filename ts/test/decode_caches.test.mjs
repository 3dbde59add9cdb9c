// The decoders' caches: parsed metadata (fast_rows.ts) and generated code (fast.ts), each bounded, evicting the
// entry made first when full rather than everything, and the decoders' generated code kept apart from the
// encoder's and inference's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { encode, decode, decodeWithType } from "../dist/index.js";
import { decodeDirect } from "../dist/codec.js";
import { generate, generateDecoder } from "../dist/fast.js";

test("inference's generated code never evicts a decoder's", () => {
  const made = () => () => 1;
  const builder = generateDecoder("test-decoder", ["a", "b"], made);
  // Far more key lists than either cache holds, all on the encode side.
  for (let i = 0; i < 1500; i++) generate("test-infer", [`k${i}`], made);
  assert.equal(generateDecoder("test-decoder", ["a", "b"], made), builder);
});

test("a full code cache drops the entry made first, not the others", () => {
  const made = () => () => 1;
  const first = generateDecoder("test-fifo", ["first"], made);
  const second = generateDecoder("test-fifo", ["second"], made);
  // 511 more entries: the cache (512) is full before the last, which evicts the oldest entry only.
  for (let i = 0; i < 511; i++) generateDecoder("test-fifo-fill", [`k${i}`], made);
  assert.equal(generateDecoder("test-fifo", ["second"], made), second);
  assert.notEqual(generateDecoder("test-fifo", ["first"], made), first);
});

test("a full metadata cache drops the schema parsed first and keeps decoding every schema right", () => {
  const cache = new Map();
  // 300 schemas (each a record with its own key), rows and columns alike, each decoded twice.
  const values = Array.from({ length: 300 }, (_, i) => [{ [`key${i}`]: i, s: "x".repeat(i % 5) }, { [`key${i}`]: -i, s: "" }]);
  const bytes = values.map((v, i) => encode(v, { layout: i % 2 ? "rows" : "columns" }));
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < bytes.length; i++) {
      assert.deepEqual(decodeDirect(bytes[i], {}, cache), values[i]);
      assert.ok(cache.size <= 256);
    }
  }
  assert.equal(cache.size, 256);
  // The module's own cache (decode without a Decoder) as well.
  for (const [i, b] of bytes.entries()) assert.deepEqual(decode(b), values[i]);
});

// The metadata met last is compared first (no skip, no hash): a message whose metadata differs from it anywhere,
// is a prefix of it, or extends it, or ends inside it, and the same message under other options, must each get
// their own type or the reference's error.
test("the metadata met last: messages alternating, truncated inside it, with other options, each decoded as the reference", () => {
  const cache = new Map();
  const a = encode([{ x: 1, y: "a" }, { x: 2, y: "b" }], { layout: "columns" });
  const b = encode([{ x: 1, yy: "a" }, { x: 2, yy: "b" }], { layout: "columns" });
  const c = encode([{ x: -1, y: "a" }, { x: 2, y: "b" }], { layout: "columns" }); // x signed: other metadata
  const rows = encode([{ x: 1, y: "a" }, { x: 2, y: "b" }], { layout: "rows" });
  for (let r = 0; r < 3; r++) {
    for (const m of [a, a, b, a, c, c, rows, a]) {
      assert.deepStrictEqual(decodeDirect(m, {}, cache), decodeWithType(m).value);
      assert.deepStrictEqual(decode(m), decodeDirect(m, {}, new Map()));
    }
    assert.deepStrictEqual(decodeDirect(a, { int64: "bigint" }, cache), [{ x: 1n, y: "a" }, { x: 2n, y: "b" }]);
    assert.deepStrictEqual(decodeDirect(a, {}, cache), [{ x: 1, y: "a" }, { x: 2, y: "b" }]);
  }
  // Every prefix of a message after it was met: the same outcome as with an empty cache (a value or an error).
  for (let i = 0; i < a.length; i++) {
    decodeDirect(a, {}, cache);
    decode(a); // the module's cache too
    const cut = a.subarray(0, i);
    let want, got;
    try { want = decodeWithType(cut).value; } catch (e) { want = [e.kind, e.offset]; }
    try { got = decode(cut); } catch (e) { got = [e.kind, e.offset]; }
    assert.deepStrictEqual(got, want);
    let d1, d2;
    try { d1 = decodeDirect(cut, {}, cache); } catch (e) { d1 = "threw"; }
    try { d2 = decodeDirect(cut, {}, new Map()); } catch (e) { d2 = "threw"; }
    assert.deepStrictEqual(d1, d2);
  }
});

test("key lists that join to the same text with NUL keep their own generated code (encode in rows and columns, decode)", () => {
  // ["a", "b\0c"] and ["a\0b", "c"]: the same two keys joined by NUL, so a cache keyed by the joined text gave the
  // second list the first one's functions (its reads and its records' keys).
  const A = Array.from({ length: 20 }, (_, i) => ({ a: i % 3 ? i : null, "b\u0000c": i * 2 }));
  const B = Array.from({ length: 20 }, (_, i) => ({ "a\u0000b": i % 3 ? i + 100 : null, c: i + 200 }));
  for (let round = 0; round < 2; round++) {
    for (const layout of ["rows", "columns", undefined]) {
      for (const v of [A, B]) {
        const opts = layout ? { layout } : undefined;
        assert.deepStrictEqual(decode(encode(v, opts)), v, `${layout ?? "auto"}: ${Object.keys(v[0])}`);
      }
    }
  }
});
