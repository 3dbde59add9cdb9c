// Instructions of one default encode (or decode) of FILE after the calls a process encoding many shapes makes first,
// repeatable under load: run under callgrind as
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null node --single-threaded bench/tsdec25_mixed.mjs DIST FILE N
// MIX (a comma list; empty: FILE alone, as callgrind_encode.mjs):
//   files   - first the default encode and decode of the WARM files (bench.mjs's datasets before FILE by default), 30 each;
//   modes   - first bench.mjs's other XBF calls on FILE and the WARM files (reused Encoder/Decoder, int64 bigint,
//             without new Function, rows and columns forced), 10 each;
//   peers   - first JSON, msgpackr and cbor-x on FILE, 10 each (their garbage and code in the heap).
// OP=decode measures decode(bytes) instead. The instructions of one call are (I(N2) - I(N1)) / (N2 - N1).
import { resolve } from "node:path";
import { Packr } from "msgpackr";
import { Encoder as CborEncoder } from "cbor-x";
import { loadFile } from "./data.mjs";

const [dist, file, n] = process.argv.slice(2);
const load = (f) => (f.endsWith("#features") ? loadFile(f.slice(0, -9)).features : loadFile(f));
const mix = (process.env.MIX ?? "").split(",").filter(Boolean);
const order = ["sp500-2019.csv", "flights-20k.json", "movies.json", "earthquakes.json#features", "football.json", "jobs.json", "political-contributions.json", "income.json", "gapminder.json"];
const warmFiles = process.env.WARM ? process.env.WARM.split(",") : order.slice(0, Math.max(0, order.indexOf(file)));
const { encode, decode, Encoder, Decoder } = await import(resolve(dist, "index.js"));
const { setCodegen } = await import(resolve(dist, "fast.js"));
const data = load(file);
const others = warmFiles.map(load);
if (mix.includes("files")) for (const v of others) { const b = encode(v); for (let i = 0; i < 30; i++) { encode(v); decode(b); } }
if (mix.includes("modes")) for (const v of [...others, data]) {
  const e = new Encoder(), d = new Decoder(), b = encode(v);
  for (let i = 0; i < 10; i++) {
    e.encode(v); d.decode(b); decode(b, { int64: "bigint" });
    setCodegen(false); try { encode(v); decode(b); } finally { setCodegen(undefined); }
    decode(encode(v, { layout: "rows" })); encode(v, { layout: "columns" });
  }
}
if (mix.includes("peers")) {
  const p = new Packr(), c = new CborEncoder(), te = new TextEncoder();
  for (let i = 0; i < 10; i++) { JSON.parse(JSON.stringify(data)); te.encode(JSON.stringify(data)); p.unpack(p.pack(data)); c.decode(c.encode(data)); }
}
const b = encode(data);
let sink = 0;
if (process.env.OP === "decode") for (let i = 0; i < Number(n); i++) sink += decode(b).length;
else for (let i = 0; i < Number(n); i++) sink += encode(data).length;
console.log(file, n, mix.join("+") || "alone", sink);
