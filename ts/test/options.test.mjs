// Decode limits out of their documented range are refused with invalid-options (SPEC 8.1), as Rust's
// DecodeOptions::max_depth and Go's DecMode refuse them, at every entry point that takes them and before any
// byte is read (so even an empty, unreadable input gives invalid-options, not truncated).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  decode, decodeWithType, encode, Decoder, StreamReader, StreamWriter, StreamChunkReader, readStream, FileReader,
  FileStreamReader, FileWriter, readFileForward, XbfError,
} from "../dist/index.js";

const invalid = (e) => e instanceof XbfError && e.kind === "invalid-options";
const BAD = [
  { maxDepth: 257 }, { maxDepth: -1 }, { maxDepth: 1.5 }, { maxDepth: NaN }, { maxDepth: Infinity }, { maxDepth: "3" },
  { maxDecodedBytes: -1 }, { maxDecodedBytes: NaN }, { maxDecodedBytes: 0.5 }, { maxDecodedBytes: -Infinity }, { maxDecodedBytes: "9" },
];

test("out-of-range maxDepth and maxDecodedBytes are invalid-options at every decoder entry point", async () => {
  const empty = new Uint8Array(0);
  const chunks = async function* () { yield empty; };
  for (const o of BAD) {
    const what = JSON.stringify(o, (k, v) => (typeof v === "number" && !Number.isFinite(v) ? String(v) : v));
    assert.throws(() => decode(empty, o), invalid, `decode ${what}`);
    assert.throws(() => decodeWithType(empty, o), invalid, `decodeWithType ${what}`);
    assert.throws(() => new Decoder(o), invalid, `Decoder ${what}`);
    assert.throws(() => new StreamReader(empty, o), invalid, `StreamReader ${what}`);
    assert.throws(() => readStream(empty, o), invalid, `readStream ${what}`);
    assert.throws(() => new StreamChunkReader(chunks(), o), invalid, `StreamChunkReader ${what}`);
    assert.throws(() => new FileReader(empty, o), invalid, `FileReader ${what}`);
    assert.throws(() => new FileStreamReader(chunks(), o), invalid, `FileStreamReader ${what}`);
    assert.throws(() => readFileForward(empty, o), invalid, `readFileForward ${what}`);
  }
});

test("limits in range are taken: the ceiling, zero, and an unbounded budget", () => {
  const v = [{ a: 1, b: [2, 3] }];
  const bytes = encode(v);
  for (const o of [{ maxDepth: 256 }, { maxDepth: 3 }, { maxDecodedBytes: Infinity }, { maxDecodedBytes: 2 ** 40 }, {}]) {
    assert.deepStrictEqual(decode(bytes, o), v);
    assert.deepStrictEqual(new Decoder(o).decode(bytes), v);
  }
  // In range but too small: the limit applies (too-deep, too-large), not invalid-options.
  assert.throws(() => decode(bytes, { maxDepth: 0 }), (e) => e instanceof XbfError && e.kind === "too-deep");
  const many = encode(Array.from({ length: 100 }, (_, i) => ({ a: i })), { layout: "columns" });
  assert.throws(() => decode(many, { maxDecodedBytes: 0 }), (e) => e instanceof XbfError && e.kind === "too-large");
  // A stream and a file read with the ceiling.
  const sw = new StreamWriter({ type: { kind: "i64" } });
  sw.write(5n);
  assert.deepStrictEqual(readStream(sw.finish(), { maxDepth: 256 }).records, [5]);
  const fw = new FileWriter({ type: { kind: "i64" } });
  fw.write(7n);
  assert.deepStrictEqual([...new FileReader(fw.finish(), { maxDepth: 256 }).records()], [7]);
});
