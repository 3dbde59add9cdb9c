// The column writers' measures taken without a pass (int_columns.ts measureConst: a dictionary's ids with one entry,
// values' lengths when every entry has one length) and measures not taken (string_columns.ts: the shared-prefix
// column when no string shares a prefix with the one before), against the measuring pass and the Rust writer.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { sameAsRust, skip } from "./rust_writer.mjs";
import { encodeInts, measureConst, measureSmall, putIntsColumn } from "../dist/int_columns.js";
import { putBytesColumn, putStringColumn } from "../dist/string_columns.js";
import { Writer } from "../dist/varint.js";

const fields = (m) => ({ best: m.best, size: m.size, min: m.min, width: m.width, zmin: m.zmin, zwidth: m.zwidth });
const written = (xs, m) => { const w = new Writer(); putIntsColumn(w, xs, true, m); return Array.from(w.finish()); };

test("measureConst is measureSmall's pass on n copies of a value, and writes the same bytes", () => {
  const edges = [0, 1, 2, 127, 128, 16383, 16384, 2 ** 21, 2 ** 28, 2 ** 30 - 1, 2 ** 30, 2 ** 31, 2 ** 49, 2 ** 50, 2 ** 51 - 1];
  const check = (n, x) => {
    const xs = Array(n).fill(x), want = measureSmall(xs), got = measureConst(xs, x);
    assert.deepStrictEqual(fields(got), fields(want), `${n} x ${x}`);
    assert.deepStrictEqual(written(xs, got), written(xs, want), `${n} x ${x}`);
  };
  for (const x of edges) for (const n of [0, 1, 2, 3, 7, 8, 9, 58, 127, 128, 129, 1000, 5000, 16385]) check(n, x);
  fc.assert(fc.property(fc.integer({ min: 0, max: 3000 }), fc.oneof(fc.constantFrom(...edges), fc.integer({ min: 0, max: 2 ** 51 - 1 })), check), { numRuns: 500 });
});

let seed = 11;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

test("string columns of one value, of entries of one length, and sharing no prefix are the Rust writer's bytes", { skip }, () => {
  for (const n of [1, 2, 3, 16, 17, 58, 300, 5000]) {
    for (const s of ["0", "", "é", "a longer value, past the cache's thirty-two units"]) sameAsRust(Array.from({ length: n }, (_, i) => ({ s, i })), `one value ${JSON.stringify(s)} x ${n}`);
    // Entries of one length (codes, dates), some of them repeated: a dictionary, the prefixes or plain.
    const codes = Array.from({ length: 40 }, (_, j) => letters[j % 26] + letters[(j * 7) % 52]);
    const dates = Array.from({ length: 30 }, (_, j) => `${String(1 + (j % 12)).padStart(2, "0")}/${String(1 + j).padStart(2, "0")}/2015`);
    sameAsRust(Array.from({ length: n }, () => ({ c: pick(codes), d: pick(dates) })), `one length x ${n}`);
    sameAsRust(Array.from({ length: n }, (_, i) => ({ c: codes[i % 3], d: dates[Math.floor((i * 7) / n)] })), `one length, few x ${n}`);
    // No string shares a prefix with the one before (their first characters differ), mostly distinct or not, of one
    // length or several.
    const head = (i) => letters[i % 52];
    sameAsRust(Array.from({ length: n }, (_, i) => ({ s: head(i) + String(i) + "x".repeat(Math.floor(rnd() * 20)) })), `no prefix, distinct x ${n}`);
    sameAsRust(Array.from({ length: n }, (_, i) => ({ s: head(i) + "-" + String(i % 9) })), `no prefix, one length x ${n}`);
    sameAsRust(Array.from({ length: n }, (_, i) => ({ s: head(i) + "é".repeat(i % 4) })), `no prefix, few x ${n}`);
  }
});

// The column the rule gives for byte strings (SPEC 22.3), written out from encodeInts: plain (0x20) and the shared
// prefixes (0x22); a byte string column with no dictionary (each value distinct) sharing no prefix is plain.
const block = (xs) => { const b = encodeInts(xs); const w = new Writer(); w.uvar(b.length); return [...w.finish(), ...b]; };
function plainColumn(views) {
  const body = [0x20, ...block(views.map((b) => b.length)), ...views.flatMap((b) => [...b])];
  const w = new Writer(); w.uvar(body.length);
  return [...w.finish(), ...body];
}

test("byte strings and ill-formed strings sharing no prefix are written plain, as the rule chooses", () => {
  fc.assert(fc.property(fc.array(fc.uint8Array({ minLength: 0, maxLength: 12 }), { minLength: 2, maxLength: 80 }), (raw) => {
    // Distinct first bytes in turn (none shares a prefix with the one before), all values distinct (no dictionary).
    const views = raw.map((b, i) => Uint8Array.from([i % 2 ? 0xf0 : 0x0f, i & 0xff, i >> 8, ...b]));
    const w = new Writer();
    putBytesColumn(w, views);
    assert.deepStrictEqual(Array.from(w.finish()), plainColumn(views));
  }), { numRuns: 300 });
  // A lone surrogate makes a column's dictionary keyed by its bytes (putStrings' own path).
  const strs = Array.from({ length: 60 }, (_, i) => (i % 2 ? "\uD800" : "a") + String(i));
  const w = new Writer();
  putStringColumn(w, strs);
  const utf8 = (s) => { const out = []; for (const c of s) { const u = c.codePointAt(0); if (u >= 0xd800 && u <= 0xdfff) out.push(0xef, 0xbf, 0xbd); else out.push(...new TextEncoder().encode(c)); } return Uint8Array.from(out); };
  assert.deepStrictEqual(Array.from(w.finish()), plainColumn(strs.map(utf8)));
});

test("a column of few distinct strings with an ill-formed one is keyed by its bytes; all-ASCII and other well-formed ones by their strings", () => {
  // putStringColumn takes the entries' ASCII (utf8Views') for well formed and asks isWellFormed only of the others.
  // "\uD800x" and "\uDC00x" are two strings with the same bytes (EF BF BD 78): keyed by the strings, the dictionary
  // would hold both, so its bytes would differ from putBytesColumn's of the values' bytes (putStrings' own path).
  const utf8 = (s) => { const out = []; for (const c of s) { const u = c.codePointAt(0); if (u >= 0xd800 && u <= 0xdfff) out.push(0xef, 0xbf, 0xbd); else out.push(...new TextEncoder().encode(c)); } return Uint8Array.from(out); };
  const col = (s) => { const w = new Writer(); putStringColumn(w, s); return Array.from(w.finish()); };
  const bytesCol = (views) => { const w = new Writer(); putBytesColumn(w, views); return Array.from(w.finish()); };
  for (const long of [0, 1]) {
    // Short entries (utf8Views copies their characters) and entries of 12 units and more (joined and encoded).
    const pad = long ? "0123456789ab" : "";
    const pool = ["\uD800x", "\uDC00x", "a", "b", "c"].map((s) => s + pad);
    const strs = Array.from({ length: 300 }, (_, i) => pool[(i * 7) % pool.length]);
    assert.deepStrictEqual(col(strs), bytesCol(strs.map(utf8)), `ill-formed, long ${long}`);
    // Well formed, not ASCII (é, a pair): keyed by the strings, the same bytes as keyed by the bytes.
    const ok = ["é", "😀x", "a", "b", "c"].map((s) => s + pad);
    const vals = Array.from({ length: 300 }, (_, i) => ok[(i * 7) % ok.length]);
    assert.deepStrictEqual(col(vals), bytesCol(vals.map(utf8)), `well formed, long ${long}`);
  }
});

test("short columns of short and of longer strings (copied by characters or joined and encoded), ASCII or not, are the Rust writer's bytes", { skip }, () => {
  // utf8Views copies a short column's characters when its strings average under 8 units, else joins and encodes them.
  const word = (i, l, extra) => (String(i * 7919) + "qwertyuiopasdfghjklzxcvbnm").slice(0, l) + extra;
  for (const n of [1, 2, 5, 16, 17, 58, 300, 600])
    for (const l of [1, 7, 8, 9, 14, 30])
      for (const extra of ["", "é", "😀", "中文"]) {
        sameAsRust(Array.from({ length: n }, (_, i) => ({ s: word(i, l, i % 5 === 0 ? extra : ""), t: word(i % 7, l, extra) })), `${n} of ${l} ${extra}`);
      }
});
