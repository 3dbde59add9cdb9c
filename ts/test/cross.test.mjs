// Cross-language check: TS encodes, the Rust `xbf` CLI decodes (to-json), and the reverse (from-json, TS decodes).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { encode, decode } from "../dist/index.js";
import { jsonish } from "./arbitraries.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
function findXbf() {
  if (process.env.XBF_CLI && existsSync(process.env.XBF_CLI)) return process.env.XBF_CLI;
  for (const p of ["target/debug/xbf", "target/release/xbf"]) if (existsSync(join(root, p))) return join(root, p);
  if (spawnSync("cargo", ["--version"]).status !== 0) return null;
  execFileSync("cargo", ["build", "-q", "-p", "xbf-cli"], { cwd: root, stdio: "inherit" });
  return join(root, "target/debug/xbf");
}
const xbf = findXbf();
const skip = xbf ? false : "neither target/debug/xbf nor cargo is available: cross-language check skipped";
const dir = mkdtempSync(join(tmpdir(), "xbf-ts-"));
const json = (v) => JSON.parse(JSON.stringify(v));
// Integers past 2^53 decode as bigint (never a rounded number); JSON.parse rounds them, so compare as numbers.
const asNumbers = (v) => JSON.parse(JSON.stringify(v, (_, x) => (typeof x === "bigint" ? Number(x) : x)));

test("TypeScript encodes, Rust decodes (rows and columns)", { skip }, () => {
  let i = 0;
  fc.assert(fc.property(jsonish, fc.constantFrom("rows", "columns"), (v, layout) => {
    const file = join(dir, `ts-${i++}.xbf`);
    writeFileSync(file, encode(v, { layout }));
    const out = execFileSync(xbf, ["to-json", file], { encoding: "utf8" });
    assert.deepStrictEqual(JSON.parse(out), json(v));
  }), { numRuns: 120 });
});

test("Rust encodes (from-json, rows and columns), TypeScript decodes", { skip }, () => {
  let i = 0;
  fc.assert(fc.property(jsonish, fc.constantFrom("rows", "columns", "auto"), (v, layout) => {
    const inFile = join(dir, `rs-${i}.json`), outFile = join(dir, `rs-${i++}.xbf`);
    writeFileSync(inFile, JSON.stringify(v));
    execFileSync(xbf, ["from-json", inFile, "--layout", layout, "-o", outFile]);
    const bytes = new Uint8Array(readFileSync(outFile));
    assert.deepStrictEqual(asNumbers(decode(bytes)), json(v));
  }), { numRuns: 120 });
});

test("the same JSON gives the same bytes in rows from both implementations", { skip }, () => {
  let i = 0, same = 0, total = 0;
  fc.assert(fc.property(jsonish, (v) => {
    const inFile = join(dir, `eq-${i}.json`), outFile = join(dir, `eq-${i++}.xbf`);
    writeFileSync(inFile, JSON.stringify(v));
    execFileSync(xbf, ["from-json", inFile, "--layout", "rows", "-o", outFile]);
    const rust = new Uint8Array(readFileSync(outFile));
    total++;
    if (Buffer.compare(Buffer.from(rust), Buffer.from(encode(v))) === 0) same++;
    // Whatever type each side inferred, both decode to the same value.
    assert.deepStrictEqual(asNumbers(decode(rust)), asNumbers(decode(encode(v))));
  }), { numRuns: 100 });
  console.log(`identical bytes for ${same} of ${total} inferred documents`);
});

// SPEC 19.1's object rules, re-implemented in TypeScript, must infer what the Rust core infers: the rows messages
// are then byte for byte the same (numbers are integers here: JavaScript's one number type is an allowed difference).
const letter = fc.constantFrom("a", "b", "c", "d", "e");
const scalar = fc.oneof(fc.constant(null), fc.boolean(), fc.integer({ min: -1e6, max: 1e6 }), fc.string({ maxLength: 3 }));
const nested = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, scalar, fc.array(tie("value"), { maxLength: 4 }), fc.dictionary(letter, tie("value"), { maxKeys: 4 })),
})).value;
const sparseRecords = fc.array(fc.dictionary(letter, nested, { maxKeys: 5 }), { maxLength: 30 });
const dataKeys = fc.array(
  fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }).map((s) => "k" + s), scalar, { minKeys: 1, maxKeys: 3 }),
  { minLength: 10, maxLength: 120, size: "max" });

test("TypeScript infers the type the Rust CLI infers (sparse records, key orders, keys that are data)", { skip }, () => {
  let i = 0, maps = 0, anys = 0;
  fc.assert(fc.property(fc.oneof(sparseRecords, dataKeys), (v) => {
    const inFile = join(dir, `infer-${i}.json`), outFile = join(dir, `infer-${i++}.xbf`);
    writeFileSync(inFile, JSON.stringify(v));
    execFileSync(xbf, ["from-json", inFile, "--layout", "rows", "-o", outFile]);
    const rust = new Uint8Array(readFileSync(outFile));
    const ts = encode(v, { layout: "rows" });
    if (rust[3] === 0x17 || rust[2] === 0x17) maps++;
    if (rust[3] === 0x19) anys++;
    assert.deepStrictEqual(Buffer.from(ts).toString("hex"), Buffer.from(rust).toString("hex"), JSON.stringify(v));
  }), { numRuns: 200 });
  console.log(`inferred alike: ${i} documents (${maps} maps of keys that are data, ${anys} vec<any>)`);
});

// Lossy floats (SPEC 22.5.1): where both sides infer f64 (every number a fraction: JSON's 1 and 1.0 are an int and
// a float to Rust, one number to JavaScript), the columns of both writers are the same bytes, exact or rounded.
const fraction = fc.double({ min: -1e7, max: 1e7, noNaN: true }).map((x) => (Number.isInteger(x) ? x + 0.25 : x));
const series = fc.tuple(fc.double({ min: -1e4, max: 1e4, noNaN: true }), fc.integer({ min: 20, max: 120 }), fc.integer({ min: 2, max: 6 }))
  .map(([start, n, digits]) => Array.from({ length: n }, (_, i) => { const x = Number((start + i * 0.37).toFixed(digits)); return Number.isInteger(x) ? x + 0.5 : x; }));
test("the same fractions give the same columns from both implementations, exact and with a float tolerance", { skip }, () => {
  let i = 0;
  fc.assert(fc.property(fc.oneof(series, fc.array(fraction, { minLength: 16, maxLength: 80 })), fc.constantFrom(undefined, 0.005, 0.01, 0.5, 3),
    (xs, t) => {
      const v = xs.map((x, j) => ({ x, y: xs[(j * 7) % xs.length] }));
      const inFile = join(dir, `lossy-${i}.json`), outFile = join(dir, `lossy-${i++}.xbf`);
      writeFileSync(inFile, JSON.stringify(v));
      execFileSync(xbf, ["from-json", inFile, "--layout", "columns", ...(t ? ["--float-tolerance", String(t)] : []), "-o", outFile]);
      const rust = Buffer.from(readFileSync(outFile)).toString("hex");
      assert.equal(Buffer.from(encode(v, { layout: "columns", ...(t ? { floatTolerance: t } : {}) })).toString("hex"), rust, `${JSON.stringify(v)} ${t}`);
    }), { numRuns: 150 });
});

test("long string and float columns keep or give up their dictionary as the Rust writer does (mostly distinct)", { skip }, () => {
  // Over 8,192 values, a dictionary gives up once more than 3,072 of the first 4,096 are distinct; with at most
  // 8,192 values, or repeats, only past n / 2 + 16 (the pools repeat from their start, so the first values are
  // all distinct).
  let seed = 1;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const word = () => Array.from({ length: 20 }, () => String.fromCharCode(97 + Math.floor(rnd() * 26))).join("");
  const cases = [[9000, 1126], [5000, 626], [9000, 3072], [9000, 3073], [8192, 4000], [8193, 4000]];
  cases.forEach(([n, d], k) => {
    const words = Array.from({ length: d }, word), floats = Array.from({ length: d }, () => rnd() + rnd() / 2 ** 26);
    const v = Array.from({ length: n }, (_, i) => ({ s: words[i % d], x: floats[i % d] }));
    const inFile = join(dir, `distinct-${k}.json`), outFile = join(dir, `distinct-${k}.xbf`);
    writeFileSync(inFile, JSON.stringify(v));
    execFileSync(xbf, ["from-json", inFile, "--layout", "columns", "-o", outFile]);
    const rust = Buffer.from(readFileSync(outFile));
    assert.ok(rust.equals(Buffer.from(encode(v, { layout: "columns" }))), `${n} values, ${d} distinct`);
  });
});

test("string columns (dictionaries, shared prefixes, plain) are the Rust writer's bytes", { skip }, () => {
  // Pools of a few to a few hundred strings, some sharing prefixes, some not ASCII, drawn in runs or at random.
  const piece = fc.constantFrom("", "a", "ab", "abc", "abd", "2001/01/0", "é", "😀", "x".repeat(40), "Total_");
  const str = fc.tuple(piece, piece, fc.nat(300)).map(([a, b, k]) => a + b + (k % 3 ? String(k) : ""));
  const column = fc.oneof(
    fc.array(str, { minLength: 16, maxLength: 200 }),
    fc.tuple(fc.uniqueArray(str, { minLength: 1, maxLength: 150 }), fc.array(fc.nat(), { minLength: 16, maxLength: 400 })).map(([pool, ix]) => ix.map((i) => pool[i % pool.length])),
  );
  let i = 0;
  fc.assert(fc.property(column, (xs) => {
    const v = xs.map((s) => ({ s }));
    const inFile = join(dir, `strings-${i}.json`), outFile = join(dir, `strings-${i++}.xbf`);
    writeFileSync(inFile, JSON.stringify(v));
    execFileSync(xbf, ["from-json", inFile, "--layout", "columns", "-o", outFile]);
    assert.ok(Buffer.from(readFileSync(outFile)).equals(Buffer.from(encode(v, { layout: "columns" }))), JSON.stringify(xs));
  }), { numRuns: 150 });
});

test("string columns of long strings that differ only in their middle are the Rust writer's bytes", { skip }, () => {
  // 132 code units each, the same first and last 64: a dictionary (or not) and shared prefixes as Rust's.
  const head = "h".repeat(64), tail = "t".repeat(64);
  [[300, 120], [2000, 900], [40, 20]].forEach(([n, d], k) => {
    const pool = Array.from({ length: d }, (_, j) => head + String(j).padStart(4, "0") + tail);
    const v = Array.from({ length: n }, (_, i) => ({ s: pool[(i * 7) % d], t: pool[i % 3] }));
    const inFile = join(dir, `collide-${k}.json`), outFile = join(dir, `collide-${k}.xbf`);
    writeFileSync(inFile, JSON.stringify(v));
    execFileSync(xbf, ["from-json", inFile, "--layout", "columns", "-o", outFile]);
    const ours = encode(v, { layout: "columns" });
    assert.ok(Buffer.from(readFileSync(outFile)).equals(Buffer.from(ours)), `${n} values, ${d} distinct`);
    assert.deepStrictEqual(decode(ours), v);
  });
});
