// Bytes one decode allocates (new space and new large-object space used after the call less before it, right
// after a full collection: the median of 7), for this package's decode (default and int64: "bigint") and msgpackr's
// unpack, on each FILE (vega-datasets names, as bench.mjs reads them):
//   node --expose-gc bench/tsdec25_decode_bytes.mjs DIST FILE...
import v8 from "node:v8";
import { resolve } from "node:path";
import { Packr } from "msgpackr";
import { loadFile } from "./data.mjs";
const [dist, ...files] = process.argv.slice(2);
const { encode, decode } = await import(resolve(dist, "index.js"));
const sp = () => Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]));
for (const f of files) {
  const v = loadFile(f), b = encode(v), p = new Packr(), m = p.pack(v);
  for (const [name, call] of [["xbf", () => decode(b)], ["xbf-bigint", () => decode(b, { int64: "bigint" })], ["msgpackr", () => p.unpack(m)]]) {
    for (let i = 0; i < 300; i++) call();
    const res = [];
    for (let k = 0; k < 7; k++) { gc(); const a = sp(); call(); const c = sp(); res.push(c.new_space - a.new_space + c.new_large_object_space - a.new_large_object_space); }
    res.sort((x, y) => x - y);
    console.log(f.padEnd(22), name.padEnd(11), "bytes allocated", res[3]);
  }
}
