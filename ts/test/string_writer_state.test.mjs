// What the string column writer keeps between columns and calls, against the Rust writer's bytes (the CLI's
// from-json) and the round trip: the table of short strings in front of the Map (a slot keeps the first string of
// its column: a string whose slot is empty is new, the others are looked up in a Map made when first needed), the
// arrays of numbers kept per role (reused at other lengths, in one message and across calls), and the buffer of
// short ASCII columns (a column shorter than the one before, or not ASCII after all).
import { test } from "node:test";
import assert from "node:assert/strict";
import { rustColumns, skip } from "./rust_writer.mjs";
import { join } from "node:path";
import { encode, decode, Encoder } from "../dist/index.js";

/** Asserts that `ours` (this writer's columns of `v`) are the Rust writer's bytes and read back as `v`. */
function same(v, ours, what) {
  assert.ok(rustColumns(v).equals(Buffer.from(ours)), what);
  assert.deepStrictEqual(decode(ours), v, what);
}
const cols = (v) => encode(v, { layout: "columns" });

let seed = 11;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
const shuffle = (xs) => { for (let i = xs.length - 1; i > 0; i--) { const j = Math.floor(rnd() * (i + 1)); [xs[i], xs[j]] = [xs[j], xs[i]]; } return xs; };
/** Strings of length 8 with the same first, middle and last code units (the table's slot), differing elsewhere. */
const colliding = (k) => Array.from({ length: k }, (_, i) => `q${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26) % 26)}${"x"}m${String.fromCharCode(65 + (i % 7))}${String.fromCharCode(65 + Math.floor(i / 7) % 26)}z`);

test("strings that share a slot of the table: the first keeps it, the others are found in the Map", { skip }, () => {
  const c = colliding(40);
  assert.equal(new Set(c).size, 40);
  const cases = [
    ["alternating two of one slot", Array.from({ length: 3000 }, (_, i) => c[i % 2])],
    ["forty of one slot, random", Array.from({ length: 3000 }, () => pick(c))],
    ["one slot's strings and others, random", Array.from({ length: 3000 }, () => (rnd() < 0.5 ? pick(c) : `v${Math.floor(rnd() * 200)}`))],
    // A sorted start holding several strings of one slot: the first takes it, the next go to the Map.
    ["sorted start of one slot's strings, then random", [...[...c].sort().flatMap((s) => [s, s]), ...Array.from({ length: 500 }, () => pick(c))]],
    ["sorted start, then one less, then repeats of the start", [...[...c].sort(), "a", ...[...c].sort().reverse()]],
    ["empty and long strings among short ones", Array.from({ length: 3000 }, () => pick(["", "y".repeat(33), "y".repeat(32), "y".repeat(34), ...c.slice(0, 5)]))],
    ["only long strings (no slot)", Array.from({ length: 2000 }, () => `${"long ".repeat(8)}${Math.floor(rnd() * 50)}`)],
  ];
  for (const [what, xs] of cases) same(xs.map((s) => ({ s })), cols(xs.map((s) => ({ s }))), what);
});

test("more short distinct strings than the table's slots keep their entries (a dictionary or not)", { skip }, () => {
  const words = Array.from({ length: 2400 }, (_, i) => `w${i.toString(36)}${"abc"[i % 3]}`);
  // 5,000 values: the dictionary's limit is 2,516 distinct strings.
  const take = (d) => shuffle(Array.from({ length: 5000 }, (_, i) => words[i % d] ?? `u${i}`));
  for (const d of [900, 1500, 2400]) { const v = take(d).map((s) => ({ s })); same(v, cols(v), `${d} distinct of 5,000`); }
  // Exactly at the limit and one past it, unsorted, of strings in distinct slots of the table (its slot as the
  // writer computes it, for coverage only): a new string found in an empty slot gives up as one missing from the Map
  // does. Of 28 random letters: a dictionary past the limit would be the smallest.
  const slot = (v) => (((v.charCodeAt(0) * 31 + v.charCodeAt(v.length - 1)) * 31 + v.charCodeAt(v.length >> 1)) * 7 + v.length) & 1023;
  const letters = (k) => Array.from({ length: k }, () => String.fromCharCode(97 + Math.floor(rnd() * 26))).join("");
  const spread = [], taken = new Set();
  while (spread.length < 600) { const w = letters(28); if (!taken.has(slot(w))) { taken.add(slot(w)); spread.push(w); } }
  for (const [n, d] of [[1000, 516], [1000, 517], [1100, 566], [1100, 567]]) {
    const ws = spread.slice(0, d);
    const xs = shuffle([...ws, ...Array.from({ length: n - d }, (_, i) => ws[i % d])]);
    same(xs.map((s) => ({ s })), cols(xs.map((s) => ({ s }))), `${d} distinct of ${n}, unsorted`);
  }
  for (const d of [2516, 2517]) {
    const ws = Array.from({ length: d }, (_, i) => `${i.toString(36)}-${letters(24)}`.slice(0, 28));
    const xs = shuffle([...ws, ...Array.from({ length: 5000 - d }, (_, i) => ws[i % d])]);
    same(xs.map((s) => ({ s })), cols(xs.map((s) => ({ s }))), `${d} distinct of 5,000, unsorted`);
  }
});

test("a small table's columns (no Map made) and short ASCII columns after longer ones", { skip }, () => {
  const states = ["CA", "NY", "TX", "WA", "OR", "NV", "AZ"], names = ["Ann Lee", "Bo Diddley", "Cy Young", "Di"];
  const small = Array.from({ length: 58 }, (_, i) => ({ st: pick(states), name: `${pick(names)} ${i % 9}`, code: `c${i}`, same: "x" }));
  same(small, cols(small), "58 records");
  // Columns through one buffer one after another: long ASCII values, then shorter ones, then one that is not ASCII
  // (the short path gives up half way), then ASCII again.
  const seq = [
    Array.from({ length: 40 }, (_, i) => ({ s: `a long ascii value number ${i} with a tail ${"t".repeat(i)}` })),
    Array.from({ length: 40 }, (_, i) => ({ s: `short ${i}` })),
    Array.from({ length: 40 }, (_, i) => ({ s: i === 20 ? "caf\u00e9 \u{1F600}" : `short ${i % 5}` })),
    Array.from({ length: 40 }, (_, i) => ({ s: `sh ${i % 3}` })),
  ];
  const enc = new Encoder({ layout: "columns" });
  for (const [k, v] of seq.entries()) {
    same(v, cols(v), `column ${k}`);
    assert.ok(Buffer.from(enc.encode(v)).equals(Buffer.from(cols(v))), `column ${k} through an Encoder`);
  }
});

test("columns of 4,096 values and more, one after another at other lengths (the kept arrays)", { skip }, () => {
  const ks = ["DTW", "LAS", "SFO", "JFK", "ORD", "ATL", "SEA", "BOS"];
  const rows = (n) => Array.from({ length: n }, (_, i) => ({
    date: `2001/${String(1 + (i % 12)).padStart(2, "0")}/${String(i).padStart(6, "0")}`, // mostly distinct
    origin: ks[(i * 7 + (i >> 3)) % ks.length], // a dictionary
    id: `id${(i * 2654435761 % 1000003).toString(36)}`, // distinct, unsorted
  }));
  for (const n of [5000, 20000, 9000, 12000, 20000, 4096, 4095, 16384, 30000, 70000, 20000, 40000, 65536]) {
    const v = rows(n);
    same(v, cols(v), `${n} records`);
  }
  // One message whose string columns have different lengths: a field of n values and a list's elements.
  const nested = Array.from({ length: 6000 }, (_, i) => ({ s: `r${i % 700}`, tags: Array.from({ length: i % 4 }, (_, j) => `t${(i + j) % 37}`) }));
  same(nested, cols(nested), "6,000 records with lists of strings");
});

test("columns no dictionary can hold choose plain or shared prefixes as the Rust writer does (sizes near each other)", { skip }, () => {
  // Each record set holds 40 string columns of distinct values (more than a dictionary's n / 2 + 16), from all
  // prefix and little of it to none: the prefixes' least size, the plain column's, and the measured sizes decide in
  // turn, on both sides of each bound.
  const letters = (k) => Array.from({ length: k }, () => String.fromCharCode(97 + Math.floor(rnd() * 26))).join("");
  for (let trial = 0; trial < 6; trial++) {
    const n = 40 + Math.floor(rnd() * 360);
    const columns = Array.from({ length: 40 }, (_, f) => {
      const base = letters(Math.floor(rnd() * 40)), keep = rnd(), tail = Math.floor(rnd() * 9), wide = rnd() < 0.2;
      const seen = new Set(), xs = [];
      while (xs.length < n) {
        const p = Math.floor(base.length * (f % 3 === 0 ? keep : rnd()));
        let s = base.slice(0, p) + letters(1 + Math.floor(rnd() * tail)) + (wide ? letters(Math.floor(rnd() * 200)) : "");
        if (seen.has(s)) s += `~${xs.length}`; // (few letters make few distinct strings)
        if (!seen.has(s)) { seen.add(s); xs.push(s); }
      }
      return rnd() < 0.3 ? xs.sort() : xs;
    });
    const v = Array.from({ length: n }, (_, i) => Object.fromEntries(columns.map((c, f) => [`f${f}`, c[i]])));
    same(v, cols(v), `trial ${trial}: ${n} records of 40 columns`);
  }
});

test("long columns encoded a chunk at a time into a kept buffer: ASCII, not ASCII from some chunk on, lone surrogates", { skip }, () => {
  const ascii = (i) => `2001/01/${String(i).padStart(6, "0")} ${i % 24}:${i % 60}`;
  const cases = [
    ["ASCII, 9,000 values", (i) => ascii(i)],
    ["not ASCII in the last value only", (i, n) => (i === n - 1 ? "caf\u00e9" : ascii(i))],
    ["not ASCII from the middle on", (i, n) => (i >= n / 2 ? `\u00e9t\u00e9 ${i}` : ascii(i))],
    ["emoji (pairs) and three-byte characters from the start", (i) => `${i % 3 ? "\u{1F600}" : "\u4e2d"}${ascii(i)}`],
    ["a lone surrogate at a string's end, its other half at the next one's start", (i) => (i % 2 ? `\uDE00${ascii(i)}` : `${ascii(i)}\uD83D`)],
    ["strings longer than a chunk", (i) => `${"z".repeat(9000)}${i}`],
    ["a chunk's last string ends in a lone surrogate", (i) => (i === 400 ? `x${"y".repeat(8000)}\uD800` : ascii(i))],
  ];
  for (const [what, f] of cases) {
    const n = what.startsWith("strings longer") ? 130 : 9000;
    const v = Array.from({ length: n }, (_, i) => ({ s: f(i, n), k: f((i * 7) % 50, n) }));
    const ours = cols(v);
    // Lone surrogates are written as U+FFFD (the Rust CLI's JSON refuses them): the bytes are those of the
    // strings made well formed.
    if (what.includes("surrogate")) same(v.map((r) => ({ s: r.s.toWellFormed(), k: r.k.toWellFormed() })), ours, what);
    else same(v, ours, what);
  }
  // Past the kept buffer's size (a new buffer for the column), then a short one again.
  const big = Array.from({ length: 5000 }, (_, i) => ({ s: `${"w".repeat(230)}${i}` }));
  same(big, cols(big), "1.2 million characters");
  const small = Array.from({ length: 5000 }, (_, i) => ({ s: ascii(i) }));
  same(small, cols(small), "after the large one");
  // Not ASCII, more bytes than any buffer at hand (the kept one at its largest, or one made for a column past it):
  // the encoder runs out of room at some chunk and the rest goes into a wider buffer.
  for (const [n, k] of [[4000, 250], [5000, 240]]) {
    const wide = Array.from({ length: n }, (_, i) => ({ s: `${i % 10 === 3 ? "\u00e9".repeat(k) : "v".repeat(k)}${i}` }));
    same(wide, cols(wide), `${n} strings of ${k}, every tenth not ASCII`);
  }
});
