// One string column's writer in two builds, in one process (interleaved rounds, order alternating, medians):
//   node bench/string_column_ab.mjs DIST_A DIST_B [FILE FIELD]... (default flights-20k.json date and origin,
//   birdstrikes.csv "Flight Date"; ROUNDS=21, OUT=raw.json). The column is putStringColumn's whole work (dictionary
//   or not, UTF-8, the three sizes, the chosen one written), without the rest of encode to blur it.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { csvRecords } from "./data.mjs";
const [A, B] = [process.argv[2], process.argv[3]];
const args = process.argv.slice(4);
const pairs = [];
for (let i = 0; i + 1 < args.length; i += 2) pairs.push([args[i], args[i + 1]]);
if (!pairs.length) pairs.push(["flights-20k.json", "date"], ["flights-20k.json", "origin"], ["birdstrikes.csv", "Flight Date"]);
const repo = join(dirname(fileURLToPath(import.meta.url)), "../..");
const vega = process.env.VEGA_DATA ?? join(repo, "target/data/vega-datasets");
const load = (f) => { const t = readFileSync(`${vega}/${f}`, "utf8"); return f.endsWith(".csv") ? csvRecords(t) : JSON.parse(t); };
const builds = {};
for (const [k, d] of [["A", A], ["B", B]]) {
  const s = await import(`${resolve(d)}/string_columns.js`), w = await import(`${resolve(d)}/varint.js`);
  builds[k] = (values) => { const out = new w.Writer(); s.putStringColumn(out, values); return out.buf.subarray(0, out.len); };
}
const med = (a) => { const s = [...a].sort((x, y) => x - y), h = s.length >> 1; return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2; };
const time = (g, x, n) => { const t = process.hrtime.bigint(); for (let i = 0; i < n; i++) g(x); return Number(process.hrtime.bigint() - t) / 1e6 / n; };
const ROUNDS = +(process.env.ROUNDS ?? 21), out = { A, B, date: new Date().toISOString(), node: process.version, rounds: ROUNDS, columns: {} };
const cols = pairs.map(([f, field]) => ({ name: `${f} ${field}`, values: load(f).map((r) => String(r[field])) }));
for (const c of cols) {
  if (Buffer.compare(Buffer.from(builds.A(c.values)), Buffer.from(builds.B(c.values))) !== 0) throw new Error("bytes differ " + c.name);
  for (let i = 0; i < 200; i++) { builds.A(c.values); builds.B(c.values); }
}
for (const c of cols) {
  const n = Math.max(10, Math.round(20 / Math.max(0.001, time(builds.A, c.values, 10))));
  const s = { A: [], B: [] };
  for (let r = 0; r < ROUNDS; r++) for (const k of r % 2 ? ["B", "A"] : ["A", "B"]) s[k].push(time(builds[k], c.values, n));
  const r = { A: med(s.A), B: med(s.B) };
  out.columns[c.name] = { ...r, bOverA: r.B / r.A, samples: s };
  console.log(c.name.padEnd(28), "A", r.A.toFixed(4), "B", r.B.toFixed(4), "B/A", (r.B / r.A).toFixed(3));
}
if (process.env.OUT) writeFileSync(process.env.OUT, JSON.stringify(out, null, 1));
