// Instructions of one decode of sp500 restricted to some of its fields (which column kinds cost what, against
// msgpackr on the same records), under callgrind as callgrind_decode.mjs:
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null node --single-threaded bench/decode_fields.mjs DIST N FIELDS [xbf|msgpackr]
// FIELDS is a comma list of sp500's columns (date,open,high,low,close,adjclose,volume); one decode is
// (I(N2) - I(N1)) / (N2 - N1). INT64=bigint decodes with { int64: "bigint" }; ROWS=k takes the first k records.
import { resolve } from "node:path";
import { Packr } from "msgpackr";
import { loadFile } from "./data.mjs";
const [dist, n, fields, who = "xbf"] = process.argv.slice(2);
const ks = fields.split(",");
// "zero" is a field that is 0 in every record (the cost of the records themselves).
const data = loadFile("sp500-2019.csv").slice(0, +(process.env.ROWS ?? 252)).map((r) => Object.fromEntries(ks.map((k) => [k, k === "zero" ? 0 : r[k]])));
let dec;
if (who === "msgpackr") { const p = new Packr(), m = p.pack(data); dec = () => p.unpack(m); }
else {
  const { encode, decode } = await import(resolve(dist, "index.js"));
  const b = encode(data), o = process.env.INT64 === "bigint" ? { int64: "bigint" } : undefined;
  dec = () => decode(b, o);
}
let s = 0;
for (let i = 0; i < +n; i++) s += dec().length;
if (s !== +n * data.length) throw new Error("wrong length");
