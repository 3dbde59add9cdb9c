// Instruction counts of the default encode, repeatable under load: run under callgrind as
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null node --single-threaded bench/callgrind_encode.mjs DIST FILE N
// It loads the build in DIST (a dist directory) and the file (a vega-datasets name: .json, or .csv read as
// bench.mjs reads it), then encodes it N times. The instructions of one encode are (I(N2) - I(N1)) / (N2 - N1)
// over two runs, which cancels node's start-up and the loading (as ts/bench/callgrind-tsenc3.json was measured).
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const [dist, file, n] = process.argv.slice(2);
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const vega = process.env.VEGA_DATA ?? join(repo, "target/data/vega-datasets");
function csvRecords(text) {
  const [head, ...lines] = text.trim().split(/\r?\n/);
  const keys = head.split(",");
  return lines.map((l) => Object.fromEntries(l.split(",").map((c, i) => [keys[i], c !== "" && !Number.isNaN(Number(c)) ? Number(c) : c])));
}
const text = readFileSync(join(vega, file), "utf8");
const data = file.endsWith(".csv") ? csvRecords(text) : JSON.parse(text);
const { encode } = await import(resolve(dist, "index.js"));
let bytes = 0;
for (let i = 0; i < Number(n); i++) bytes += encode(data).length;
console.log(file, n, bytes);
