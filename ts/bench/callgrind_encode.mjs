// Instruction counts of the default encode, repeatable under load: run under callgrind as
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null node --single-threaded bench/callgrind_encode.mjs DIST FILE N
// It loads the build in DIST (a dist directory) and the file (a vega-datasets name: .json, or .csv read as
// bench.mjs reads it), then encodes it N times. The instructions of one encode are (I(N2) - I(N1)) / (N2 - N1)
// over two runs, which cancels node's start-up and the loading (as ts/bench/callgrind-tsenc3.json was measured).
// ENCODER=1: one Encoder kept across the N calls instead (its first call infers, as encode does: cancelled too).
// A FILE ending in "#features" is the GeoJSON's features (as bench.mjs's earthquakes). SLICE=k: its first k records
// only (the per-call and per-column costs, which small tables pay on few values).
// JSON=1: JSON.stringify and its UTF-8 encoding instead (the bar issue 23 sets), counted the same way.
// NOCODEGEN=1: every call without new Function (as bench.mjs's "XBF without new Function" row: setCodegen(false)).
import { resolve } from "node:path";
import { loadFile } from "./data.mjs";

const [dist, file, n] = process.argv.slice(2);
const all = file.endsWith("#features") ? loadFile(file.slice(0, -9)).features : loadFile(file);
const data = process.env.SLICE ? all.slice(0, Number(process.env.SLICE)) : all;
const { encode, Encoder } = await import(resolve(dist, "index.js"));
const enc = process.env.ENCODER ? new Encoder() : null;
if (process.env.NOCODEGEN) (await import(resolve(dist, "fast.js"))).setCodegen(false);
const utf8 = new TextEncoder();
let bytes = 0;
if (process.env.JSON) for (let i = 0; i < Number(n); i++) bytes += utf8.encode(JSON.stringify(data)).length;
else for (let i = 0; i < Number(n); i++) bytes += (enc ? enc.encode(data) : encode(data)).length;
console.log(file, n, bytes);
