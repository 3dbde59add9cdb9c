// Instruction counts (or a --cpu-prof profile) of one decoder on one file, repeatable under load: run under callgrind as
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null node --single-threaded bench/callgrind_decode.mjs DIST FILE N [xbf|msgpackr]
// It loads the build in DIST (a dist directory) and the file (a vega-datasets name: .json, or .csv read as bench.mjs
// reads it; a path ending in sp500-2019.csv is the stock rows), encodes it once (the build's default encode, or
// msgpackr's Packr with its defaults, as bench.mjs), then decodes it N times. The instructions of one decode are
// (I(N2) - I(N1)) / (N2 - N1) over two runs, which cancels node's start-up, the loading and the encode.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Packr } from "msgpackr";

const [dist, file, n, who = "xbf"] = process.argv.slice(2);
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const vega = process.env.VEGA_DATA ?? join(repo, "target/data/vega-datasets");
function csvRecords(text) {
  const [head, ...lines] = text.trim().split(/\r?\n/);
  const keys = head.split(",");
  return lines.map((l) => Object.fromEntries(l.split(",").map((c, i) => [keys[i], c !== "" && !Number.isNaN(Number(c)) ? Number(c) : c])));
}
const path = file.endsWith("sp500-2019.csv") ? join(repo, "crates/xbf-cli/data/sp500-2019.csv") : join(vega, file);
const text = readFileSync(path, "utf8");
const data = file.endsWith(".csv") ? csvRecords(text) : JSON.parse(text);
let dec;
if (who === "msgpackr") {
  const p = new Packr(), m = p.pack(data);
  dec = () => p.unpack(m);
} else {
  const { encode, decode } = await import(resolve(dist, "index.js"));
  const b = encode(data);
  dec = () => decode(b);
}
let sink = 0;
for (let i = 0; i < +n; i++) sink += dec().length;
if (sink !== +n * data.length) throw new Error("wrong length");
