// Reading XBF files (SPEC 24): from the end through the footer (FileReader: any block directly, only the
// columns asked for, blocks skipped by their statistics, damaged blocks reported or skipped), or forward with
// nothing but the blocks (readFileForward over bytes, FileStreamReader over a stream of chunks, holding one
// block at a time). Checks, error kinds and offsets are the Rust reader's (crates/xbf/src/file/reader.rs).
import { XbfError, seg } from "./errors.js";
import { XbfType, depthOf, hex, typeToJson, typeToString } from "./metadata.js";
import { Reader, LimitOptions, DEFAULT_MAX_DECODED_BYTES, checkLimits, FLAG_CHECKSUM, FLAG_COLUMNAR, FLAG_REF, FLAG_STREAM } from "./decode_rows.js";
import { ColReader, Cursor, Selection, anyTypes, selectionFromPaths } from "./columnar.js";
import { crc32c } from "./checksums.js";
import { ValueOptions, toPublic } from "./values.js";
import { blockDirect } from "./fast.js";
import { Writer } from "./varint.js";
import {
  BlockInfo, Bound, MAGIC, Predicate, Slot, TRAILER, bind, bodyLenOf, bodyOffset, columnOffsets, matcher, parseFooter,
  parsePredicate, rulesOut, slots, varintSize, wanted,
} from "./file_footer.js";

export interface FileReadOptions extends ValueOptions, LimitOptions {}

/** What to read of a file. */
export interface FileQuery {
  /** Decode only these fields (dotted paths, SPEC 22.6); only their columns' bytes are read. */
  fields?: string[];
  /** Keep only the records that match; blocks whose statistics rule it out are not read. */
  where?: Predicate | string;
  /** Skip a damaged block (bad checksum, bad columns) instead of failing; `damaged` lists those skipped. */
  skipDamaged?: boolean;
}

/** An error in one block of a file: its number (from 0) and byte range, as the detail also says. */
export class FileBlockError extends XbfError {
  constructor(e: XbfError, readonly block: number, readonly start: number, readonly end: number) {
    super(e.kind, e.offset, `block ${block} (bytes ${start}..${end}): ${e.detail}`);
    for (const s of [...e.segments].reverse()) this.within(s);
  }
}

/** A block that could not be read, as a reader that skips damaged blocks lists it. */
export interface DamagedBlock { block: number; start: number; end: number; error: XbfError }

/** The records of one block of a read. */
export interface FileBlock { index: number; offset: number; size: number; records: unknown[] }

// ---------------------------------------------------------------- shared parts
/** Reads the header and type of a file: flags 0e or 0f, then the metadata or a known fingerprint. */
function readHead(b: Uint8Array, opts: LimitOptions): { type: XbfType; byRef: boolean; dataStart: number } {
  const r = new Reader(b, opts);
  r.v2 = true;
  // The Rust reader reads a file's header from a stream, where it cannot check a member count against the bytes
  // left: a cut type fails where its bytes end. Without the check, a count still allocates nothing (members
  // are read one at a time, each taking bytes), so the offsets are made to agree.
  r.checkFits = () => {};
  const first = r.u8();
  if (first !== 0xc2) throw new XbfError("unsupported", 0, `an XBF file starts with c2, not 0x${first.toString(16).padStart(2, "0")}`);
  const flags = r.u8();
  const file = FLAG_COLUMNAR | FLAG_STREAM | FLAG_CHECKSUM;
  if ((flags & ~(file | FLAG_REF)) !== 0 || (flags & file) !== file) {
    throw new XbfError("unsupported", 1, `header flags 0x${flags.toString(16).padStart(2, "0")} are not those of an XBF file (0e or 0f)`);
  }
  const byRef = (flags & FLAG_REF) !== 0;
  if (!byRef) { const type = r.metadata(0); return { type, byRef, dataStart: r.pos }; }
  const at = r.pos;
  if (b.length - at < 8) throw new XbfError("truncated", at, `needs 8 bytes, ${b.length - at} remain`);
  const fp = b.subarray(at, at + 8);
  const type = opts.registry?.get(fp);
  if (!type) throw new XbfError("unknown-schema", at, `no known schema has fingerprint ${hex(fp)}`);
  if (depthOf(type) > (opts.maxDepth ?? 128)) throw new XbfError("too-deep", at, "the referenced schema nests too deep");
  return { type, byRef, dataStart: at + 8 };
}

/** The plan of a read: what to decode (the fields asked for and the filter's field), what to keep, the filter. */
interface Plan { decode: Selection | null; keep: Selection | null; bound: Bound | null }

function pruneType(t: XbfType, sel: Selection | null): XbfType | null {
  if (sel === null) return t;
  switch (t.kind) {
    case "vec": case "array": { const e = pruneType(t.element, sel); return e && { ...t, element: e }; }
    case "option": { const e = pruneType(t.inner, sel); return e && { kind: "option", inner: e }; }
    case "struct": {
      const fields = t.fields.filter((f) => sel.has(f.name)).map((f) => ({ name: f.name, type: pruneType(f.type, sel.get(f.name)!) }));
      if (fields.length === 0 || fields.some((f) => f.type === null)) return null;
      return { kind: "struct", name: t.name, fields: fields as { name: string; type: XbfType }[] };
    }
    default: return t;
  }
}
/** A value of the projected type `t` cut down to the fields of `sel`. */
function pruneValue(t: XbfType, sel: Selection | null, v: any): unknown {
  if (sel === null) return v;
  switch (t.kind) {
    case "vec": case "array": return v.map((x: unknown) => pruneValue(t.element, sel, x));
    case "option": return v === null ? null : [pruneValue(t.inner, sel, v[0])];
    case "struct": {
      const out: unknown[] = [];
      t.fields.forEach((f, i) => { if (sel.has(f.name)) out.push(pruneValue(f.type, sel.get(f.name)!, v[i])); });
      return out;
    }
    default: return v;
  }
}

function makePlan(t: XbfType, q: FileQuery): Plan {
  const bound = q.where === undefined ? null : bind(typeof q.where === "string" ? parsePredicate(q.where) : q.where, t);
  if (!q.fields) return { decode: null, keep: null, bound };
  const keep = selectionFromPaths(q.fields);
  if (pruneType(t, keep) === null) throw new XbfError("type-mismatch", undefined, `no field of ${typeToString(t)} is among ${JSON.stringify(q.fields)}`);
  const decode = selectionFromPaths(bound ? [...q.fields, bound.path] : q.fields);
  const same = JSON.stringify(typeToJson(pruneType(t, decode)!)) === JSON.stringify(typeToJson(pruneType(t, keep)!));
  return { decode, keep: same ? null : keep, bound };
}

/** Decodes a block body (record count, then columns) at file offset `base`: the type handed out and the records
 * the plan keeps, internal values. */
function decodeBody(t: XbfType, body: Uint8Array, base: number, opts: LimitOptions, plan: Plan): [XbfType, unknown[]] {
  try {
    const c = new Cursor(body, 0, body.length);
    c.file = true;
    const n = c.varNum(64);
    if (n === 0) throw new XbfError("invalid-varint", 0, "a block holds at least one record");
    const r = new ColReader(opts.maxDecodedBytes ?? DEFAULT_MAX_DECODED_BYTES, opts);
    let decoded: [XbfType, unknown[]];
    try {
      decoded = r.node(t, n, c, 0, plan.decode);
    } catch (e) {
      if (e instanceof XbfError && t.kind === "struct") e.within(seg.root(t.name));
      throw e;
    }
    if (c.pos !== c.end) throw new XbfError("trailing-bytes", c.pos, "bytes remain after the block's columns");
    let [dt, values] = decoded;
    if (plan.bound) { const m = matcher(plan.bound, dt); values = values.filter(m); }
    if (plan.keep) { values = values.map((v) => pruneValue(dt, plan.keep, v)); dt = pruneType(dt, plan.keep)!; }
    return [dt, values];
  } catch (e) {
    if (e instanceof XbfError) e.shifted(base);
    throw e;
  }
}

/** The records of a block body as public values by the direct path of fast.ts, for a plain read (no fields, no
 * filter, the default mapping); null where that path gives up: the reference decoder then decodes the block
 * or reports its error with offset and path. */
function directBody(t: XbfType, body: Uint8Array, opts: FileReadOptions, plan: Plan): unknown[] | null {
  if (plan.decode || plan.bound || opts.exact) return null;
  try {
    const c = new Cursor(body, 0, body.length);
    const n = c.varNum(64);
    return n === 0 ? null : blockDirect(body, c.pos, t, n, opts);
  } catch {
    return null;
  }
}

const u32At = (b: Uint8Array, p: number) => (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
const crcHex = (x: number) => x.toString(16).padStart(8, "0");

// ---------------------------------------------------------------- from the end
/**
 * Reads an XBF file held in memory from the end (SPEC 24.2): the constructor reads the header, the type and
 * the footer (throwing XbfError; a file without a footer fails with `truncated`: read it forward); then any
 * block, any of its columns, directly.
 */
export class FileReader {
  readonly type: XbfType;
  /** Whether the header names the type by fingerprint. */
  readonly byReference: boolean;
  /** Every block, as the footer lists it. */
  readonly blocks: BlockInfo[];
  /** The offset of the first block (the end of the header and type). */
  readonly dataStart: number;
  /** The blocks skipped as damaged so far (reads with `skipDamaged`). */
  readonly damaged: DamagedBlock[] = [];
  private readonly slots: Slot[] | null;

  constructor(private bytes: Uint8Array, private opts: FileReadOptions = {}) {
    checkLimits(opts);
    const head = readHead(bytes, opts);
    this.type = head.type;
    this.byReference = head.byRef;
    this.dataStart = head.dataStart;
    const len = bytes.length;
    const unfinished = () => new XbfError("truncated", len, "the file has no footer (unfinished?): read it forward for its whole blocks");
    if (len < head.dataStart + 2 + TRAILER) throw unfinished();
    const trailerAt = len - TRAILER;
    for (let i = 0; i < 4; i++) if (bytes[trailerAt + 8 + i] !== MAGIC[i]) throw unfinished();
    const stored = u32At(bytes, trailerAt), flen = u32At(bytes, trailerAt + 4);
    const headLen = 1 + varintSize(flen);
    const markerAt = trailerAt - flen - headLen;
    if (markerAt < head.dataStart) throw new XbfError("invalid-column", trailerAt + 4, "the footer's length reaches past the blocks");
    const expect = new Writer();
    expect.u8(0);
    expect.uvar(flen);
    for (let i = 0; i < headLen; i++) {
      if (bytes[markerAt + i] !== expect.buf[i]) throw new XbfError("invalid-column", markerAt, "the footer does not start with 00 and its length");
    }
    const body = bytes.subarray(markerAt + headLen, trailerAt);
    const actual = crc32c(body);
    if (actual !== stored) throw new XbfError("bad-checksum", trailerAt, `the footer's CRC-32C is ${crcHex(actual)}, the file says ${crcHex(stored)}`);
    this.slots = slots(this.type);
    this.blocks = parseFooter(body, markerAt + headLen, this.slots, head.dataStart, markerAt, opts);
  }

  /** How many records the file holds. */
  get recordCount(): number { return this.blocks.reduce((a, b) => a + b.records, 0); }
  /** The paths of a block's columns (`xbf stats` names), when the type fixes them (no `any`). */
  get columnPaths(): string[] | null { return this.slots && this.slots.map((s) => s.path); }

  private damage(i: number, e: unknown): unknown {
    if (!(e instanceof XbfError) || e instanceof FileBlockError) return e;
    const b = this.blocks[i]!;
    return new FileBlockError(e, i, b.offset, b.offset + b.size);
  }
  private checkIndex(i: number): void {
    if (!(Number.isInteger(i) && i >= 0 && i < this.blocks.length)) throw new XbfError("truncated", undefined, `block ${i} of a file of ${this.blocks.length}`);
  }

  /** Whether block `i`'s statistics show that no record matches the filter. */
  private ruledOut(i: number, plan: Plan): boolean {
    const f = plan.bound;
    if (!f || !this.slots) return false;
    const b = this.blocks[i]!;
    return this.slots.some((s, j) => s.stat !== null && s.path === f.path && rulesOut(f, b.columns[j]!.stats, b.records));
  }
  /** How many blocks the statistics rule out for `q`'s filter (none of their bytes is read). */
  blocksRuledOut(q: FileQuery): number {
    const plan = makePlan(this.type, q);
    return this.blocks.filter((_, i) => this.ruledOut(i, plan)).length;
  }

  /** Block `i`'s body: whole, checked by its CRC-32C, or with only the wanted columns, each checked by the
   * CRC-32C the footer gives it (the others stand as their length and zeros, which the decoder skips). */
  private fetch(i: number, plan: Plan): { body: Uint8Array; base: number } {
    const b = this.blocks[i]!, bytes = this.bytes;
    const base = bodyOffset(b), len = bodyLenOf(b.size - 4);
    const sl = this.slots, sel = plan.decode;
    const want = sl && sel ? sl.map((s) => wanted(sel, s)) : null;
    if (!want || want.every((x) => x)) {
      const r = new Reader(bytes, {}, b.offset, b.offset + b.size);
      r.v2 = true;
      if (r.uvarNum(64) !== len) throw new XbfError("invalid-column", b.offset, "the block's length is not the footer's");
      const body = bytes.subarray(base, base + len);
      const crcAt = base + len;
      const stored = u32At(bytes, crcAt), actual = crc32c(body);
      if (stored !== actual) throw new XbfError("bad-checksum", crcAt, `the block's CRC-32C is ${crcHex(actual)}, the file says ${crcHex(stored)}`);
      const c = new Reader(bytes, {}, base, base + len);
      c.v2 = true;
      const count = c.uvarNum(64);
      if (count === 0) throw new XbfError("invalid-varint", base, "a block holds at least one record");
      if (count !== b.records) throw new XbfError("invalid-column", base, "the block's record count is not the footer's");
      return { body, base };
    }
    const body = new Writer();
    body.uvar(b.records);
    const offsets = columnOffsets(b);
    b.columns.forEach((col, j) => {
      const at = offsets[j]!;
      if (want[j]) {
        const bytesOf = bytes.subarray(at, at + col.size);
        const actual = crc32c(bytesOf);
        if (actual !== col.crc) throw new XbfError("bad-checksum", at, `the column's CRC-32C is ${crcHex(actual)}, the footer says ${crcHex(col.crc)}`);
        body.bytes(bytesOf);
      } else {
        const inner = bodyLenOf(col.size);
        body.uvar(inner);
        body.bytes(new Uint8Array(inner));
      }
    });
    return { body: body.finish(), base };
  }

  /** The records of block `i` that `q` asks for, internal values, with their type (none if the statistics rule
   * the filter out, in which case nothing of the block is read). */
  readBlockInternal(i: number, q: FileQuery = {}): { type: XbfType; records: unknown[] } {
    this.checkIndex(i);
    const plan = makePlan(this.type, q);
    return this.blockWith(i, plan);
  }
  private blockWith(i: number, plan: Plan): { type: XbfType; records: unknown[] } {
    if (this.ruledOut(i, plan)) return { type: pruneType(this.type, plan.keep ?? plan.decode) ?? this.type, records: [] };
    try {
      const { body, base } = this.fetch(i, plan);
      const [type, records] = decodeBody(this.type, body, base, this.opts, plan);
      return { type, records };
    } catch (e) {
      throw this.damage(i, e);
    }
  }
  /** Block `i`'s records as public values: by the direct path when the read is plain, else the reference one. */
  private publicWith(i: number, plan: Plan): unknown[] {
    if (!plan.bound && !this.opts.exact) {
      const plain: Plan = { decode: null, keep: null, bound: null };
      let direct: unknown[] | null = null;
      if (!plan.decode) {
        let body: Uint8Array;
        try { body = this.fetch(i, plan).body; } catch (e) { throw this.damage(i, e); }
        direct = directBody(this.type, body, this.opts, plain);
      } else if (this.slots) {
        // Projection: the wanted columns alone are the columns of the projected type (projection reaches
        // through structs, vecs, arrays and options, as the walk of the columns does), so they decode as a
        // block of that type.
        const b = this.blocks[i]!, sel = plan.decode, offsets = columnOffsets(b);
        const w = new Writer();
        w.uvar(b.records);
        let intact = true;
        this.slots.forEach((s, j) => {
          if (!intact || !wanted(sel, s)) return;
          const at = offsets[j]!, col = this.bytes.subarray(at, at + b.columns[j]!.size);
          // A damaged column: the reference path below reports it (bad-checksum at the column).
          if (crc32c(col) !== b.columns[j]!.crc) intact = false;
          w.bytes(col);
        });
        const pt = pruneType(this.type, sel);
        if (intact && pt) direct = directBody(pt, w.finish(), this.opts, plain);
      }
      if (direct) return direct;
    }
    const { type, records } = this.blockWith(i, plan);
    return records.map((n) => toPublic(type, n, this.opts));
  }
  /** The records of block `i` that `q` asks for (public values, as `decode` gives them). */
  readBlock(i: number, q: FileQuery = {}): unknown[] {
    this.checkIndex(i);
    const plan = makePlan(this.type, q);
    return this.ruledOut(i, plan) ? [] : this.publicWith(i, plan);
  }

  /** The blocks of a read in order, with `read` giving each one's records; blocks ruled out by the filter are
   * left out, damaged ones skipped with `skipDamaged`. */
  private *each<T>(q: FileQuery, read: (i: number, plan: Plan) => T): Generator<{ index: number; offset: number; size: number; got: T }> {
    const plan = makePlan(this.type, q);
    for (let i = 0; i < this.blocks.length; i++) {
      if (this.ruledOut(i, plan)) continue;
      const b = this.blocks[i]!;
      let got: T;
      try {
        got = read(i, plan);
      } catch (e) {
        if (q.skipDamaged && e instanceof FileBlockError) { this.damaged.push({ block: i, start: e.start, end: e.end, error: e }); continue; }
        throw e;
      }
      yield { index: i, offset: b.offset, size: b.size, got };
    }
  }
  /** The blocks of a read, in order, internal values with their type. */
  *blocksInternal(q: FileQuery = {}): Generator<FileBlock & { type: XbfType }> {
    for (const b of this.each(q, (i, plan) => this.blockWith(i, plan))) {
      yield { index: b.index, offset: b.offset, size: b.size, records: b.got.records, type: b.got.type };
    }
  }
  /** The records `q` asks for, block by block (public values). */
  *blocksOf(q: FileQuery = {}): Generator<FileBlock> {
    for (const b of this.each(q, (i, plan) => this.publicWith(i, plan))) yield { index: b.index, offset: b.offset, size: b.size, records: b.got };
  }
  /** The records `q` asks for, one by one (public values). */
  *records(q: FileQuery = {}): Generator<unknown> {
    for (const b of this.blocksOf(q)) yield* b.records;
  }
  *[Symbol.iterator](): Generator<unknown> { yield* this.records(); }

  /** Block `i`'s columns as they stand (the block read whole and its checksum checked; no column decoded): each
   * one's path, file offset, size with its length prefix, encoding byte and the footer's entry for it. */
  blockColumns(i: number): BlockColumn[] {
    this.checkIndex(i);
    const plan: Plan = { decode: null, keep: null, bound: null };
    try {
      const { body, base } = this.fetch(i, plan);
      const cols = columnRanges(this.type, body, base, this.opts);
      const b = this.blocks[i]!;
      if (cols.length !== b.columns.length) throw new XbfError("invalid-column", base, `the block has ${cols.length} columns, the footer lists ${b.columns.length}`);
      return cols.map((c, j) => ({ ...c, crc: b.columns[j]!.crc, stats: b.columns[j]!.stats, statType: this.slots?.[j]?.stat ?? null }));
    } catch (e) {
      throw this.damage(i, e);
    }
  }
}

export interface ColumnPlace {
  /** The column's path as `xbf stats` names it (`a.[].b`, `a.(lengths)`). */
  path: string;
  /** Its first byte (its length prefix) in the file, and its size with the prefix. */
  offset: number;
  size: number;
  /** Its encoding byte (SPEC 22.2) and that encoding's name. */
  encoding: number;
  encodingName: string;
}
export interface BlockColumn extends ColumnPlace {
  /** The footer's CRC-32C of the column's bytes and its statistics (min and max in the internal form of
   * `statType`, the type they are values of; null for columns without statistics). */
  crc: number;
  stats: import("./file_footer.js").ColumnStatistics;
  statType: import("./metadata.js").PrimitiveKind | null;
}

const ENCODINGS: Record<number, string> = {
  0x00: "varint", 0x01: "frame of reference", 0x02: "delta", 0x03: "run-length", 0x04: "entropy-coded",
  0x05: "cascaded runs", 0x08: "plain 256", 0x10: "plain float", 0x11: "decimal float", 0x12: "float dictionary",
  0x13: "XOR float", 0x20: "plain strings", 0x21: "string dictionary", 0x22: "shared prefixes", 0x30: "types", 0x80: "zstd",
};
export const encodingName = (e: number): string => ENCODINGS[e] ?? `unknown 0x${e.toString(16).padStart(2, "0")}`;

/** The places of the columns of a block body (record count, then columns) of records of type `t`, at file
 * offset `base`, found by their lengths as a projection skips them (for `any`, by its types columns). */
export function columnRanges(t: XbfType, body: Uint8Array, base: number, opts: LimitOptions): ColumnPlace[] {
  const out: ColumnPlace[] = [];
  try {
    const c = new Cursor(body, 0, body.length);
    c.varNum(64);
    const path: string[] = [];
    const col = (label: string | null) => {
      const s = c.pos;
      const inner = c.block();
      const encoding = inner.pos < inner.end ? body[inner.pos]! : 0;
      out.push({ path: (label === null ? path : [...path, label]).join("."), offset: base + s, size: c.pos - s, encoding, encodingName: encodingName(encoding) });
    };
    const nested = (name: string, ty: XbfType, depth: number) => { path.push(name); walk(ty, depth); path.pop(); };
    const walk = (ty: XbfType, depth: number): void => {
      const child = depth + 1;
      switch (ty.kind) {
        case "unit": return;
        case "vec": col("(lengths)"); return nested("[]", ty.element, child);
        case "array": return nested("[]", ty.element, child);
        case "struct": for (const f of ty.fields) nested(f.name, f.type, child); return;
        case "tuple": ty.elements.forEach((e, i) => nested(String(i), e, child)); return;
        case "option": col("(present)"); return walk(ty.inner, child);
        case "map": col("(lengths)"); nested("key", ty.key, child); return nested("value", ty.value, child);
        case "enum": col("(variant)"); for (const v of ty.variants) nested(v.name, v.type, child); return;
        case "any": {
          const s = c.pos;
          const types = anyTypes(c, child, opts);
          out.push({ path: [...path, "(types)"].join("."), offset: base + s, size: c.pos - s, encoding: 0x30, encodingName: "types" });
          col("(type)");
          for (const ty2 of types) nested(`<${typeToString(ty2)}>`, ty2, child);
          return;
        }
        default: col(null);
      }
    };
    walk(t, 0);
    if (c.pos !== c.end) throw new XbfError("trailing-bytes", c.pos, "bytes remain after the block's columns");
  } catch (e) {
    if (e instanceof XbfError) e.shifted(base);
    throw e;
  }
  return out;
}

// ---------------------------------------------------------------- forward
/** A block read forward: its records, public values if `isPublic`, internal values of `type` otherwise. */
type Step = "more" | "end" | (FileBlock & { type: XbfType; isPublic: boolean });

/**
 * The forward reader (SPEC 24.6) as a state machine over bytes that arrive in pieces: `push` adds bytes,
 * `step` reads the next block (or footer part) once its bytes are all there. It keeps only the bytes of the
 * block being read (and whatever part of the next one came with them).
 */
class Forward {
  buf = new Uint8Array(0);
  private len = 0;
  private pos = 0;
  /** The file offset of `buf[0]`. */
  private base = 0;
  type: XbfType | null = null;
  private sl: Slot[] | null = null;
  private plan: Plan | null = null;
  private dataStart = 0;
  private blocks = 0;
  private afterFooter = false;
  /** Offset, size and record count (null: a damaged block) of each block read, to hold a footer against. */
  private seen: [number, number, number | null][] = [];

  /** `publicValues`: give blocks as public values where the direct path can (a plain read). */
  constructor(private opts: FileReadOptions, private q: FileQuery, private publicValues: boolean) {}

  push(chunk: Uint8Array): void {
    if (this.type !== null && this.pos > 0) {
      // Drop what was read (after the header and type: offsets before then count from the file's start).
      this.buf.copyWithin(0, this.pos, this.len);
      this.len -= this.pos;
      this.base += this.pos;
      this.pos = 0;
    }
    if (this.len + chunk.length > this.buf.length) {
      const nb = new Uint8Array(Math.max(this.len + chunk.length, this.buf.length * 2, 1024));
      nb.set(this.buf.subarray(0, this.len));
      this.buf = nb;
    }
    this.buf.set(chunk, this.len);
    this.len += chunk.length;
  }

  /** Runs `f` over the buffer, errors shifted to file offsets. */
  private rel<T>(f: () => T): T {
    try { return f(); } catch (e) { if (e instanceof XbfError) e.shifted(this.base); throw e; }
  }
  private varint(at: number, bits: number): [number, number] {
    const r = new Reader(this.buf, {}, at, this.len);
    r.v2 = true;
    const v = r.uvarNum(bits);
    return [v, r.pos];
  }

  /** The next block, "more" if more bytes are needed first (`eof`: none will come), or "end". */
  step(eof: boolean): Step {
    if (this.type === null) {
      let head: ReturnType<typeof readHead>;
      try {
        head = readHead(this.buf.subarray(0, this.len), this.opts);
      } catch (e) {
        if (e instanceof XbfError && e.kind === "truncated" && !eof) return "more";
        throw e;
      }
      this.type = head.type;
      this.sl = slots(head.type);
      this.plan = makePlan(head.type, this.q);
      this.dataStart = this.pos = head.dataStart;
    }
    const t = this.type;
    for (;;) {
      const lenAt = this.pos;
      if (lenAt >= this.len) {
        if (!eof) return "more";
        if (this.afterFooter) return "end";
        throw new XbfError("truncated", this.base + lenAt, `the file ends after ${this.blocks} whole blocks, without a footer`);
      }
      let len: number, bodyAt: number;
      try {
        [len, bodyAt] = this.rel(() => this.varint(lenAt, 64));
      } catch (e) {
        if (e instanceof XbfError && e.kind === "truncated" && !eof) return "more";
        throw e;
      }
      if (len === 0) {
        if (!this.footer(lenAt, eof)) return "more";
        continue;
      }
      if (bodyAt + len + 4 > this.len) {
        if (!eof) return "more";
        throw new XbfError("truncated", this.base + lenAt, "the file ends inside a block");
      }
      this.afterFooter = false;
      const crcAt = bodyAt + len, end = crcAt + 4;
      const index = this.blocks++;
      const [start, stop] = [this.base + lenAt, this.base + end];
      this.pos = end;
      const body = this.buf.subarray(bodyAt, crcAt);
      const stored = u32At(this.buf, crcAt), actual = crc32c(body);
      if (stored !== actual) {
        this.seen.push([start, stop - start, null]);
        throw new FileBlockError(new XbfError("bad-checksum", this.base + crcAt, `the block's CRC-32C is ${crcHex(actual)}, the file says ${crcHex(stored)}`), index, start, stop);
      }
      const entry: [number, number, number | null] = [start, stop - start, null];
      this.seen.push(entry);
      try {
        entry[2] = this.rel(() => this.varint(bodyAt, 64)[0]);
        const copy = body.slice(); // the values may keep bytes of it; the buffer is reused
        const direct = this.publicValues ? directBody(t, copy, this.opts, this.plan!) : null;
        if (direct) return { index, offset: start, size: stop - start, records: direct, type: t, isPublic: true };
        const [type, records] = decodeBody(t, copy, this.base + bodyAt, this.opts, this.plan!);
        return { index, offset: start, size: stop - start, records, type, isPublic: false };
      } catch (e) {
        if (e instanceof XbfError) throw new FileBlockError(e, index, start, stop);
        throw e;
      }
    }
  }

  /** Reads and checks a footer part at `at` (its `00`): it must list exactly the blocks read so far. False if
   * its bytes are not all there yet. */
  private footer(at: number, eof: boolean): boolean {
    let flen: number, bodyAt: number;
    try {
      [flen, bodyAt] = this.rel(() => this.varint(at + 1, 32));
    } catch (e) {
      if (e instanceof XbfError && e.kind === "truncated" && !eof) return false;
      throw e;
    }
    const trailerAt = bodyAt + flen;
    if (trailerAt + TRAILER > this.len) {
      if (!eof) return false;
      const short = bodyAt + flen > this.len ? bodyAt : trailerAt;
      throw new XbfError("truncated", this.base + short, `the file ends inside a footer part`);
    }
    const b = this.buf;
    const stored = u32At(b, trailerAt), len = u32At(b, trailerAt + 4);
    let magic = len === flen;
    for (let i = 0; i < 4; i++) if (b[trailerAt + 8 + i] !== MAGIC[i]) magic = false;
    if (!magic) throw new XbfError("invalid-column", this.base + trailerAt, "the footer's trailer is not its length and XBFF");
    const body = b.subarray(bodyAt, trailerAt);
    const actual = crc32c(body);
    if (actual !== stored) throw new XbfError("bad-checksum", this.base + trailerAt, `the footer's CRC-32C is ${crcHex(actual)}, the file says ${crcHex(stored)}`);
    const listed = parseFooter(body, this.base + bodyAt, this.sl, this.dataStart, this.base + at, this.opts);
    const same = listed.length === this.seen.length && listed.every((x, i) => {
      const [o, s, n] = this.seen[i]!;
      return x.offset === o && x.size === s && (n === null || x.records === n);
    });
    if (!same) throw new XbfError("invalid-column", this.base + bodyAt, `the footer lists ${listed.length} blocks other than the ${this.seen.length} read before it`);
    this.pos = trailerAt + TRAILER;
    this.afterFooter = true;
    return true;
  }
}

/** Reads a file held in memory forward (SPEC 24.6): its type, the records of every whole block (internal
 * values with `internal`, public ones otherwise), the blocks skipped as damaged (with `skipDamaged`), and the error that ended
 * the read, if any (a file whose writer died yields its whole blocks, then `truncated`). */
export function readFileForward(bytes: Uint8Array, opts: FileReadOptions & FileQuery & { internal?: boolean } = {}): {
  type: XbfType | null; records: unknown[]; damaged: DamagedBlock[]; error: XbfError | null;
} {
  checkLimits(opts);
  const f = new Forward(opts, opts, !opts.internal);
  f.push(bytes);
  const records: unknown[] = [], damaged: DamagedBlock[] = [];
  for (;;) {
    let s: Step;
    try {
      s = f.step(true);
    } catch (e) {
      if (e instanceof FileBlockError && opts.skipDamaged) { damaged.push({ block: e.block, start: e.start, end: e.end, error: e }); continue; }
      if (e instanceof XbfError) return { type: f.type, records, damaged, error: e };
      throw e;
    }
    if (s === "end" || s === "more") return { type: f.type, records, damaged, error: null };
    for (const n of s.records) records.push(s.isPublic || opts.internal ? n : toPublic(s.type, n, opts));
  }
}

/** A source of chunks: an async iterable of byte arrays (a Node stream, a generator) or a web ReadableStream. */
export type ChunkSource = AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

export async function* chunksOf(source: ChunkSource): AsyncGenerator<Uint8Array> {
  if (typeof (source as ReadableStream<Uint8Array>).getReader === "function") {
    const reader = (source as ReadableStream<Uint8Array>).getReader();
    try {
      for (;;) { const { done, value } = await reader.read(); if (done) return; yield value; }
    } finally {
      reader.releaseLock();
    }
  }
  yield* source as AsyncIterable<Uint8Array>;
}

/**
 * Reads an XBF file forward from a stream of chunks (SPEC 24.6), needing nothing but the blocks: for pipes,
 * downloads and files still being written. Memory holds one block. Iterate `blocks()` or the reader itself
 * (records); both throw the error that ends the file, after every whole block before it.
 */
export class FileStreamReader implements AsyncIterable<unknown> {
  /** The record type, once the header has been read. */
  type: XbfType | null = null;
  /** The blocks skipped as damaged (with `skipDamaged`). */
  readonly damaged: DamagedBlock[] = [];
  /** The most bytes the reader held at once (about one block and one chunk). */
  peakBufferBytes = 0;
  constructor(private source: ChunkSource, private opts: FileReadOptions & FileQuery = {}) { checkLimits(opts); }

  /** The blocks, in order, with their records as internal values and their type. */
  async *blocksInternal(): AsyncGenerator<FileBlock & { type: XbfType }> {
    for await (const b of this.steps(false)) yield b;
  }
  private async *steps(publicValues: boolean): AsyncGenerator<FileBlock & { type: XbfType; isPublic: boolean }> {
    const f = new Forward(this.opts, this.opts, publicValues);
    const it = chunksOf(this.source)[Symbol.asyncIterator]();
    let eof = false;
    try {
      for (;;) {
        let s: Step;
        try {
          s = f.step(eof);
        } catch (e) {
          if (e instanceof FileBlockError && this.opts.skipDamaged) { this.damaged.push({ block: e.block, start: e.start, end: e.end, error: e }); continue; }
          throw e;
        } finally {
          this.type = f.type;
        }
        if (s === "end") return;
        if (s === "more") {
          const next = await it.next();
          if (next.done) eof = true;
          else { f.push(next.value); this.peakBufferBytes = Math.max(this.peakBufferBytes, f.buf.length); }
          continue;
        }
        yield s;
      }
    } finally {
      // A reader left early (or failing) lets go of its source: a web stream's lock, a file's handle.
      if (!eof) await it.return?.(undefined);
    }
  }
  /** The blocks, in order, with their records as public values. */
  async *blocks(): AsyncGenerator<FileBlock> {
    for await (const b of this.steps(true)) {
      yield { index: b.index, offset: b.offset, size: b.size, records: b.isPublic ? b.records : b.records.map((n) => toPublic(b.type, n, this.opts)) };
    }
  }
  async *[Symbol.asyncIterator](): AsyncGenerator<unknown> {
    for await (const b of this.blocks()) yield* b.records;
  }
}

export type { BlockInfo, ColumnInfo, ColumnStatistics, Predicate, Op } from "./file_footer.js";
