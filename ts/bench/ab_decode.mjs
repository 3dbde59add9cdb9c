// Decode before/after of this package against another build of it, in one process, in the three modes issue 23
// names: the default `decode(bytes)`, `decode(bytes, { int64: "bigint" })`, and the default without generated
// code (as on a page whose CSP forbids `new Function`: closures build the objects), each beside msgpackr's
// `unpack` (a Packr with its defaults, as bench.mjs) of its own bytes. Per dataset, CPU-time samples of every
// operation in rounds whose order alternates (after first, then before first), medians of the rounds.
//   npm run build && node bench/ab_decode.mjs --before DIST [--held-out] [--only NAME,...] [--rounds N] [--json PATH]
// DIST is the other build's dist directory (e.g. main's ts/ built in a temp dir). Timing is not asserted anywhere.
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadavg } from "node:os";
import * as after from "../dist/index.js";
import { setCodegen as afterCodegen } from "../dist/fast.js";
import { Packr } from "msgpackr";
import { csvRecords } from "./data.mjs";

const here = dirname(fileURLToPath(import.meta.url)), repo = resolve(here, "../..");
const argAt = (name) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : undefined; };
if (!argAt("--before")) throw new Error("--before DIST is required");
const before = await import(resolve(argAt("--before"), "index.js"));
const { setCodegen: beforeCodegen } = await import(resolve(argAt("--before"), "fast.js"));
const ROUNDS = Number(argAt("--rounds") ?? 7), SAMPLE_MS = 60;
const vega = process.env.VEGA_DATA ?? join(repo, "target/data/vega-datasets");
const load = (f) => (f.endsWith(".csv") ? csvRecords(readFileSync(join(vega, f), "utf8")) : JSON.parse(readFileSync(join(vega, f), "utf8")));
// The datasets of bench.mjs and its --held-out list (as ab.mjs).
const only = argAt("--only");
const all = process.argv.includes("--held-out")
  ? ["cars.json", "penguins.json", "countries.json", "budgets.json", "normal-2d.json", "birdstrikes.csv", "seattle-weather.csv", "windvectors.csv", "us-employment.csv"].map((f) => [f, () => load(f)])
  : [["stock rows (sp500-2019)", () => csvRecords(readFileSync(join(repo, "crates/xbf-cli/data/sp500-2019.csv"), "utf8"))],
    ["flights-20k", () => load("flights-20k.json")], ["movies", () => load("movies.json")], ["earthquakes (features)", () => load("earthquakes.json").features],
    ...["football", "jobs", "political-contributions", "income", "gapminder"].map((f) => [f, () => load(`${f}.json`)])];
const datasets = only ? all.filter(([name]) => only.split(",").some((o) => name.includes(o))) : all;
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
/** ms per call of f: calls until SAMPLE_MS of CPU time has passed. */
function sample(f) { let n = 0; const t0 = cpu(); while (cpu() - t0 < SAMPLE_MS) { f(); n++; } return (cpu() - t0) / n; }
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
const big = { int64: "bigint" };
/** The same call without generated code: setCodegen(false) around it (both builds' switches). */
const noCodegen = (set, f) => () => { set(false); try { return f(); } finally { set(undefined); } };
const out = { loadavg: loadavg(), node: process.version, date: new Date().toISOString(), before: argAt("--before"), rounds: ROUNDS, sampleMs: SAMPLE_MS, datasets: [] };
console.log(`load ${out.loadavg.map((x) => x.toFixed(1)).join(" ")}; decode after ÷ before and after ÷ msgpackr's unpack, CPU time, medians of ${ROUNDS} alternating rounds`);
for (const [name, get] of datasets) {
  if (!existsSync(vega) && name !== datasets[0][0]) continue;
  const data = get();
  const bytes = after.encode(data);
  const packr = new Packr(), mb = packr.pack(data);
  const ops = {
    defaultAfter: () => after.decode(bytes), defaultBefore: () => before.decode(bytes),
    bigintAfter: () => after.decode(bytes, big), bigintBefore: () => before.decode(bytes, big),
    noCodegenAfter: noCodegen(afterCodegen, () => after.decode(bytes)), noCodegenBefore: noCodegen(beforeCodegen, () => before.decode(bytes)),
    msgpackr: () => packr.unpack(mb),
  };
  for (const f of Object.values(ops)) sample(f); // warm-up
  const s = Object.fromEntries(Object.keys(ops).map((k) => [k, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? ["After", "Before"] : ["Before", "After"];
    for (const mode of ["default", "bigint", "noCodegen"]) for (const w of order) s[mode + w].push(sample(ops[mode + w]));
    s.msgpackr.push(sample(ops.msgpackr));
  }
  const m = Object.fromEntries(Object.entries(s).map(([k, xs]) => [k, median(xs)]));
  const row = { name, bytes: bytes.length, msgpackrBytes: mb.length, samples: s, medians: m };
  const parts = [];
  for (const mode of ["default", "bigint", "noCodegen"]) {
    row[mode] = { afterOverBefore: m[mode + "After"] / m[mode + "Before"], afterOverMsgpackr: m[mode + "After"] / m.msgpackr, beforeOverMsgpackr: m[mode + "Before"] / m.msgpackr };
    parts.push(`${mode} ${row[mode].afterOverBefore.toFixed(2)} (÷ msgpackr ${row[mode].afterOverMsgpackr.toFixed(2)}, before ${row[mode].beforeOverMsgpackr.toFixed(2)})`);
  }
  out.datasets.push(row);
  console.log(`${name.padEnd(24)} ${parts.join("  ")}`);
}
if (argAt("--json")) writeFileSync(argAt("--json"), JSON.stringify(out, null, 1) + "\n");
