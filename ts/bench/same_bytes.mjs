// Whether two builds write the same bytes, for a change meant to leave them alone:
//   node bench/same_bytes.mjs DIST_A DIST_B
// Every benchmark and held-out dataset (bench.mjs's, stock rows included), each encoded by both builds with `encode`
// in layout auto, rows and columns, with `floatTolerance` 0.01 and 1e-6, with its inferred type given, in slices of
// 1, 17, 100 and 4,097 records, by an Encoder twice, and by one Encoder fed every dataset in turn (twice round);
// then each build's Encoder fed the datasets' first records one at a time. Prints the number of encodings compared
// and exits 1 at the first difference (naming it).
import { resolve } from "node:path";
import { loadFile } from "./data.mjs";

const [A, B] = process.argv.slice(2).map((d) => resolve(d));
const a = await import(`${A}/index.js`), b = await import(`${B}/index.js`);
const FILES = [
  "sp500-2019.csv", "flights-20k.json", "movies.json", "earthquakes.json#features", "football.json", "jobs.json",
  "political-contributions.json", "income.json", "gapminder.json",
  "cars.json", "penguins.json", "countries.json", "budgets.json", "normal-2d.json", "birdstrikes.csv",
  "seattle-weather.csv", "windvectors.csv", "us-employment.csv",
];
const data = FILES.map((f) => [f, f.endsWith("#features") ? loadFile(f.slice(0, -9)).features : loadFile(f)]);
let compared = 0;
const same = (what, x, y) => {
  compared++;
  if (x.length !== y.length || Buffer.compare(Buffer.from(x), Buffer.from(y)) !== 0) {
    console.error(`bytes differ: ${what} (${x.length} against ${y.length} bytes)`);
    process.exit(1);
  }
};
const both = (what, f) => same(what, f(a), f(b));
for (const [f, v] of data) {
  for (const layout of ["auto", "rows", "columns"]) both(`${f} layout ${layout}`, (m) => m.encode(v, { layout }));
  for (const floatTolerance of [0.01, 1e-6]) both(`${f} floatTolerance ${floatTolerance}`, (m) => m.encode(v, { floatTolerance }));
  both(`${f} type given`, (m) => m.encode(v, { type: m.inferType(v) }));
  for (const n of [1, 17, 100, 4097]) if (v.length > n) both(`${f} first ${n}`, (m) => m.encode(v.slice(0, n)));
  both(`${f} Encoder twice`, (m) => { const e = new m.Encoder(); e.encode(v); return e.encode(v); });
}
// One Encoder through every dataset, twice round: it infers anew at each change and keeps what it learnt.
const ea = new a.Encoder(), eb = new b.Encoder();
for (let r = 0; r < 2; r++) for (const [f, v] of data) same(`one Encoder, round ${r + 1}, ${f}`, ea.encode(v), eb.encode(v));
// Single records in turn: types that differ a little from call to call (a field absent, another kind).
const ra = new a.Encoder(), rb = new b.Encoder();
for (const [f, v] of data) for (let i = 0; i < Math.min(v.length, 40); i++) {
  same(`${f} record ${i} alone`, a.encode(v[i]), b.encode(v[i]));
  same(`${f} record ${i}, one Encoder`, ra.encode(v[i]), rb.encode(v[i]));
}
console.log(`same bytes: ${compared} encodings of ${FILES.length} datasets`);
