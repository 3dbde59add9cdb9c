// Instructions of the string writer alone on a table's string columns (callgrind, as callgrind_encode.mjs):
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null node --single-threaded bench/tsenc24_columns.mjs DIST FILE N [PART]
// PART: put (putStringColumn of every string column, default), fused0 (the same with the one-pass path off),
// infer (inferType of the records), encode (the default encode); NOFUSED=1 turns the one-pass string path off,
// NOGATHER=1 inference's gathering (for encode).
import { resolve } from "node:path";
import { loadFile } from "./data.mjs";

const [dist, file, n, part = "put"] = process.argv.slice(2);
const data = loadFile(file);
const sc = await import(resolve(dist, "string_columns.js"));
const { Writer } = await import(resolve(dist, "varint.js"));
const { inferType, encode } = await import(resolve(dist, "index.js"));
if (part === "fused0" || process.env.NOFUSED) sc.setFusedStrings(false);
if (process.env.NOGATHER) (await import(resolve(dist, "fast_encode.js"))).setGatheredUse(false);
const keys = Array.isArray(data) ? Object.keys(data[0]).filter((k) => typeof data[0][k] === "string") : [];
const cols = keys.map((k) => data.map((r) => r[k]));
const w = new Writer();
let x = 0;
for (let i = 0; i < Number(n); i++) {
  if (part === "infer") { x += inferType(data).kind.length; continue; }
  if (part === "encode") { x += encode(data).length; continue; }
  w.len = 0;
  for (const c of cols) sc.putStringColumn(w, c);
  x += w.len;
}
console.log(file, n, part, x);
