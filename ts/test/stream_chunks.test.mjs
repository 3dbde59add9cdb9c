// StreamChunkReader (src/stream_chunks.ts): a record stream read from chunks gives the records and the error
// (kind, offset, path) of StreamReader on the whole bytes, whatever the chunk boundaries.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { StreamChunkReader, StreamReader, StreamWriter, inferType, XbfError } from "../dist/index.js";

function whole(bytes) {
  const records = [];
  try { for (const v of new StreamReader(bytes)) records.push(v); } catch (e) { if (!(e instanceof XbfError)) throw e; return { records, error: e }; }
  return { records, error: null };
}
async function chunked(bytes, cuts, web) {
  const parts = [];
  let p = 0;
  for (const c of [...new Set(cuts.map((x) => x % (bytes.length + 1)))].sort((a, b) => a - b)) { parts.push(bytes.slice(p, c)); p = c; }
  parts.push(bytes.slice(p));
  const source = web
    ? new ReadableStream({ start(ctl) { for (const x of parts) ctl.enqueue(x); ctl.close(); } })
    : (async function* () { for (const x of parts) yield x; })();
  const records = [];
  try { for await (const v of new StreamChunkReader(source)) records.push(v); } catch (e) { if (!(e instanceof XbfError)) throw e; return { records, error: e }; }
  return { records, error: null };
}
const same = (got, want) => {
  assert.deepStrictEqual(got.records, want.records);
  assert.equal(got.error?.kind, want.error?.kind);
  assert.equal(got.error?.offset, want.error?.offset);
  assert.equal(got.error?.path, want.error?.path);
  assert.equal(got.error?.message, want.error?.message);
};
const rec = fc.record({ id: fc.nat(1000), name: fc.string({ maxLength: 6 }), x: fc.option(fc.double({ noNaN: true })) });

test("valid and damaged streams, any chunking: the whole-bytes reader's records and error", async () => {
  const t = inferType([{ id: 1, name: "a", x: 1.5 }, { id: 2, name: "b", x: null }]).element;
  await fc.assert(fc.asyncProperty(fc.array(rec, { maxLength: 30 }), fc.boolean(), fc.integer({ min: 1, max: 64 }), fc.array(fc.nat(), { maxLength: 8 }),
    fc.option(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 }))), fc.option(fc.nat()), fc.boolean(),
    async (rs, checksums, blockBytes, cuts, flip, cut, web) => {
      const w = new StreamWriter({ type: t, checksums, blockBytes });
      for (const r of rs) w.write(r);
      let bytes = w.finish();
      if (flip) { bytes = bytes.slice(); bytes[flip[0] % bytes.length] ^= flip[1]; }
      if (cut !== null) bytes = bytes.slice(0, cut % (bytes.length + 1));
      same(await chunked(bytes, cuts, web), whole(bytes));
    }), { numRuns: 400 });
});
