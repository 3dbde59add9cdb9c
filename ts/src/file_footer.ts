// The footer of an XBF file (SPEC 24.3, 24.4): every block's place and record count and, for every column, its
// size, CRC-32C and statistics; the list of a record type's columns that the entries follow; the statistics
// themselves (gathered by the writer, compared by readers) and the `FIELD OP VALUE` predicates they rule out.
// It follows the Rust reference (crates/xbf/src/file/{footer,stats}.rs) check for check, offset for offset.
import { XbfError } from "./errors.js";
import { XbfType, PrimitiveKind } from "./metadata.js";
import { Reader, LimitOptions } from "./decode_rows.js";
import { Cursor } from "./columnar.js";
import { Writer } from "./varint.js";
import { writeValue } from "./encode_rows.js";
import { XbfNaN } from "./nan.js";
import { normalize } from "./values.js";
import type { NEnum } from "./values.js";

/** The last four bytes of a finished XBF file, `XBFF`. */
export const MAGIC = Uint8Array.of(0x58, 0x42, 0x46, 0x46);
/** The bytes after the footer: its CRC-32C, its length (u32 LE), the magic. */
export const TRAILER = 12;
/** Strings and bytes longer than this are not kept whole as a min or max (SPEC 24.4). */
const MAX_STAT_BYTES = 64;

/** The statistics of one column of one block (SPEC 24.4), values in the package's internal form. */
export interface ColumnStatistics {
  /** The smallest and the largest value other than NaN, or null (structural column, empty, all NaN). */
  minMax: [unknown, unknown] | null;
  /** Whether min and max are values of the column (not bounds of a long string cut short). */
  exact: boolean;
  /** Values of the nearest enclosing record (or element, entry, payload) absent at this column's place. */
  nulls: number;
  /** NaN values (float columns). */
  nans: number;
}

/** One column of one block, as the footer gives it. */
export interface ColumnInfo {
  /** The column's bytes, its length prefix included. */
  size: number;
  /** The CRC-32C of those bytes. */
  crc: number;
  stats: ColumnStatistics;
}

/** Where a block lies and what the footer says of it. */
export interface BlockInfo {
  /** The file offset of the block's length prefix. */
  offset: number;
  /** The block's bytes: length prefix, body and CRC-32C. */
  size: number;
  records: number;
  columns: ColumnInfo[];
}

export const varintSize = (x: number): number => { let n = 1; while (x >= 128) { x = Math.floor(x / 128); n++; } return n; };

/** The body length *b* such that a varint of *b* and *b* bytes take `total` bytes (0 if none does). */
export function bodyLenOf(total: number): number {
  for (let p = 1; p <= 10; p++) { const b = total - p; if (b >= 0 && varintSize(b) + b === total) return b; }
  return 0;
}
export const bodyOffset = (b: BlockInfo): number => b.offset + varintSize(bodyLenOf(Math.max(b.size - 4, 0)));
/** The file offset of each column's first byte, the first right after the record count. */
export function columnOffsets(b: BlockInfo): number[] {
  let at = bodyOffset(b) + varintSize(b.records);
  return b.columns.map((c) => { const here = at; at += c.size; return here; });
}

// ---------------------------------------------------------------- the columns of a type
/** A column of a record type, as the columnar walk (SPEC 22.1) meets it. */
export interface Slot {
  /** Its path as `xbf stats` names it (`a.[].b`, `a.(lengths)`; "" for a primitive record). */
  path: string;
  /** The type its statistics are values of, for value columns that have statistics. */
  stat: PrimitiveKind | null;
  /** The struct fields on the way to it, as far as projection reaches (not below tuples, maps, enums). */
  names: string[];
}

/** The type whose values a primitive column's statistics are (the varint type of a fixed-width integer). */
export function statType(kind: string): PrimitiveKind | null {
  if (kind === "unit" || kind === "u256" || kind === "i256" || kind === "any") return null;
  return (kind.startsWith("fixed-") ? kind.slice(6) : kind) as PrimitiveKind;
}

/** The columns of `t` in walk order; null if it holds `any`, whose columns depend on the block. */
export function slots(t: XbfType): Slot[] | null {
  const out: Slot[] = [], path: string[] = [], names: string[] = [];
  const push = (label: string | null, stat: PrimitiveKind | null) =>
    out.push({ path: (label === null ? path : [...path, label]).join("."), stat, names: [...names] });
  const nested = (name: string, field: boolean, ty: XbfType, sel: boolean): boolean => {
    path.push(name);
    const named = field && sel;
    if (named) names.push(name);
    const ok = walk(ty, sel);
    if (named) names.pop();
    path.pop();
    return ok;
  };
  const walk = (ty: XbfType, sel: boolean): boolean => {
    switch (ty.kind) {
      case "unit": return true;
      case "any": return false;
      case "vec": push("(lengths)", null); return nested("[]", false, ty.element, sel);
      case "array": return nested("[]", false, ty.element, sel);
      case "struct": return ty.fields.every((f) => nested(f.name, true, f.type, sel));
      case "tuple": return ty.elements.every((e, i) => nested(String(i), false, e, false));
      case "option": push("(present)", null); return walk(ty.inner, sel);
      case "map": push("(lengths)", null); return nested("key", false, ty.key, false) && nested("value", false, ty.value, false);
      case "enum": push("(variant)", null); return ty.variants.every((v) => nested(v.name, false, v.type, false));
      default: push(null, statType(ty.kind)); return true;
    }
  };
  return walk(t, true) ? out : null;
}

/** Whether a projection (null: everything) reads the column `slot`. */
export function wanted(sel: Map<string, unknown> | null, slot: Slot): boolean {
  let at: Map<string, unknown> | null = sel;
  for (const name of slot.names) {
    if (at === null) return true;
    if (!at.has(name)) return false;
    at = at.get(name) as Map<string, unknown> | null;
  }
  return true;
}

// ---------------------------------------------------------------- comparing and gathering values
const isNaNValue = (v: unknown): boolean => v instanceof XbfNaN || (typeof v === "number" && v !== v);

/** Compares strings by their UTF-8 bytes, which is the order of their code points (not of UTF-16 units); a lone
 * surrogate counts as U+FFFD, as it is written. */
function compareStrings(a: string, b: string): number {
  let i = 0, j = 0;
  while (i < a.length && j < b.length) {
    let x = a.codePointAt(i)!, y = b.codePointAt(j)!;
    i += x > 0xffff ? 2 : 1;
    j += y > 0xffff ? 2 : 1;
    if (x >= 0xd800 && x <= 0xdfff) x = 0xfffd;
    if (y >= 0xd800 && y <= 0xdfff) y = 0xfffd;
    if (x !== y) return x < y ? -1 : 1;
  }
  return i < a.length ? 1 : j < b.length ? -1 : 0;
}

/** Orders two internal values of one primitive type: -1, 0 or 1; null when either is NaN. */
export function compare(a: unknown, b: unknown): number | null {
  if (isNaNValue(a) || isNaNValue(b)) return null;
  if (typeof a === "string" && typeof b === "string") return compareStrings(a, b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }
  if (typeof a === "boolean" && typeof b === "boolean") return a === b ? 0 : a ? 1 : -1;
  if ((typeof a === "number" || typeof a === "bigint") && (typeof b === "number" || typeof b === "bigint")) {
    return a < b ? -1 : a > b ? 1 : 0; // -0 == 0
  }
  return null;
}

/** A lower bound of at most 64 bytes: a prefix is never larger. [value, exact] */
function cutLow(v: unknown): [unknown, boolean] {
  if (typeof v === "string") {
    const b = utf8e.encode(v);
    if (b.length <= MAX_STAT_BYTES) return [v, true];
    return [utf8d.decode(b.subarray(0, charBoundary(b, MAX_STAT_BYTES))), false];
  }
  if (v instanceof Uint8Array && v.length > MAX_STAT_BYTES) return [v.slice(0, MAX_STAT_BYTES), false];
  return [v, true];
}
/** An upper bound of at most 64 bytes: the prefix with its last character (or byte) raised by one, dropping
 * trailing U+10FFFF (or FF) first; null when nothing is left. [value, exact] */
function cutHigh(v: unknown): [unknown, boolean] {
  if (typeof v === "string") {
    const b = utf8e.encode(v);
    if (b.length <= MAX_STAT_BYTES) return [v, true];
    const chars = [...utf8d.decode(b.subarray(0, charBoundary(b, MAX_STAT_BYTES)))].map((c) => c.codePointAt(0)!);
    while (chars.length > 0) {
      let c = chars.pop()! + 1;
      if (c >= 0xd800 && c <= 0xdfff) c = 0xe000; // no char is a surrogate
      if (c <= 0x10ffff) { chars.push(c); return [String.fromCodePoint(...chars), false]; }
    }
    return [null, false];
  }
  if (v instanceof Uint8Array && v.length > MAX_STAT_BYTES) {
    const p = Array.from(v.subarray(0, MAX_STAT_BYTES));
    while (p.length > 0) { const last = p.pop()!; if (last < 0xff) { p.push(last + 1); return [Uint8Array.from(p), false]; } }
    return [null, false];
  }
  return [v, true];
}
const utf8e = new TextEncoder(), utf8d = new TextDecoder();
function charBoundary(b: Uint8Array, end: number): number {
  while (end > 0 && (b[end]! & 0xc0) === 0x80) end--;
  return end;
}

/** The statistics of the values of one primitive column. */
function ofValues(values: unknown[], nulls: number): ColumnStatistics {
  let nans = 0, lo: unknown = undefined, hi: unknown = undefined, any = false;
  for (const v of values) {
    if (isNaNValue(v)) { nans++; continue; }
    if (!any || compare(v, lo) === -1) lo = v;
    if (!any || compare(v, hi) === 1) hi = v;
    any = true;
  }
  if (!any) return { minMax: null, exact: false, nulls, nans };
  const [l, le] = cutLow(lo), [h, he] = cutHigh(hi);
  if (h === null) return { minMax: null, exact: false, nulls, nans };
  return { minMax: [l, h], exact: le && he, nulls, nans };
}

/** The statistics of every primitive column under the internal records `values` of type `t`, by slot path. */
export function gather(t: XbfType, values: unknown[]): Map<string, ColumnStatistics> {
  const out = new Map<string, ColumnStatistics>();
  const path: string[] = [];
  const nested = (name: string, ty: XbfType, vs: unknown[], nulls: number) => { path.push(name); walk(ty, vs, nulls); path.pop(); };
  const walk = (ty: XbfType, vs: any[], nulls: number): void => {
    switch (ty.kind) {
      case "any": return;
      case "vec": case "array": nested("[]", ty.element, vs.flat(1), 0); return;
      case "struct": ty.fields.forEach((f, i) => nested(f.name, f.type, vs.map((v) => v[i]), nulls)); return;
      case "tuple": ty.elements.forEach((e, i) => nested(String(i), e, vs.map((v) => v[i]), nulls)); return;
      case "option": {
        const present = vs.filter((v) => v !== null).map((v) => v[0]);
        walk(ty.inner, present, nulls + vs.length - present.length);
        return;
      }
      case "map": {
        const entries = vs.flat(1) as [unknown, unknown][];
        nested("key", ty.key, entries.map((e) => e[0]), 0);
        nested("value", ty.value, entries.map((e) => e[1]), 0);
        return;
      }
      case "enum":
        ty.variants.forEach((v, i) => nested(v.name, v.type, vs.filter((x: NEnum) => x.i === i).map((x: NEnum) => x.v), 0));
        return;
      default:
        if (statType(ty.kind) !== null) out.set(path.join("."), ofValues(vs, nulls));
    }
  };
  walk(t, values, 0);
  return out;
}

// ---------------------------------------------------------------- footer bytes
const HAS_MIN_MAX = 0x01, EXACT = 0x02;

/** The footer's body: every block's entry. */
export function encodeFooter(blocks: BlockInfo[], statTypes: (PrimitiveKind | null)[] | null): Uint8Array {
  const w = new Writer();
  w.uvar(blocks.length);
  for (const b of blocks) {
    w.uvar(b.offset); w.uvar(b.size); w.uvar(b.records); w.uvar(b.columns.length);
    b.columns.forEach((c, j) => {
      w.uvar(c.size);
      w.fixed(c.crc, 4);
      const st = c.stats, ty = statTypes?.[j];
      if (st.minMax && ty) {
        w.u8(HAS_MIN_MAX | (st.exact ? EXACT : 0));
        for (const v of st.minMax) {
          const vw = new Writer();
          writeValue(vw, { kind: ty }, v, true);
          w.uvar(vw.len);
          w.bytes(vw.buf.subarray(0, vw.len));
        }
      } else {
        w.u8(0);
      }
      w.uvar(st.nulls); w.uvar(st.nans);
    });
  }
  return w.finish();
}

const invalid = (at: number, what: string) => new XbfError("invalid-column", at, `the footer ${what}`);

/** Reads a footer body, `body`, that starts at file offset `base`; blocks must lie in order within
 * `dataStart..dataEnd`. */
export function parseFooter(body: Uint8Array, base: number, sl: Slot[] | null, dataStart: number, dataEnd: number, opts: LimitOptions): BlockInfo[] {
  try {
    return parse(body, sl, dataStart, dataEnd, opts);
  } catch (e) {
    if (e instanceof XbfError) e.shifted(base);
    throw e;
  }
}

// Error offsets here are relative to the footer's first byte (the caller shifts them by `base`); the blocks'
// offsets, like `dataStart` and `dataEnd`, are the file's.
function parse(body: Uint8Array, sl: Slot[] | null, dataStart: number, dataEnd: number, opts: LimitOptions): BlockInfo[] {
  const c = new Cursor(body, 0, body.length);
  const num = () => Number(c.varint(64));
  const countAt = c.pos;
  const count = num();
  // An entry takes at least four bytes: offset, size, records, columns.
  c.checkFits(countAt, count, 4);
  const blocks: BlockInfo[] = [];
  let next = dataStart;
  for (let i = 0; i < count; i++) {
    const at = c.pos;
    const offset = num(), size = num(), records = num();
    const kAt = c.pos;
    const k = num();
    const end = offset + size;
    if (!(offset >= next && end <= dataEnd)) throw invalid(at, `places block ${i} at ${offset}..+${size}, outside ${next}..${dataEnd}`);
    next = end;
    if (records === 0) throw invalid(at, `gives block ${i} no records`);
    // A column entry takes at least eight bytes.
    c.checkFits(kAt, k, 8);
    if (sl && k !== sl.length) throw invalid(kAt, `gives block ${i} ${k} columns; its type has ${sl.length}`);
    const columns: ColumnInfo[] = [];
    let sum = varintSize(records);
    for (let j = 0; j < k; j++) {
      const csize = num();
      sum += csize;
      const p = c.take(4);
      const crc = (body[p]! | (body[p + 1]! << 8) | (body[p + 2]! << 16) | (body[p + 3]! << 24)) >>> 0;
      const flagsAt = c.pos;
      const flags = c.u8();
      if ((flags & ~(HAS_MIN_MAX | EXACT)) !== 0 || flags === EXACT) throw invalid(flagsAt, `has statistics flags 0x${flags.toString(16).padStart(2, "0")}`);
      let minMax: [unknown, unknown] | null = null;
      if (flags & HAS_MIN_MAX) {
        const ty = sl?.[j]?.stat;
        if (!ty) throw invalid(flagsAt, `gives statistics to column ${j} of block ${i}, which has none`);
        const pair: unknown[] = [];
        for (let q = 0; q < 2; q++) {
          const v = c.block();
          const r = new Reader(body, opts, v.pos, v.end);
          r.v2 = true;
          pair.push(r.value({ kind: ty }, 0));
          if (r.pos !== v.end) throw new XbfError("trailing-bytes", r.pos, "bytes remain after the value");
        }
        const ord = compare(pair[0], pair[1]);
        if (ord === null || ord > 0) throw invalid(flagsAt, `gives column ${j} of block ${i} a min above its max`);
        minMax = [pair[0], pair[1]];
      }
      const countsAt = c.pos;
      const nulls = num(), nans = num();
      if (!sl?.[j]?.stat && (nulls !== 0 || nans !== 0)) throw invalid(countsAt, `counts nulls or NaN in column ${j} of block ${i}, which has none`);
      columns.push({ size: csize, crc, stats: { minMax, exact: minMax !== null && (flags & EXACT) !== 0, nulls, nans } });
    }
    const info: BlockInfo = { offset, size, records, columns };
    const blen = bodyLenOf(Math.max(size - 4, 0));
    if (blen === 0 || bodyOffset(info) + blen + 4 !== end || sum !== blen) {
      throw invalid(at, `gives block ${i} columns of ${sum} bytes in a body of ${blen}`);
    }
    blocks.push(info);
  }
  if (c.pos !== c.end) throw new XbfError("trailing-bytes", c.pos, "bytes remain after the footer's blocks");
  return blocks;
}

// ---------------------------------------------------------------- predicates
export type Op = "=" | "!=" | "<" | "<=" | ">" | ">=";
/** A filter `FIELD OP VALUE` (SPEC 24.4): FIELD a dotted path through structs and options to a primitive;
 * VALUE a value of its type (a number, bigint, string, boolean, Date…) or its text (`"300"`, `"2024-01-31"`). */
export interface Predicate { field: string; op: Op; value: unknown }

/** Parses `FIELD OP VALUE` (`delay > 300`, `origin = "SFO"`): a value in double quotes keeps its spaces. */
export function parsePredicate(text: string): Predicate {
  const m = /^\s*([^=!<>]+?)\s*(!=|<=|>=|=|<|>)\s*(.*?)\s*$/s.exec(text);
  if (!m || !m[1]) throw new XbfError("unsupported", undefined, `${JSON.stringify(text)} is not FIELD OP VALUE with OP one of = != < <= > >=`);
  let value = m[3]!;
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
  return { field: m[1], op: m[2] as Op, value };
}

/** A predicate checked against a record type: the field's names and the value in internal form. */
export interface Bound { names: string[]; op: Op; value: unknown; path: string }

export function bind(p: Predicate, t: XbfType): Bound {
  const notFound = (why: string) => new XbfError("type-mismatch", undefined, `filter field ${JSON.stringify(p.field)}: ${why}`);
  let at = t;
  const names = p.field.split(".");
  for (const part of names) {
    while (at.kind === "option") at = at.inner;
    if (at.kind !== "struct") throw notFound("a path through structs and options only");
    const f = at.fields.find((f) => f.name === part);
    if (!f) throw notFound(`no field ${JSON.stringify(part)}`);
    at = f.type;
  }
  while (at.kind === "option") at = at.inner;
  const kind = statType(at.kind);
  if (kind === null || !isPrimitive(at)) throw notFound("not a primitive with an order");
  let v = p.value;
  if (typeof v === "string" && kind !== "string") v = literal(kind, v);
  if (typeof v === "number" && Number.isInteger(v) && /^[ui](64|128)$|^timestamp$/.test(kind)) v = BigInt(v);
  if (kind === "bytes" && typeof v === "string") v = utf8e.encode(v);
  let value: unknown;
  try { value = normalize({ kind }, v); } catch { throw new XbfError("type-mismatch", undefined, `filter: ${String(p.value)} is not a value of ${kind} (field ${p.field})`); }
  return { names, op: p.op, value, path: names.join(".") };
}
const isPrimitive = (t: XbfType) => !["vec", "array", "struct", "tuple", "option", "map", "enum"].includes(t.kind);
function literal(kind: PrimitiveKind, s: string): unknown {
  if (kind === "bool") return s === "true" ? true : s === "false" ? false : s;
  if (kind === "f32" || kind === "f64") return s.trim() === "" ? s : Number(s);
  if (kind === "date" || kind === "timestamp") { const d = new Date(s); return isNaN(d.getTime()) ? s : d; }
  if (kind === "bytes") return s;
  try { return BigInt(s); } catch { return s; }
}

/** Whether an internal record of type `t` matches (an absent field matches nothing; NaN matches only `!=`). */
export function matcher(b: Bound, t: XbfType): (record: unknown) => boolean {
  // The field indices along the way, in `t` (which may be a projection of the file's type).
  const steps: number[] = [];
  let at = t;
  for (const name of b.names) {
    while (at.kind === "option") at = at.inner;
    if (at.kind !== "struct") return () => false;
    const i = at.fields.findIndex((f) => f.name === name);
    if (i < 0) return () => false;
    steps.push(i);
    at = at.fields[i]!.type;
  }
  const unwrap = (ty: XbfType, v: any): [XbfType, any] | null => {
    while (ty.kind === "option") { if (v === null) return null; v = v[0]; ty = ty.inner; }
    return [ty, v];
  };
  return (record) => {
    let ty = t, v: any = record;
    for (const i of steps) {
      const u = unwrap(ty, v);
      if (!u) return false;
      [ty, v] = u;
      v = v[i];
      ty = (ty as Extract<XbfType, { kind: "struct" }>).fields[i]!.type;
    }
    const u = unwrap(ty, v);
    if (!u) return false;
    const ord = compare(u[1], b.value);
    switch (b.op) {
      case "!=": return ord !== 0;
      case "=": return ord === 0;
      case "<": return ord === -1;
      case "<=": return ord === -1 || ord === 0;
      case ">": return ord === 1;
      case ">=": return ord === 1 || ord === 0;
    }
  };
}

/** Whether a column's statistics rule out every record of a block of `records` records. */
export function rulesOut(b: Bound, st: ColumnStatistics, records: number): boolean {
  if (!st.minMax) {
    // No ordered value: only absent values and NaN (unless a long string had no upper bound).
    return st.nulls + st.nans >= records && (b.op !== "!=" || st.nans === 0);
  }
  const lo = compare(b.value, st.minMax[0]), hi = compare(b.value, st.minMax[1]);
  if (lo === null || hi === null) return false;
  switch (b.op) {
    case "=": return lo === -1 || hi === 1;
    case "!=": return st.nans === 0 && lo === 0 && hi === 0;
    case "<": return lo !== 1;
    case "<=": return lo === -1;
    case ">": return hi !== -1;
    case ">=": return hi === 1;
  }
}
