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
import { resolve } from "node:path";
import { loadFile } from "./data.mjs";
import { sampleProfile } from "./sampling_profile.mjs";

const [dist, file, seconds = "3", ...warm] = process.argv.slice(2);
const load = (f) => (f.endsWith("#features") ? loadFile(f.slice(0, -9)).features : loadFile(f));
const data = process.env.ROWS ? load(file).slice(0, +process.env.ROWS) : load(file);
const { encode, decode } = await import(resolve(dist, "index.js"));
const opts = process.env.INT64 === "bigint" ? { int64: "bigint" } : undefined;
const eo = process.env.LAYOUT ? { layout: process.env.LAYOUT } : undefined;
for (const f of warm) { const b = encode(load(f), eo); for (let i = 0; i < 50; i++) decode(b, opts); }
const bytes = encode(data, eo);
for (let i = 0; i < 200; i++) decode(bytes, opts);
await sampleProfile(file, seconds, "decode", () => decode(bytes, opts));
