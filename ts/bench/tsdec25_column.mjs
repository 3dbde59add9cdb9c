// Instructions of one string column's write (putStringColumn, the default path), repeatable under load: run under
// callgrind as
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null node --single-threaded bench/tsdec25_column.mjs DIST FILE KEY N
// (FILE a vega-datasets name, KEY one of its fields, all strings); the column is written N times, so one write is
// (I(N2) - I(N1)) / (N2 - N1).
import { resolve } from "node:path";
import { loadFile } from "./data.mjs";

const [dist, file, key, n] = process.argv.slice(2);
const values = loadFile(file).map((r) => r[key]);
const { putStringColumn } = await import(resolve(dist, "string_columns.js"));
const { Writer } = await import(resolve(dist, "varint.js"));
let bytes = 0;
for (let i = 0; i < Number(n); i++) { const w = new Writer(); putStringColumn(w, values); bytes += w.finish().length; }
console.log(file, key, n, bytes);
