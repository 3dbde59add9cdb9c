// A/B of two builds' default decode where V8's allocation-site pretenuring decides (issue 23): each measurement is a
// fresh Node process (pretenuring is process state: new-space size, sites' survival), alternating the builds
// (A B B A …), so that both see the same machine load; within a process the files are decoded in the order given
// (a file decoded first grows the new space, as in a long-running server), and msgpackr's unpack is timed in the
// same interleaved rounds. Reports, per configuration, build and file, the median over processes of each process's
// median decode time.
//   node bench/pretenuring_ab.mjs DIST_A DIST_B [--procs 6] [--rounds 7] [--out raw.json]
//     [--config "NODE_FLAGS|file,file" …]   (default: the four configurations below)
//   --trace: also runs each configuration once per build with --trace-pretenuring(-statistics) and counts the sites switched
//   to "tenure" (every site in the process: the loader's and msgpackr's too).
// Under load, instruction counts instead (the collector's work included with --single-threaded):
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null node --single-threaded [--min-semi-space-size=16] \
//     bench/pretenuring_ab.mjs --child DIST FILE --calls N [--msgpackr]
// decodes FILE N times (msgpackr's unpack instead with --msgpackr) after the same start (first decodes kept across a scavenge); one decode's instructions are
// (I(N2) - I(N1)) / (N2 - N1) over two runs.
// DIST is a build of ts/ (its dist directory); files are vega-datasets names, or sp500-2019.csv (the CLI's stock rows).
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { Packr } from "msgpackr";
import { loadFile } from "./data.mjs";

const argv = process.argv.slice(2);
const opt = (name, d) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : d; };
const med = (a) => { const s = [...a].sort((x, y) => x - y), h = s.length >> 1; return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2; };

if (argv[0] === "--child") {
  // One process: the build at argv[1], the files at argv[2] (comma-separated), in that order.
  const { encode, decode } = await import(resolve(argv[1], "index.js"));
  const rounds = +opt("--rounds", 7);
  const p = new Packr();
  const out = {};
  const time = (g, x, n) => { const t = process.hrtime.bigint(); for (let i = 0; i < n; i++) g(x); return Number(process.hrtime.bigint() - t) / 1e6 / n; };
  for (const f of argv[2].split(",")) {
    const v = loadFile(f), b = encode(v), m = p.pack(v);
    // The first decodes (unoptimised code, whose allocations carry mementos) kept while the program does other
    // work, as a server keeps a request's value, and as bench.mjs keeps it for its round-trip check: a scavenge
    // then finds them alive, which is what V8's pretenuring decision counts.
    const back = [decode(b), p.unpack(m)];
    if (!isDeepStrictEqual(back[0], v) || !isDeepStrictEqual(back[1], v)) throw new Error("round trip differs: " + f);
    const ring = new Array(256);
    for (let i = 0; i < 1 << 20; i++) ring[i & 255] = [i, i + 1, i + 2]; // about 40 MB of short-lived arrays
    if (ring.length === 0) console.log(back.length);
    const xbf = (y) => decode(y), mp = (y) => p.unpack(y);
    const calls = opt("--calls");
    if (calls !== undefined) {
      // Instruction counts (under callgrind): this many decodes of the build's, no clock (see the header).
      let sink = 0;
      if (argv.includes("--msgpackr")) for (let i = 0; i < +calls; i++) sink += mp(m).length;
      else for (let i = 0; i < +calls; i++) sink += xbf(b).length;
      out[f] = { calls: +calls, sink };
      continue;
    }
    for (const t0 = Date.now(); Date.now() - t0 < 300;) { xbf(b); mp(m); }
    const n = Math.max(5, Math.round(20 / Math.max(0.001, time(xbf, b, 5))));
    const s = { xbf: [], msgpackr: [] };
    for (let r = 0; r < rounds; r++) {
      if (r % 2) { s.msgpackr.push(time(mp, m, n)); s.xbf.push(time(xbf, b, n)); }
      else { s.xbf.push(time(xbf, b, n)); s.msgpackr.push(time(mp, m, n)); }
    }
    out[f] = { xbf: med(s.xbf), msgpackr: med(s.msgpackr) };
  }
  console.log(JSON.stringify(out));
} else {
  const [A, B] = [resolve(argv[0]), resolve(argv[1])];
  const procs = +opt("--procs", 6), rounds = opt("--rounds", "7");
  const configs = argv.flatMap((a, i) => (a === "--config" ? [argv[i + 1]] : []));
  if (configs.length === 0) configs.push("--min-semi-space-size=16|windvectors.csv", "|cars.json,windvectors.csv", "|windvectors.csv", "|sp500-2019.csv,gapminder.json,jobs.json");
  const self = fileURLToPath(import.meta.url);
  const run = (flags, dist, files) => execFileSync(process.execPath, [...flags, self, "--child", dist, files, "--rounds", rounds], { encoding: "utf8", maxBuffer: 1 << 28 });
  const result = { A, B, procs, rounds: +rounds, node: process.version, date: new Date().toISOString(), configs: {} };
  for (const c of configs) {
    const [f, files] = c.split("|");
    const flags = f.split(" ").filter((x) => x);
    const per = { A: [], B: [] };
    for (let k = 0; k < procs; k++) for (const w of k % 2 ? ["B", "A"] : ["A", "B"]) per[w].push(JSON.parse(run(flags, w === "A" ? A : B, files).trim().split("\n").pop()));
    const summary = {};
    for (const file of files.split(",")) {
      const g = (w, key) => med(per[w].map((x) => x[file][key]));
      summary[file] = { A: g("A", "xbf"), B: g("B", "xbf"), msgpackrInA: g("A", "msgpackr"), msgpackrInB: g("B", "msgpackr") };
      summary[file].bOverA = summary[file].B / summary[file].A;
      const s = summary[file];
      console.log(c.padEnd(48), file.padEnd(16), "A", s.A.toFixed(3), "B", s.B.toFixed(3), "B/A", s.bOverA.toFixed(3), "msgpackr", s.msgpackrInA.toFixed(3), s.msgpackrInB.toFixed(3));
    }
    const entry = { summary, processes: per };
    if (argv.includes("--trace")) {
      entry.tenured = {};
      for (const w of ["A", "B"]) {
        const text = run(["--trace-pretenuring", "--trace-pretenuring-statistics", ...flags], w === "A" ? A : B, files);
        entry.tenured[w] = text.split("\n").filter((l) => /=> tenure$/.test(l) && !/tenure => tenure/.test(l)).length;
      }
      console.log(c.padEnd(48), "sites switched to tenure: A", entry.tenured.A, "B", entry.tenured.B);
    }
    result.configs[c] = entry;
  }
  const out = opt("--out");
  if (out) writeFileSync(out, JSON.stringify(result, null, 1) + "\n");
}
