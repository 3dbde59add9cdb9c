import { XbfError, mismatch, within, seg } from "./errors.js";
import { INT_INFO, XbfType, Member, typeToString, metadataBytes, hex } from "./metadata.js";
import { Writer } from "./varint.js";
import { writeValue } from "./encode_rows.js";
import { XbfNaN } from "./nan.js";

/** An enum value: the variant's name and its payload (`null` for a variant without data). */
export class XbfEnum {
  constructor(public variant: string, public value: unknown = null) {}
}
/** A value of type `any`, with its own type (decode with `exact: true` to get these). */
export class XbfAny {
  constructor(public type: XbfType, public value: unknown) {}
}
/** A present option whose payload is itself null-like (`option<option<T>>`, `option<unit>`). */
export class XbfSome {
  constructor(public value: unknown) {}
}
/** A timestamp: a Date that keeps the exact microseconds since 1970 (SPEC 13.2). */
export class XbfTimestamp extends Date {
  micros: bigint;
  constructor(micros: bigint) {
    const ms = Number(micros / 1000n) - (micros % 1000n < 0n ? 1 : 0);
    super(Math.abs(ms) <= 8.64e15 ? ms : NaN);
    this.micros = micros;
  }
}
/** A calendar date: a Date at UTC midnight that keeps the exact day number since 1970-01-01. */
export class XbfDate extends Date {
  days: number;
  constructor(days: number) {
    super(Math.abs(days) <= 1e8 ? days * 86400000 : NaN);
    this.days = days;
  }
}

export interface ValueOptions {
  /** Exact representation: 64-bit and wider integers and timestamps as bigint, dates as day numbers,
   * options as `null | XbfSome`, maps as arrays of `[key, value]`, `any` as XbfAny, enums always XbfEnum, and NaNs
   * other than the canonical quiet NaN as XbfNaN (their exact bits; a JS number may not keep them). */
  exact?: boolean;
  /** `"auto"` (default): 64-bit and wider integers are numbers when safe, bigint otherwise; `"bigint"`: always bigint. */
  int64?: "auto" | "bigint";
  /** `"auto"` (default): maps with string keys become plain objects, others `Map`; `"map"`: always `Map`. */
  maps?: "auto" | "map";
}

export const OPTIONAL_ENUM = "json.optional";
export const isOptionalEnum = (t: XbfType) =>
  t.kind === "enum" && t.name === OPTIONAL_ENUM && t.variants.length === 2 && t.variants[0]!.name === "absent" &&
  t.variants[0]!.type.kind === "unit" && t.variants[1]!.name === "present";

export function setKey(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === "__proto__") Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

// Internal values ("N-values"): ints <= 32 bits and dates as numbers, wider ints and timestamps as bigint,
// option as null | [v], struct as positional array, map as [k, v][], enum as {i, v}, any as {t, v}.
export interface NEnum { i: number; v: unknown }
export interface NAny { t: XbfType; v: unknown }

/** Internal value to the public JS value. */
export function toPublic(t: XbfType, n: any, o: ValueOptions): unknown {
  switch (t.kind) {
    case "u64": case "u128": case "u256": case "i64": case "i128": case "i256":
    case "fixed-u64": case "fixed-u128": case "fixed-i64": case "fixed-i128":
      if (o.exact || o.int64 === "bigint") return n;
      return n <= 9007199254740991n && n >= -9007199254740991n ? Number(n) : n;
    case "date": return o.exact ? n : new XbfDate(n);
    // A NaN held with its bits (nan.ts) is JavaScript's NaN in the default form.
    case "f32": case "f64": return o.exact || typeof n === "number" ? n : NaN;
    case "timestamp": return o.exact ? n : new XbfTimestamp(n);
    case "vec": case "array": {
      const e = t.element;
      if (isPlain(e)) {
        if ((e.kind !== "f32" && e.kind !== "f64") || o.exact) return n;
        return (n as unknown[]).some((x) => typeof x !== "number") ? (n as unknown[]).map((x) => (typeof x === "number" ? x : NaN)) : n;
      }
      return (n as unknown[]).map((x) => toPublic(e, x, o));
    }
    case "tuple": return (n as unknown[]).map((x, i) => toPublic(t.elements[i]!, x, o));
    case "struct": {
      const out: Record<string, unknown> = {};
      const fs = t.fields;
      for (let i = 0; i < fs.length; i++) {
        const f = fs[i]!, v = n[i];
        if (!o.exact && isOptionalEnum(f.type)) {
          if ((v as NEnum).i === 1) setKey(out, f.name, toPublic(f.type.kind === "enum" ? f.type.variants[1]!.type : f.type, (v as NEnum).v, o));
          continue;
        }
        setKey(out, f.name, toPublic(f.type, v, o));
      }
      return out;
    }
    case "option": {
      if (n === null) return null;
      const v = toPublic(t.inner, n[0], o);
      return o.exact || v === null ? new XbfSome(v) : v;
    }
    case "map": {
      const entries = (n as [unknown, unknown][]).map(([k, v]) => [toPublic(t.key, k, o), toPublic(t.value, v, o)] as [unknown, unknown]);
      if (o.exact) return entries;
      if (t.key.kind === "string" && o.maps !== "map") {
        const out: Record<string, unknown> = {};
        for (const [k, v] of entries) setKey(out, k as string, v);
        return out;
      }
      // A Map turns a -0 key into +0 (SameValueZero), and cannot tell NaNs of other bits apart: maps with
      // a -0 key, or with keys it merges, stay as [key, value] pairs, which keep every key exactly.
      if ((t.key.kind === "f32" || t.key.kind === "f64") && entries.some(([k]) => Object.is(k, -0))) return entries;
      const m = new Map(entries);
      return m.size === entries.length ? m : entries;
    }
    case "enum": {
      const e = n as NEnum;
      const vt = t.variants[e.i]!;
      return new XbfEnum(vt.name, toPublic(vt.type, e.v, o));
    }
    case "any": {
      const a = n as NAny;
      const v = toPublic(a.t, a.v, o);
      return o.exact ? new XbfAny(a.t, v) : v;
    }
    default: return n;
  }
}

function isPlain(t: XbfType): boolean {
  switch (t.kind) {
    case "bool": case "u8": case "u16": case "u32": case "i8": case "i16": case "i32": case "f32": case "f64":
    case "string": case "bytes": case "unit": case "fixed-u16": case "fixed-u32": case "fixed-i16": case "fixed-i32":
      return true;
    default: return false;
  }
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (v instanceof Uint8Array) return "a Uint8Array";
  if (typeof v === "object") return `an object (${(v as object).constructor?.name ?? "null prototype"})`;
  return `${typeof v} ${String(v).slice(0, 40)}`;
}

const BOUNDS = new Map<number, [bigint, bigint]>();
function bounds(bits: number, signed: boolean): [bigint, bigint] {
  const k = signed ? -bits : bits;
  let r = BOUNDS.get(k);
  if (!r) {
    r = signed ? [-(1n << BigInt(bits - 1)), (1n << BigInt(bits - 1)) - 1n] : [0n, (1n << BigInt(bits)) - 1n];
    BOUNDS.set(k, r);
  }
  return r;
}
function intOf(t: XbfType, v: unknown): number | bigint {
  const [bits, signed] = INT_INFO[t.kind]!;
  let b: bigint;
  if (typeof v === "number") {
    if (!Number.isInteger(v)) throw mismatch(`${v} is not an integer, expected ${t.kind}`);
    if (bits <= 32) {
      const lo = signed ? -(2 ** (bits - 1)) : 0, hi = signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
      if (v < lo || v > hi) throw mismatch(`integer ${v} is out of range for ${t.kind}`);
      return v;
    }
    b = BigInt(v);
    // A safe integer fits every type of 64 bits and more (a negative one the signed ones).
    if (bits >= 64 && Number.isSafeInteger(v) && (signed || v >= 0)) return BigInt(v);
    b = BigInt(v);
  } else if (typeof v === "bigint") b = v;
  else throw mismatch(`expected ${t.kind}, got ${describe(v)}`);
  const [lo, hi] = bounds(bits, signed);
  if (b < lo || b > hi) throw mismatch(`integer ${b} is out of range for ${t.kind}`);
  return bits <= 32 ? Number(b) : b;
}

function seqOf(t: XbfType, v: unknown): ArrayLike<unknown> {
  if (Array.isArray(v)) return v;
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return v as unknown as ArrayLike<unknown>;
  throw mismatch(`expected ${typeToString(t)} (an array), got ${describe(v)}`);
}

function keyBytes(t: XbfType, n: unknown): string {
  const w = new Writer();
  writeValue(w, t, n, true);
  return hex(w.finish());
}

/** A public JS value, checked against `t`, to the internal form. Throws type-mismatch with a path. */
export function normalize(t: XbfType, v: unknown): unknown {
  switch (t.kind) {
    case "bool":
      if (typeof v !== "boolean") throw mismatch(`expected bool, got ${describe(v)}`);
      return v;
    case "f32": case "f64":
      if (v instanceof XbfNaN && v.width === (t.kind === "f32" ? 32 : 64)) return v;
      if (typeof v !== "number") throw mismatch(`expected ${t.kind}, got ${describe(v)}`);
      return v;
    case "string":
      if (typeof v !== "string") throw mismatch(`expected string, got ${describe(v)}`);
      return v;
    case "bytes":
      if (!(v instanceof Uint8Array)) throw mismatch(`expected bytes (a Uint8Array), got ${describe(v)}`);
      return v;
    case "unit":
      if (v !== null && v !== undefined) throw mismatch(`expected unit (null), got ${describe(v)}`);
      return null;
    case "date":
      if (v instanceof XbfDate) return intOf(t, v.days);
      if (v instanceof Date) return intOf(t, Math.floor(v.getTime() / 86400000));
      return intOf(t, v);
    case "timestamp":
      if (v instanceof XbfTimestamp) return intOf(t, v.micros);
      if (v instanceof Date) {
        if (isNaN(v.getTime())) throw mismatch("an invalid Date");
        return intOf(t, BigInt(v.getTime()) * 1000n);
      }
      return intOf(t, v);
    case "vec": {
      const s = seqOf(t, v);
      const out = new Array(s.length);
      const e = t.element;
      let i = 0;
      try {
        for (; i < s.length; i++) out[i] = normalize(e, s[i]);
      } catch (err) {
        if (err instanceof XbfError) err.within(seg.index(i));
        throw err;
      }
      return out;
    }
    case "array": {
      const s = seqOf(t, v);
      if (s.length !== Number(t.len)) throw mismatch(`an array of ${s.length} elements, expected ${t.len}`);
      const out = new Array(s.length);
      for (let i = 0; i < s.length; i++) out[i] = within(seg.index(i), () => normalize(t.element, s[i]));
      return out;
    }
    case "tuple": {
      const s = seqOf(t, v);
      if (s.length !== t.elements.length) throw mismatch(`a tuple of ${s.length} elements, expected ${t.elements.length}`);
      return t.elements.map((et, i) => within(seg.position(i), () => normalize(et, s[i])));
    }
    case "struct": {
      if (v === null || typeof v !== "object" || Array.isArray(v) || v instanceof Map) throw mismatch(`expected struct ${t.name} (an object), got ${describe(v)}`);
      const o = v as Record<string, unknown>;
      const names = fieldNames(t);
      for (const k in o) {
        if (!names.has(k) && Object.prototype.hasOwnProperty.call(o, k) && o[k] !== undefined) throw mismatch(`struct ${t.name} has no field ${JSON.stringify(k)}`);
      }
      const fs = t.fields, out = new Array(fs.length);
      let j = 0;
      try {
        for (; j < fs.length; j++) out[j] = normalizeField(fs[j]!, o);
      } catch (err) {
        if (err instanceof XbfError) err.within(seg.field(fs[j]!.name));
        throw err;
      }
      return out;
    }
    case "option": {
      if (v === null || v === undefined) return null;
      if (v instanceof XbfSome) return [normalize(t.inner, v.value)];
      return [normalize(t.inner, v)];
    }
    default:
      return normalizeRest(t, v);
  }
}
const NAMES = new WeakMap<XbfType, Set<string>>();
function fieldNames(t: Extract<XbfType, { kind: "struct" }>): Set<string> {
  let s = NAMES.get(t);
  if (!s) { s = new Set(t.fields.map((f) => f.name)); NAMES.set(t, s); }
  return s;
}
function normalizeField(f: Member, o: Record<string, unknown>): unknown {
  const has = Object.prototype.hasOwnProperty.call(o, f.name) && o[f.name] !== undefined;
  if (isOptionalEnum(f.type)) {
    const et = f.type as Extract<XbfType, { kind: "enum" }>;
    if (!has) return { i: 0, v: null };
    const fv = o[f.name];
    if (fv instanceof XbfEnum) return normalize(f.type, fv);
    return { i: 1, v: within(seg.field("present"), () => normalize(et.variants[1]!.type, fv)) };
  }
  if (!has) {
    if (f.type.kind === "option" || f.type.kind === "unit") return null;
    throw mismatch(`missing field ${JSON.stringify(f.name)}`);
  }
  return normalize(f.type, o[f.name]);
}
function normalizeRest(t: XbfType, v: unknown): unknown {
  switch (t.kind) {
    case "map": {
      let entries: [unknown, unknown][];
      if (v instanceof Map) entries = [...v.entries()];
      else if (Array.isArray(v)) {
        entries = v.map((e) => {
          if (!Array.isArray(e) || e.length !== 2) throw mismatch("a map as an array must hold [key, value] pairs");
          return e as [unknown, unknown];
        });
      } else if (v !== null && typeof v === "object" && t.key.kind === "string") entries = Object.entries(v);
      else throw mismatch(`expected ${typeToString(t)} (a Map), got ${describe(v)}`);
      const seen = new Set<string>();
      return entries.map(([k, x], i) => within(seg.index(i), () => {
        const nk = within(seg.field("key"), () => {
          const nk = normalize(t.key, k);
          const kb = keyBytes(t.key, nk);
          if (seen.has(kb)) throw new XbfError("duplicate-key", undefined, "a key appears twice");
          seen.add(kb);
          return nk;
        });
        return [nk, within(seg.field("value"), () => normalize(t.value, x))];
      }));
    }
    case "enum": {
      let name: string, payload: unknown = null;
      if (v instanceof XbfEnum) { name = v.variant; payload = v.value; }
      else if (typeof v === "string") name = v;
      else if (v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 1) {
        name = Object.keys(v)[0]!; payload = (v as Record<string, unknown>)[name];
      } else throw mismatch(`expected enum ${t.name}, got ${describe(v)}`);
      const i = t.variants.findIndex((m) => m.name === name);
      if (i < 0) throw mismatch(`enum ${t.name} has no variant ${JSON.stringify(name)}`);
      return { i, v: within(seg.field(name), () => normalize(t.variants[i]!.type, payload)) };
    }
    case "any": {
      if (v instanceof XbfAny) return { t: v.type, v: normalize(v.type, v.value) };
      const it = inferType(v);
      return { t: it, v: normalize(it, v) };
    }
    default:
      return intOf(t, v);
  }
}

// ------------------------------------------------------------------ inference (SPEC 19.1)

interface Shape {
  nulls: number;
  values: number;
  kinds: Set<string>;
  min: bigint; max: bigint; allSafe: boolean;
  /** Integers given as numbers: their count, least and greatest (kept apart from bigints, combined in resolve). */
  nints: number; nmin: number; nmax: number; nbigs: number; firstInt: boolean;
  elems?: Shape;
  keys?: string[]; keyShapes?: Map<string, Shape>; keyCounts?: Map<string, number>; objects: number; conflict: boolean;
  fastShapes?: Shape[]; fastObjects?: number;
  mapKeys?: Shape; mapValues?: Shape;
}
const newShape = (): Shape => ({ nulls: 0, values: 0, kinds: new Set(), min: 0n, max: 0n, allSafe: true, nints: 0, nmin: 0, nmax: 0, nbigs: 0, firstInt: false, objects: 0, conflict: false });
/** The least and greatest integer seen, as SPEC 19.1 needs them: counted from 0 when the place's first value was
 * not an integer (as the single running range did before numbers and bigints were kept apart). */
function intRange(s: Shape): [bigint, bigint] {
  let min: bigint | undefined, max: bigint | undefined;
  if (s.nints > 0) { min = BigInt(s.nmin); max = BigInt(s.nmax); }
  if (s.nbigs > 0) {
    if (min === undefined || s.min < min) min = s.min;
    if (max === undefined || s.max > max) max = s.max;
  }
  min ??= 0n; max ??= 0n;
  if (!s.firstInt) { if (min > 0n) min = 0n; if (max < 0n) max = 0n; }
  return [min, max];
}
function kindOf(v: unknown): string {
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return Number.isSafeInteger(v) && !Object.is(v, -0) ? "int" : "float";
  if (v instanceof XbfNaN) return "float";
  if (typeof v === "bigint") return "int";
  if (typeof v === "string") return "string";
  if (v instanceof Uint8Array) return "bytes";
  if (v instanceof XbfDate) return "date";
  if (v instanceof Date) return "timestamp";
  if (Array.isArray(v)) return "array";
  if (v instanceof Map) return "map";
  if (v instanceof XbfAny || v instanceof XbfEnum || v instanceof XbfSome) return "other";
  if (ArrayBuffer.isView(v)) return "array";
  if (typeof v === "object" && v !== null) return "object";
  throw mismatch(`cannot infer an XBF type for ${describe(v)}`);
}

function add(s: Shape, v: unknown, depth: number): void {
  if (depth > 128) throw new XbfError("too-deep", undefined, "the value nests deeper than 128 levels");
  if (v === null || v === undefined) { s.nulls++; return; }
  s.values++;
  const k = kindOf(v);
  s.kinds.add(k);
  if (k === "int") {
    if (s.values === 1) s.firstInt = true;
    if (typeof v === "number") {
      if (s.nints === 0 || v < s.nmin) s.nmin = v;
      if (s.nints === 0 || v > s.nmax) s.nmax = v;
      s.nints++;
    } else {
      const b = v as bigint;
      if (s.nbigs === 0 || b < s.min) s.min = b;
      if (s.nbigs === 0 || b > s.max) s.max = b;
      s.nbigs++;
      s.allSafe = false;
    }
  } else if (k === "array") {
    s.elems ??= newShape();
    const a = v as ArrayLike<unknown>;
    for (let i = 0; i < a.length; i++) add(s.elems, a[i], depth + 1);
  } else if (k === "map") {
    s.mapKeys ??= newShape(); s.mapValues ??= newShape();
    for (const [mk, mv] of v as Map<unknown, unknown>) { add(s.mapKeys, mk, depth + 1); add(s.mapValues, mv, depth + 1); }
  } else if (k === "object") {
    s.objects++;
    s.keys ??= []; s.keyShapes ??= new Map(); s.keyCounts ??= new Map();
    const o = v as Record<string, unknown>;
    const own = Object.keys(o);
    // The usual case: exactly the keys seen so far, in their order, none undefined. Each key's shape then
    // comes from an array kept in step with s.keys (no Map lookups), and its count is its shape's
    // nulls + values (one add per present key), settled into keyCounts when the slow path next runs.
    const fast = s.fastShapes;
    if (fast !== undefined && !s.conflict && own.length === fast.length) {
      let same = true;
      const keys = s.keys;
      for (let i = 0; i < own.length; i++) if (own[i] !== keys[i] || o[own[i]!] === undefined) { same = false; break; }
      if (same) {
        for (let i = 0; i < own.length; i++) add(fast[i]!, o[own[i]!], depth + 1);
        s.fastObjects = (s.fastObjects ?? 0) + 1;
        return;
      }
    }
    settle(s);
    if (!s.conflict) {
      let last = -1;
      for (const key of own) {
        if (o[key] === undefined) continue;
        const at = s.keys[last + 1] === key ? last + 1 : s.keys.indexOf(key);
        if (at >= 0) {
          if (at < last) { s.conflict = true; break; }
          last = at;
        } else {
          s.keys.splice(last + 1, 0, key);
          last = last + 1;
        }
      }
    }
    for (const key of own) {
      const x = o[key];
      if (x === undefined) continue;
      let ks = s.keyShapes.get(key);
      if (!ks) s.keyShapes.set(key, (ks = newShape()));
      s.keyCounts.set(key, (s.keyCounts.get(key) ?? 0) + 1);
      add(ks, x, depth + 1);
    }
    // Arm the fast path when this object had every key seen so far, in order.
    s.fastShapes = !s.conflict && own.length === s.keys.length && own.every((key, i) => key === s.keys![i] && o[key] !== undefined)
      ? s.keys.map((key) => s.keyShapes!.get(key)!) : undefined;
  }
}
/** Adds the objects counted on the fast path to keyCounts (each had every key of fastShapes). */
function settle(s: Shape): void {
  const n = s.fastObjects ?? 0;
  if (n === 0 || !s.fastShapes) return;
  for (const key of s.keys!) s.keyCounts!.set(key, (s.keyCounts!.get(key) ?? 0) + n);
  s.fastObjects = 0;
}

function intType(min: bigint, max: bigint): XbfType | undefined {
  if (min >= 0n) {
    for (const [k, b] of [["u64", 64n], ["u128", 128n], ["u256", 256n]] as const) if (max < 1n << b) return { kind: k };
  } else {
    for (const [k, b] of [["i64", 63n], ["i128", 127n], ["i256", 255n]] as const) if (min >= -(1n << b) && max < 1n << b) return { kind: k };
  }
  return undefined;
}

function resolve(s: Shape): XbfType {
  settle(s);
  let kinds = [...s.kinds];
  // JavaScript has one number type: integers and fractions at one place share f64.
  if (kinds.includes("int") && kinds.includes("float") && s.allSafe) kinds = kinds.filter((k) => k !== "int");
  let t: XbfType;
  if (kinds.length === 0) return { kind: "unit" };
  if (kinds.length > 1) t = { kind: "any" };
  else {
    switch (kinds[0]) {
      case "bool": t = { kind: "bool" }; break;
      case "int": { const [min, max] = intRange(s); t = intType(min, max) ?? { kind: "any" }; break; }
      case "float": t = { kind: "f64" }; break;
      case "string": t = { kind: "string" }; break;
      case "bytes": t = { kind: "bytes" }; break;
      case "date": t = { kind: "date" }; break;
      case "timestamp": t = { kind: "timestamp" }; break;
      case "array": t = { kind: "vec", element: s.elems ? resolve(s.elems) : { kind: "unit" } }; break;
      case "map": t = { kind: "map", key: resolve(s.mapKeys!), value: resolve(s.mapValues!) }; break;
      case "object":
        if (s.conflict) { t = { kind: "any" }; break; }
        t = {
          kind: "struct", name: "Object",
          fields: s.keys!.map((k): Member => {
            const ft = resolve(s.keyShapes!.get(k)!);
            if (s.keyCounts!.get(k)! < s.objects) {
              return { name: k, type: { kind: "enum", name: OPTIONAL_ENUM, variants: [{ name: "absent", type: { kind: "unit" } }, { name: "present", type: ft }] } };
            }
            return { name: k, type: ft };
          }),
        };
        break;
      default: t = { kind: "any" };
    }
  }
  if (s.nulls > 0 && t.kind !== "any") t = { kind: "option", inner: t };
  return t;
}

/** The XBF 2 type that SPEC 19.1 infers for a JS value (see README for the JS specifics). */
export function inferType(v: unknown): XbfType {
  const s = newShape();
  add(s, v, 0);
  const t = resolve(s);
  if (t.kind === "any" && !(v instanceof XbfAny)) {
    // A single value that no type holds (an integer past 256 bits, an XbfEnum without type, ...).
    if (s.kinds.has("int")) throw mismatch(`integer ${v} passes 256 bits`);
    throw mismatch(`cannot infer an XBF type for ${describe(v)}`);
  }
  if (v instanceof XbfAny) return { kind: "any" };
  return t;
}

export { metadataBytes };
