// Where the default decode of one file spends its time, by function (profile_encode.mjs for decode(bytes): V8's
// sampling CPU profiler through the inspector, self time and time under each function):
//   node bench/profile_decode.mjs DIST FILE [SECONDS] [WARM...]
// INT64=bigint decodes with { int64: "bigint" }; LAYOUT=rows encodes with { layout: "rows" }; ROWS=k takes the first k
// records of FILE (ROWS=1: the fixed cost of a call).
// DIST is a dist directory, FILE a vega-datasets name (.json, or .csv read as bench.mjs reads it; a name ending in
// "#features" takes the GeoJSON's features, as bench.mjs's earthquakes). WARM files (the same kind of names) are
// decoded first, 50 times each, so that the type feedback is the mixed one of a process that encodes several
// kinds of data (as bench.mjs's); then FILE is decoded for SECONDS (3) while sampling every 50 µs.
// Sampled: shares under 1% are noise.
import { Session } from "node:inspector/promises";
import { resolve } from "node:path";
import { loadFile } from "./data.mjs";

const [dist, file, seconds = "3", ...warm] = process.argv.slice(2);
const load = (f) => (f.endsWith("#features") ? loadFile(f.slice(0, -9)).features : loadFile(f));
const data = process.env.ROWS ? load(file).slice(0, +process.env.ROWS) : load(file);
const { encode, decode } = await import(resolve(dist, "index.js"));
const opts = process.env.INT64 === "bigint" ? { int64: "bigint" } : undefined;
const eo = process.env.LAYOUT ? { layout: process.env.LAYOUT } : undefined;
for (const f of warm) { const b = encode(load(f), eo); for (let i = 0; i < 50; i++) decode(b, opts); }
const bytes = encode(data, eo);
for (let i = 0; i < 200; i++) decode(bytes, opts);
const s = new Session();
s.connect();
await s.post("Profiler.enable");
await s.post("Profiler.setSamplingInterval", { interval: 50 });
await s.post("Profiler.start");
let calls = 0;
const end = performance.now() + 1000 * +seconds;
while (performance.now() < end) for (let i = 0; i < 20; i++, calls++) decode(bytes, opts);
const { profile } = await s.post("Profiler.stop");
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const counts = new Map();
for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
const name = (n) => `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber + 1}`;
const self = new Map(), total = new Map();
let all = 0;
// Inclusive time counts a function once per sample even when it recurses (the names on the stack as a set).
const walk = (n, stack) => {
  const k = name(n), c = counts.get(n.id) ?? 0;
  all += c;
  self.set(k, (self.get(k) ?? 0) + c);
  const inner = stack.has(k) ? stack : new Set(stack).add(k);
  for (const key of inner) total.set(key, (total.get(key) ?? 0) + c);
  // (children's samples reach `total` as they are walked)
  for (const ch of n.children ?? []) walk(byId.get(ch), inner);
};
walk(byId.get(profile.nodes[0].id), new Set());
const decodeKey = [...total.keys()].find((k) => k.startsWith("decode index.js") || k.startsWith("decode codec.js"));
const base = total.get(decodeKey) ?? all;
console.log(`${file}: ${calls} calls, ${(1000 * +seconds / calls).toFixed(4)} ms a call; shares of the samples under decode (${base})`);
const top = (m, n) => [...m].filter(([k]) => !k.startsWith("(root)") && !k.startsWith("(program)") && !k.startsWith("(idle)")).sort((a, b) => b[1] - a[1]).slice(0, n);
console.log("self:");
for (const [k, v] of top(self, 30)) console.log((100 * v / base).toFixed(1).padStart(6), k);
console.log("total (self and callees):");
for (const [k, v] of top(total, 30)) console.log((100 * v / base).toFixed(1).padStart(6), k);
// LINES=name: the samples of the functions of that name by line of their file (V8's position ticks).
if (process.env.LINES) {
  const lines = new Map();
  for (const n of profile.nodes) {
    if (n.callFrame.functionName !== process.env.LINES) continue;
    for (const p of n.positionTicks ?? []) { const k = `${n.callFrame.url.split("/").pop()}:${p.line}`; lines.set(k, (lines.get(k) ?? 0) + p.ticks); }
  }
  console.log(`${process.env.LINES} by line:`);
  for (const [k, v] of [...lines].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log((100 * v / base).toFixed(1).padStart(6), k);
}
