// mapIds' second slot (string_columns.ts secondSlot): strings of one format (dates, ids, codes) whose first slot
// (length, first, middle and last code unit) is the same, in columns with repeats, where both slots of many strings
// are held by others (then the Map), against the Rust writer's bytes.
import { test } from "node:test";
import { sameAsRust, skip } from "./rust_writer.mjs";

let seed = 5;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];

test("strings of one format sharing their first slot keep their own entries", { skip }, () => {
  // MM/DD/2015: the first unit is 0 or 1, the middle one "/", the last "5": one first slot for most of them.
  const date = (k) => `${String(1 + (k % 12)).padStart(2, "0")}/${String(1 + (Math.floor(k / 12) % 28)).padStart(2, "0")}/2015`;
  // H?AL0????1-like ids: one first unit, few middle and last ones.
  const id = (k) => `H${k % 10}A${String.fromCharCode(65 + (k % 26))}${String(k).padStart(4, "0")}1`;
  for (const [n, d] of [[58, 20], [58, 45], [58, 46], [300, 100], [3000, 300], [3000, 1600], [9000, 900]]) {
    const dates = Array.from({ length: d }, (_, k) => date(k * 7)), ids = Array.from({ length: d }, (_, k) => id(k * 13));
    sameAsRust(Array.from({ length: n }, () => ({ d: pick(dates), i: pick(ids) })), `random ${n} of ${d}`);
    sameAsRust(Array.from({ length: n }, (_, j) => ({ d: dates[j % d], i: ids[Math.floor((j * d) / n)] })), `cycling and sorted ${n} of ${d}`);
  }
  // More distinct strings than the table has slots, all of one first slot: most go to the Map.
  const many = Array.from({ length: 2500 }, (_, k) => `x${String(k).padStart(6, "0")}y`);
  sameAsRust(Array.from({ length: 6000 }, () => ({ s: pick(many) })), "2,500 of one first slot");
});
