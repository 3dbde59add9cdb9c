// Decode time of one build per process after other files (branch tsdec13, issue 23's load-order effect): each child
// loads one build, warms every file in the order given as bench/ab_builds.mjs does (3 passes of 300 decodes each,
// msgpackr's unpack alongside), then times each file's decode (process CPU time, median of ROUNDS samples, msgpackr's
// unpack interleaved). The parent runs PROCS children per build, alternating A B B A …, and reports the medians over
// processes.
//   node bench/tsdec13_order_ab.mjs DIST_A DIST_B FILE,FILE… [FILE,FILE… …]   (PROCS=4, ROUNDS=7, MODE=bigint, OUT=raw.json)
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Packr } from "msgpackr";
import { loadFile } from "./data.mjs";

const med = (a) => { const s = [...a].sort((x, y) => x - y), h = s.length >> 1; return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2; };
const argv = process.argv.slice(2);
if (argv[0] === "--child") {
  const { encode, decode } = await import(resolve(argv[1], "index.js"));
  const opts = process.env.MODE === "bigint" ? { int64: "bigint" } : undefined, p = new Packr();
  const data = argv[2].split(",").map((f) => { const v = loadFile(f); return { f, b: encode(v), m: p.pack(v) }; });
  for (let w = 0; w < 3; w++) for (const d of data) for (let i = 0; i < 300; i++) { decode(d.b, opts); p.unpack(d.m); }
  const time = (g, n) => { const c = process.cpuUsage(); for (let i = 0; i < n; i++) g(); const d = process.cpuUsage(c); return (d.user + d.system) / 1000 / n; };
  const out = {};
  for (const d of data) {
    const n = Math.max(20, Math.round(10 / Math.max(0.001, time(() => decode(d.b, opts), 20))));
    const s = { xbf: [], msgpackr: [] };
    for (let r = 0; r < +(process.env.ROUNDS ?? 7); r++) {
      s.xbf.push(time(() => decode(d.b, opts), n));
      s.msgpackr.push(time(() => p.unpack(d.m), n));
    }
    out[d.f] = { xbf: med(s.xbf), msgpackr: med(s.msgpackr) };
  }
  console.log(JSON.stringify(out));
} else {
  const [A, B] = [resolve(argv[0]), resolve(argv[1])], self = fileURLToPath(import.meta.url);
  const procs = +(process.env.PROCS ?? 4), result = { A, B, procs, mode: process.env.MODE ?? "default", clock: "cpu", node: process.version, date: new Date().toISOString(), configs: {} };
  for (const files of argv.slice(2)) {
    const per = { A: [], B: [] };
    for (let k = 0; k < procs; k++) for (const w of k % 2 ? ["B", "A"] : ["A", "B"])
      per[w].push(JSON.parse(execFileSync(process.execPath, [self, "--child", w === "A" ? A : B, files], { encoding: "utf8", maxBuffer: 1 << 26 }).trim().split("\n").pop()));
    const summary = {};
    for (const f of files.split(",")) {
      const s = { A: med(per.A.map((x) => x[f].xbf)), B: med(per.B.map((x) => x[f].xbf)), msgpackrA: med(per.A.map((x) => x[f].msgpackr)), msgpackrB: med(per.B.map((x) => x[f].msgpackr)) };
      summary[f] = { ...s, bOverA: s.B / s.A, aOverMsgpackr: s.A / s.msgpackrA, bOverMsgpackr: s.B / s.msgpackrB, samples: { A: per.A.map((x) => x[f]), B: per.B.map((x) => x[f]) } };
      console.log(files.padEnd(40).slice(0, 40), f.padEnd(22), "A", s.A.toFixed(4), "B", s.B.toFixed(4), "B/A", (s.B / s.A).toFixed(3), "A/mp", (s.A / s.msgpackrA).toFixed(2), "B/mp", (s.B / s.msgpackrB).toFixed(2));
    }
    result.configs[files] = summary;
  }
  if (process.env.OUT) writeFileSync(process.env.OUT, JSON.stringify(result, null, 1));
}
