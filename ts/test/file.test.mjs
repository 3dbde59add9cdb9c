// XBF files (SPEC 24): the vectors of vectors/files/files.json read forward and from the end, errors with the
// Rust reader's kind, offset and path; files written here read by the Rust tool and the other way round; the
// stream reader over chunks of every size; projection, filters and damaged blocks; hostile bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  FileReader, FileWriter, FileStreamReader, FileBlockError, readFileForward, typeFromJson, XbfError, crc32c,
} from "../dist/index.js";
import { fromHex, hex } from "../dist/metadata.js";
import { load, fromVector } from "./helpers.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const xbf = [process.env.XBF_CLI, join(root, "target/debug/xbf"), join(root, "target/release/xbf")].find((p) => p && existsSync(p)) ?? null;
const noCli = xbf ? false : "target/debug/xbf is not built: the comparison with the Rust reader is skipped";
const dir = mkdtempSync(join(tmpdir(), "xbf-file-test-"));
const vectors = load("files/files.json");

/** Kind, offset and path of an error message of the `xbf` tool (`at byte N, in PATH: kind: …`). */
function cliError(stderr) {
  const m = /at byte (\d+)(?:, in ([^:]+))?: ([a-z0-9-]+):/.exec(stderr);
  assert.ok(m, `no error in ${JSON.stringify(stderr)}`);
  return { offset: Number(m[1]), path: m[2] ?? "", kind: m[3] };
}
const ours = (e) => ({ offset: e.offset, path: e.path, kind: e.kind });

/** The Rust reader's errors on `bytes`: forward (`xbf cat -` reads standard input forward) and from the end
 * (`xbf stats FILE` opens the footer and reads every block's columns; `xbf cat FILE` decodes them). */
function rustErrors(name, bytes) {
  const file = join(dir, name);
  writeFileSync(file, bytes);
  const fwd = spawnSync(xbf, ["cat", "-"], { input: bytes, encoding: "utf8" });
  let end = spawnSync(xbf, ["stats", file], { encoding: "utf8" });
  if (end.status === 0) end = spawnSync(xbf, ["cat", file], { encoding: "utf8" });
  return {
    forward: fwd.status === 0 ? null : cliError(fwd.stderr),
    end: end.status === 0 ? null : cliError(end.stderr),
  };
}

/** Every record of a file read from the end, internal values. */
function fromEnd(bytes, q = {}) {
  const r = new FileReader(bytes);
  const out = [];
  for (const b of r.blocksInternal(q)) out.push(...b.records);
  return out;
}

/** A vector's file written again by the TypeScript writer, in its blocks (and its appended part). */
function rewrite(v) {
  const t = typeFromJson(v.type);
  const records = v.records.map((r) => fromVector(t, r));
  const schemaByReference = (fromHex(v.hex)[1] & 1) === 1;
  const parts = [];
  let w = new FileWriter({ type: t, schemaByReference });
  let at = 0;
  v.blocks.forEach((n, i) => {
    if (v.append_after !== undefined && i === v.append_after) {
      parts.push(w.finish());
      w = FileWriter.append(concat(parts), { schemaByReference });
    }
    for (const r of records.slice(at, at + n)) w.writeInternal(r);
    w.flush();
    at += n;
  });
  parts.push(w.finish());
  return concat(parts);
}
const concat = (parts) => {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let q = 0;
  for (const p of parts) { out.set(p, q); q += p.length; }
  return out;
};

for (const v of vectors) {
  test(`files.json: ${v.name}`, () => {
    const bytes = fromHex(v.hex);
    const t = typeFromJson(v.type);
    const expected = v.records.map((r) => fromVector(t, r));
    const fwd = readFileForward(bytes, { internal: true });
    assert.deepStrictEqual(fwd.records, expected);
    if (v.error) {
      assert.ok(fwd.error instanceof XbfError);
      assert.equal(fwd.error.kind, v.error, fwd.error.message);
    } else {
      assert.equal(fwd.error, null, fwd.error?.message);
    }
    let endError = null;
    try {
      assert.deepStrictEqual(fromEnd(bytes), expected);
    } catch (e) {
      if (!(e instanceof XbfError)) throw e;
      endError = e;
    }
    assert.equal(endError?.kind, v.end_error, endError?.message);
    if (v.blocks && !/entropy-coded|cascaded runs|FSST/.test(v.name)) {
      // The TypeScript writer has no 04, 05 and 23; every other vector's bytes are what it writes.
      assert.equal(hex(rewrite(v)), v.hex);
    } else if (v.blocks) {
      const again = rewrite(v);
      assert.deepStrictEqual(fromEnd(again), expected);
      assert.ok(again.length > bytes.length, "04 and 05 made the Rust writer's file smaller");
    }
  });
}

test("damaged vectors: kind, offset and path as the Rust reader reports them, forward and from the end", { skip: noCli }, () => {
  let compared = 0;
  vectors.forEach((v, i) => {
    if (!v.error && !v.end_error) return;
    const bytes = fromHex(v.hex);
    const rust = rustErrors(`v${i}.xbf`, bytes);
    const fwd = readFileForward(bytes).error;
    assert.deepEqual(ours(fwd), rust.forward, `${v.name}, forward: ${fwd.message}`);
    let end = null;
    try { fromEnd(bytes); } catch (e) { end = e; }
    assert.deepEqual(ours(end), rust.end, `${v.name}, from the end: ${end.message}`);
    compared++;
  });
  assert.ok(compared >= 12, `${compared} damaged vectors`);
});

test("every cut of two vectors, and every flipped byte of one: the Rust reader's kind, offset and path", { skip: noCli }, () => {
  const find = (start) => fromHex(vectors.find((v) => v.name.startsWith(start)).hex);
  const example = find("three records of Row"), appended = find("appended:");
  const cases = [];
  for (const b of [example, appended]) for (let cut = 0; cut < b.length; cut++) cases.push(b.subarray(0, cut));
  // (Not the first byte: xbf reads an input that does not start c2 0e as a message, not as a file.)
  for (let i = 1; i < example.length; i++) for (const x of [0x01, 0x80]) { const b = example.slice(); b[i] ^= x; cases.push(b); }
  for (const b of cases) {
    const rust = rustErrors("case.xbf", b);
    const fwd = readFileForward(b).error;
    assert.deepEqual(fwd && ours(fwd), rust.forward, `forward, ${hex(b)}`);
    let end = null;
    try { fromEnd(b); } catch (e) { if (!(e instanceof XbfError)) throw e; end = e; }
    assert.deepEqual(end && ours(end), rust.end, `from the end, ${hex(b)}`);
  }
});

// ---------------------------------------------------------------- written here, read by Rust, and back
const flightType = typeFromJson({
  struct: "Flight",
  fields: [["id", "u32"], ["delay", "i32"], ["origin", "string"], ["note", { option: "string" }], ["dist", "f64"], ["ok", "bool"], ["legs", { vec: "u16" }]],
});
const airports = ["SFO", "LAX", "JFK", "ORD", "SEA", "BOS"];
const flights = (n) => Array.from({ length: n }, (_, i) => ({
  id: i, delay: ((i * 7919) % 400) - 60, origin: airports[(i * 31) % airports.length], note: i % 5 === 0 ? null : `n${i % 17}`,
  dist: ((i * 37) % 2000) / 4, ok: i % 3 === 0, legs: Array.from({ length: i % 4 }, (_, k) => (i + k) % 700),
}));

test("a file written here: blocks by rows, statistics, projection, filters, blocks opened directly", () => {
  const records = flights(1000);
  const w = new FileWriter({ type: flightType, blockRows: 100 });
  const head = w.take();
  for (const r of records) w.write(r);
  const bytes = concat([head, w.finish()]);
  const r = new FileReader(bytes);
  assert.equal(r.blocks.length, 10);
  assert.equal(r.recordCount, 1000);
  assert.deepEqual(r.columnPaths, ["id", "delay", "origin", "note.(present)", "note", "dist", "ok", "legs.(lengths)", "legs.[]"]);
  assert.deepEqual([...r.records()], records);
  // A plain read takes the direct path (fast.ts); a filter that every record passes, the reference one.
  assert.deepEqual([...r.records({ where: "id >= 0" })], records);
  assert.deepEqual(readFileForward(bytes).records, records);
  assert.deepEqual(r.readBlock(7), records.slice(700, 800));
  // Projection by the direct path (the wanted columns as a block of the projected type) and by the reference one.
  for (const fields of [["origin"], ["note", "legs"], ["legs", "id"], ["dist", "ok", "note"]]) {
    const want = records.map((x) => Object.fromEntries(Object.keys(x).filter((k) => fields.includes(k)).map((k) => [k, x[k]])));
    assert.deepEqual([...r.records({ fields })], want, fields.join());
    assert.deepEqual([...r.records({ fields, where: "id >= 0" })], want, fields.join());
  }
  // The statistics of block 3's columns.
  const st = r.blocks[3].columns.map((c) => c.stats);
  assert.deepEqual(st[0], { minMax: [300, 399], exact: true, nulls: 0, nans: 0 });
  assert.deepEqual(st[4].nulls, 20);
  assert.equal(st[3].minMax, null);
  // Projection: only the columns of the fields asked for are read (the others may be anything).
  const damagedElsewhere = bytes.slice();
  const [b2] = [r.blocks[2]];
  const cols = r.blockColumns(2);
  const origin = cols.find((c) => c.path === "origin");
  damagedElsewhere[cols.find((c) => c.path === "dist").offset + 2] ^= 0xff;
  const p = new FileReader(damagedElsewhere);
  assert.deepEqual(p.readBlock(2, { fields: ["origin", "id"] }), records.slice(200, 300).map((x) => ({ id: x.id, origin: x.origin })));
  assert.throws(() => p.readBlock(2), (e) => e instanceof FileBlockError && e.kind === "bad-checksum" && e.block === 2 && e.start === b2.offset && e.end === b2.offset + b2.size);
  assert.equal(origin.encodingName, "string dictionary");
  // Filters: blocks ruled out by their statistics are not read; every record is still tested.
  const q = { where: "id >= 950", fields: ["origin"] };
  assert.equal(r.blocksRuledOut(q), 9);
  assert.deepEqual([...r.records(q)], records.slice(950).map((x) => ({ origin: x.origin })));
  assert.deepEqual([...r.records({ where: { field: "delay", op: "<", value: -50 } })], records.filter((x) => x.delay < -50));
  assert.deepEqual([...r.records({ where: 'origin = "JFK"' })], records.filter((x) => x.origin === "JFK"));
  assert.deepEqual([...r.records({ where: "note != n3" })], records.filter((x) => x.note !== null && x.note !== "n3"));
  assert.equal(r.blocksRuledOut({ where: "id > 5000" }), 10);
  assert.throws(() => r.blocksRuledOut({ where: "nope = 1" }), (e) => e.kind === "type-mismatch");
  assert.throws(() => [...r.records({ fields: ["nope"] })], (e) => e.kind === "type-mismatch");
});

test("skip-damaged: a damaged block is reported with its number and byte range, the others read", () => {
  const records = flights(300);
  const w = new FileWriter({ type: flightType, blockRows: 100 });
  for (const r of records) w.write(r);
  const bytes = w.finish();
  const b1 = new FileReader(bytes).blocks[1];
  bytes[b1.offset + 5] ^= 0x40;
  const r = new FileReader(bytes);
  assert.throws(() => [...r.records()], (e) => e instanceof FileBlockError && e.block === 1 && /^block 1 \(bytes \d+\.\.\d+\)/.test(e.detail));
  const kept = [...r.records({ skipDamaged: true })];
  assert.deepEqual(kept, [...records.slice(0, 100), ...records.slice(200)]);
  assert.deepEqual(r.damaged.map((d) => [d.block, d.start, d.end, d.error.kind]), [[1, b1.offset, b1.offset + b1.size, "bad-checksum"]]);
  const fwd = readFileForward(bytes, { skipDamaged: true });
  assert.equal(fwd.error, null);
  assert.deepEqual(fwd.records, kept);
  assert.deepEqual(fwd.damaged.map((d) => d.block), [1]);
});

test("the Rust tool reads a file written here (to-json, --where on our statistics, --fields, stats)", { skip: noCli }, () => {
  const records = flights(2500);
  const w = new FileWriter({ type: flightType, blockRows: 1000 });
  const parts = [];
  for (const r of records) { w.write(r); parts.push(w.take()); }
  parts.push(w.finish());
  const file = join(dir, "ts-written.xbf");
  writeFileSync(file, concat(parts));
  const lines = (args) => execFileSync(xbf, args, { encoding: "utf8" }).trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines(["to-json", "--lines", file]), records);
  assert.deepEqual(lines(["to-json", "--lines", "--where", "delay >= 330", file]), records.filter((x) => x.delay >= 330));
  assert.deepEqual(lines(["to-json", "--lines", "--fields", "origin", "--where", "id < 3", file]), records.slice(0, 3).map((x) => ({ origin: x.origin })));
  const stats = execFileSync(xbf, ["stats", file], { encoding: "utf8" });
  assert.match(stats, /2500 records in 3 blocks/);
  // Appended here, read by Rust.
  const more = FileWriter.append(readFileSync(file));
  for (const r of flights(10)) more.write(r);
  writeFileSync(file, concat([readFileSync(file), more.finish()]));
  assert.deepEqual(lines(["to-json", "--lines", file]), [...records, ...flights(10)]);
});

test("a file written by Rust (with its entropy-coded and cascaded columns) reads here, forward and from the end", { skip: noCli }, () => {
  const n = 5000;
  const rows = Array.from({ length: n }, (_, i) => ({ t: 1000000 + Math.floor(i / 3) * 2 + Math.floor(i / 7), d: [0, 0, 0, 1, 1, 2, 5, 9, 0, 3][i % 10] * ((i % 13) + 1), a: airports[(i * i) % 6] }));
  const jsonl = join(dir, "rust.jsonl"), file = join(dir, "rust.xbf");
  writeFileSync(jsonl, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  execFileSync(xbf, ["from-json", "--lines", jsonl, "--block-rows", "2048", "-o", file]);
  const bytes = readFileSync(file);
  const r = new FileReader(bytes);
  assert.equal(r.blocks.length, 3);
  const encodings = new Set(r.blocks.flatMap((_, i) => r.blockColumns(i).map((c) => c.encoding)));
  assert.ok(encodings.has(0x04) || encodings.has(0x05), `encodings ${[...encodings]}`);
  const plain = (v) => JSON.parse(JSON.stringify(v, (_, x) => (typeof x === "bigint" ? Number(x) : x)));
  assert.deepEqual(plain([...r.records()]), rows);
  assert.deepEqual([...r.records()], [...r.records({ where: "t > 0" })], "the direct and the reference path agree");
  assert.deepEqual(plain(readFileForward(bytes).records), rows);
  assert.deepEqual(plain([...r.records({ fields: ["d"], where: "t < 1000100" })]), rows.filter((x) => x.t < 1000100).map((x) => ({ d: x.d })));
  assert.equal(r.blocksRuledOut({ where: "t < 1000100" }), 2);
});

// ---------------------------------------------------------------- streams
async function* chunked(bytes, sizes) {
  let at = 0, k = 0;
  while (at < bytes.length) { const n = sizes[k++ % sizes.length]; yield bytes.subarray(at, at + n); at += n; }
}
async function collect(reader) {
  const out = [];
  let error = null;
  try { for await (const r of reader) out.push(r); } catch (e) { error = e; }
  return { records: out, error };
}

test("FileStreamReader: chunks of any size give the records of the bytes read forward, errors included", async () => {
  const w = new FileWriter({ type: flightType, blockRows: 40 });
  const records = flights(200);
  for (const r of records) w.write(r);
  const bytes = w.finish();
  for (const sizes of [[1], [7], [3, 1000], [bytes.length]]) {
    const s = new FileStreamReader(chunked(bytes, sizes));
    const got = await collect(s);
    assert.equal(got.error, null);
    assert.deepEqual(got.records, records);
    assert.equal(s.type.kind, "struct");
  }
  // A web ReadableStream.
  const rs = new ReadableStream({ start(c) { c.enqueue(bytes.subarray(0, 100)); c.enqueue(bytes.subarray(100)); c.close(); } });
  assert.deepEqual((await collect(new FileStreamReader(rs))).records, records);
  // Blocks one by one, with the filter and projection applied.
  const blocks = [];
  for await (const b of new FileStreamReader(chunked(bytes, [13]), { fields: ["id"], where: "ok = true" }).blocks()) blocks.push(b);
  assert.equal(blocks.length, 5);
  assert.deepEqual(blocks.flatMap((b) => b.records), records.filter((x) => x.ok).map((x) => ({ id: x.id })));
  // Cut anywhere: whole blocks, then the error the bytes give read forward.
  for (const cut of [1, 3, 60, 200, 1000, bytes.length - 20, bytes.length - 1]) {
    const part = bytes.subarray(0, cut);
    const want = readFileForward(part);
    const got = await collect(new FileStreamReader(chunked(part, [5])));
    assert.deepEqual(got.records, want.records, `cut at ${cut}`);
    assert.deepEqual(ours(got.error), ours(want.error), `cut at ${cut}`);
  }
  // Every vector, a byte at a time.
  for (const v of vectors) {
    const bytes = fromHex(v.hex);
    const want = readFileForward(bytes);
    const got = await collect(new FileStreamReader(chunked(bytes, [1])));
    assert.deepEqual(got.records, want.records, v.name);
    assert.deepEqual(got.error && ours(got.error), want.error && ours(want.error), v.name);
  }
});

test("the stream reader holds one block: its buffer stays within twice the largest block and a chunk", async () => {
  const w = new FileWriter({ type: flightType, blockRows: 500 });
  for (const r of flights(20000)) w.write(r);
  const bytes = w.finish();
  const largest = Math.max(...new FileReader(bytes).blocks.map((b) => b.size));
  assert.ok(bytes.length > 20 * largest, "the file is many blocks long");
  let n = 0;
  const s = new FileStreamReader(chunked(bytes, [4096]));
  for await (const b of s.blocksInternal()) n += b.records.length;
  assert.equal(n, 20000);
  assert.ok(s.peakBufferBytes <= 2 * (largest + 4096), `${s.peakBufferBytes} bytes held for blocks of at most ${largest}`);
});

// ---------------------------------------------------------------- hostile bytes
test("every cut and every flipped byte of the vectors fails with an XbfError (or reads), both ways", () => {
  const check = (bytes) => {
    readFileForward(bytes); // returns its error
    try { fromEnd(bytes); } catch (e) { if (!(e instanceof XbfError)) throw e; }
  };
  for (const v of vectors) {
    const bytes = fromHex(v.hex);
    if (bytes.length > 800) continue;
    for (let cut = 0; cut < bytes.length; cut++) check(bytes.subarray(0, cut));
    for (let i = 0; i < bytes.length; i++) {
      for (const x of [0x01, 0x80, 0xff]) { const b = bytes.slice(); b[i] ^= x; check(b); }
    }
  }
});

test("a footer's counts are checked before anything is allocated", () => {
  // A file of u32 whose footer claims 2^40 blocks in six bytes.
  const empty = new FileWriter({ type: typeFromJson("u32") }).finish();
  const head = empty.subarray(0, empty.length - 12 - 3); // 00, F = 1, the footer (0 blocks), the trailer
  const body = Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x20);
  const tail = new Uint8Array(2 + body.length + 12);
  tail.set([0, body.length, ...body]);
  const dv = new DataView(tail.buffer);
  dv.setUint32(2 + body.length, crc32c(body), true);
  dv.setUint32(2 + body.length + 4, body.length, true);
  tail.set([0x58, 0x42, 0x46, 0x46], 2 + body.length + 8);
  const bytes = concat([head, tail]);
  assert.throws(() => new FileReader(bytes), (e) => e.kind === "truncated" && e.offset === head.length + 2);
  assert.equal(readFileForward(bytes).error.kind, "truncated");
});

test("statistics order strings by their UTF-8 bytes (code points), not by UTF-16 units", () => {
  // U+FF61 sorts before U+1F600 by code point, after its high surrogate (D83D) by UTF-16 unit.
  const t = typeFromJson({ struct: "S", fields: [["s", "string"]] });
  const values = ["\uff61", "\u{1f600}", "a", "\u00e9"];
  const w = new FileWriter({ type: t });
  for (const s of values) w.write({ s });
  const r = new FileReader(w.finish());
  assert.deepEqual(r.blocks[0].columns[0].stats.minMax, ["a", "\u{1f600}"]);
  assert.deepEqual([...r.records({ where: "s > \uff61" })], [{ s: "\u{1f600}" }]);
  assert.equal(r.blocksRuledOut({ where: "s > \u{1f600}" }), 1);
});

test("a stream reader left early lets go of its source", async () => {
  const w = new FileWriter({ type: flightType, blockRows: 10 });
  for (const r of flights(100)) w.write(r);
  const bytes = w.finish();
  let released = false;
  async function* source() { try { for (let i = 0; i < bytes.length; i += 50) yield bytes.subarray(i, i + 50); } finally { released = true; } }
  for await (const b of new FileStreamReader(source()).blocks()) { assert.equal(b.index, 0); break; }
  assert.ok(released);
  const rs = new ReadableStream({ pull(c) { c.enqueue(bytes.subarray(0, 200)); } });
  for await (const _ of new FileStreamReader(rs)) break;
  assert.equal(rs.locked, false);
});

test("04 and 05 with any byte flipped: the direct path and the reference path give the same records or error (and Rust the same error)", () => {
  for (const v of vectors.filter((x) => /^(entropy-coded|cascaded runs):/.test(x.name))) {
    const bytes = fromHex(v.hex);
    // Flip bytes of the block's body and write its CRC-32C again, so that the columns are decoded.
    const blk = new FileReader(bytes).blocks[0];
    const crcAt = blk.offset + blk.size - 4, bodyAt = crcAt - (blk.size - 4 - (blk.size - 4 > 129 ? 2 : 1));
    let decoded = 0;
    for (let i = bodyAt; i < crcAt; i++) {
      for (const x of [0x01, 0x10, 0x80]) {
        const b = bytes.slice();
        b[i] ^= x;
        new DataView(b.buffer).setUint32(crcAt, crc32c(b, bodyAt, crcAt), true);
        // u16 and u32 records are numbers in both forms: public (direct path first) and internal (reference only).
        const direct = readFileForward(b), reference = readFileForward(b, { internal: true });
        assert.deepStrictEqual(direct.records, reference.records, `${v.name}, byte ${i} ^ ${x}`);
        assert.deepEqual(direct.error && ours(direct.error), reference.error && ours(reference.error), `${v.name}, byte ${i} ^ ${x}`);
        if (direct.records.length > 0) decoded++;
        if (xbf && i % 4 === 0) {
          // And the Rust reader, forward, on a quarter of them.
          const rust = spawnSync(xbf, ["cat", "-"], { input: b, encoding: "utf8" });
          assert.deepEqual(direct.error && ours(direct.error), rust.status === 0 ? null : cliError(rust.stderr), `${v.name}, byte ${i} ^ ${x}`);
        }
      }
    }
    assert.ok(decoded > 50, `${v.name}: ${decoded} damaged blocks decoded`);
  }
});

test("projection through options and vecs: dotted paths, the direct and the reference path agree", () => {
  const t = typeFromJson({ struct: "R", fields: [
    ["p", { option: { struct: "P", fields: [["x", "u32"], ["y", "string"]] } }],
    ["v", { vec: { struct: "V", fields: [["m", "u8"], ["n", "string"]] } }], ["z", "u8"]] });
  const rows = Array.from({ length: 300 }, (_, i) => ({
    p: i % 4 === 0 ? null : { x: i, y: `y${i % 9}` }, v: Array.from({ length: i % 3 }, (_, k) => ({ m: k, n: `n${i}.${k}` })), z: i % 256,
  }));
  const w = new FileWriter({ type: t, blockRows: 128 });
  for (const r of rows) w.write(r);
  const f = new FileReader(w.finish());
  const want = rows.map((r) => ({ p: r.p && { y: r.p.y }, v: r.v.map((e) => ({ n: e.n })) }));
  assert.deepEqual([...f.records({ fields: ["p.y", "v.n"] })], want);
  assert.deepEqual([...f.records({ fields: ["p.y", "v.n"], where: "z >= 0" })], want);
  assert.deepEqual([...f.records({ fields: ["v.n"], where: "p.x > 250" })], rows.filter((r) => r.p && r.p.x > 250).map((r) => ({ v: r.v.map((e) => ({ n: e.n })) })));
  assert.equal(f.blocksRuledOut({ where: "p.x > 250" }), 1); // block 0 (x below 128); blocks 1 and 2 reach past 250
});

test("blocks are cut at blockBytes of values as the Rust writer estimates them (strings by their UTF-8 bytes)", () => {
  const t = typeFromJson({ struct: "S", fields: [["s", "string"]] });
  // Each record: 8 + 3 * 10 bytes (ten 3-byte characters): a block of 1,000 bytes closes after 27 records.
  const w = new FileWriter({ type: t, blockBytes: 1000 });
  for (let i = 0; i < 100; i++) w.write({ s: "\u20ac".repeat(10) });
  const r = new FileReader(w.finish());
  assert.deepEqual(r.blocks.map((b) => b.records), [27, 27, 27, 19]);
});

test("every kind of column written here reads in Rust; its filters on dates and timestamps agree with ours", { skip: noCli }, async () => {
  const { XbfDate, XbfTimestamp, XbfEnum } = await import("../dist/index.js");
  const t = typeFromJson({ struct: "C", fields: [
    ["d", "date"], ["ts", "timestamp"], ["f", "f32"], ["b", "bytes"], ["big", "u128"], ["neg", "i64"], ["fx", "fixed-u32"],
    ["e", { enum: "E", variants: [["a", "unit"], ["b", "u8"]] }], ["m", { map: ["string", "i16"] }], ["tu", { tuple: ["bool", "string"] }],
    ["vo", { vec: { option: "u16" } }], ["arr", { array: "u8", len: 2 }], ["an", "any"]] });
  const rows = Array.from({ length: 50 }, (_, i) => ({
    d: new XbfDate(18000 + i), ts: new XbfTimestamp(1700000000000000n + BigInt(i) * 1000n), f: i / 8, b: Uint8Array.of(i, 255 - i),
    big: 2n ** 100n + BigInt(i), neg: -BigInt(i) * 1000000000000n, fx: i * 3, e: i % 2 ? new XbfEnum("b", i) : new XbfEnum("a", null),
    m: new Map([["k" + (i % 3), -i]]), tu: [i % 2 === 0, "t" + i], vo: [i, null], arr: [i, i + 1], an: i % 2 ? i : "s" + i,
  }));
  const w = new FileWriter({ type: t, blockRows: 20 });
  for (const r of rows) w.write(r);
  const file = join(dir, "kinds.xbf");
  writeFileSync(file, w.finish());
  const count = (args) => execFileSync(xbf, [...args, file], { encoding: "utf8" }).split("\n").filter((l) => l && !l.startsWith("#")).length;
  assert.equal(count(["to-json", "--lines"]), 50);
  const r = new FileReader(readFileSync(file));
  for (const where of ["d >= 2019-04-15", "ts > 2023-11-14T22:13:20.030Z", "neg < -40000000000000", "f <= 1.5", "big = 1267650600228229401496703205386"]) {
    assert.equal(count(["to-json", "--lines", "--where", where]), [...r.records({ where })].length, where);
  }
});
