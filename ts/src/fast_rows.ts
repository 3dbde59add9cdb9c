// Direct decoding of messages in rows (XBF 2): a reader closure compiled once per message type from its
// metadata, and the cache of parsed metadata (and readers) by the metadata's bytes, shared with the columns.
// Same contract as fast.ts (see its header): right on valid input, BAIL (or the reference decoder for a part)
// on anything unusual, every allocation within the reference decoder's budgets.
import { INT_INFO, XbfType, isZeroSize, minSize, weight } from "./metadata.js";
import { Reader, FLAG_COLUMNAR } from "./decode_rows.js";
import { XbfSome, isOptionalEnum, toPublic } from "./values.js";
import { unzigzag, unzigzagNum } from "./varint.js";
import { FastOptions, MAX_SAFE, bail, nullable, small } from "./fast_common.js";
import { bigConv, intConv } from "./fast_int_values.js";
import { MAX_GENERATED, canGenerate, generateDecoder, keysStatement, recordConstructor } from "./fast_records.js";
import { columnsDirect } from "./fast.js";

/** A key left out of its object (an absent `json.optional` field). */
const ABSENT: unique symbol = Symbol("xbf.absent");
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
type RowFn = (r: Reader) => unknown;

const fromCharCode = String.fromCharCode;
/** Reused arrays of character codes, one per length up to 32 (fromCharCode.apply over a plain array is
 * several times faster than over a typed-array view). */
const CODES: number[][] = Array.from({ length: 33 }, (_, n) => new Array<number>(n).fill(0));
/** A string of `len` bytes at p: by hand when short and ASCII, else one TextDecoder call. */
function text(b: Uint8Array, p: number, len: number): string {
  if (len <= 32) {
    if (len === 0) return "";
    const codes = CODES[len]!;
    let k = 0;
    for (; k < len; k++) {
      const c = b[p + k]!;
      if (c >= 0x80) break;
      codes[k] = c;
    }
    if (k === len) return len === 1 ? fromCharCode(codes[0]!) : fromCharCode.apply(null, codes);
  }
  try { return utf8.decode(b.subarray(p, p + len)); } catch { bail(); }
}

function compileRow(t: XbfType, depth: number, o: FastOptions): RowFn {
  const child = depth + 1;
  const reference: RowFn = (r) => toPublic(t, r.value(t, depth), o);
  if (isZeroSize(t)) return reference; // charges the decoded-memory budget as the reference decoder does
  switch (t.kind) {
    case "bool": return (r) => {
      const p = r.pos;
      if (p >= r.end) bail();
      const x = r.b[p]!;
      if (x > 1) bail();
      r.pos = p + 1;
      return x === 1;
    };
    case "f64": return (r) => { const p = r.pos; if (p + 8 > r.end) bail(); r.pos = p + 8; return r.dv.getFloat64(p, true); };
    case "f32": return (r) => { const p = r.pos; if (p + 4 > r.end) bail(); r.pos = p + 4; return r.dv.getFloat32(p, true); };
    case "string": return (r) => {
      const len = small(r, r.end);
      if (len < 0 || len > r.end - r.pos) bail();
      const p = r.pos;
      r.pos = p + len;
      return text(r.b, p, len);
    };
    case "vec": {
      const e = t.element;
      if (isZeroSize(e)) return reference;
      const m = minSize(e, true), f = compileRow(e, child, o);
      return (r) => {
        const count = small(r, r.end);
        if (count < 0 || count * m > r.end - r.pos) bail();
        // Sized once where the bytes bound the count (m > 0), as msgpackr sizes its arrays: no growth copies.
        if (m === 0) { const out: unknown[] = []; for (let i = 0; i < count; i++) out.push(f(r)); return out; }
        const out = new Array<unknown>(count);
        for (let i = 0; i < count; i++) out[i] = f(r);
        return out;
      };
    }
    case "array": {
      const len = Number(t.len), m = minSize(t.element, true), f = compileRow(t.element, child, o);
      return (r) => {
        if (len * m > r.end - r.pos) bail();
        const out: unknown[] = [];
        for (let i = 0; i < len; i++) out.push(f(r));
        return out;
      };
    }
    case "option": {
      const f = compileRow(t.inner, child, o), wrap = nullable(t.inner);
      return (r) => {
        const p = r.pos;
        if (p >= r.end) bail();
        const x = r.b[p]!;
        r.pos = p + 1;
        if (x === 0) return null;
        if (x !== 1) bail();
        const v = f(r);
        return wrap && v === null ? new XbfSome(v) : v;
      };
    }
    case "struct": {
      const keys = t.fields.map((f) => f.name);
      const fns = t.fields.map((f) => {
        if (!isOptionalEnum(f.type)) return compileRow(f.type, child, o);
        const pt = (f.type as Extract<XbfType, { kind: "enum" }>).variants[1]!.type;
        const pf = compileRow(pt, child + 1, o), absentWeight = weight({ kind: "unit" });
        return (r: Reader) => {
          const p = r.pos;
          const g = small(r, r.end);
          if (g === 0) { r.charge(r.pos, absentWeight); return ABSENT; }
          if (g !== 1) bail();
          void p;
          return pf(r);
        };
      });
      const optional = t.fields.map((f) => isOptionalEnum(f.type));
      if (!optional.some((x) => x) && !keys.includes("__proto__") && keys.length > 0 && keys.length <= MAX_GENERATED && canGenerate()) {
        // f64 and f32 fields read in the generated code itself (the bounds check, the position, the load), the
        // others through their compiled readers: no call per float, and the loads' feedback is this key list's
        // own, whatever other record types the process decodes (the keys are in the source: see keysStatement).
        // The int64 option changes the values (bigints): a reader of its own, as the columns' builders.
        const sig = t.fields.map((f) => (f.type.kind === "f64" ? "d" : f.type.kind === "f32" ? "s" : "-")).join("") + (o.int64 === "bigint" ? ":bigint" : "");
        // The record made by the key list's constructor where there is one (no allocation site to pretenure: see
        // fast_records.ts's recordConstructor), else by a literal; the arguments are evaluated in the keys' order either way.
        const R = recordConstructor(keys);
        const make = generateDecoder((R === null ? "rows:" : "rows-records:") + sig, keys, () => {
          const vs = keys.map((_, j) => {
            const w = sig[j] === "d" ? 8 : sig[j] === "s" ? 4 : 0;
            return w === 0 ? `f${j}(r)` : `(p = r.pos, p + ${w} > r.end ? bail() : (r.pos = p + ${w}, dv.${w === 8 ? "getFloat64" : "getFloat32"}(p, true)))`;
          });
          const rec = R === null ? `{ ${keys.map((k, j) => `${JSON.stringify(k)}: ${vs[j]}`).join(", ")} }` : `new R(${vs.join(", ")})`;
          return new Function("bail", "R", ...keys.map((_, j) => `f${j}`), `return function (r) { ${keysStatement(keys)} const dv = r.dv; let p = 0; return ${rec}; };`) as (...f: unknown[]) => RowFn;
        });
        return make(bail, R, ...fns);
      }
      const m = keys.length;
      return (r) => {
        const out: Record<string, unknown> = {};
        for (let j = 0; j < m; j++) {
          const v = fns[j]!(r);
          if (v === ABSENT) continue;
          const k = keys[j]!;
          if (k === "__proto__") Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
          else out[k] = v;
        }
        return out;
      };
    }
    case "any": {
      // The value's own metadata, then the value: primitives through readers compiled once per kind and depth.
      const max = o.maxDepth ?? 128;
      const byKind = new Map<string, RowFn>();
      return (r) => {
        if (child > max) bail();
        const own = r.metadata(child);
        if (own.kind === "vec" || own.kind === "struct" || own.kind === "option" || own.kind === "array" || own.kind === "tuple" ||
          own.kind === "map" || own.kind === "enum" || own.kind === "any") return toPublic(own, r.value(own, child), o);
        let f = byKind.get(own.kind);
        if (f === undefined) { f = compileRow(own, child, o); byKind.set(own.kind, f); }
        return f(r);
      };
    }
    case "map": case "enum": case "tuple": case "bytes": case "unit":
      return reference;
    default: {
      const [bits, signed, fixed] = INT_INFO[t.kind]!;
      if (fixed === 1) return signed ? (r) => { const x = r.u8(); return x > 127 ? x - 256 : x; } : (r) => r.u8();
      if (fixed === 2) return (r) => { const p = r.need(2); return signed ? r.dv.getInt16(p, true) : r.dv.getUint16(p, true); };
      if (fixed === 4) return (r) => { const p = r.need(4); return signed ? r.dv.getInt32(p, true) : r.dv.getUint32(p, true); };
      if (fixed !== 0) return reference;
      const lim = bits >= 53 ? MAX_SAFE : 2 ** bits - 1;
      const conv = intConv(t.kind, o), big = bigConv(t.kind, o);
      return (r) => {
        const start = r.pos;
        const u = small(r, r.end);
        if (u >= 0 && u <= lim) {
          const x = signed ? unzigzagNum(u) : u;
          return conv === null ? x : conv(x);
        }
        if (bits <= 32) bail();
        r.pos = start;
        const z = r.uvarBig(bits);
        return big(signed ? unzigzag(z) : z);
      };
    }
  }
}

/** The value of an XBF 2 message in rows whose metadata ends at r.pos. */
export function rowsDirect(r: Reader, t: XbfType, o: FastOptions): unknown {
  return rowsWith(r, compileRow(t, 0, o));
}
function rowsWith(r: Reader, f: RowFn): unknown {
  const v = f(r);
  if (r.pos !== r.b.length) bail();
  return v;
}

// Types (and row readers) for metadata seen before, by its bytes and the options the readers depend on: a
// program that decodes many small messages of one schema parses (and compiles) it once, as msgpackr keeps its
// record structures.
interface Compiled { opts: string; meta: Uint8Array; t: XbfType; f: RowFn | undefined }
/** A cache of parsed metadata (the module's own, or a Decoder's). */
export type MetadataCache = Map<number, Compiled>;
const compiled: MetadataCache = new Map();
/** Entries kept per cache, and the longest metadata cached (bytes). */
const CACHED = 256, CACHED_META = 8192;
/** Each cache's entry used last (see cachedDirect). */
const LAST = new WeakMap<MetadataCache, Compiled>();
/** Where metadata starting at p ends (a structural skip, nothing allocated), or -1 if it is not plain. */
function skipMeta(b: Uint8Array, p: number, depth: number, max: number): number {
  if (p >= b.length) return -1;
  const d = b[p++]!;
  if (d <= 0x10 || d === 0x13 || (d >= 0x19 && d <= 0x23)) return p;
  if (depth >= max) return -1;
  const count = (): number => {
    let x = 0, mul = 1;
    for (let i = 0; i < 4; i++) {
      if (p >= b.length) return -1;
      const c = b[p++]!;
      x += (c & 127) * mul;
      if (c < 128) return x;
      mul *= 128;
    }
    return -1;
  };
  switch (d) {
    case 0x11: case 0x14: return skipMeta(b, p, depth + 1, max);
    case 0x15: return count() < 0 ? -1 : skipMeta(b, p, depth + 1, max);
    case 0x16: {
      const n = count();
      for (let i = 0; i < n && p >= 0; i++) p = skipMeta(b, p, depth + 1, max);
      return n < 0 ? -1 : p;
    }
    case 0x17: p = skipMeta(b, p, depth + 1, max); return p < 0 ? -1 : skipMeta(b, p, depth + 1, max);
    case 0x12: case 0x18: {
      const skipName = () => { const l = count(); if (l < 0 || l > b.length - p) return false; p += l; return true; };
      if (!skipName()) return -1;
      const n = count();
      if (n < 0) return -1;
      for (let i = 0; i < n; i++) {
        if (!skipName()) return -1;
        p = skipMeta(b, p, depth + 1, max);
        if (p < 0) return -1;
      }
      return p;
    }
    default: return -1;
  }
}
/** A message with inline metadata in rows or columns (flags 00 or 02), decoded with its type (and, in rows,
 * its reader) cached by its metadata; undefined when not such a message or when its metadata is large. */
export function cachedDirect(bytes: Uint8Array, o: FastOptions, cache: MetadataCache = compiled): { value: unknown } | undefined {
  if (bytes.length < 3 || bytes[0] !== 0xc2 || (bytes[1] !== 0 && bytes[1] !== FLAG_COLUMNAR)) return undefined;
  // The options the cached readers depend on (no string built for the default options).
  const opts = o.int64 === undefined && o.maps === undefined && o.maxDepth === undefined ? (canGenerate() ? "|||g" : "|||")
    : `${o.int64 ?? ""}|${o.maps ?? ""}|${o.maxDepth ?? ""}|${canGenerate() ? "g" : ""}`;
  // The metadata the cache met last, first: bytes that begin with it have it as their metadata (metadata ends
  // where its parse ends, and this parse ended there under the same options), so one comparison replaces the
  // structural skip and the hash (a table of 24 columns has 458 bytes of metadata to walk twice otherwise).
  let hit = LAST.get(cache), end = -1, h = 0;
  if (hit !== undefined && hit.opts === opts && hit.meta.length <= bytes.length - 2) {
    const m = hit.meta;
    for (let i = 0; i < m.length; i++) if (m[i] !== bytes[i + 2]) { hit = undefined; break; }
    if (hit !== undefined) end = m.length + 2;
  } else hit = undefined;
  if (hit === undefined) {
    end = skipMeta(bytes, 2, 0, o.maxDepth ?? 128);
    if (end < 0 || end - 2 > CACHED_META) return undefined;
    h = 0x811c9dc5; // FNV-1a over the metadata bytes; a hit is confirmed byte for byte
    for (let i = 2; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
    h = (h ^ opts.length) >>> 0;
    hit = cache.get(h);
    if (hit !== undefined && hit.opts === opts && hit.meta.length === end - 2) {
      const m = hit.meta;
      for (let i = 0; i < m.length; i++) if (m[i] !== bytes[i + 2]) { hit = undefined; break; }
    } else hit = undefined;
  }
  if (hit === undefined) {
    const r0 = new Reader(bytes, o);
    const [t] = r0.head(false);
    if (r0.pos !== end) bail();
    // Full: the entry parsed first goes (not all of them: a working set under the bound stays parsed).
    if (cache.size >= CACHED) cache.delete(cache.keys().next().value as number);
    hit = { opts, meta: bytes.slice(2, end), t, f: undefined };
    cache.set(h, hit);
  }
  LAST.set(cache, hit);
  if (bytes[1] === FLAG_COLUMNAR) return { value: columnsDirect(bytes, end, hit.t, o) };
  const f = (hit.f ??= compileRow(hit.t, 0, o));
  const r = new Reader(bytes, o, end);
  r.v2 = true;
  return { value: rowsWith(r, f) };
}
