// Does a file's decode time depend on what the process decoded before? In one process, two separate copies of
// the package (A and B: each its own module instances, so its own type feedback and optimised code) and two of
// msgpackr: A and msgpackr A encode and decode every benchmark and held-out file first (as a full bench.mjs run
// does), B and msgpackr B only the file measured; then the four decode that file in interleaved rounds (rotated
// order, the process's CPU time, medians). "xbf after/alone" > 1 means the package's code is slower for what it
// saw before; "msgpackr after/alone" the same for msgpackr's. One process per file (B must be fresh).
//   node bench/history.mjs [--dist DIST] [--rounds N] [--axis files|modes] [--json PATH] [FILE...]   (FILE: a prefix of the names below)
// Timing is not asserted anywhere.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { execFileSync } from "node:child_process";
import { csvRecords } from "./data.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");
const argv = process.argv.slice(2);
const opt = (k, d) => { const i = argv.indexOf(k); if (i < 0) return d; const v = argv[i + 1]; argv.splice(i, 2); return v; };
const DIST = resolve(opt("--dist", join(here, "../dist")));
const ROUNDS = Number(opt("--rounds", 15));
const JSON_OUT = opt("--json", undefined);
const CHILD = opt("--child", undefined); // internal: the copies' directory, then the file
// --axis modes: A runs every mode on the measured file only and B only the default encode and decode (what the
// other modes leave in the shared code), instead of A every file and B the measured file (what other files leave).
const AXIS = opt("--axis", "files");
const vega = process.env.VEGA_DATA ?? join(repo, "target/data/vega-datasets");
const FILES = ["sp500", "flights-20k.json", "movies.json", "earthquakes.json", "football.json", "jobs.json", "political-contributions.json", "income.json", "gapminder.json",
  "cars.json", "penguins.json", "countries.json", "budgets.json", "normal-2d.json", "birdstrikes.csv", "seattle-weather.csv", "windvectors.csv", "us-employment.csv"];
function load(f) {
  if (f === "sp500") return csvRecords(readFileSync(join(repo, "crates/xbf-cli/data/sp500-2019.csv"), "utf8"));
  const t = readFileSync(join(vega, f), "utf8");
  if (f.endsWith(".csv")) return csvRecords(t);
  return f === "earthquakes.json" ? JSON.parse(t).features : JSON.parse(t);
}
const files = FILES.filter((f) => f === "sp500" || existsSync(join(vega, f)));

if (CHILD) {
  const target = argv[0];
  const imp = (p) => import(pathToFileURL(join(CHILD, p)).href);
  const [A, B, fa, fb, MA, MB] = await Promise.all([imp("xa/index.js"), imp("xb/index.js"), imp("xa/fast.js"), imp("xb/fast.js"), imp("ma/node-index.js"), imp("mb/node-index.js")]);
  const pa = new MA.Packr(), pb = new MB.Packr();
  /** Every mode bench.mjs runs, 10 times: the history a full run gives the package's code (and msgpackr's). */
  const exercise = (x, f, p, v) => {
    const enc = new x.Encoder(), dec = new x.Decoder();
    for (let i = 0; i < 10; i++) {
      const b = x.encode(v);
      x.decode(b); x.decode(b, { int64: "bigint" }); dec.decode(enc.encode(v));
      x.decode(x.encode(v, { layout: "rows" })); x.decode(x.encode(v, { layout: "columns" }));
      f.setCodegen(false); try { x.decode(x.encode(v)); } finally { f.setCodegen(undefined); }
      p.unpack(p.pack(v));
    }
  };
  const v = load(target);
  if (AXIS === "modes") {
    // A: every mode on this file only; B: the default encode and decode only (as bench.mjs's --before build).
    exercise(A, fa, pa, v);
    for (let i = 0; i < 10; i++) { B.decode(B.encode(v)); pb.unpack(pb.pack(v)); }
  } else {
    for (const f of files) exercise(A, fa, pa, load(f));
    exercise(B, fb, pb, v);
  }
  const time = (g, n) => { const c = process.cpuUsage(); for (let i = 0; i < n; i++) g(); const d = process.cpuUsage(c); return (d.user + d.system) / 1000 / n; };
  const med = (a) => { const s = [...a].sort((x, y) => x - y), h = s.length >> 1; return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2; };
  const b = A.encode(v), m = pa.pack(v);
  const fs = { xbfAfterAll: () => A.decode(b), xbfAlone: () => B.decode(b), msgpackrAfterAll: () => pa.unpack(m), msgpackrAlone: () => pb.unpack(m) };
  const ks = Object.keys(fs);
  const end = performance.now() + 300;
  while (performance.now() < end) for (const k of ks) fs[k]();
  const n = Math.max(10, Math.round(20 / Math.max(0.001, time(fs.xbfAlone, 10))));
  const s = Object.fromEntries(ks.map((k) => [k, []]));
  for (let r = 0; r < ROUNDS; r++) for (let k = 0; k < ks.length; k++) { const key = ks[(k + r) % ks.length]; s[key].push(time(fs[key], n)); }
  const M = Object.fromEntries(ks.map((k) => [k, med(s[k])]));
  process.stdout.write(JSON.stringify({ medians: M, callsPerSample: n, samples: s }));
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "xbf-history-"));
const mp = join(here, "../node_modules/msgpackr"); // the package directory, copied whole
for (const k of ["xa", "xb"]) cpSync(DIST, join(dir, k), { recursive: true });
for (const k of ["ma", "mb"]) cpSync(mp, join(dir, k), { recursive: true });
const targets = argv.length ? files.filter((f) => argv.some((a) => f.startsWith(a))) : files;
const out = { axis: AXIS, dist: DIST, node: process.version, date: new Date().toISOString(), rounds: ROUNDS, clock: "process CPU time", files: {} };
console.log("file".padEnd(30), "xbf after/alone", "msgpackr after/alone", "xbf/mp after-all", "xbf/mp alone");
try {
  for (const f of targets) {
    const r = JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--rounds", String(ROUNDS), "--axis", AXIS, "--child", dir, f], { encoding: "utf8", maxBuffer: 1 << 26 }));
    const M = r.medians;
    out.files[f] = { ...r, xbfAfterOverAlone: M.xbfAfterAll / M.xbfAlone, msgpackrAfterOverAlone: M.msgpackrAfterAll / M.msgpackrAlone,
      xbfOverMsgpackrAfterAll: M.xbfAfterAll / M.msgpackrAfterAll, xbfOverMsgpackrAlone: M.xbfAlone / M.msgpackrAlone };
    const o = out.files[f];
    console.log(f.padEnd(30), o.xbfAfterOverAlone.toFixed(3).padStart(15), o.msgpackrAfterOverAlone.toFixed(3).padStart(20), o.xbfOverMsgpackrAfterAll.toFixed(2).padStart(16), o.xbfOverMsgpackrAlone.toFixed(2).padStart(12));
  }
} finally { rmSync(dir, { recursive: true, force: true }); }
if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify(out, null, 1) + "\n");
