import { XbfError, mismatch, within, seg } from "./errors.js";
import { INT_INFO, XbfType, Member, typeToString, metadataBytes, hex, depthOf } from "./metadata.js";
import { Writer } from "./varint.js";
import { writeValue } from "./encode_rows.js";
import { XbfNaN } from "./nan.js";
import { MAX_GENERATED, canGenerate, generate, isIndexKey, keyAccess } from "./fast.js";

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
  /** The kinds seen (kindOf's names), as bits (kindBit): no Set per place. */
  kinds: number;
  /** The kind added last: a place usually holds one kind, and its bit is not looked up again for it. */
  lastKind: string;
  /** Whether kinds holds both "int" and "float": a number then changes nothing but the count (resolve makes the
   * place f64 or any whatever the range), so numbers skip everything else. */
  mixedNum: boolean;
  min: bigint; max: bigint; allSafe: boolean;
  /** Integers given as numbers: their count, least and greatest (kept apart from bigints, combined in resolve). */
  nints: number; nmin: number; nmax: number; nbigs: number; firstInt: boolean;
  elems?: Shape;
  /** Objects (SPEC 19.1): the keys in order of first appearance, with their shapes and counts (by slot); the key
   * graph's edges a → b (key b follows key a in some object) as `next[a]`, the first b seen after a (-1: none yet),
   * and `more`, the other b after a where there are any (made only then: most keys have one successor, and a Set per
   * key cost as much as the key's shape); `last` the slots of the last object, in its order. */
  keys?: string[]; keyIndex?: Map<string, number>; keyShapes?: Shape[]; keyCounts?: number[]; next?: number[];
  more?: Map<number, Set<number>>;
  last?: number[]; objects: number; totalKeys: number;
  /** Objects added with the keys of `last` whose keys are not counted yet: counted (flushSame) when `last` changes or
   * the counts are read, one step a record instead of one a key. */
  pending: number;
  /** For objects with the keys of `last`: the shapes of its slots in its order, objects seen since it was set, and
   * generated code that adds such an object (null where code may not be generated). */
  lastShapes?: Shape[]; lastHits: number; lastAdd?: AddRecord | null;
  /** The last few key lists (RECENT at most, the oldest dropped first), `cur` the one `last` is: objects whose key
   * lists alternate (a key present in some records only) find theirs here and go on the fast paths. */
  recent?: KeyList[]; cur?: KeyList;
  mapKeys?: Shape; mapValues?: Shape;
}
// Every field present from the start: all shapes share one hidden class, so that `add` stays monomorphic.
const newShape = (): Shape => ({
  nulls: 0, values: 0, kinds: 0, lastKind: "", mixedNum: false, min: 0n, max: 0n, allSafe: true, nints: 0, nmin: 0, nmax: 0, nbigs: 0, firstInt: false,
  elems: undefined, keys: undefined, keyIndex: undefined, keyShapes: undefined, keyCounts: undefined, next: undefined, more: undefined, last: undefined,
  objects: 0, totalKeys: 0, pending: 0, mapKeys: undefined, mapValues: undefined, lastShapes: undefined, lastHits: 0, lastAdd: undefined,
  recent: undefined, cur: undefined,
});
/** A key list seen before (its slots in order, their shapes) with its own hit count and generated code. */
interface KeyList { last: number[]; shapes: Shape[]; hits: number; add: AddRecord | null | undefined }
const RECENT = 8;
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
/** Each kind's bit in Shape.kinds. */
const INT = 2, FLOAT = 4;
function kindBit(k: string): number {
  switch (k) {
    case "bool": return 1;
    case "int": return INT;
    case "float": return FLOAT;
    case "string": return 8;
    case "bytes": return 16;
    case "date": return 32;
    case "timestamp": return 64;
    case "array": return 128;
    case "map": return 256;
    case "object": return 512;
    default: return 1024; // "other"
  }
}
/** The kind of each bit, in the order of the bits. */
const KIND_NAMES = ["bool", "int", "float", "string", "bytes", "date", "timestamp", "array", "map", "object", "other"];
/** Records edge a → b of an object place's key graph. */
function addEdge(s: Shape, a: number, b: number): void {
  const next = s.next!, x = next[a]!;
  if (x === b) return;
  if (x < 0) { next[a] = b; return; }
  const more = (s.more ??= new Map());
  let set = more.get(a);
  if (set === undefined) { set = new Set(); more.set(a, set); }
  set.add(b);
}
const OBJECT_PROTO = Object.prototype;
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
  // The usual places first: a string, or a number of the kind the place held last (no Set, no kindOf).
  if (typeof v === "string") { if (s.lastKind !== "string") { s.kinds |= 8; s.lastKind = "string"; } return; }
  if (typeof v === "number" && s.lastKind !== "") {
    if (s.mixedNum) return;
    if (s.lastKind === "float") { if (!Number.isSafeInteger(v) || Object.is(v, -0)) return; }
    else if (s.lastKind === "int" && s.nints > 0 && Number.isSafeInteger(v) && !Object.is(v, -0)) {
      if (v < s.nmin) s.nmin = v;
      if (v > s.nmax) s.nmax = v;
      s.nints++;
      return;
    }
  }
  addKind(s, v, depth);
}
/** add past its head (v neither null nor undefined, counted in s.values, and not a case the head took): its kind
 * found and added. A function apart from add so that a deopt in these steps (a kind or a path first met late in a
 * long process, as the object branch's) leaves the head, which every value runs and its callers inline, optimised
 * (without new Function every field's value goes through add; BENCHMARKS.md, tsharness31 and tsenc32). */
function addKind(s: Shape, v: unknown, depth: number): void {
  const k = kindOf(v);
  if (k !== s.lastKind) {
    s.kinds |= kindBit(k); s.lastKind = k;
    if ((s.kinds & (INT | FLOAT)) === (INT | FLOAT)) s.mixedNum = true;
  }
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
    addItems((s.elems ??= newShape()), v as ArrayLike<unknown>, depth);
  } else if (k === "map") {
    s.mapKeys ??= newShape(); s.mapValues ??= newShape();
    for (const [mk, mv] of v as Map<unknown, unknown>) { add(s.mapKeys, mk, depth + 1); add(s.mapValues, mv, depth + 1); }
  } else if (k === "object") {
    s.objects++;
    const o = v as Record<string, unknown>;
    // The generated code for the keys of the objects before first walks this one's keys (for…in: no array made);
    // Object.keys only where they differ.
    const f = s.lastAdd;
    const walked = f !== undefined && f !== null && depth < 128;
    if (walked && f(o, undefined, s.lastShapes!, depth + 1)) { addedSame(s); return; }
    const own = Object.keys(o);
    if (s.last !== undefined && addSameKeys(s, o, own, depth, walked)) return;
    // Another recent key list: it becomes `last`, and the same fast paths add the object (what the full path below
    // would do for it: its edges and keys are already there).
    if (s.recent !== undefined && useRecent(s, own) && addSameKeys(s, o, own, depth)) return;
    const keys = (s.keys ??= []), shapes = (s.keyShapes ??= []), counts = (s.keyCounts ??= []), next = (s.next ??= []);
    const index = (s.keyIndex ??= new Map());
    const slots: number[] = [];
    for (const key of own) {
      const x = o[key];
      if (x === undefined) continue;
      let j = index.get(key);
      if (j === undefined) {
        j = keys.length;
        keys.push(key); index.set(key, j); shapes.push(newShape()); counts.push(0); next.push(-1);
      }
      if (slots.length > 0) addEdge(s, slots[slots.length - 1]!, j);
      slots.push(j);
      counts[j]!++;
      add(shapes[j]!, x, depth + 1);
    }
    s.totalKeys += slots.length;
    flushSame(s);
    if (s.cur !== undefined) { s.cur.hits = s.lastHits; s.cur.add = s.lastAdd; }
    s.last = slots;
    s.lastShapes = slots.map((j) => shapes[j]!); s.lastHits = 0; s.lastAdd = undefined;
    const entry: KeyList = { last: slots, shapes: s.lastShapes, hits: 0, add: undefined }, recent = (s.recent ??= []);
    if (recent.push(entry) > RECENT) recent.shift();
    s.cur = entry;
  }
}

/** Adds the items of the list `a` (at `depth`) to `e`, its items' shape: add's loop for a list, in functions of their
 * own. Why not in add, and why the records' loop (addRun) apart from the gathering's steps: a function whose
 * optimised code meets a step it never ran (here the gathering's, first run by the first list of records with
 * array-index keys) is deoptimised, and in bench.mjs's long --held-out-2 run V8 then left the function holding that
 * loop unoptimised for the rest of the process (budget.json is that run's first such list: its encode and
 * population.json's after it took 0.080 ms against 0.043, the loop run per record in the interpreter; BENCHMARKS.md,
 * tsharness31). addRun holds only what every list of records runs. */
function addItems(e: Shape, a: ArrayLike<unknown>, depth: number): void {
  const n = a.length;
  // The list inferGathering infers: its records' fields gathered into columns by the generated code as it loads
  // them (C: from record `from` on, by the code `gf`, while every record goes through it; undefined once one does
  // not, or before).
  const gather = depth === 0 && a === gatherTop;
  let C: unknown[][] | undefined, gf: AddRecord | undefined, from = -1;
  for (let i = 0; i < n;) {
    // Records with the keys of the one before, added by their generated code (addRun), from record i on; the first
    // it does not take, and anything else, goes through add. (The code f and e's kind stay the same while addRun
    // runs: only add(e, …) changes them. So the gathering's steps, taken here once for the run, are what they would
    // be for each of its records.)
    const f = e.lastAdd;
    if (gather) {
      if (from < 0 && f) { from = i; gf = f; C = ADDER_COLUMNS.get(f)?.(n); }
      else if (C !== undefined && f !== gf) C = undefined;
    }
    let x: unknown;
    if (f && e.lastKind === "object" && depth < 127) {
      const j = addRun(e, a, i, n, f, depth, C);
      if (j === n) break;
      // (The item addRun stopped at, as it read it: an accessor item is read once, as add's loop read each.)
      i = j; x = stopped; stopped = undefined;
    } else x = a[i];
    C = undefined;
    add(e, x, depth + 1);
    i++;
  }
  if (C !== undefined) gathered = { src: a as unknown[], keys: ADDER_KEYS.get(gf!)!, from, cols: C };
}
/** The item addRun stopped at (undefined otherwise). */
let stopped: unknown;
/** Adds the records of `a` from index i on that the generated code f adds (plain objects with the keys of e's last
 * ones): what add(e, x, depth + 1) does for each (its depth test, its counts and f's call), without kindOf's
 * instanceof tests (a plain object's prototype is none of those classes') or the call; returns the index of the
 * first item it does not add (n when none), that item left in `stopped`. */
function addRun(e: Shape, a: ArrayLike<unknown>, i: number, n: number, f: AddRecord, depth: number, C: unknown[][] | undefined): number {
  const shapes = e.lastShapes!;
  for (; i < n; i++) {
    const x = a[i];
    if (x === null || typeof x !== "object" || Object.getPrototypeOf(x) !== OBJECT_PROTO || Array.isArray(x) ||
      !f(x as Record<string, unknown>, undefined, shapes, depth + 2, C, i)) { stopped = x; return i; }
    e.values++; e.objects++; addedSame(e);
  }
  return n;
}

/** Adds an object whose own keys are `own` when they are those of `s.last`, in its order, none undefined (no new
 * edge, no lookups); false, having added nothing, otherwise. */
function addSameKeys(s: Shape, o: Record<string, unknown>, own: string[], depth: number, walked = false): boolean {
  const last = s.last!;
  // Generated code for the keys of the object before (after it came twice: a place whose objects alternate key
  // orders does not make code for each): the key test, one named load per key (inline-cached, where a keyed
  // load is megamorphic), a string added inline.
  if (depth < 128) {
    let f = s.lastAdd;
    if (f === undefined && ++s.lastHits > 2) f = s.lastAdd = recordAdder(s.keys!, last);
    if (f && !walked && f(o, own, s.lastShapes!, depth + 1)) { addedSame(s); return true; }
  }
  if (own.length === last.length) {
    const keys = s.keys!;
    let same = true;
    for (let i = 0; i < own.length; i++) if (own[i] !== keys[last[i]!]) { same = false; break; }
    // The values in the keys' order, by one native call: a lookup by a key that varies (o[own[i]]) is a
    // megamorphic load, the most expensive step of this loop.
    const vals = same ? Object.values(o) : undefined;
    if (vals !== undefined && vals.length !== own.length) same = false; // a getter that changed the object
    else if (vals !== undefined) for (let i = 0; i < vals.length; i++) if (vals[i] === undefined) { same = false; break; }
    if (same) {
      const shapes = s.keyShapes!, counts = s.keyCounts!;
      for (let i = 0; i < own.length; i++) { const j = last[i]!; counts[j]!++; add(shapes[j]!, vals![i], depth + 1); }
      s.totalKeys += own.length;
      return true;
    }
  }
  return false;
}
/** Counts the keys of `s.last` once more (an object with them added by the generated code), when flushSame runs. */
function addedSame(s: Shape): void { s.pending++; }
/** Counts the keys of `s.last` for the objects addedSame left pending. */
function flushSame(s: Shape): void {
  const k = s.pending;
  if (k === 0) return;
  s.pending = 0;
  const last = s.last!, counts = s.keyCounts!;
  for (let i = 0; i < last.length; i++) counts[last[i]!]! += k;
  s.totalKeys += last.length * k;
}
/** Makes the recent key list that is `own` (other than the current one) `s.last`, keeping the current one's hits and
 * code in its entry; false when there is none. */
function useRecent(s: Shape, own: string[]): boolean {
  const keys = s.keys!, n = own.length, cur = s.cur;
  for (const r of s.recent!) {
    const l = r.last;
    if (r === cur || l.length !== n) continue;
    let i = 0;
    while (i < n && own[i] === keys[l[i]!]) i++;
    if (i < n) continue;
    flushSame(s);
    if (cur !== undefined) { cur.hits = s.lastHits; cur.add = s.lastAdd; }
    s.cur = r; s.last = l; s.lastShapes = r.shapes; s.lastHits = r.hits; s.lastAdd = r.add;
    return true;
  }
  return false;
}

/** Adds an object with given keys (`own`: its own keys; undefined: found by a for…in walk, or Object.keys), in their order, none
 * undefined, to the shapes of its fields (in that order); false, having added nothing, for any other object. `C`:
 * columns, one per key, where the object's values are also stored, at index `i` (inferGathering's). */
type AddRecord = (o: Record<string, unknown>, own: string[] | undefined, shapes: Shape[], depth: number, C?: unknown[][], i?: number) => boolean;
/** The keys of each adder recordAdder made, and generated code that makes its columns for n records: an array each,
 * each made at its own site in the code (as the gatherer's), so that V8 keeps each column's elements kind apart (a
 * column of numbers unboxed) rather than one kind for every column from one site. */
const ADDER_KEYS = new WeakMap<AddRecord, string[]>(), ADDER_COLUMNS = new WeakMap<AddRecord, (n: number) => unknown[][]>();
/** The fields of a list's records, gathered by inference (inferGathering): `cols[j][i]` is record i's value of
 * `keys[j]` for every i from `from` on (records before it are not gathered: inference's generated code did not add
 * them); every such record is an object whose own enumerable keys are `keys`, in that order, none undefined. */
export interface Gathered { src: unknown[]; keys: string[]; from: number; cols: unknown[][] }
/** The list inferGathering infers (its records' fields gathered), and what it gathered. */
let gatherTop: unknown = null, gathered: Gathered | null = null;
/** inferType(v), and, when v is a list of 16 to 65,536 records of one key list holding an array index (from its fifth
 * record on: the generated code's), their fields gathered as inference loads them, for the column writer (which would load every
 * field again: for keys that are array indices, a dictionary lookup each). */
export function inferGathering(v: unknown): { type: XbfType; gathered: Gathered | null } {
  gathered = null;
  gatherTop = Array.isArray(v) && v.length >= 16 && v.length <= 65536 ? v : null;
  try {
    const type = inferType(v);
    return { type, gathered };
  } finally { gatherTop = null; gathered = null; }
}
/** The AddRecord for the keys of slots `last` (fast_records.ts's cache of generated code); null where code may not be
 * generated (a page's CSP), for a key `__proto__`, or for very wide objects. */
function recordAdder(keys: string[], last: number[]): AddRecord | null {
  const n = last.length;
  // (As wide as the column gatherer's generated code: records of 65 to 256 keys took Object.values and add per value.)
  if (n === 0 || n > MAX_GENERATED || !canGenerate()) return null;
  // The adders made lately, found by comparing the keys (mostly the same strings: one === each): the code cache's
  // id, every key joined and hashed, cost more than the comparison on every call that infers records of these keys.
  for (let r = 0; r < ADDERS.length; r++) {
    const a = ADDERS[r]!, ak = a.keys;
    if (ak.length !== n) continue;
    let i = 0;
    while (i < n && ak[i] === keys[last[i]!]) i++;
    if (i === n) return a.add;
  }
  const ks = last.map((j) => keys[j]!);
  if (ks.includes("__proto__")) return null;
  const add = makeAdder(ks);
  ADDER_KEYS.set(add, ks);
  // (Only for keys that are array indices, whose loads are dictionary lookups: elsewhere the gatherer's named loads
  // cost less than the arrays and stores made in inference for records that may not be written in columns.)
  if (ks.some(isIndexKey)) ADDER_COLUMNS.set(add, generate("infer-columns", ks, () => new Function("n", `return [${ks.map(() => "new Array(n)").join(", ")}];`) as (n: number) => unknown[][]));
  if (ADDERS.unshift({ keys: ks, add }) > RECENT_ADDERS) ADDERS.pop();
  return add;
}
/** The adders recordAdder made lately (most recent first), RECENT_ADDERS at most. */
const RECENT_ADDERS = 16;
const ADDERS: { keys: string[]; add: AddRecord }[] = [];
function makeAdder(ks: string[]): AddRecord {
  return generate("infer", ks, () => {
    const names = ks.map((k) => JSON.stringify(k));
    const test = names.map((k, i) => `k[${i}] !== ${k}`).join(" || ");
    const loads = ks.map((k, i) => `v${i} = o${keyAccess(k)}`).join(", ");
    const undef = names.map((_, i) => `v${i} === undefined`).join(" || ");
    // add's first cases inline: a string where the last value was one, a number of the kind the place held last.
    const adds = names.map((_, i) => `s = a[${i}]; x = v${i};
if (typeof x === "string") { if (s.lastKind === "string") s.values++; else add(s, x, d); }
else if (typeof x === "number" && (s.mixedNum || (s.lastKind === "float" && !Number.isSafeInteger(x)))) s.values++;
else if (typeof x === "number" && s.lastKind === "int" && s.nints > 0 && Number.isSafeInteger(x) && (x !== 0 || 1 / x > 0)) {
  s.values++; s.nints++; if (x < s.nmin) s.nmin = x; if (x > s.nmax) s.nmax = x;
} else add(s, x, d);`).join("\n");
    // The walk: for…in gives the own enumerable keys first (Object.keys' order), then inherited enumerable ones;
    // when it gives exactly the keys and the last is own, all are, and they are Object.keys(o). Keys that are array
    // indices (years, ids) are an object's elements, which for…in turns into strings one at a time at about twice
    // Object.keys' cost: there Object.keys(o) is compared instead (an object with inherited enumerable keys, which
    // the walk refuses, then passes here as add would pass it with Object.keys: the same values added).
    const n = ks.length, lastKey = names[n - 1]!;
    // Object.keys makes an index key's string from the number (V8's number-to-string cache: not internalized), so
    // `=== "1962"` compares the characters (a StringEqual call each, per key and record); each index key is
    // compared first with the string the last record's Object.keys gave there (S, kept by this code: the same
    // object while that cache holds it, found equal by identity), then with the literal, which when equal makes
    // it the one kept. S[i] only ever holds strings equal to key i, so the test is the literal's.
    const indexTest = names.map((k, i) => (isIndexKey(ks[i]!) ? `((x = k[${i}]) !== S[${i}] && (x !== ${k} || ((S[${i}] = x), false)))` : `k[${i}] !== ${k}`)).join(" || ");
    const walk = ks.some(isIndexKey) ? `if (k === undefined) k = Object.keys(o);
if (k.length !== ${n} || ${indexTest}) return false;` : `if (k === undefined) {
  let i = 0;
  for (const key in o) { if (i === ${n} || key !== K[i]) return false; i++; }
  if (i !== ${n} || !has.call(o, ${lastKey})) return false;
} else if (k.length !== ${n} || ${test}) return false;`;
    const body = `let x;
${walk}
const ${loads};
if (${undef}) return false;
if (C !== undefined) { ${ks.map((_, i) => `C[${i}][i] = v${i};`).join(" ")} }
let s;
${adds}
return true;`;
    return new Function("add", "K", "has", "S", `return function (o, k, a, d, C, i) {\n${body}\n};`)(add, ks, Object.prototype.hasOwnProperty, ks.slice()) as AddRecord;
  });
}

/** Adds what `from` saw to `into` (as if its values had come after), for the value type of a map of objects. */
function mergeShape(into: Shape, from: Shape): void {
  flushSame(into); flushSame(from);
  if (into.values === 0) into.firstInt = from.firstInt;
  into.nulls += from.nulls; into.values += from.values;
  into.kinds |= from.kinds;
  into.mixedNum = (into.kinds & (INT | FLOAT)) === (INT | FLOAT);
  if (from.nints > 0) {
    if (into.nints === 0 || from.nmin < into.nmin) into.nmin = from.nmin;
    if (into.nints === 0 || from.nmax > into.nmax) into.nmax = from.nmax;
    into.nints += from.nints;
  }
  if (from.nbigs > 0) {
    if (into.nbigs === 0 || from.min < into.min) into.min = from.min;
    if (into.nbigs === 0 || from.max > into.max) into.max = from.max;
    into.nbigs += from.nbigs;
  }
  into.allSafe &&= from.allSafe;
  if (from.elems) mergeShape((into.elems ??= newShape()), from.elems);
  if (from.mapKeys) mergeShape((into.mapKeys ??= newShape()), from.mapKeys);
  if (from.mapValues) mergeShape((into.mapValues ??= newShape()), from.mapValues);
  if (from.keys) {
    const keys = (into.keys ??= []), shapes = (into.keyShapes ??= []), counts = (into.keyCounts ??= []);
    const next = (into.next ??= []), index = (into.keyIndex ??= new Map());
    const slot = from.keys.map((key, i) => {
      let j = index.get(key);
      if (j === undefined) {
        j = keys.length;
        keys.push(key); index.set(key, j); shapes.push(newShape()); counts.push(0); next.push(-1);
      }
      mergeShape(shapes[j]!, from.keyShapes![i]!);
      counts[j]! += from.keyCounts![i]!;
      return j;
    });
    from.next!.forEach((b, a) => { if (b >= 0) addEdge(into, slot[a]!, slot[b]!); });
    from.more?.forEach((set, a) => { for (const b of set) addEdge(into, slot[a]!, slot[b]!); });
    into.last = from.last?.map((j) => slot[j]!);
    into.recent = undefined; into.cur = undefined; // (their slots are from's)
  }
  into.objects += from.objects; into.totalKeys += from.totalKeys;
}

/** The field order of SPEC 19.1: a topological order of the key graph, ties going to the key seen first;
 * undefined on a cycle (two objects put keys in opposite orders). */
function keyOrder(s: Shape): number[] | undefined {
  const n = s.keys!.length, next = s.next!, more = s.more;
  // Each key followed by the one seen after it and by no other (objects of one key list, the usual case): the
  // only order there is, without the heap.
  if (more === undefined && n > 0) {
    let a = 0;
    while (a < n - 1 && next[a] === a + 1) a++;
    if (a === n - 1 && next[a] === -1) { const order = new Array<number>(n); for (let i = 0; i < n; i++) order[i] = i; return order; }
  }
  const indegree = new Array<number>(n).fill(0);
  for (let a = 0; a < n; a++) { const b = next[a]!; if (b >= 0) indegree[b]!++; }
  if (more !== undefined) for (const set of more.values()) for (const b of set) indegree[b]!++;
  // A binary min-heap of the keys whose predecessors are all placed.
  const heap: number[] = [];
  const push = (x: number) => {
    let i = heap.push(x) - 1;
    while (i > 0) { const p = (i - 1) >> 1; if (heap[p]! <= x) break; heap[i] = heap[p]!; i = p; }
    heap[i] = x;
  };
  const pop = (): number => {
    const top = heap[0]!, x = heap.pop()!;
    if (heap.length > 0) {
      let i = 0;
      for (;;) {
        let c = 2 * i + 1;
        if (c >= heap.length) break;
        if (c + 1 < heap.length && heap[c + 1]! < heap[c]!) c++;
        if (heap[c]! >= x) break;
        heap[i] = heap[c]!; i = c;
      }
      heap[i] = x;
    }
    return top;
  };
  for (let i = 0; i < n; i++) if (indegree[i] === 0) push(i);
  const order: number[] = [];
  while (heap.length > 0) {
    const a = pop();
    order.push(a);
    const b = next[a]!;
    if (b >= 0 && --indegree[b]! === 0) push(b);
    const set = more?.get(a);
    if (set !== undefined) for (const c of set) if (--indegree[c]! === 0) push(c);
  }
  return order.length === n ? order : undefined;
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
  let kinds = s.kinds;
  // JavaScript has one number type: integers and fractions at one place share f64.
  if ((kinds & (INT | FLOAT)) === (INT | FLOAT) && s.allSafe) kinds &= ~INT;
  let t: XbfType;
  if (kinds === 0) return { kind: "unit" };
  if ((kinds & (kinds - 1)) !== 0) t = { kind: "any" };
  else {
    switch (KIND_NAMES[31 - Math.clz32(kinds)]) {
      case "bool": t = { kind: "bool" }; break;
      case "int": {
        // Safe integers only (no bigint): intType's answer from the sign of the least (no bigint made): u64 when it
        // is not negative (the range's adjustment for a place whose first value was not an integer keeps that sign).
        if (s.nbigs === 0 && s.nints > 0) { t = { kind: s.nmin >= 0 ? "u64" : "i64" }; break; }
        const [min, max] = intRange(s);
        t = intType(min, max) ?? { kind: "any" };
        break;
      }
      case "float": t = { kind: "f64" }; break;
      case "string": t = { kind: "string" }; break;
      case "bytes": t = { kind: "bytes" }; break;
      case "date": t = { kind: "date" }; break;
      case "timestamp": t = { kind: "timestamp" }; break;
      case "array": t = { kind: "vec", element: s.elems ? resolve(s.elems) : { kind: "unit" } }; break;
      case "map": t = { kind: "map", key: resolve(s.mapKeys!), value: resolve(s.mapValues!) }; break;
      case "object": {
        flushSame(s);
        const keys = s.keys!, counts = s.keyCounts!, shapes = s.keyShapes!;
        // Keys that are data (SPEC 19.1): more than 64 distinct, and more than 8 times as many as an object has on average.
        if (keys.length > 64 && keys.length * s.objects > 8 * s.totalKeys) {
          const all = newShape();
          for (const shape of shapes) mergeShape(all, shape);
          t = { kind: "map", key: { kind: "string" }, value: resolve(all) };
          break;
        }
        const order = keyOrder(s);
        if (order === undefined) { t = { kind: "any" }; break; }
        t = {
          kind: "struct", name: "Object",
          fields: order.map((j): Member => {
            const ft = resolve(shapes[j]!);
            if (counts[j]! < s.objects) {
              return { name: keys[j]!, type: { kind: "enum", name: OPTIONAL_ENUM, variants: [{ name: "absent", type: { kind: "unit" } }, { name: "present", type: ft }] } };
            }
            return { name: keys[j]!, type: ft };
          }),
        };
        break;
      }
      default: t = { kind: "any" };
    }
  }
  if (s.nulls > 0 && t.kind !== "any") t = { kind: "option", inner: t };
  return t;
}

/** The XBF 2 type that SPEC 19.1 infers for a JS value (see README for the JS specifics). */
export function inferType(v: unknown): XbfType {
  // A lone string, bool, number or null (an `any` column infers each of its values): the type the shape below
  // resolves to, without one (SPEC 19.1: a single integer is u64 when not negative, else i64).
  switch (typeof v) {
    case "string": return { kind: "string" };
    case "boolean": return { kind: "bool" };
    case "number": return { kind: Number.isSafeInteger(v) && !Object.is(v, -0) ? (v >= 0 ? "u64" : "i64") : "f64" };
    case "undefined": return { kind: "unit" };
    default: if (v === null) return { kind: "unit" };
  }
  const s = newShape();
  add(s, v, 0);
  const t = resolve(s);
  if (t.kind === "any" && !(v instanceof XbfAny)) {
    // A single value that no type holds (an integer past 256 bits, an XbfEnum without type, ...).
    if (s.kinds & INT) throw mismatch(`integer ${v} passes 256 bits`);
    throw mismatch(`cannot infer an XBF type for ${describe(v)}`);
  }
  if (v instanceof XbfAny) return { kind: "any" };
  // Readers refuse types nested past 128 levels (an option is a level too), and an any value opens one more
  // (SPEC 16.1): never write either.
  if (depthOf(t) > 128) throw new XbfError("too-deep", undefined, `the inferred type nests ${depthOf(t)} levels, more than 128`);
  if (anyLevel(t, 0) >= 128) throw new XbfError("too-deep", undefined, "a value of type any would open level 129");
  return t;
}

/** The most levels open around an `any` in t (-1 if none); `open`: the levels around t. */
export function anyLevel(t: XbfType, open: number): number {
  switch (t.kind) {
    case "any": return open;
    case "vec": case "array": return anyLevel(t.element, open + 1);
    case "option": return anyLevel(t.inner, open + 1);
    case "tuple": return Math.max(-1, ...t.elements.map((e) => anyLevel(e, open + 1)));
    case "map": return Math.max(anyLevel(t.key, open + 1), anyLevel(t.value, open + 1));
    case "struct": case "enum": {
      let m = -1;
      for (const f of t.kind === "struct" ? t.fields : t.variants) m = Math.max(m, anyLevel(f.type, open + 1));
      return m;
    }
    default: return -1;
  }
}

/** Throws too-deep where a normalized value of type any, with its own type, would nest past 128 levels in the
 * reader (SPEC 16.1: the any value opens a level inside the `open` ones, its type more). */
export function checkAnyLevels(t: XbfType, n: unknown, open = 0): void {
  if (anyLevel(t, open) < 0) return;
  switch (t.kind) {
    case "any": {
      const a = n as NAny;
      if (open + 1 + depthOf(a.t) > 128) throw new XbfError("too-deep", undefined, `a value of type any inside ${open} levels nests ${depthOf(a.t)} more, past 128`);
      return checkAnyLevels(a.t, a.v, open + 1);
    }
    case "vec": case "array": for (const x of n as unknown[]) checkAnyLevels(t.element, x, open + 1); return;
    case "option": if (n !== null) checkAnyLevels(t.inner, (n as unknown[])[0], open + 1); return;
    case "tuple": t.elements.forEach((e, i) => checkAnyLevels(e, (n as unknown[])[i], open + 1)); return;
    case "struct": t.fields.forEach((f, i) => checkAnyLevels(f.type, (n as unknown[])[i], open + 1)); return;
    case "map": for (const [k, v] of n as [unknown, unknown][]) { checkAnyLevels(t.key, k, open + 1); checkAnyLevels(t.value, v, open + 1); } return;
    case "enum": { const e = n as { i: number; v: unknown }; checkAnyLevels(t.variants[e.i]!.type, e.v, open + 1); return; }
    default: return;
  }
}

export { metadataBytes };
