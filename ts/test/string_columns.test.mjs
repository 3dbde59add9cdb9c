// The string column writer's shortcuts against the Rust writer's bytes (the CLI's from-json): the dictionary found
// with no lookup over a sorted start (then the Map from where the order breaks), the cache of short strings in
// front of the Map (strings made to share its slot), and mostly distinct sorted columns giving up as Rust does.
import { test } from "node:test";
import { sameAsRust, skip } from "./rust_writer.mjs";


let seed = 7;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const stamp = (k) => `2001/${String(1 + (k % 12)).padStart(2, "0")}/${String(k).padStart(6, "0")}`;

test("sorted string columns (with repeats, breaking their order, mostly distinct) are the Rust writer's bytes", { skip }, () => {
  const sorted = (n, d) => Array.from({ length: n }, (_, i) => `k${String(Math.floor((i * d) / n)).padStart(6, "0")}`);
  const cases = [
    ["all distinct, over 8,192 (gives up at 3,073 of the first 4,096)", sorted(9000, 9000)],
    ["3,073 distinct in the first 4,096 and no more", [...sorted(4096, 3073), ...sorted(4904, 10)]],
    ["3,072 distinct in the first 4,096", [...sorted(4096, 3072), ...sorted(4904, 10)]],
    ["all distinct, at most 8,192 (gives up past n / 2 + 16)", sorted(5000, 5000)],
    ["n / 2 + 16 distinct", sorted(5000, 2516)],
    ["n / 2 + 17 distinct", sorted(5000, 2517)],
    ["repeats", sorted(9000, 700)],
    ["sorted, then not", [...sorted(600, 200), ...Array.from({ length: 600 }, () => `k${String(Math.floor(rnd() * 300)).padStart(6, "0")}`)]],
    ["sorted, then one less, then sorted", [...sorted(300, 100), "a", ...sorted(300, 100)]],
    ["one value", sorted(40, 1)],
    ["dates", Array.from({ length: 9000 }, (_, i) => stamp(i))],
    ["descending", sorted(3000, 900).reverse()],
  ];
  for (const [what, xs] of cases) sameAsRust(xs.map((s, i) => ({ s, i })), what);
});

test("short strings that share a slot of the dictionary's cache keep their own entries", { skip }, () => {
  // The cache slots a string by its length, first, middle and last code unit: these differ elsewhere.
  const pool = [];
  for (let a = 0; a < 30; a++) pool.push(`a${String.fromCharCode(98 + a)}m${String.fromCharCode(98 + ((a * 7) % 26))}z`);
  for (let a = 0; a < 30; a++) pool.push(`é${a}m${a}é`.slice(0, 5));
  const xs = Array.from({ length: 3000 }, () => pool[Math.floor(rnd() * pool.length)]);
  sameAsRust(xs.map((s) => ({ s })), "colliding short strings");
  // Long strings (past the cache's length) and the empty string, mixed with short ones.
  const mixed = ["", "x".repeat(40), "x".repeat(40) + "y", "ab", "ba", "abc"];
  sameAsRust(Array.from({ length: 2000 }, () => ({ s: mixed[Math.floor(rnd() * mixed.length)] })), "mixed lengths");
});
