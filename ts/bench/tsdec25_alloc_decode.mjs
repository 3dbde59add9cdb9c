// Bytes allocated by one default decode, and where (alloc_encode.mjs for decode; INT64=bigint decodes with
// { int64: "bigint" }):
//   node bench/tsdec25_alloc_decode.mjs DIST FILE [N]
// Sampled: repeat runs agree to a few per cent.
import { Session } from "node:inspector/promises";
import { resolve } from "node:path";
import { loadFile } from "./data.mjs";

const [dist, file, iters = "100"] = process.argv.slice(2);
const data = loadFile(file);
const { encode, decode } = await import(resolve(dist, "index.js"));
const bytes = encode(data), opts = process.env.INT64 === "bigint" ? { int64: "bigint" } : undefined;
for (let i = 0; i < 200; i++) decode(bytes, opts);
const s = new Session();
s.connect();
await s.post("HeapProfiler.startSampling", { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
for (let i = 0; i < +iters; i++) decode(bytes, opts);
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
console.log(file, "bytes per decode", Math.round(total / +iters));
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log((100 * v / total).toFixed(1).padStart(5), String(Math.round(v / +iters)).padStart(9), k);
