// The decoders' caches: parsed metadata (fast_rows.ts) and generated code (fast.ts), each bounded, evicting the
// entry made first when full rather than everything, and the decoders' generated code kept apart from the
// encoder's and inference's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { encode, decode } from "../dist/index.js";
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
