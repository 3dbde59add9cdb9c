// The columns writer's root list read in place (fast_encode.ts columnValues' vec case: one list's items are not
// copied) and the string columns' chunks joined from a kept array (string_columns.ts utf8Views) against the
// reference writer (normalize, then encodeInternal): the same bytes, or the same error, for lists with holes, an
// accessor item, a Proxy, lists of lists (several lists: the copy), strings over many chunks with non-ASCII
// characters and lone surrogates at chunk ends (also read back: the reference shares the string writer), and with
// the type given.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { decode, encode, inferType } from "../dist/index.js";
import { encodeInternal } from "../dist/codec.js";
import { normalize } from "../dist/values.js";

const outcome = (f) => { try { return Array.from(f()); } catch (e) { return `error ${e.kind ?? ""} ${e.message}`; } };
function same(v, what, ty) {
  let t = ty;
  if (t === undefined) { try { t = inferType(v); } catch { return; } }
  for (const layout of [undefined, "columns", "auto", "rows"]) {
    const o = layout ? { layout } : {};
    const got = outcome(() => encode(v, ty ? { ...o, type: ty } : o));
    assert.deepStrictEqual(got, outcome(() => encodeInternal(t, normalize(t, v), o)), `${what} ${layout}`);
    // Twice: the kept arrays hold nothing of the first call.
    assert.deepStrictEqual(outcome(() => encode(v, ty ? { ...o, type: ty } : o)), got, `${what} ${layout} again`);
  }
}
const records = (n) => Array.from({ length: n }, (_, i) => ({ id: i, name: `n${i % 7}`, x: i / 3, when: `2001/01/${String(1 + (i % 28)).padStart(2, "0")} 10:${String(i % 60).padStart(2, "0")}` }));

test("a root list read in place: holes, an accessor item, a Proxy, the type given", () => {
  for (const n of [16, 17, 100, 2048, 20000]) {
    const v = records(n);
    same(v, `records ${n}`);
    same(v, `records ${n} typed`, inferType(v));
    const holey = records(n); delete holey[n >> 1];
    same(holey, `hole ${n}`);
    const acc = records(n); let calls = 0;
    Object.defineProperty(acc, 3, { get() { calls++; return { id: -1, name: "g", x: 0.5, when: "x" }; }, enumerable: true, configurable: true });
    same(acc, `accessor ${n}`);
    assert.ok(calls > 0);
    same(new Proxy(records(n), {}), `proxy ${n}`);
  }
});

test("lists of lists (several lists: copied) and a list holding one list", () => {
  same([records(20), records(3), []], "three lists");
  same([records(20)], "one list in a list");
  same([[1, 2, 3], [], [4.5]], "numbers");
  same([["a", "b"], ["c"]], "strings");
  same(Array.from({ length: 40 }, (_, i) => Array.from({ length: i % 5 }, (_, j) => `s${i}-${j}`)), "40 lists");
});

test("string columns over many chunks: ASCII, non-ASCII, lone surrogates anywhere, the same bytes", () => {
  const piece = fc.oneof(fc.constantFrom("a", "é", "中", "😀", "\ud800", "\udc00", "x".repeat(100), "ab\ud83d"), fc.string({ maxLength: 30 }), fc.string({ unit: "binary", maxLength: 8 }));
  fc.assert(fc.property(fc.array(piece, { minLength: 1, maxLength: 40 }), fc.integer({ min: 16, max: 3000 }), fc.integer({ min: 1, max: 2 ** 30 }), (pieces, n, seed) => {
    let x = seed;
    const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
    const col = Array.from({ length: n }, (_, i) => pieces[Math.floor(rnd() * pieces.length)] + String(i)); // mostly distinct: no dictionary
    same(col, "strings");
    same(col.map((s, i) => ({ s, i })), "records");
    // (The reference writer shares the string column writer: the values read back are the check of its bytes.)
    // (A lone surrogate is written as U+FFFD, as TextEncoder does: those columns are checked against the reference only.)
    if (col.every((s) => s.isWellFormed())) assert.deepStrictEqual(decode(encode(col, { layout: "columns" })), col);
  }), { numRuns: 120 });
});
