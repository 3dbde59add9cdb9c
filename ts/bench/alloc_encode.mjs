// Bytes allocated by one default encode, and where (node's sampling heap profiler with the objects that minor and
// major collections freed kept in the profile, so that short-lived garbage counts too):
//   [OP=decode [INT64=bigint]] node bench/alloc_encode.mjs DIST FILE [N]
// DIST is a dist directory, FILE a vega-datasets name (.json, or .csv read as bench.mjs reads it). It encodes the
// file 200 times to warm up, then N times (100) while sampling, and prints the bytes per encode and the functions
// that allocated most (self, by allocation site's function). Sampled: repeat runs agree to a few per cent.
// OP=decode measures one default decode of the file's encoding instead (INT64=bigint: with { int64: "bigint" }).
import { Session } from "node:inspector/promises";
import { resolve } from "node:path";
import { loadFile } from "./data.mjs";

const [dist, file, iters = "100"] = process.argv.slice(2);
const data = loadFile(file);
const { encode, decode } = await import(resolve(dist, "index.js"));
const op = process.env.OP ?? "encode";
const call = op === "decode"
  ? ((bytes, opts) => () => decode(bytes, opts))(encode(data), process.env.INT64 === "bigint" ? { int64: "bigint" } : undefined)
  : () => encode(data);
for (let i = 0; i < 200; i++) call();
const s = new Session();
s.connect();
await s.post("HeapProfiler.startSampling", { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
for (let i = 0; i < +iters; i++) call();
const { profile } = await s.post("HeapProfiler.stopSampling");
const self = new Map();
let total = 0;
const walk = (n) => {
  total += n.selfSize;
  const k = `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber + 1}`;
  self.set(k, (self.get(k) ?? 0) + n.selfSize);
  for (const c of n.children) walk(c);
};
walk(profile.head);
console.log(file, `bytes per ${op}`, Math.round(total / +iters));
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log((100 * v / total).toFixed(1).padStart(5), String(Math.round(v / +iters)).padStart(9), k);
