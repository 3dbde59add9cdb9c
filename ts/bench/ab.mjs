// Before/after of this package's default encode and decode against another build of it, in one process: per
// dataset, CPU-time samples of each build in alternating order (a build that always runs first or second is
// favoured or hurt by the collector's debts and the JIT), medians of the rounds. Bytes are checked to be equal.
//   npm run build && node bench/ab.mjs --before DIST [--held-out] [--only NAME,...] [--rounds N] [--json PATH]
// Each round also samples msgpackr's unpack (a Packr with its defaults, as bench.mjs) of its own bytes, giving
// decode after ÷ msgpackr (issue 23's bar) from the same run.
// DIST is the other build's dist directory (e.g. main's ts/ built in a temp dir). Prints one line per dataset;
// --json writes every sample. Timing is not asserted anywhere.
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadavg } from "node:os";
import * as after from "../dist/index.js";
import { Packr } from "msgpackr";
import { csvRecords } from "./data.mjs";

const here = dirname(fileURLToPath(import.meta.url)), repo = resolve(here, "../..");
const argAt = (name) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : undefined; };
if (!argAt("--before")) throw new Error("--before DIST is required");
const before = await import(resolve(argAt("--before"), "index.js"));
const ROUNDS = Number(argAt("--rounds") ?? 11), SAMPLE_MS = 60;
const vega = process.env.VEGA_DATA ?? join(repo, "target/data/vega-datasets");
const load = (f) => (f.endsWith(".csv") ? csvRecords(readFileSync(join(vega, f), "utf8")) : JSON.parse(readFileSync(join(vega, f), "utf8")));
// The same datasets as bench.mjs (and its --held-out list).
const only = argAt("--only"); // a comma-separated list of names (substrings) to run alone
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
const out = { loadavg: loadavg(), node: process.version, date: new Date().toISOString(), before: argAt("--before"), rounds: ROUNDS, sampleMs: SAMPLE_MS, datasets: [] };
console.log(`load ${out.loadavg.map((x) => x.toFixed(1)).join(" ")}; after ÷ before, CPU time, medians of ${ROUNDS} alternating rounds`);
for (const [name, get] of datasets) {
  if (!existsSync(vega) && name !== datasets[0][0]) continue;
  const data = get();
  const ba = after.encode(data), bb = before.encode(data);
  if (Buffer.compare(Buffer.from(ba), Buffer.from(bb)) !== 0) console.log(`${name}: bytes differ (${ba.length} after, ${bb.length} before)`);
  const packr = new Packr(), mb = packr.pack(data);
  const ops = { encodeAfter: () => after.encode(data), encodeBefore: () => before.encode(data), decodeAfter: () => after.decode(ba), decodeBefore: () => before.decode(ba), decodeMsgpackr: () => packr.unpack(mb) };
  for (const f of Object.values(ops)) sample(f); // warm-up
  const s = { encodeAfter: [], encodeBefore: [], decodeAfter: [], decodeBefore: [], decodeMsgpackr: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? ["After", "Before"] : ["Before", "After"];
    for (const op of ["encode", "decode"]) for (const w of order) s[op + w].push(sample(ops[op + w]));
    s.decodeMsgpackr.push(sample(ops.decodeMsgpackr));
  }
  const enc = median(s.encodeAfter) / median(s.encodeBefore), dec = median(s.decodeAfter) / median(s.decodeBefore);
  const vsMsgpackr = median(s.decodeAfter) / median(s.decodeMsgpackr), beforeVsMsgpackr = median(s.decodeBefore) / median(s.decodeMsgpackr);
  out.datasets.push({ name, bytesAfter: ba.length, bytesBefore: bb.length, samples: s, encodeAfterOverBefore: enc, decodeAfterOverBefore: dec, decodeAfterOverMsgpackr: vsMsgpackr, decodeBeforeOverMsgpackr: beforeVsMsgpackr });
  console.log(`${name.padEnd(26)} bytes ${ba.length} (before ${bb.length})  encode ${enc.toFixed(2)}  decode ${dec.toFixed(2)}  decode ÷ msgpackr ${vsMsgpackr.toFixed(2)} (before ${beforeVsMsgpackr.toFixed(2)})`);
}
if (argAt("--json")) writeFileSync(argAt("--json"), JSON.stringify(out, null, 1) + "\n");
