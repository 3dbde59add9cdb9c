// Encode and decode of record lists: XBF (this package: its default, auto, and rows and columns forced) against
// JSON.stringify/JSON.parse, @msgpack/msgpack, msgpackr and cbor-x, in one process, rounds interleaved, medians.
//   npm run build && node bench/bench.mjs [--held-out | --held-out-2] [--rounds N] [--ms TARGET_MS_PER_SAMPLE] [--warm-ms MS] [--warm-calls N] [--warm-max-ms MS] [--json PATH] [--markdown PATH] [--before DIST [--before-label TEXT]] [--gc-probe] [--swap I,J] [--codecs "NAME;..."] [--marks] [--only NAME,...]
// --before DIST also runs another build of this package (e.g. main's ts/dist copied to a temp dir) in the same
// run, as "XBF before (default)", for before/after figures.
// --json writes the raw results (every sample, medians, bytes, node version, date, commit); --markdown a table per
// dataset (bytes, bytes / MessagePack, encode and decode median relative to JSON in the same run).
// Data: the stock rows (crates/xbf-cli/data/sp500-2019.csv) and, from scripts/fetch-data.sh
// (target/data/vega-datasets/, or $VEGA_DATA), flights-20k, movies and earthquakes (its GeoJSON features).
// Timing is not asserted anywhere; this prints a table.
// For finding why a codec's row moves (issue 23, tsdec25): --gc-probe prints after the table, per dataset, codec and
// operation, the share of its samples' time in main-thread collections (PerformanceObserver "gc" entries: minor and
// other collections, and the median pause time a sample); --swap I,J exchanges codecs I and J in the rotation (it
// puts codec 0 after the last one's decode: --swap 0,2 exchanges the default encode with "XBF decode, int64:
// bigint"'s, the same call); --codecs "A;B;..." keeps only the codecs of those names (";" apart: names hold
// commas; keep "JSON" and "@msgpack/msgpack", which the table needs).
// --only NAME,... keeps only the datasets whose label starts with one of the names (e.g. --held-out-2 --only population).
// --marks prints a line "#mark dataset NAME" as a dataset starts, "#mark warm NAME | CODEC" before a codec's warm-up
// and calibration, and "#mark rounds NAME" before the timed rounds, on stdout, where node's --trace-opt,
// --trace-deopt and --trace-gc write too: so that a trace of the whole run can be cut at one file or codec (issue 23,
// tsharness31: which deopts fall in population's rounds in the long --held-out-2 process).
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { execFileSync } from "node:child_process";
import { loadavg, cpus } from "node:os";
import { PerformanceObserver } from "node:perf_hooks";
import { encode, decode, Encoder, Decoder } from "../dist/index.js";
import { setCodegen } from "../dist/fast.js";
import * as msgpack from "@msgpack/msgpack";
import { Packr, pack as msgpackrPack, unpack as msgpackrUnpack } from "msgpackr";
import { Encoder as CborEncoder } from "cbor-x";
import { HELD_OUT, HELD_OUT_2, csvRecords } from "./data.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");
const argAt = (name) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : undefined; };
const arg = (name, dflt) => { const v = argAt(name); return v === undefined ? dflt : Number(v); };
// 13 rounds after a warm-up of 200 ms per codec and operation (was 9 after 300 ms: a dataset takes about 8% more
// time; the calibration's 20 ms and the rounds themselves follow the warm-up, and a slow first round is one of 13
// for the median). More samples rather than shorter ones: a sample stays about 40 ms long, so that it includes the
// collections its own calls cause (the median of short samples could leave a codec's collections out, and favour
// the codecs that allocate most).
const ROUNDS = arg("--rounds", 13);
const TARGET_MS = arg("--ms", 40);
const JSON_OUT = argAt("--json");
const MD_OUT = argAt("--markdown");
const BEFORE = argAt("--before");
const BEFORE_LABEL = argAt("--before-label"); // what the other build is, for the markdown
const before = BEFORE ? await import(resolve(BEFORE, "index.js")) : null;
const GC_PROBE = process.argv.includes("--gc-probe");
const MARKS = process.argv.includes("--marks");
/** --gc-probe: each collection's [start, duration, kind], and each sample's [dataset, codec, op, start, end]. */
const gcs = [], spans = [];
if (GC_PROBE) new PerformanceObserver((l) => { for (const e of l.getEntries()) gcs.push([e.startTime, e.duration, e.detail?.kind]); }).observe({ entryTypes: ["gc"] });

// ------------------------------------------------------------------ data
const vega = process.env.VEGA_DATA ?? [join(repo, "target/data/vega-datasets"), "/tmp/vega/package/data"].find((d) => existsSync(join(d, "movies.json")));
const only = argAt("--only")?.split(",");
let datasets = [["stock rows (sp500-2019)", () => csvRecords(readFileSync(join(repo, "crates/xbf-cli/data/sp500-2019.csv"), "utf8"))]];
if (vega) {
  const j = (f) => JSON.parse(readFileSync(join(vega, f), "utf8"));
  datasets.push(["flights-20k", () => j("flights-20k.json")], ["movies", () => j("movies.json")], ["earthquakes (features)", () => j("earthquakes.json").features]);
  // The files issue 23 measured, which the package was not tuned on.
  for (const f of ["football", "jobs", "political-contributions", "income", "gapminder"]) if (existsSync(join(vega, `${f}.json`))) datasets.push([f, () => j(`${f}.json`)]);
} else console.error("vega-datasets not found: run scripts/fetch-data.sh (or set VEGA_DATA); benchmarking the stock rows only");

// --held-out: instead, nine vega-datasets files no one here tuned on (data.mjs's HELD_OUT); --held-out-2: the second
// set (HELD_OUT_2; do not tune on it).
const heldOut = process.argv.includes("--held-out-2") ? HELD_OUT_2 : process.argv.includes("--held-out") ? HELD_OUT : null;
if (heldOut) {
  if (!vega) throw new Error("--held-out needs vega-datasets: run scripts/fetch-data.sh");
  datasets = heldOut.filter((f) => existsSync(join(vega, f))).map((f) => [f, () => {
    const text = readFileSync(join(vega, f), "utf8");
    return f.endsWith(".csv") ? csvRecords(text) : JSON.parse(text);
  }]);
}
if (only) datasets = datasets.filter(([l]) => only.some((o) => l.startsWith(o)));
// ------------------------------------------------------------------ codecs
const packr = new Packr(); // records extension on (structures sent once), msgpackr's default
const packrShared = new Packr({ structures: [] }); // structures kept across calls (not in the message), as a service reusing one Packr
const cbor = new CborEncoder();
let xbfEncoder = new Encoder(), xbfDecoder = new Decoder(); // one each per dataset (below), kept across its calls as a service would keep them
/** f run as on a page whose CSP forbids new Function (the package's closures instead of generated code). */
const noCodegen = (f) => { setCodegen(false); try { return f(); } finally { setCodegen(undefined); } };
const utf8 = new TextEncoder(), fromUtf8 = new TextDecoder();
const codecs = [
  { name: "XBF (default: auto)", enc: (v) => encode(v), dec: (b) => decode(b) },
  { name: "XBF Encoder + Decoder (reused)", enc: (v) => xbfEncoder.encode(v), dec: (b) => xbfDecoder.decode(b) },
  { name: "XBF decode, int64: bigint", enc: (v) => encode(v), dec: (b) => decode(b, { int64: "bigint" }) },
  { name: "XBF without new Function", enc: (v) => noCodegen(() => encode(v)), dec: (b) => noCodegen(() => decode(b)) },
  ...(before ? [{ name: "XBF before (default)", enc: (v) => before.encode(v), dec: (b) => before.decode(b) }] : []),
  { name: "XBF rows", enc: (v) => encode(v, { layout: "rows" }), dec: (b) => decode(b) },
  { name: "XBF columns", enc: (v) => encode(v, { layout: "columns" }), dec: (b) => decode(b) },
  { name: "JSON", enc: (v) => JSON.stringify(v), dec: (s) => JSON.parse(s), size: (s) => Buffer.byteLength(s) },
  { name: "JSON + UTF-8", enc: (v) => utf8.encode(JSON.stringify(v)), dec: (b) => JSON.parse(fromUtf8.decode(b)) },
  { name: "@msgpack/msgpack", enc: (v) => msgpack.encode(v), dec: (b) => msgpack.decode(b) },
  { name: "msgpackr", enc: (v) => packr.pack(v), dec: (b) => packr.unpack(b) },
  { name: "msgpackr pack/unpack", enc: (v) => msgpackrPack(v), dec: (b) => msgpackrUnpack(b) },
  { name: "msgpackr shared structures", enc: (v) => packrShared.pack(v), dec: (b) => packrShared.unpack(b) },
  { name: "cbor-x", enc: (v) => cbor.encode(v), dec: (b) => cbor.decode(b) },
];
if (argAt("--swap")) { const [i, j] = argAt("--swap").split(",").map(Number); [codecs[i], codecs[j]] = [codecs[j], codecs[i]]; }
const keep = argAt("--codecs")?.split(";");
if (keep) codecs.splice(0, codecs.length, ...codecs.filter((c) => keep.includes(c.name)));

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
let sink = 0;
// --clock cpu: the process's CPU time (user + system, all its threads, so the collector's too) instead of the
// wall clock: on a shared, loaded machine a process waiting for a core does not count.
const CLOCK = argAt("--clock") ?? "wall";
function time(f, x, n) {
  if (CLOCK === "cpu") {
    const c = process.cpuUsage();
    for (let i = 0; i < n; i++) { const r = f(x); sink ^= typeof r === "string" ? r.length : (r.length ?? 1); }
    const d = process.cpuUsage(c);
    return (d.user + d.system) / 1000 / n; // ms per call
  }
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) { const r = f(x); sink ^= typeof r === "string" ? r.length : (r.length ?? 1); }
  return Number(process.hrtime.bigint() - t) / 1e6 / n; // ms per call
}
/** ms on the samples' clock (wall, or the process's CPU time). */
const now = CLOCK === "cpu" ? () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; } : () => performance.now();
const WARM_MS = arg("--warm-ms", 200);
// At least WARM_CALLS calls as well (up to WARM_MAX_MS): 200 ms is about 140 calls of budget.json's 1.4 ms encode,
// too few for its optimised code, so that the calibration below, taken on slower calls, gave 7-12 calls a sample
// instead of 29-30, and those short samples stayed slower to the last round: encode ÷ (JSON.stringify + UTF-8) 1.19
// and 1.49 against 1.04 and 1.05 after 1,000 ms (BENCHMARKS.md, tsenc28). 300 calls was enough there.
const WARM_CALLS = arg("--warm-calls", 300), WARM_MAX_MS = Math.max(WARM_MS, arg("--warm-max-ms", 2000));
/** Calls f(x) for about WARM_MS and at least WARM_CALLS times (at least 10), stopping at WARM_MAX_MS. */
function warm(f, x) {
  const t0 = performance.now(), end = t0 + WARM_MS, last = t0 + WARM_MAX_MS;
  for (let i = 0; i < 10 || performance.now() < end || (i < WARM_CALLS && performance.now() < last); i++) f(x);
}
let commit = null;
try { commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: repo, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim(); } catch { /* not a checkout */ }
const results = { clock: CLOCK, before: BEFORE ?? null, loadavg: loadavg(), cpus: cpus().length, node: process.version, date: new Date().toISOString(), commit, rounds: ROUNDS, targetMsPerSample: TARGET_MS,
  warmMs: WARM_MS, warmCalls: WARM_CALLS, warmMaxMs: WARM_MAX_MS,
  note: "ms per call; every codec warmed up for warmMs per operation first, and for at least warmCalls calls (stopping at warmMaxMs); each sample times n calls (n chosen apart for encode and decode so that a sample takes about targetMsPerSample); codecs interleaved, one encode and one decode sample each per round, in a rotated order; calls per sample from the median of five 4 ms calibration windows on the same clock", datasets: [] };

const fmt = (ms) => (ms < 1 ? ms.toFixed(3) : ms < 10 ? ms.toFixed(2) : ms.toFixed(1));
const rows = [];
for (const [label, load] of datasets) {
  const value = load();
  if (MARKS) console.log(`#mark dataset ${label}`);
  xbfEncoder = new Encoder(); xbfDecoder = new Decoder();
  const jsonBytes = Buffer.byteLength(JSON.stringify(value));
  const st = codecs.map((c) => {
    const out = c.enc(value);
    const back = c.dec(out);
    // As JSON, with bigints (int64: "bigint") as the numbers they stand for.
    const plain = (x) => JSON.parse(JSON.stringify(x, (_, y) => (typeof y === "bigint" ? Number(y) : y)));
    const ok = isDeepStrictEqual(plain(back), plain(value));
    // Calls per sample so that a sample takes about TARGET_MS.
    // Warm-up (every codec, so that the JavaScript ones run optimised code, as in a long-running program),
    // then calls per sample, for encode and decode apart, so that a sample takes about TARGET_MS.
    if (MARKS) console.log(`#mark warm ${label} | ${c.name}`);
    warm(c.enc, value); warm(c.dec, out);
    const calls = (f, x) => {
      // Per-call time on the samples' clock: the median of five windows of at least 4 ms of calls each (one
      // window of 20 ms that a collection or a preemption lands in gave every later sample of this codec far
      // fewer calls: 17 calls of 0.6 ms, a 10 ms sample, for windvectors' decode in the run at e80cefe).
      const per = [];
      for (let w = 0; w < 5; w++) {
        const t0 = now();
        let k = 0;
        do { f(x); k++; } while (now() - t0 < 4);
        per.push((now() - t0) / k);
      }
      return Math.max(1, Math.round(TARGET_MS / median(per)));
    };
    return { c, out, ok, nEnc: calls(c.enc, value), nDec: calls(c.dec, out), enc: [], dec: [], bytes: c.size ? c.size(out) : out.length };
  });
  if (MARKS) console.log(`#mark rounds ${label}`);
  for (let r = 0; r < ROUNDS; r++) {
    // Interleaved: every codec once per round, in a rotated order, encode then decode.
    for (let k = 0; k < st.length; k++) {
      const s = st[(k + r) % st.length];
      let t0 = GC_PROBE ? performance.now() : 0;
      s.enc.push(time(s.c.enc, value, s.nEnc));
      if (GC_PROBE) { spans.push([label, s.c.name, "enc", t0, performance.now()]); t0 = performance.now(); }
      s.dec.push(time(s.c.dec, s.out, s.nDec));
      if (GC_PROBE) spans.push([label, s.c.name, "dec", t0, performance.now()]);
    }
  }
  const jsonDec = median(st.find((s) => s.c.name === "JSON").dec);
  const jsonEnc = median(st.find((s) => s.c.name === "JSON").enc);
  const mpBytes = st.find((s) => s.c.name === "@msgpack/msgpack").bytes;
  for (const s of st) rows.push({ label, records: value.length, codec: s.c.name, bytes: s.bytes, ofJson: s.bytes / jsonBytes, ofMp: s.bytes / mpBytes,
    enc: median(s.enc), dec: median(s.dec), encVsJson: median(s.enc) / jsonEnc, decVsJson: median(s.dec) / jsonDec, ok: s.ok });
  results.datasets.push({ name: label, records: value.length, jsonBytes, msgpackBytes: mpBytes, codecs: st.map((s) => ({
    name: s.c.name, bytes: s.bytes, bytesOfMsgpack: s.bytes / mpBytes, bytesOfJson: s.bytes / jsonBytes, encodeCallsPerSample: s.nEnc, decodeCallsPerSample: s.nDec, roundTrip: s.ok,
    encodeMs: s.enc, decodeMs: s.dec, encodeMedianMs: median(s.enc), decodeMedianMs: median(s.dec),
    encodeVsJson: median(s.enc) / jsonEnc, decodeVsJson: median(s.dec) / jsonDec })) });
}

console.log(`node ${process.version}, ${ROUNDS} interleaved rounds, medians; ms per call; "dec/JSON" = decode time / JSON.parse time (< 1: faster)`);
console.log(`msgpackr: Packr defaults (record structures); JSON: JSON.stringify to a string and JSON.parse of it, bytes as UTF-8\n`);
const head = ["data", "records", "codec", "bytes", "of JSON", "of msgpack", "encode ms", "decode ms", "dec/JSON", "round trip"];
const table = rows.map((r) => [r.label, String(r.records), r.codec, r.bytes.toLocaleString("en"), `${(100 * r.ofJson).toFixed(1)}%`, `${(100 * r.ofMp).toFixed(1)}%`,
  fmt(r.enc), fmt(r.dec), r.decVsJson.toFixed(2), r.ok ? "ok" : "DIFFERS"]);
const w = head.map((h, i) => Math.max(h.length, ...table.map((t) => t[i].length)));
const line = (cells) => "| " + cells.map((c, i) => (i >= 3 && i <= 8 ? c.padStart(w[i]) : c.padEnd(w[i]))).join(" | ") + " |";
console.log(line(head));
console.log("| " + w.map((n, i) => (i >= 3 && i <= 8 ? "-".repeat(n - 1) + ":" : "-".repeat(n))).join(" | ") + " |");
for (const t of table) console.log(line(t));
if (sink === 0.5) console.log(sink);
if (GC_PROBE) {
  await new Promise((r) => setTimeout(r, 100)); // the observer's last entries
  const agg = new Map();
  for (const [l, c, op, a, b] of spans) {
    const k = `${l} | ${c} | ${op}`;
    if (!agg.has(k)) agg.set(k, { ms: 0, gcMs: 0, minor: 0, major: 0, majorMs: 0, per: [] });
    const g = agg.get(k);
    g.ms += b - a;
    let inSample = 0;
    for (const [st, d, kind] of gcs) {
      if (st < a || st >= b) continue;
      inSample += d; g.gcMs += d;
      if (kind === 1) g.minor++; else { g.major++; g.majorMs += d; }
    }
    g.per.push(inSample);
  }
  for (const [k, g] of agg) console.log(k.padEnd(60), "gc share", (g.gcMs / g.ms * 100).toFixed(1) + "%", "minor", g.minor, "major/other", g.major, g.majorMs.toFixed(1) + "ms", "median gc ms/sample", median(g.per).toFixed(1));
}

if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify(results, null, 1) + "\n");
if (MD_OUT) {
  const pct = (x) => `${(100 * x).toFixed(1)}%`, ratio = (x) => `${x.toFixed(2)}×`;
  let md = `# TypeScript benchmark: XBF against JSON, MessagePack and CBOR in JavaScript\n\n`;
  md += `Node ${results.node}, ${results.date.slice(0, 10)}, commit ${commit ? commit.slice(0, 12) : "unknown"}; \`node bench/bench.mjs\` (ts/), `;
  md += CLOCK === "cpu" ? "times are the process's CPU time (`--clock cpu`: user + system of all its threads, the collector's included), not the wall clock, since the machine was shared; " : "";
  md += `${ROUNDS} interleaved rounds after a warm-up of ${WARM_MS} ms and at least ${WARM_CALLS} calls (at most ${WARM_MAX_MS} ms) per codec and operation, medians. Encode and decode are relative to \`JSON.stringify\` and \`JSON.parse\` of the same `;
  md += `data in the same run (below 1× is faster than JSON). XBF's default is \`encode(value)\` (layout auto: columns when smaller) `;
  md += `and \`decode(bytes)\`; "XBF Encoder + Decoder (reused)" is one \`Encoder\` and one \`Decoder\` per dataset kept across their calls (the encoder remembers the type: no inference after the first call; the decoder its parsed metadata); "XBF decode, int64: bigint" decodes every 64-bit integer as a BigInt; "XBF without new Function" is the default encode and decode as on a page whose CSP forbids generated code (closures build the objects)${BEFORE ? "; \"XBF before (default)\" is another build of this package (" + BEFORE + (BEFORE_LABEL ? ": " + BEFORE_LABEL : "") + "), run in the same process" : ""}; msgpackr runs with its defaults (record structures), "msgpackr pack/unpack" is its module-level functions (no records), "msgpackr shared structures" a Packr keeping its structures across calls (not in the message); JSON bytes are the UTF-8 length of the compact text. Issue 23's bars are the last two ratios: encode against \`JSON.stringify\` + \`TextEncoder\`, decode against msgpackr's \`unpack\`. Machine load: ${results.loadavg.map((x) => x.toFixed(1)).join(", ")} (1, 5, 15 min) at the start, on ${results.cpus} cores.\n`;
  for (const d of results.datasets) {
    md += `\n## ${d.name} (${d.records.toLocaleString("en")} records)\n\n`;
    // Issue 23's bars: encode against JSON.stringify + UTF-8 (TextEncoder), decode against msgpackr's unpack (Packr defaults).
    const by = (n) => d.codecs.find((c) => c.name === n);
    const jsonUtf8 = by("JSON + UTF-8")?.encodeMedianMs, mpr = by("msgpackr")?.decodeMedianMs;
    md += `| codec | bytes | bytes ÷ MessagePack | encode ms | decode ms | encode vs JSON | decode vs JSON | encode ÷ JSON + UTF-8 | decode ÷ msgpackr | round trip |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n`;
    for (const c of d.codecs) md += `| ${c.name} | ${c.bytes.toLocaleString("en")} | ${pct(c.bytesOfMsgpack)} | ${fmt(c.encodeMedianMs)} | ${fmt(c.decodeMedianMs)} | ${ratio(c.encodeVsJson)} | ${ratio(c.decodeVsJson)} | ${jsonUtf8 ? ratio(c.encodeMedianMs / jsonUtf8) : "–"} | ${mpr ? ratio(c.decodeMedianMs / mpr) : "–"} | ${c.roundTrip ? "ok" : "DIFFERS"} |\n`;
  }
  writeFileSync(MD_OUT, md);
}
