// Instruction counts (or a --cpu-prof profile) of one decoder on one file, repeatable under load: run under callgrind as
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null node --single-threaded bench/callgrind_decode.mjs DIST FILE N [xbf|msgpackr]
// It loads the build in DIST (a dist directory) and the file (a vega-datasets name: .json, or .csv read as bench.mjs
// reads it; a path ending in sp500-2019.csv is the stock rows), encodes it once (the build's default encode, or
// msgpackr's Packr with its defaults, as bench.mjs), then decodes it N times. The instructions of one decode are
// (I(N2) - I(N1)) / (N2 - N1) over two runs, which cancels node's start-up, the loading and the encode.
// INT64=bigint decodes with { int64: "bigint" } (msgpackr's unpack keeps its defaults).
import { resolve } from "node:path";
import { Packr } from "msgpackr";
import { loadFile } from "./data.mjs";

const [dist, file, n, who = "xbf"] = process.argv.slice(2);
const data = loadFile(file);
let dec;
if (who === "msgpackr") {
  const p = new Packr(), m = p.pack(data);
  dec = () => p.unpack(m);
} else {
  const { encode, decode } = await import(resolve(dist, "index.js"));
  const b = encode(data), opts = process.env.INT64 === "bigint" ? { int64: "bigint" } : undefined;
  dec = () => decode(b, opts);
}
let sink = 0;
for (let i = 0; i < +n; i++) sink += dec().length;
if (sink !== +n * data.length) throw new Error("wrong length");
