// The writers' arrays of numbers per value kept across columns and calls (int_columns.ts scratchArray): integer
// columns' zigzag forms, option and presence tags, decimal float columns' integers (a column's and its dictionary's
// distinct values'), float dictionaries' ids. Tables whose columns take these arrays at lengths from 4,096 to 65,536
// (where they are kept), longer and shorter than the kept one, in one message (nested options and structs, which
// take a role again after their outer column is done with it) and across calls, alone and through one Encoder,
// against the Rust writer's bytes (the CLI's from-json) and the round trip; with a float tolerance (two plans
// compared, not kept) against the writer without one's sizes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { rustColumns, skip } from "./rust_writer.mjs";
import { encode, decode, Encoder } from "../dist/index.js";
import { setScratchKept } from "../dist/int_columns.js";

let seed = 23;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
/** n records: integer columns (signed, wide), decimal floats, a float dictionary of about n/3 distinct decimal
 * values (its distinct values a decimal column of their own), random doubles, an optional key, an option, and a
 * nested struct with an option and a float; floats of n/2 distinct values each twice (a dictionary planned at
 * more than half the column's length, its integers kept while the column's own are). */
function table(n) {
  const pool = Array.from({ length: Math.max(1, Math.floor(n / 3)) }, (_, i) => (i * 7 + 3) / 100);
  return Array.from({ length: n }, (_, i) => {
    const r = { id: i, k: Math.floor(rnd() * 2000) - 1000, w: Math.floor(rnd() * 2 ** 40), f: Math.round(rnd() * 1e6) / 100,
      g: pool[Math.floor(rnd() * pool.length)], d: rnd() * 1000, o: rnd() < 0.3 ? null : Math.floor(rnd() * 50),
      s: { a: rnd() < 0.5 ? null : i % 97, b: Math.round(rnd() * 1e4) / 10 }, h: Math.floor(i / 2) / 100, h2: ((i * 7919) % Math.ceil(n / 2)) / 10 };
    if (rnd() < 0.6) r.opt = Math.floor(rnd() * 300);
    return r;
  });
}
// Lengths around the kept arrays' bounds: below 4,096 (not kept), within (kept, reused while at least half the kept
// length, else made again), above 65,536 (not kept).
const lengths = [9000, 5000, 9000, 4500, 4096, 12000, 6001, 3000, 20000, 70000, 8191];

/** v's encodings in each layout (and through `enc`), kept arrays on. */
const all = (v, enc) => [encode(v, { layout: "columns" }), encode(v), encode(v, { layout: "rows" }), encode(v, { floatTolerance: 0.01, layout: "columns" }), enc.encode(v)].map((b) => Buffer.from(b));

test("columns through the kept arrays: the bytes of a new array each time, and back", () => {
  const tables = lengths.map((n) => table(n));
  // The reference: every array made for its column (as sizedArray).
  setScratchKept(false);
  const encRef = new Encoder(), want = tables.map((v) => all(v, encRef));
  setScratchKept(true);
  const enc = new Encoder();
  // In order, then again in reverse (arrays kept from longer and shorter columns), then each twice in a row.
  const order = [...tables.keys(), ...[...tables.keys()].reverse(), ...tables.keys()];
  for (const [step, i] of order.entries()) {
    const v = tables[i], got = all(v, enc);
    if (step < tables.length) assert.deepStrictEqual(decode(got[0]), v, `round trip, ${v.length} records`);
    for (let k = 0; k < 4; k++) assert.ok(got[k].equals(want[i][k]), `${v.length} records, encoding ${k}, step ${step}`);
    // The Encoder's second and later calls on a table: its first call's bytes (the reference Encoder saw the
    // tables in another order, so its bytes are compared with encode's default).
    assert.ok(got[4].equals(want[i][1]) || step === 0, `Encoder, ${v.length} records, step ${step}`);
  }
});

test("the kept arrays against the Rust writer's bytes (integers, options, an optional key)", { skip }, () => {
  for (const n of lengths) {
    const v = Array.from({ length: n }, (_, i) => {
      const r = { id: i, k: Math.floor(rnd() * 2000) - 1000, w: Math.floor(rnd() * 2 ** 40), o: rnd() < 0.3 ? null : Math.floor(rnd() * 50) };
      if (rnd() < 0.6) r.opt = Math.floor(rnd() * 300);
      return r;
    });
    const ours = encode(v, { layout: "columns" });
    assert.ok(rustColumns(v).equals(Buffer.from(ours)), `${n} records`);
    assert.deepStrictEqual(decode(ours), v, `${n} records, back`);
  }
});
test("a float tolerance (two plans compared, not kept) after and before kept columns", () => {
  for (const n of [9000, 5000, 20000]) {
    const v = table(n), plain = encode(v, { layout: "columns" });
    const lossy = encode(v, { layout: "columns", floatTolerance: 0.01 });
    assert.ok(lossy.length <= plain.length, `${n}: lossy not larger`);
    const back = decode(lossy);
    for (let i = 0; i < n; i += 97) {
      assert.ok(Math.abs(back[i].d - v[i].d) <= 0.01, `${n}: d at ${i}`);
      assert.equal(back[i].id, v[i].id);
      assert.deepStrictEqual(back[i].o, v[i].o);
    }
    assert.deepStrictEqual(Buffer.from(encode(v, { layout: "columns" })), Buffer.from(plain), `${n}: same bytes after the lossy call`);
  }
});
