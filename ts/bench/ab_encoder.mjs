// A reused Encoder against the default encode, of two builds in one process: per file, each build's `encode(value)`
// and one `Encoder` per build kept across its calls (as bench.mjs's "XBF Encoder + Decoder (reused)"), after a
// check that all four write the same bytes; interleaved rounds (order rotating), medians of ms a call.
//   node bench/ab_encoder.mjs DIST_A DIST_B FILE... (vega-datasets file names, or sp500-2019.csv; ROUNDS=9, OUT=raw.json)
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { loadFile } from "./data.mjs";
const [A, B] = [process.argv[2], process.argv[3]];
const files = process.argv.slice(4);
const ia = await import(`${resolve(A)}/index.js`), ib = await import(`${resolve(B)}/index.js`);
const ROUNDS = Number(process.env.ROUNDS ?? 9);
const te = new TextEncoder();
const results = { a: A, b: B, rounds: ROUNDS, files: {} };
for (const f of files) {
  const v = loadFile(f);
  const ea = new ia.Encoder(), eb = new ib.Encoder();
  const cands = {
    "A encode": () => ia.encode(v), "B encode": () => ib.encode(v),
    "A Encoder": () => ea.encode(v), "B Encoder": () => eb.encode(v),
    "JSON + UTF-8": () => te.encode(JSON.stringify(v)),
  };
  const ref = Buffer.from(ia.encode(v));
  for (const [k, c] of Object.entries(cands)) if (k !== "JSON + UTF-8" && Buffer.compare(ref, Buffer.from(c())) !== 0) throw new Error(`${f}: ${k} writes other bytes`);
  const names = Object.keys(cands);
  // Calls a sample: about 40 ms of the slowest, after 200 ms of warm-up each.
  for (const k of names) { const t0 = performance.now(); while (performance.now() - t0 < 200) cands[k](); }
  let per = 0;
  for (const k of names) { const t0 = performance.now(); cands[k](); per = Math.max(per, performance.now() - t0); }
  const reps = Math.max(1, Math.round(40 / Math.max(per, 0.001)));
  const times = Object.fromEntries(names.map((k) => [k, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length]);
    for (const k of order) { const t0 = performance.now(); for (let i = 0; i < reps; i++) cands[k](); times[k].push((performance.now() - t0) / reps); }
  }
  const med = (xs) => { const s = [...xs].sort((x, y) => x - y); return s[s.length >> 1]; };
  results.files[f] = { reps, times, medians: Object.fromEntries(names.map((k) => [k, med(times[k])])) };
  console.log(f, JSON.stringify(results.files[f].medians, (_, x) => (typeof x === "number" ? Number(x.toPrecision(4)) : x)));
}
if (process.env.OUT) writeFileSync(process.env.OUT, JSON.stringify(results, null, 1));
