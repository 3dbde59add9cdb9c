// Where the default encode of one file spends its time, by function (V8's sampling CPU profiler through the
// inspector, self time and time under each function):
//   node bench/profile_encode.mjs DIST FILE [SECONDS] [WARM...]
// DIST is a dist directory, FILE a vega-datasets name (.json, or .csv read as bench.mjs reads it; a name ending in
// "#features" takes the GeoJSON's features, as bench.mjs's earthquakes). WARM files (the same kind of names) are
// encoded first, 50 times each, so that the type feedback is the mixed one of a process that encodes several
// kinds of data (as bench.mjs's); then FILE is encoded for SECONDS (3) while sampling every 50 µs.
// Sampled: shares under 1% are noise.
import { resolve } from "node:path";
import { loadFile } from "./data.mjs";
import { sampleProfile } from "./sampling_profile.mjs";

const [dist, file, seconds = "3", ...warm] = process.argv.slice(2);
const load = (f) => (f.endsWith("#features") ? loadFile(f.slice(0, -9)).features : loadFile(f));
const data = load(file);
const { encode } = await import(resolve(dist, "index.js"));
for (const f of warm) { const v = load(f); for (let i = 0; i < 50; i++) encode(v); }
for (let i = 0; i < 200; i++) encode(data);
await sampleProfile(file, seconds, "encode", () => encode(data));
