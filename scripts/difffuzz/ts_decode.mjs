// The TypeScript side of scripts/difffuzz.py: reads lines `m HEX` (one message) or `s HEX` (a record
// stream) on standard input and writes one JSON line each, in the form of `xbf vectors decode`
// (crates/xbf-cli/src/batch.rs): {"type", "value"} or {"error": {kind, offset, path}} for a message,
// {"type", "records", "error"} for a stream; NaNs as "NaN:" + their bits in hex.
//
// Values come from the reference decoder's internal values (decodeInternal, StreamReader.internal: the
// form `exact: true` is made from). Each message is also decoded with the default `decode` (the direct
// path): its outcome is reported as "default": "ok" (the same value as the reference decoder's, in the
// default form), "a different value", or the error, so the fuzzer checks that both paths agree.
import { createInterface } from "node:readline";
import { decode, typeToJson, XbfError, StreamReader } from "../../ts/dist/index.js";
import { decodeInternal } from "../../ts/dist/codec.js";
import { toPublic } from "../../ts/dist/values.js";
import { fromHex, hex } from "../../ts/dist/metadata.js";

const f64 = new Float64Array(1), f32 = new Float32Array(1);
const u8of = (a) => new Uint8Array(a.buffer);

function bitsHex(x, single) {
  if (single) { f32[0] = x; return [...u8of(f32)].reverse().map((b) => b.toString(16).padStart(2, "0")).join(""); }
  f64[0] = x;
  return [...u8of(f64)].reverse().map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** JSON text of a number as the vectors write floats: -0 keeps its sign. */
const num = (x) => (Object.is(x, -0) ? "-0.0" : JSON.stringify(x));

function float(x, single) {
  if (x && typeof x === "object" && "bits" in x) return JSON.stringify(`NaN:${BigInt(x.bits).toString(16).padStart(single ? 8 : 16, "0")}`);
  if (Number.isNaN(x)) return JSON.stringify(`NaN:${bitsHex(x, single)}`);
  if (x === Infinity) return '"Infinity"';
  if (x === -Infinity) return '"-Infinity"';
  return num(x);
}

/** A type as the vectors' JSON text; an array's length is written as digits even past 2^53 (a bigint). */
function typeText(t) {
  switch (t.kind) {
    case "vec": return `{"vec":${typeText(t.element)}}`;
    case "option": return `{"option":${typeText(t.inner)}}`;
    case "array": return `{"array":${typeText(t.element)},"len":${t.len.toString()}}`;
    case "tuple": return `{"tuple":[${t.elements.map(typeText).join(",")}]}`;
    case "map": return `{"map":[${typeText(t.key)},${typeText(t.value)}]}`;
    case "struct": return `{"struct":${JSON.stringify(t.name)},"fields":[${t.fields.map((f) => `[${JSON.stringify(f.name)},${typeText(f.type)}]`).join(",")}]}`;
    case "enum": return `{"enum":${JSON.stringify(t.name)},"variants":[${t.variants.map((f) => `[${JSON.stringify(f.name)},${typeText(f.type)}]`).join(",")}]}`;
    default: return JSON.stringify(typeToJson(t));
  }
}

/** An internal value of type t as the vectors' JSON text. */
function value(t, n) {
  switch (t.kind) {
    case "f32": return float(n, true);
    case "f64": return float(n, false);
    case "bytes": return JSON.stringify(hex(n));
    case "unit": return "null";
    case "bool": case "string": return JSON.stringify(n);
    case "option": return n === null ? "null" : `{"some":${value(t.inner, n[0])}}`;
    case "vec": case "array": return `[${n.map((x) => value(t.element, x)).join(",")}]`;
    case "tuple": return `[${n.map((x, i) => value(t.elements[i], x)).join(",")}]`;
    case "struct": return `{${t.fields.map((f, i) => `${JSON.stringify(f.name)}:${value(f.type, n[i])}`).join(",")}}`;
    case "map": return `[${n.map(([k, v]) => `[${value(t.key, k)},${value(t.value, v)}]`).join(",")}]`;
    case "enum": { const v = t.variants[n.i]; return `{"variant":${JSON.stringify(v.name)},"value":${value(v.type, n.v)}}`; }
    case "any": return `{"type":${typeText(n.t)},"value":${value(n.t, n.v)}}`;
    default: return typeof n === "bigint" ? JSON.stringify(n.toString()) : num(n);
  }
}

/** Public values equal: NaN equals NaN, -0 is not 0, Dates by their time (an invalid one too) and their own
 * fields (XbfDate.days, XbfTimestamp.micros), objects by class, keys in order and values. */
function same(a, b) {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return Object.is(a, b);
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (a instanceof Date && !Object.is(a.getTime(), b.getTime())) return false;
  if (a instanceof Uint8Array) return a.length === b.length && a.every((x, i) => x === b[i]);
  if (a instanceof Map) return a.size === b.size && same([...a], [...b]);
  if (Array.isArray(a) && a.length !== b.length) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && same(a[k], b[k]));
}

function error(e) {
  if (!(e instanceof XbfError)) return { panic: `${e?.name}: ${e?.message}` };
  const j = { kind: e.kind, offset: e.offset ?? null, path: e.path ?? "" };
  // SPEC 22 lets a reader without zstd refuse a compressed column with `unsupported`: say when that is why.
  if (e.kind === "unsupported" && /zstd/i.test(e.message)) j.zstd = true;
  return j;
}
const errorText = (e) => { const j = error(e); return j.panic !== undefined ? null : JSON.stringify(j); };

// The decoded-memory budget difffuzz.py gives every implementation (its first argument).
const LIMITS = process.argv[2] ? { maxDecodedBytes: Number(process.argv[2]) } : {};

function message(bytes) {
  let def, friendly;
  try { friendly = decode(bytes, LIMITS); def = '"ok"'; } catch (e) { def = JSON.stringify(error(e)); }
  try {
    const d = decodeInternal(bytes, LIMITS);
    // The direct path's values must be the reference decoder's, mapped to the default form.
    if (def === '"ok"' && !same(friendly, toPublic(d.type, d.n, {}))) def = '"a different value"';
    return `{"type":${typeText(d.type)},"value":${value(d.type, d.n)},"default":${def}}`;
  } catch (e) {
    const text = errorText(e);
    return text === null ? JSON.stringify(error(e)) : `{"error":${text},"default":${def}}`;
  }
}

function stream(bytes) {
  let s;
  try { s = new StreamReader(bytes, LIMITS); } catch (e) {
    const text = errorText(e);
    return text === null ? JSON.stringify(error(e)) : `{"type":null,"records":[],"error":${text}}`;
  }
  const ty = typeText(s.type);
  const records = [];
  try {
    for (const r of s.internal()) records.push(value(s.type, r));
  } catch (e) {
    const text = errorText(e);
    return text === null ? JSON.stringify(error(e)) : `{"type":${ty},"records":[${records.join(",")}],"error":${text}}`;
  }
  return `{"type":${ty},"records":[${records.join(",")}],"error":null}`;
}

const out = [];
const flush = () => { if (out.length) { process.stdout.write(out.join("")); out.length = 0; } };
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  const [mode, h = ""] = line.split(" ");
  const bytes = fromHex(h);
  let answer;
  try { answer = mode === "s" ? stream(bytes) : message(bytes); } catch (e) { answer = JSON.stringify({ panic: String(e?.stack ?? e) }); }
  out.push(answer + "\n");
  if (out.length >= 256) flush();
}
flush();
