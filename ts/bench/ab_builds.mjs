// Symmetric A/B of two builds' default decode in one process (bench.mjs's --before runs only the other build's
// default mode, so its module sees other calls than this one's; here both builds are separate module instances
// warmed on every file alike), then interleaved rounds (order alternating), medians; msgpackr's unpack alongside.
//   node bench/ab_builds.mjs DIST_A DIST_B FILE... (vega-datasets file names; ROUNDS=15, OUT=raw.json,
//   MODE=bigint for decode(b, { int64: "bigint" }), MODE=nocodegen for both builds without new Function,
//   MODE=encode for the default encode(value), with JSON.stringify + TextEncoder in msgpackr's place: issue 23's bar;
//   MODE=encode-nocodegen for that encode in both builds without new Function; CLOCK=cpu)
// Run it twice with A and B swapped: a module loaded first or second can differ by more than a small change.
// The ratios against msgpackr depend on the files run in the same process (all are warmed before any is timed):
// us-employment's bigint decode was 1.04-1.14 of msgpackr's alone and 1.41-1.46 with zipcodes.csv in the run (CPU
// clock; neither a full collection before its rounds nor --no-allocation-site-pretenuring undid it; its default
// decode was not affected: BENCHMARKS.md, tsenc28). Take a file's ratio from a run of that file alone, or bench.mjs.
import { existsSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Packr } from "msgpackr";
import { loadFile } from "./data.mjs";
const [A, B] = [process.argv[2], process.argv[3]];
const files = process.argv.slice(4);
const ia = await import(`${resolve(A)}/index.js`), ib = await import(`${resolve(B)}/index.js`);
const MODE = process.env.MODE ?? "default";
const ENCODE = MODE === "encode" || MODE === "encode-nocodegen";
if (MODE === "nocodegen" || MODE === "encode-nocodegen") for (const d of [A, B]) (await import(`${resolve(d)}/fast.js`)).setCodegen(false);
const opts = MODE === "bigint" ? { int64: "bigint" } : undefined;
const ma = { encode: ia.encode, decode: (b) => ia.decode(b, opts) }, mb = { encode: ib.encode, decode: (b) => ib.decode(b, opts) };
const repo = join(dirname(fileURLToPath(import.meta.url)), "../..");
const vega = process.env.VEGA_DATA ?? join(repo, "target/data/vega-datasets");
if (!existsSync(vega)) throw new Error("vega-datasets not found: run scripts/fetch-data.sh (or set VEGA_DATA)");
// (A name ending in "#features" is the GeoJSON's features, as bench.mjs's earthquakes; an absolute path is read as
// it is, e.g. an invented table written as JSON.)
const load = (f) => {
  if (f.endsWith("#features")) return load(f.slice(0, -9)).features;
  // (data.mjs's loadFile: a name ending in sp500-2019.csv is the CLI's embedded stock rows.)
  return loadFile(f);
};
const p = new Packr();
const data = files.map((f) => { const v = load(f); return { f, v, b: ma.encode(v), m: p.pack(v) }; });
if (ENCODE) {
  // Same bytes from both builds; then each build's encode and JSON's (stringify + UTF-8) in the rounds below.
  for (const d of data) if (Buffer.compare(Buffer.from(d.b), Buffer.from(mb.encode(d.v))) !== 0) throw new Error("bytes differ " + d.f);
  const te = new TextEncoder();
  ma.decode = (v) => ia.encode(v); mb.decode = (v) => ib.encode(v);
  p.unpack = (v) => te.encode(JSON.stringify(v));
  for (const d of data) { d.b = d.v; d.m = d.v; }
}
const show = (v) => JSON.stringify(v, (_, x) => (typeof x === "bigint" ? `${x}n` : x));
if (!ENCODE) for (const d of data) if (show(ma.decode(d.b)) !== show(mb.decode(d.b))) throw new Error("values differ " + d.f);
for (let w = 0; w < 3; w++) for (const d of data) for (let i = 0; i < 300; i++) { ma.decode(d.b); mb.decode(d.b); p.unpack(d.m); }
// CLOCK=cpu: the process's CPU time (user + system, all its threads: the collector's too) instead of the wall
// clock, for a loaded machine, where a process waiting for a core does not count.
const CLOCK = process.env.CLOCK ?? "wall";
const time = CLOCK === "cpu"
  ? (g, x, n) => { const c = process.cpuUsage(); for (let i = 0; i < n; i++) g(x); const d = process.cpuUsage(c); return (d.user + d.system) / 1000 / n; }
  : (g, x, n) => { const t = process.hrtime.bigint(); for (let i = 0; i < n; i++) g(x); return Number(process.hrtime.bigint() - t) / 1e6 / n; };
const med = (a) => { const s = [...a].sort((x, y) => x - y), h = s.length >> 1; return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2; };
const ROUNDS = +(process.env.ROUNDS ?? 15), out = { A, B, mode: MODE, clock: CLOCK, date: new Date().toISOString(), node: process.version, rounds: ROUNDS, files: {} };
for (const d of data) {
  const n = Math.max(20, Math.round(10 / Math.max(0.001, time(ma.decode, d.b, 20))));
  const s = { A: [], B: [], msgpackr: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? ["B", "A", "msgpackr"] : ["A", "B", "msgpackr"];
    for (const k of order) s[k].push(time(k === "A" ? ma.decode : k === "B" ? mb.decode : (y) => p.unpack(y), k === "msgpackr" ? d.m : d.b, n));
  }
  const r = { A: med(s.A), B: med(s.B), msgpackr: med(s.msgpackr) };
  out.files[d.f] = { ...r, bOverA: r.B / r.A, aOverMsgpackr: r.A / r.msgpackr, bOverMsgpackr: r.B / r.msgpackr, samples: s };
  console.log(d.f.padEnd(20), "A", r.A.toFixed(4), "B", r.B.toFixed(4), "B/A", (r.B / r.A).toFixed(3), "A/mp", (r.A / r.msgpackr).toFixed(2), "B/mp", (r.B / r.msgpackr).toFixed(2));
}
if (process.env.OUT) writeFileSync(process.env.OUT, JSON.stringify(out, null, 1));
