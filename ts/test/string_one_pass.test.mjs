// putStringColumn's one pass for columns with a dictionary of 2 or more short entries (string_columns.ts
// putDictionaryColumn: the four integer columns measured at once, runs of one value taken without a step each)
// against the general path (setFusedStrings(false)): the same bytes, on columns built to reach every choice (plain,
// dictionary, shared prefixes; ties), runs and repeats, prefixes shared or not, ASCII or not, empty strings, entries
// of 127 and 128 bytes, and on the Rust writer's bytes for a few.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { sameAsRust, skip } from "./rust_writer.mjs";
import { putStringColumn, setFusedStrings } from "../dist/string_columns.js";
import { Writer } from "../dist/varint.js";

// (The one pass checking its measures against measureSmall's pass: a measure off by a little may not change the
// choice or the bytes of a given column.)
const written = (values, on) => {
  setFusedStrings(on, on);
  try { const w = new Writer(); putStringColumn(w, values); return Array.from(w.finish()); } finally { setFusedStrings(true); }
};
const same = (values, what) => assert.deepStrictEqual(written(values, true), written(values, false), what);

// Entries: numbers as strings (one prefix: "0"), words sharing prefixes, non-ASCII, "", long ones near 128 bytes.
const entry = fc.oneof(
  fc.constantFrom("0", "", "1", "10", "100", "-5", "abc", "abd", "ab", "a", "é", "éa", "x".repeat(127), "x".repeat(128), "é".repeat(63), "y".repeat(200)),
  fc.integer({ min: -100000, max: 1000000 }).map(String),
  fc.string({ maxLength: 12 }),
  fc.array(fc.constantFrom("a", "b", "é", "中"), { maxLength: 6 }).map((cs) => cs.join("")),
);

test("the one pass writes the general path's bytes (random columns over a few entries, runs and repeats)", () => {
  fc.assert(fc.property(fc.uniqueArray(entry, { minLength: 1, maxLength: 270 }), fc.integer({ min: 2, max: 700 }), fc.double({ min: 0, max: 0.95, noNaN: true }),
    fc.integer({ min: 1, max: 2 ** 30 }), (entries, n, repeat, seed) => {
      let x = seed;
      const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
      const values = [];
      for (let i = 0; i < n; i++) values.push(i > 0 && rnd() < repeat ? values[i - 1] : entries[Math.floor(rnd() * entries.length)]);
      same(values, JSON.stringify(values).slice(0, 200));
    }), { numRuns: 1500 });
});

test("the one pass on short columns of entries sharing prefixes (measures where no two neighbours are equal)", () => {
  same(["ab", "ac", "ac", "ac"], "a run after prefixes that rise");
  same(["ab", "ac", "ac", "ac", "bd", "bd", "bd"], "two such runs");
  const word = fc.array(fc.constantFrom("a", "b", "c"), { minLength: 0, maxLength: 4 }).map((cs) => cs.join(""));
  fc.assert(fc.property(fc.array(word, { minLength: 2, maxLength: 12 }), (values) => same(values, JSON.stringify(values))), { numRuns: 3000 });
});

test("the one pass on columns of the wide table's kind, sorted columns and cycles", () => {
  let x = 7;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (const n of [2, 3, 16, 58, 240, 2400, 5000]) {
    for (const zero of [0.3, 0.7, 0.95]) same(Array.from({ length: n }, () => (rnd() < zero ? "0" : String(Math.floor(rnd() * 990000) - 90000))), `numbers ${n} ${zero}`);
    const words = ["alpha", "beta", "gamma", "delta", "Department of Things", "Office of Stuff", "On-budget", "Off-budget"];
    same(Array.from({ length: n }, () => words[Math.floor(rnd() * words.length)]), `words ${n}`);
    same(Array.from({ length: n }, (_, i) => words[i % 3]), `cycle ${n}`);
    same(Array.from({ length: n }, (_, i) => String(1000 + Math.floor((i * 100) / n))), `sorted ${n}`);
    same(Array.from({ length: n }, (_, i) => (i % 5 === 0 ? "" : "a".repeat(1 + (i % 4)))), `empty and nested ${n}`);
    // Airport codes (flights: about 220 of them), ids past 127.
    const codes = Array.from({ length: 2000 }, (_, j) => String.fromCharCode(65 + (j % 26), 65 + ((j * 7) % 26), 65 + Math.floor(j / 26)));
    for (const k of [127, 128, 129, 200, 250, 256, 257, 1000, 2000]) same(Array.from({ length: n }, (_, i) => codes[i < k ? i : Math.floor(rnd() * k)]), `codes of ${k} ${n}`);
  }
});

// The pairs' prefixes are kept in a table only where k * k <= n (k entries, n values); elsewhere each neighbour pair
// is compared. Entries sharing long prefixes (past the first four bytes, which the compare takes at once), k around
// that bound for each n, every value's neighbour a different entry: the same bytes as the general path either way.
test("the one pass with and without its table of pairs' prefixes (k * k around n), entries sharing long prefixes", () => {
  let x = 11;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  // ("0" among them: the shortest entry one byte, so that the dictionary is not surely below the plain column, which
  // the one pass leaves to the general path.)
  const entries = Array.from({ length: 64 }, (_, j) => (j === 0 ? "0" : `Dept ${"of Things".slice(0, j % 10)}${j}`));
  for (const n of [16, 17, 48, 49, 50, 237, 1024, 1025, 3969, 4096]) {
    const r = Math.floor(Math.sqrt(n));
    for (const k of new Set([r - 1, r, r + 1, 2 * r].filter((k) => k >= 2 && k <= 64))) {
      const values = [];
      for (let i = 0; i < n; i++) {
        let j = Math.floor(rnd() * k);
        if (i > 0 && entries[j] === values[i - 1]) j = (j + 1) % k;
        values.push(entries[j]);
      }
      same(values, `${k} entries, ${n} values`);
    }
  }
});

test("the one pass on a long column whose ids pass 16,384 (varints of three bytes)", () => {
  same(Array.from({ length: 40000 }, (_, i) => (i < 8000 ? `c${i % 100}` : `v${Math.floor((i - 8000) / 1.9)}`)), "16,942 entries");
});

test("columns of the wide table's kind are the Rust writer's bytes", { skip }, () => {
  let x = 3;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (const n of [17, 240, 1000]) {
    sameAsRust(Array.from({ length: n }, () => ({ a: rnd() < 0.7 ? "0" : String(Math.floor(rnd() * 990000) - 90000), b: rnd() < 0.5 ? "x" : "xy" })), `numbers ${n}`);
  }
});

// Columns of sorted runs (every value at least the one before) leave the one pass for the general path outside the
// checking mode: the same bytes either way, on sorted runs of random entries and on the same values shuffled a little
// (one value out of order: no longer sorted, the one pass again).
test("columns of sorted runs: the same bytes with the one pass on (general path) and off, sorted or one swap away", () => {
  const plain = (values, on) => {
    setFusedStrings(on);
    try { const w = new Writer(); putStringColumn(w, values); return Array.from(w.finish()); } finally { setFusedStrings(true); }
  };
  fc.assert(fc.property(fc.uniqueArray(entry, { minLength: 2, maxLength: 80 }), fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 2, maxLength: 80 }),
    fc.nat(), (entries, runs, at) => {
      const sorted = [...entries].sort(), values = [];
      for (let j = 0; j < sorted.length; j++) for (let r = 0; r < runs[j % runs.length]; r++) values.push(sorted[j]);
      const what = JSON.stringify(values).slice(0, 200);
      assert.deepStrictEqual(plain(values, true), plain(values, false), what);
      same(values, what);
      const i = 1 + (at % (values.length - 1)), swapped = [...values];
      [swapped[i - 1], swapped[i]] = [swapped[i], swapped[i - 1]];
      assert.deepStrictEqual(plain(swapped, true), plain(swapped, false), "swapped " + what);
      same(swapped, "swapped " + what);
    }), { numRuns: 1000 });
});

// Outside the checking mode the one pass measures the lengths, prefixes and rests without storing them, and makes
// the arrays only for the column it writes (the plain lengths; the prefixes and rests again from the ids, from the
// pairs' table where it keeps one): the same bytes as the general path, through one Writer across columns of
// different sizes (the kept arrays of 4,096 values and more, then shorter ones), with every choice reached.
test("the one pass without its checks makes the arrays of the column it writes: plain, dictionary and prefixes", () => {
  const general = (values) => {
    setFusedStrings(false);
    try { const w = new Writer(); putStringColumn(w, values); return Array.from(w.finish()); } finally { setFusedStrings(true); }
  };
  let x = 5;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const long = Array.from({ length: 300 }, (_, j) => `Department of Things and Stuff ${j}`);
  const tags = new Set(), w = new Writer();
  for (const n of [5000, 4096, 237, 64, 9]) {
    const columns = [
      // Prefixes: long entries sharing most of their bytes, no neighbour equal (k * k above n: compared each time).
      Array.from({ length: n }, (_, i) => long[(i * 7) % Math.min(long.length, Math.floor(n / 2) + 10)]),
      // Prefixes with the pairs' table (k * k <= n): entries of 100 bytes and more differing in their last one or two,
      // some repeats, and a first value of one byte (else the dictionary is surely below the plain column, which the
      // one pass leaves to the general path).
      Array.from({ length: n }, (_, i) => (i === 0 ? "0" : "x".repeat(100) + ((i % 4 === 3 ? i - 1 : i) * 3 + (i >> 3)) % Math.max(2, Math.floor(Math.sqrt(n)) - 1))),
      // Plain: one-byte and few-byte entries sharing nothing, lengths varying.
      Array.from({ length: n }, (_, i) => String.fromCharCode(65 + ((i * 13) % 26)).repeat(1 + (i % 3)) + (i % 2 ? "é" : "")),
      // Dictionary: a few entries, random order.
      Array.from({ length: n }, () => ["On-budget", "Off-budget", "0", "-5,000"][Math.floor(rnd() * 4)]),
    ];
    for (const values of columns) {
      const before = w.len;
      putStringColumn(w, values);
      const got = Array.from(w.finish().subarray(before));
      assert.deepStrictEqual(got, general(values), `${n} values ${JSON.stringify(values.slice(0, 4))}`);
      let p = 0;
      while (got[p] & 0x80) p++;
      tags.add(got[p + 1]);
    }
  }
  assert.deepStrictEqual([...tags].sort(), [0x20, 0x21, 0x22]);
});

// A run of one value is taken by a loop of its own from its third value on (the first two go through the measures'
// step): runs of every length around the run-length varints' bounds (127/128 and 16,383/16,384 values), of entries
// whose ids pass 127 (two-byte ids, counted once a value of the run), ending before another entry or at the column's
// end, and alternating with single values.
test("the one pass on long runs: lengths around 128 and 16,384, ids past 127, at the column's end", () => {
  const entries = Array.from({ length: 300 }, (_, j) => (j % 3 === 0 ? String(j) : `Dept ${j}`));
  const lengths = [1, 2, 3, 4, 126, 127, 128, 129, 130, 255, 256, 16383, 16384, 16385];
  for (const first of [0, 130, 299]) {
    for (const len of lengths) {
      // A run of 300 of the first entry and every entry once (ids 0 to 299, so that ids past 127 exist, and at most
      // n / 2 + 16 of them: a dictionary), then a run of one entry, single values, then a run to the column's end.
      const values = [...Array(300).fill(entries[0]), ...entries];
      const at = (first + len) % entries.length;
      for (let r = 0; r < len; r++) values.push(entries[at]);
      values.push(entries[(at + 1) % 300], entries[(at + 7) % 300], entries[at]);
      for (let r = 0; r < len; r++) values.push(entries[first]);
      same(values, `run of ${len} of entry ${at}, then of ${first} to the end`);
    }
  }
  // Few entries (the dictionary's and prefixes' choices), runs of mixed lengths one after another.
  const few = ["0", "-566,000", "-566,001", "45,571,090"];
  for (const len of lengths) {
    const values = [];
    for (let j = 0; j < 12; j++) for (let r = 0; r < (j % 2 ? len : 1 + (j % 5)); r++) values.push(few[(j * 3) % 4]);
    same(values, `mixed runs of ${len}`);
  }
});

// A run of an id past 127 where the ids' varints are their smallest encoding (2,000 entries, most values small ids
// with no neighbour equal: 11-bit frames cost more than a byte a value and two for the 2,172 past 127), so that each
// value of the run must count its second byte: in the middle of the column and at its end.
test("the one pass counts a long run's two-byte ids where the ids' varints are the smallest encoding", () => {
  const entries = Array.from({ length: 2000 }, (_, j) => `e${j}`);
  const run = Array(300).fill(entries[1999]), small = Array.from({ length: 3700 }, (_, i) => entries[i % 100]);
  same([...entries, ...run, ...small], "run in the middle");
  same([...entries, ...small, ...run], "run at the end");
});
