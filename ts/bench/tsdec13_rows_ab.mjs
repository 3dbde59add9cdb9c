// Rows-layout decode with { int64: "bigint" } of two builds in one process (branch tsdec13: the rows reader's bigints):
// each file encoded with { layout: "rows" }, both builds' values compared, then interleaved rounds of process CPU time,
// medians. Run it twice with A and B swapped.
//   node bench/tsdec13_rows_ab.mjs DIST_A DIST_B FILE... (vega-datasets names, or sp500-2019.csv; OUT=raw.json)
const [A, B, ...files] = process.argv.slice(2);
const { loadFile } = await import("./data.mjs");
const { resolve } = await import("node:path");
const ia = await import(resolve(A, "index.js")), ib = await import(resolve(B, "index.js"));
const out = { A, B, mode: "rows layout, int64 bigint", clock: "cpu", rounds: 11, node: process.version, date: new Date().toISOString(), files: {} };
const big = { int64: "bigint" };
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
const t = (f, n) => { const c = process.cpuUsage(); for (let i = 0; i < n; i++) f(); const d = process.cpuUsage(c); return (d.user + d.system) / 1000 / n; };
for (const f of files) {
  const v = loadFile(f), b = ia.encode(v, { layout: "rows" });
  const show = (x) => JSON.stringify(x, (_, y) => typeof y === "bigint" ? y + "n" : y);
  if (show(ia.decode(b, big)) !== show(ib.decode(b, big))) throw new Error("differ");
  for (let i = 0; i < 300; i++) { ia.decode(b, big); ib.decode(b, big); }
  const n = Math.max(20, Math.round(20 / t(() => ia.decode(b, big), 20)));
  const s = { A: [], B: [] };
  for (let r = 0; r < 11; r++) for (const k of r % 2 ? ["B", "A"] : ["A", "B"]) s[k].push(t(() => (k === "A" ? ia : ib).decode(b, big), n));
  out.files[f] = { A: med(s.A), B: med(s.B), bOverA: med(s.B) / med(s.A), samples: s };
  console.log(f, "A", med(s.A).toFixed(4), "B", med(s.B).toFixed(4), "B/A", (med(s.B) / med(s.A)).toFixed(3));
}
if (process.env.OUT) (await import("node:fs")).writeFileSync(process.env.OUT, JSON.stringify(out, null, 1));
