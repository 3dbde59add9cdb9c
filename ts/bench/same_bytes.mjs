// Checks that two builds of the TypeScript package write the same bytes: the Rust, Go and Python encoders write
// the same encodings, so an encode change that is only about speed must not change one byte.
//   node bench/same_bytes.mjs DIST_A DIST_B [--big] [FILE...]
// Compares, on every benchmark and held-out file (bench.mjs's lists; earthquakes as its GeoJSON features) and on
// slices of each (1, 17, 100, 2,047, 2,048 and 4,097 records): encode in the default layout, layout auto, rows and
// columns, floatTolerance 0.01 and 1e-6 (auto and columns), with its inferred type given, one Encoder used twice on
// the file (also with a tolerance), and one Encoder fed every file in turn; then the files' first 40 records one at a
// time (types that differ a little from call to call), alone and through one Encoder. --big adds flights-200k
// (default encode and columns). FILE: more files, by absolute path (an invented table written as JSON, e.g.
// python/bench/wide_table.py's rows), checked as the others. Prints the number of encodings compared; exits 1 at the
// first difference.
// --decode: also the decoded values, for a decode-only change: every encoding compared is decoded by both builds,
// by default and with { int64: "bigint" }, and the values must be deep-equal (bigints by value); the second held-out
// set (data.mjs's HELD_OUT_2) is added to the files (a check of values, not a measure).
import { existsSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { join, resolve } from "node:path";
import { HELD_OUT_2, loadFile, vega } from "./data.mjs";

const [A, B, ...extra] = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const big = process.argv.includes("--big"), decoding = process.argv.includes("--decode");
const a = await import(`${resolve(A)}/index.js`), b = await import(`${resolve(B)}/index.js`);
const files = [
  ["stock rows", "sp500-2019.csv"], ["flights-20k", "flights-20k.json"], ["movies", "movies.json"],
  ["earthquakes (features)", "earthquakes.json"], ["football", "football.json"], ["jobs", "jobs.json"],
  ["political-contributions", "political-contributions.json"], ["income", "income.json"], ["gapminder", "gapminder.json"],
  ...["cars.json", "penguins.json", "countries.json", "budgets.json", "normal-2d.json", "birdstrikes.csv", "seattle-weather.csv",
    "windvectors.csv", "us-employment.csv"].map((f) => [f, f]),
  ...(decoding ? HELD_OUT_2.map((f) => [f, f]) : []),
].filter(([, f]) => f === "sp500-2019.csv" || existsSync(join(vega, f))).concat(extra.map((f) => [f, f]));
const load = (f) => { const v = loadFile(f); return f === "earthquakes.json" ? v.features : v; };
const modes = [
  {}, { layout: "auto" }, { layout: "rows" }, { layout: "columns" },
  { floatTolerance: 0.01 }, { floatTolerance: 1e-6 }, { floatTolerance: 0.01, layout: "columns" }, { floatTolerance: 1e-6, layout: "columns" },
];
let compared = 0, decoded = 0;
const same = (what, x, y) => {
  compared++;
  if (x.length !== y.length || Buffer.compare(Buffer.from(x), Buffer.from(y)) !== 0) {
    console.error(`DIFFERENT: ${what} (${x.length} against ${y.length} bytes)`);
    process.exit(1);
  }
  if (decoding) for (const o of [undefined, { int64: "bigint" }]) {
    decoded++;
    if (!isDeepStrictEqual(a.decode(x, o), b.decode(x, o))) {
      console.error(`DIFFERENT VALUES: ${what} decoded with ${JSON.stringify(o)}`);
      process.exit(1);
    }
  }
};
const check = (name, v) => {
  for (const o of modes) same(`${name} ${JSON.stringify(o)}`, a.encode(v, o), b.encode(v, o));
  same(`${name} type given`, a.encode(v, { type: a.inferType(v) }), b.encode(v, { type: b.inferType(v) }));
  const ea = new a.Encoder(), eb = new b.Encoder();
  for (let i = 0; i < 2; i++) same(`${name} Encoder call ${i + 1}`, ea.encode(v), eb.encode(v));
  const ta = new a.Encoder({ floatTolerance: 0.01 }), tb = new b.Encoder({ floatTolerance: 0.01 });
  for (let i = 0; i < 2; i++) same(`${name} Encoder floatTolerance 0.01 call ${i + 1}`, ta.encode(v), tb.encode(v));
};
const fa = new a.Encoder(), fb = new b.Encoder();
for (const [name, f] of files) {
  const v = load(f);
  check(name, v);
  same(`${name} through the one Encoder of every file`, fa.encode(v), fb.encode(v));
  if (Array.isArray(v)) for (const n of [1, 17, 100, 2047, 2048, 4097]) if (v.length > n) check(`${name} first ${n}`, v.slice(0, n));
}
const ra = new a.Encoder(), rb = new b.Encoder();
for (const [name, f] of files) {
  const v = load(f);
  if (Array.isArray(v)) for (let i = 0; i < Math.min(v.length, 40); i++) {
    same(`${name} record ${i} alone`, a.encode(v[i]), b.encode(v[i]));
    same(`${name} record ${i}, one Encoder`, ra.encode(v[i]), rb.encode(v[i]));
  }
}
if (big) {
  const v = loadFile("flights-200k.json");
  for (const o of [{}, { layout: "columns" }]) same(`flights-200k ${JSON.stringify(o)}`, a.encode(v, o), b.encode(v, o));
}
console.log(`same bytes: ${compared} encodings of ${files.length} files${big ? " and flights-200k" : ""}${decoding ? `; same values: ${decoded} decodes` : ""}`);
