import { readF32, readF64 } from "./nan.js";
import { XbfError, seg } from "./errors.js";
import { INT_INFO, XbfType, Member, hex } from "./metadata.js";
import { Reader, LimitOptions, DEFAULT_MAX_DECODED_BYTES, VALUE_BYTES } from "./decode_rows.js";
import { Writer, zigzag, unzigzag } from "./varint.js";
import { writeValue } from "./encode_rows.js";
import { writeMetadata } from "./metadata.js";
import type { NAny, NEnum } from "./values.js";
import { ENTROPY, RUNS, decodeEntropy, decodeRuns } from "./cascade.js";
import { FSST, decodeFsst } from "./fsst.js";
import { encodeInts, putColumn, putIntsColumn, putVar } from "./int_columns.js";
import { putBytesColumn, putStringColumn } from "./string_columns.js";
import { putFloatsColumn } from "./float_columns.js";

export const VALUE_COST = VALUE_BYTES;
const utf8d = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export class Cursor {
  /** The bytes are a block of an XBF file, where the file-only integer encodings `04` and `05` may stand. */
  file = false;
  constructor(public b: Uint8Array, public pos: number, public end: number) {}
  remaining(): number { return this.end - this.pos; }
  u8(): number {
    if (this.pos >= this.end) throw new XbfError("truncated", this.pos, "needs 1 bytes, 0 remain");
    return this.b[this.pos++]!;
  }
  take(n: number): number {
    if (n > this.end - this.pos) throw new XbfError("truncated", this.pos, `needs ${n} bytes, ${this.end - this.pos} remain`);
    const p = this.pos;
    this.pos += n;
    return p;
  }
  checkFits(at: number, n: number, min: number): void {
    if (n * min > this.remaining()) throw new XbfError("truncated", at, `${n} items of at least ${min} bytes do not fit in the ${this.remaining()} bytes that remain`);
  }
  varint(bits: number): bigint {
    const r = new Reader(this.b, {}, this.pos, this.end);
    const v = r.uvarBig(bits);
    this.pos = r.pos;
    return v;
  }
  varNum(bits: number): number {
    const r = new Reader(this.b, {}, this.pos, this.end);
    const v = r.uvarNum(bits);
    this.pos = r.pos;
    return v;
  }
  block(): Cursor {
    const at = this.pos;
    const len = this.varNum(64);
    if (len > this.end - this.pos) throw new XbfError("truncated", at, `needs ${len} bytes, ${this.end - this.pos} remain`);
    const c = new Cursor(this.b, this.pos, this.pos + len);
    c.file = this.file;
    this.pos += len;
    return c;
  }
  finish(what: string): void {
    if (this.pos !== this.end) throw new XbfError("invalid-column", this.pos, `${this.end - this.pos} bytes of the ${what} are left over`);
  }
}
const invalid = (at: number, d: string) => new XbfError("invalid-column", at, d);

// ---------------------------------------------------------------- integer columns
function readFor(c: Cursor, n: number, maxBits: number): bigint[] {
  const base = c.varint(128);
  const at = c.pos;
  const width = c.u8();
  if (width > maxBits) throw invalid(at, `a bit width of ${width} passes the ${maxBits} bits of the type`);
  const bits = n * width;
  const p = c.take(Math.ceil(bits / 8));
  // The last byte's padding bits are 0 (SPEC 22.2): one form for a column.
  if (bits % 8 !== 0 && c.b[p + Math.floor(bits / 8)]! >> (bits % 8) !== 0) {
    throw invalid(p, "the padding bits of the frame of reference are not 0");
  }
  const out: bigint[] = [];
  let bit = 0;
  for (let i = 0; i < n; i++) {
    let v = 0n, got = 0;
    while (got < width) {
      const byte = c.b[p + (bit >> 3)]!;
      const off = bit & 7;
      const take = Math.min(8 - off, width - got);
      v |= BigInt((byte >> off) & ((1 << take) - 1)) << BigInt(got);
      got += take;
      bit += take;
    }
    const value = base + v;
    if (value >> 128n) throw invalid(at, "base + value overflows");
    out.push(value);
  }
  return out;
}

export function decodeInts(c: Cursor, n: number, maxBits: number): bigint[] {
  const at = c.pos;
  const enc = c.u8();
  let values: bigint[];
  switch (enc) {
    case 0:
      c.checkFits(at, n, 1);
      values = [];
      for (let i = 0; i < n; i++) values.push(c.varint(maxBits));
      break;
    case 1: values = readFor(c, n, maxBits); break;
    case 2: {
      if (n === 0) throw invalid(at, "a delta column of no values");
      const first = c.varint(128);
      const deltas = readFor(c, n - 1, 128);
      values = [first];
      let v = first;
      for (const d of deltas) { v = BigInt.asUintN(128, v + unzigzag(d)); values.push(v); }
      break;
    }
    case 3: {
      values = [];
      while (values.length < n) {
        const runAt = c.pos;
        const run = c.varNum(64);
        const value = c.varint(128);
        if (run === 0 || values.length + run > n) throw invalid(runAt, `a run of ${run} values where ${n - values.length} remain`);
        for (let i = 0; i < run; i++) values.push(value);
      }
      break;
    }
    case ENTROPY: case RUNS:
      if (c.file) { values = (enc === ENTROPY ? decodeEntropy : decodeRuns)(decodeInts, c, n, maxBits); break; }
      throw new XbfError("unknown-discriminant", at, `0x0${enc} is an integer column encoding of XBF files only, not of messages`);
    default: throw new XbfError("unknown-discriminant", at, `0x${enc.toString(16).padStart(2, "0")} is not an integer column encoding`);
  }
  if (maxBits < 128) {
    for (const v of values) if (v >> BigInt(maxBits)) throw invalid(at, `the value ${v} passes the ${maxBits} bits of the column's type`);
  }
  return values;
}

// ---------------------------------------------------------------- floats
const f32Round = Math.fround;
/** 10^e for the exponents a decimal column may have, computed as `10 ** e` at run time (the same doubles the
 * expression gives inline). */
const P10: number[] = [];
for (let e = 0; e <= 18; e++) P10.push(10 ** e);
function fromDecimal(n: bigint | number, e: number, f32: boolean): number {
  const x = Number(n) / P10[e]!;
  return f32 ? f32Round(x) : x;
}
// The float column writer is float_columns.ts.
/** Decodes the XOR encoding's payload (after its byte) of n values: the rest of `c` (SPEC 22.2.1). */
function decodeXor(c: Cursor, n: number, f32: boolean): number[] {
  const at = c.pos;
  if (n === 0) throw invalid(at, "an XOR column of no values");
  const w = f32 ? 4 : 8, width = 8 * w, field = f32 ? 5 : 6;
  const first = c.take(w);
  const streamAt = c.pos;
  const len = c.remaining();
  const sp = c.take(len);
  if (Math.ceil((n - 1) / 8) > len) throw new XbfError("truncated", streamAt, `${n - 1} values cannot fit in ${len} bytes of bits`);
  const b = c.b, total = 8 * len;
  let bit = 0;
  const short = () => new XbfError("truncated", streamAt, `the bits end before the ${n} values of the column`);
  // The bits as 32-bit words (numbers, not BigInt: this loop runs once per value of the column).
  // read(k), k <= 32: the next k bits, the first read the lowest, as an unsigned number. Up to 24 bits
  // come from one little-endian 32-bit load at the current byte (bytes past the end of `b` read as 0 and
  // bytes past the stream are masked off: `bit + k <= total` is checked first).
  const end = sp + len;
  const read = (k: number): number => {
    if (bit + k > total) throw short();
    if (k > 24) return read(16) + read(k - 16) * 65536;
    const p = sp + (bit >> 3);
    const word = b[p]! | (p + 1 < end ? b[p + 1]! << 8 : 0) | (p + 2 < end ? b[p + 2]! << 16 : 0) | (p + 3 < end ? b[p + 3]! << 24 : 0);
    const v = (word >>> (bit & 7)) & ((1 << k) - 1);
    bit += k;
    return v;
  };
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const scratch = new DataView(new ArrayBuffer(8));
  // The previous value's bits: high and low 32-bit words (for f32 the one word is `lo`).
  let hi = f32 ? 0 : dv.getUint32(first + 4, true), lo = dv.getUint32(first, true);
  const out = [(f32 ? readF32(dv, first) : readF64(dv, first)) as number];
  let lead = -1, wlen = 0;
  for (let i = 1; i < n; i++) {
    if (read(1) === 1) {
      if (read(1) === 1) {
        lead = read(field);
        wlen = read(field) + 1;
        if (lead + wlen > width) throw invalid(streamAt, `value ${i}: ${lead} leading zeros and ${wlen} bits pass the ${width} bits of the float`);
      } else if (lead < 0) throw invalid(streamAt, `value ${i} reuses a window before any was opened`);
      // wlen bits, shifted left by sh into the width-bit word (lead + wlen <= width, so nothing is lost).
      const sh = width - lead - wlen;
      const vl = read(Math.min(wlen, 32)), vh = wlen > 32 ? read(wlen - 32) : 0;
      if (sh === 0) { hi ^= vh; lo ^= vl; }
      else if (sh >= 32) hi ^= vl << (sh - 32);
      else { hi ^= (vh << sh) | (vl >>> (32 - sh)); lo ^= vl << sh; }
      // readF32/readF64 keep a NaN's payload bits (an XbfNaN), as the other float readers do.
      if (f32) { scratch.setUint32(0, lo >>> 0, true); out.push(readF32(scratch, 0) as number); }
      else { scratch.setUint32(0, lo >>> 0, true); scratch.setUint32(4, hi >>> 0, true); out.push(readF64(scratch, 0) as number); }
    } else out.push(out[i - 1]!);
  }
  const used = Math.ceil(bit / 8);
  if (used !== len) throw invalid(streamAt, `${len - used} bytes of the XOR bits are left over`);
  if (bit % 8 !== 0 && b[sp + (bit >> 3)]! >> (bit % 8) !== 0) throw invalid(streamAt, "the padding bits of the XOR column are not 0");
  return out;
}
function readFloats(c: Cursor, n: number, f32: boolean, p: number, count: number): number[] {
  const dv = new DataView(c.b.buffer, c.b.byteOffset, c.b.byteLength);
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push((f32 ? readF32(dv, p + 4 * i) : readF64(dv, p + 8 * i)) as number);
  void n;
  return out;
}
export function decodeFloats(c: Cursor, n: number, f32: boolean): number[] {
  const at = c.pos;
  const w = f32 ? 4 : 8;
  const enc = c.u8();
  switch (enc) {
    case 0x10: { const p = c.take(n * w); return readFloats(c, n, f32, p, n); }
    case 0x11: {
      const eAt = c.pos;
      const e = c.u8();
      if (e > (f32 ? 10 : 18)) throw invalid(eAt, `the exponent ${e} passes ${f32 ? 10 : 18}`);
      const body = c.block();
      const ints = decodeInts(body, n, 64);
      body.finish("integer block");
      const out = ints.map((z) => {
        const v = unzigzag(z);
        if (v > 9223372036854775807n || v < -9223372036854775808n) throw invalid(at, `${v} passes the 64 bits of a scaled float`);
        return fromDecimal(v, e, f32);
      });
      const countAt = c.pos;
      const k = c.varNum(64);
      if (k > n) throw invalid(countAt, `${k} exceptions in a column of ${n} values`);
      if (k > 0) {
        const pc = c.block();
        const positions = decodeInts(pc, k, 64);
        pc.finish("exception positions");
        const p = c.take(k * w);
        const raw = readFloats(c, k, f32, p, k);
        // Strictly ascending (SPEC 22.2): one form, and no exception overwrites another.
        if (positions.some((pos, i) => i > 0 && pos <= positions[i - 1]!)) {
          throw invalid(countAt, "the exception positions are not strictly ascending");
        }
        positions.forEach((pos, i) => {
          if (pos >= BigInt(n)) throw invalid(countAt, `an exception at position ${pos} of a column of ${n}`);
          out[Number(pos)] = raw[i]!;
        });
      }
      return out;
    }
    case 0x12: {
      const dAt = c.pos;
      const d = c.varNum(64);
      // No more distinct values than values (SPEC 22.2): this bounds the dictionary by the n already charged to
      // the budget; the bytes left do not, since a decimal column of width 0 holds any number of values.
      if (d > n) throw invalid(dAt, `a dictionary of ${d} values for a column of ${n}`);
      const inner = c.block();
      if (inner.pos < inner.end && (inner.b[inner.pos] === 0x12 || inner.b[inner.pos] === 0x13)) throw invalid(dAt, "a dictionary's values are neither plain nor decimal");
      const distinct = decodeFloats(inner, d, f32);
      inner.finish("dictionary");
      const ids = decodeInts(c, n, 64);
      return ids.map((i) => {
        if (i >= BigInt(distinct.length)) throw invalid(dAt, `a dictionary index ${i} past its ${d} values`);
        return distinct[Number(i)]!;
      });
    }
    case 0x13: return decodeXor(c, n, f32);
    default: throw new XbfError("unknown-discriminant", at, `0x${enc.toString(16).padStart(2, "0")} is not a float column encoding`);
  }
}

// ---------------------------------------------------------------- strings
function readLenBlock(c: Cursor, n: number): bigint[] {
  const block = c.block();
  const at = block.pos;
  const values = decodeInts(block, n, 64);
  block.finish("integer block");
  const limit = BigInt(c.remaining()) + (1n << 32n);
  for (const v of values) if (v > limit) throw new XbfError("truncated", at, `a length of ${v} passes the column`);
  return values;
}
const total = (ls: bigint[]) => ls.reduce((a, b) => a + b, 0n);
export function decodeStrings(c: Cursor, n: number, r: ColReader): Uint8Array[] {
  const at = c.pos;
  const enc = c.u8();
  const split = (p: number, lens: bigint[]) => {
    let q = p;
    return lens.map((l) => { const s = c.b.slice(q, q + Number(l)); q += Number(l); return s; });
  };
  switch (enc) {
    case 0x20: {
      const lens = readLenBlock(c, n);
      const t = total(lens);
      if (t > BigInt(c.remaining())) throw new XbfError("truncated", c.pos, `needs ${t} bytes, ${c.remaining()} remain`);
      return split(c.take(Number(t)), lens);
    }
    case 0x21: {
      const dAt = c.pos;
      const d = c.varNum(64);
      c.checkFits(dAt, d, 1);
      const lens = readLenBlock(c, d);
      const block = c.block();
      const t = total(lens);
      if (t > BigInt(block.remaining())) throw new XbfError("truncated", block.pos, `needs ${t} bytes, ${block.remaining()} remain`);
      const p = block.take(Number(t));
      block.finish("dictionary");
      let q = p;
      const distinct = lens.map((l) => { const s = c.b.subarray(q, q + Number(l)); q += Number(l); return s; });
      const ids = decodeInts(c, n, 64);
      let size = 0n;
      for (const i of ids) size += i < BigInt(lens.length) ? lens[Number(i)]! : 0n;
      r.charge(at, size);
      return ids.map((i) => {
        if (i >= BigInt(d)) throw invalid(at, `a dictionary index ${i} past its ${d} values`);
        return distinct[Number(i)]!.slice();
      });
    }
    case 0x22: {
      const shared = readLenBlock(c, n);
      const restLens = readLenBlock(c, n);
      const t = total(restLens);
      if (t > BigInt(c.remaining())) throw new XbfError("truncated", c.pos, `needs ${t} bytes, ${c.remaining()} remain`);
      const p = c.take(Number(t));
      r.charge(at, total(shared) + t);
      const out: Uint8Array[] = [];
      let q = p;
      for (let i = 0; i < shared.length; i++) {
        const prev = i === 0 ? new Uint8Array(0) : out[i - 1]!;
        const sp = Number(shared[i]!), rl = Number(restLens[i]!);
        if (sp > prev.length) throw invalid(at, `value ${i} shares ${sp} bytes with a value of ${prev.length}`);
        const v = new Uint8Array(sp + rl);
        v.set(prev.subarray(0, sp));
        v.set(c.b.subarray(q, q + rl), sp);
        q += rl;
        out.push(v);
      }
      return out;
    }
    case FSST:
      if (c.file) return decodeFsst(c, n, at, readLenBlock, (a, b) => r.charge(a, b));
    // falls through: outside a file, `23` is unknown
    default: throw new XbfError("unknown-discriminant", at, `0x${enc.toString(16).padStart(2, "0")} is not a string column encoding`);
  }
}

// ---------------------------------------------------------------- reader
/** Which struct fields to decode: a name maps to null (all of it) or a sub-selection. */
export type Selection = Map<string, Selection | null>;
export function selectionFromPaths(paths: string[]): Selection {
  const root: Selection = new Map();
  for (const path of paths) {
    let at = root;
    const parts = path.split(".");
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (!at.has(p)) at.set(p, new Map());
      if (i + 1 === parts.length) { at.set(p, null); break; }
      const next = at.get(p);
      if (next === null || next === undefined) break;
      at = next;
    }
  }
  return root;
}

export class ColReader {
  left: number;
  constructor(public limit: number, public opts: LimitOptions) { this.left = limit; }
  charge(at: number, bytes: bigint | number): void {
    if (Number(bytes) > this.left) throw new XbfError("too-large", at, `decoding would take more than the ${this.limit} bytes allowed (maxDecodedBytes)`);
    this.left -= Number(bytes);
  }
  column(c: Cursor): Cursor {
    const block = c.block();
    if (block.pos < block.end && block.b[block.pos] === 0x80) {
      const at = block.pos;
      block.u8();
      const raw = block.varNum(64);
      this.charge(at, raw);
      throw new XbfError("unsupported", at, "a zstd-compressed column: this decoder has no zstd");
    }
    return block;
  }
  ints(c: Cursor, n: number, bits: number): bigint[] {
    const col = this.column(c);
    const v = decodeInts(col, n, bits);
    col.finish("column");
    return v;
  }
  lengths(c: Cursor, n: number): [number[], number] {
    const at = c.pos;
    const lens = this.ints(c, n, 64);
    let t = 0n;
    for (const l of lens) t += l;
    if (t >> 64n) throw invalid(at, "the lengths add up past 2^64");
    return [lens.map(Number), Number(t)];
  }
  node(t: XbfType, n: number, c: Cursor, depth: number, sel: Selection | null): [XbfType, unknown[]] {
    this.charge(c.pos, n * VALUE_COST);
    const child = depth + 1;
    const wrap = <T>(s: string, f: () => T): T => { try { return f(); } catch (e) { if (e instanceof XbfError) e.within(s); throw e; } };
    switch (t.kind) {
      case "vec": {
        const [lens, tot] = this.lengths(c, n);
        const [et, flat] = wrap(seg.element, () => this.node(t.element, tot, c, child, sel));
        let q = 0;
        return [{ kind: "vec", element: et }, lens.map((l) => flat.slice(q, (q += l)))];
      }
      case "array": {
        const len = Number(t.len);
        const tot = n * len;
        const [et, flat] = wrap(seg.element, () => this.node(t.element, tot, c, child, sel));
        const out: unknown[] = [];
        for (let i = 0; i < n; i++) out.push(flat.slice(i * len, (i + 1) * len));
        return [{ kind: "array", len: t.len, element: et }, out];
      }
      case "struct": {
        const fields: Member[] = [];
        const cols: unknown[][] = [];
        for (const f of t.fields) {
          const pick = sel === null ? null : sel.has(f.name) ? sel.get(f.name)! : undefined;
          if (pick === undefined) { wrap(seg.field(f.name), () => skip(f.type, c, child, this.opts)); continue; }
          const [ft, vals] = wrap(seg.field(f.name), () => this.node(f.type, n, c, child, pick));
          fields.push({ name: f.name, type: ft });
          cols.push(vals);
        }
        const out: unknown[] = [];
        for (let i = 0; i < n; i++) out.push(cols.map((col) => col[i]));
        return [sel === null ? t : { kind: "struct", name: t.name, fields }, out];
      }
      case "tuple": {
        const cols = t.elements.map((et, i) => wrap(seg.position(i), () => this.node(et, n, c, child, null))[1]);
        const out: unknown[] = [];
        for (let i = 0; i < n; i++) out.push(cols.map((col) => col[i]));
        return [t, out];
      }
      case "option": {
        const present = this.ints(c, n, 1);
        const count = present.filter((p) => p === 1n).length;
        const [it, vals] = this.node(t.inner, count, c, child, sel);
        let q = 0;
        return [{ kind: "option", inner: it }, present.map((p) => (p === 1n ? [vals[q++]] : null))];
      }
      case "map": {
        const at = c.pos;
        const [lens, tot] = this.lengths(c, n);
        // The paths of a map's key and value types in metadata (SPEC 17.3): `[].key`, `[].value`.
        const keys = wrap(seg.element, () => wrap(seg.field("key"), () => this.node(t.key, tot, c, child, null)))[1];
        const vals = wrap(seg.element, () => wrap(seg.field("value"), () => this.node(t.value, tot, c, child, null)))[1];
        let q = 0;
        const out = lens.map((l) => {
          const entries: [unknown, unknown][] = [];
          const seenKeys = new Set<string>();
          for (let i = 0; i < l; i++, q++) {
            const w = new Writer();
            writeValue(w, t.key, keys[q], true);
            const kb = hex(w.finish());
            if (seenKeys.has(kb)) throw new XbfError("duplicate-key", at, "a key appears twice in one map");
            seenKeys.add(kb);
            entries.push([keys[q], vals[q]]);
          }
          return entries;
        });
        return [t, out];
      }
      case "enum": {
        const tagsAt = c.pos;
        const tags = this.ints(c, n, 64);
        const counts = t.variants.map(() => 0);
        for (const g of tags) {
          if (g >= BigInt(counts.length)) throw new XbfError("unknown-variant", tagsAt, `enum ${t.name} has no variant ${g}`);
          counts[Number(g)] = counts[Number(g)]! + 1;
        }
        const payloads = t.variants.map((v, i) => wrap(seg.field(v.name), () => this.node(v.type, counts[i]!, c, child, null))[1]);
        const pos = counts.map(() => 0);
        return [t, tags.map((g) => { const i = Number(g); return { i, v: payloads[i]![pos[i]!++] } as NEnum; })];
      }
      case "any": {
        const types = anyTypes(c, child, this.opts);
        const tagsAt = c.pos;
        const tags = this.ints(c, n, 64);
        const counts = types.map(() => 0);
        for (const g of tags) {
          if (g >= BigInt(counts.length)) throw invalid(tagsAt, `a type index ${g} past the ${types.length} types of the column`);
          counts[Number(g)] = counts[Number(g)]! + 1;
        }
        const parts = types.map((ty, i) => this.node(ty, counts[i]!, c, child, null)[1]);
        const pos = counts.map(() => 0);
        return [t, tags.map((g) => { const i = Number(g); return { t: types[i]!, v: parts[i]![pos[i]!++] } as NAny; })];
      }
      default: return [t, this.primitive(t.kind, n, c)];
    }
  }
  primitive(kind: string, n: number, c: Cursor): unknown[] {
    switch (kind) {
      case "unit": return new Array(n).fill(null);
      case "bool": return this.ints(c, n, 1).map((v) => v === 1n);
      case "f32": case "f64": {
        const col = this.column(c);
        const v = decodeFloats(col, n, kind === "f32");
        col.finish("column");
        return v;
      }
      case "string": case "bytes": {
        const col = this.column(c);
        const at = col.pos;
        const v = decodeStrings(col, n, this);
        col.finish("column");
        if (kind === "bytes") return v;
        return v.map((b) => { try { return utf8d.decode(b); } catch { throw new XbfError("invalid-utf8", at, "a string of the column is not UTF-8"); } });
      }
      case "u256": case "i256": {
        const col = this.column(c);
        const at = col.pos;
        if (col.u8() !== 0x08) throw new XbfError("unknown-discriminant", at, "not a 256-bit integer column encoding");
        if (n * 32 > col.remaining()) throw new XbfError("truncated", col.pos, `needs ${n * 32} bytes, ${col.remaining()} remain`);
        const p = col.take(n * 32);
        col.finish("column");
        const out: bigint[] = [];
        for (let i = 0; i < n; i++) {
          let x = 0n;
          for (let j = 31; j >= 0; j--) x = (x << 8n) | BigInt(col.b[p + 32 * i + j]!);
          out.push(kind === "i256" ? BigInt.asIntN(256, x) : x);
        }
        return out;
      }
      default: {
        const [bits, signed] = INT_INFO[kind]!;
        const vals = this.ints(c, n, bits);
        return vals.map((z) => {
          const v = signed ? unzigzag(z) : z;
          return bits <= 32 ? Number(v) : v;
        });
      }
    }
  }
}

export function anyTypes(c: Cursor, depth: number, opts: LimitOptions): XbfType[] {
  const maxDepth = opts.maxDepth ?? 128;
  if (depth > maxDepth) throw new XbfError("too-deep", c.pos, `more than ${maxDepth} levels of nesting`);
  const col = c.block();
  const at = col.pos;
  if (col.u8() !== 0x30) throw new XbfError("unknown-discriminant", at, "not a column of types");
  const dAt = col.pos;
  const d = col.varNum(64);
  col.checkFits(dAt, d, 1);
  const types: XbfType[] = [];
  for (let i = 0; i < d; i++) {
    // Read as metadata nested `depth` levels down, as in rows (SPEC 17.3): the name of a struct or
    // enum inside an `any` is not part of any path.
    const r = new Reader(col.b, { ...opts, maxDepth }, col.pos, col.end);
    r.v2 = true;
    types.push(r.metadata(depth));
    col.pos = r.pos;
  }
  col.finish("column of types");
  return types;
}

/** Skips the columns of a node by their lengths (projection). */
function skip(t: XbfType, c: Cursor, depth: number, opts: LimitOptions): void {
  const child = depth + 1;
  switch (t.kind) {
    case "unit": return;
    case "vec": c.block(); return skip(t.element, c, child, opts);
    case "array": return skip(t.element, c, child, opts);
    case "struct": for (const f of t.fields) skip(f.type, c, child, opts); return;
    case "tuple": for (const e of t.elements) skip(e, c, child, opts); return;
    case "option": c.block(); return skip(t.inner, c, depth + 1, opts);
    case "map": c.block(); skip(t.key, c, child, opts); return skip(t.value, c, child, opts);
    case "enum": c.block(); for (const v of t.variants) skip(v.type, c, child, opts); return;
    case "any": {
      const types = anyTypes(c, child, opts);
      c.block();
      for (const ty of types) skip(ty, c, child, opts);
      return;
    }
    default: c.block();
  }
}

/** Decodes the columns after a columnar message's metadata (SPEC 22), from `pos` to the end of `b`. */
export function decodeColumns(b: Uint8Array, pos: number, t: XbfType, opts: LimitOptions, sel: Selection | null): [XbfType, unknown] {
  const limit = opts.maxDecodedBytes ?? DEFAULT_MAX_DECODED_BYTES;
  const r = new ColReader(limit, opts);
  const c = new Cursor(b, pos, b.length);
  try {
    const [pt, vals] = r.node(t, 1, c, 0, sel);
    if (c.pos !== c.end) throw new XbfError("trailing-bytes", c.pos, "bytes remain after the columns");
    return [pt, vals[0]];
  } catch (e) {
    if (e instanceof XbfError && (t.kind === "struct" || t.kind === "enum")) e.within(seg.root(t.name));
    throw e;
  }
}

// ---------------------------------------------------------------- writer
/** The unsigned column values of integers of `kind` (zigzag for signed): numbers while they are small. */
function columnInts(kind: string, values: any[]): (number | bigint)[] {
  if (kind === "bool") return values.map((v) => (v ? 1 : 0));
  const signed = INT_INFO[kind]![1];
  const out: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    const x = typeof v === "number" ? v : v >= -1125899906842624n && v <= 1125899906842624n ? Number(v) : NaN; // 2^50
    if (!(x >= -1125899906842624 && x <= 1125899906842624)) return values.map((v) => intOf(kind, v));
    out.push(signed ? (x >= 0 ? 2 * x : -2 * x - 1) : x);
  }
  return out;
}
const intOf = (kind: string, v: any): bigint => {
  if (kind === "bool") return v ? 1n : 0n;
  const [bits, signed] = INT_INFO[kind]!;
  return signed ? zigzag(BigInt(v), Math.max(bits, 8)) : BigInt(v);
};

/** One primitive column: "lengths" (counts, presence, tags as numbers), "bool", an integer kind, f32, f64 or
 * string, of values in the internal form (numbers for integers up to 32 bits; numbers or bigints above). */
export function columnsOf(kind: string, values: any[], out: Writer): void {
  switch (kind) {
    case "lengths": putIntsColumn(out, values); return;
    case "f32": case "f64": putFloatsColumn(out, values, kind === "f32"); return;
    case "string": putStringColumn(out, values); return;
    default: putIntsColumn(out, columnInts(kind, values));
  }
}

/** Appends the columns of internal values `values`, all of type `t`. */
export function encodeColumns(t: XbfType, values: any[], out: Writer): void {
  switch (t.kind) {
    case "unit": return;
    case "vec": {
      putColumn(out, encodeInts(values.map((v) => v.length)));
      encodeColumns(t.element, values.flat(1), out);
      return;
    }
    case "array": encodeColumns(t.element, values.flat(1), out); return;
    case "struct": t.fields.forEach((f, i) => encodeColumns(f.type, values.map((v) => v[i]), out)); return;
    case "tuple": t.elements.forEach((e, i) => encodeColumns(e, values.map((v) => v[i]), out)); return;
    case "option":
      putColumn(out, encodeInts(values.map((v) => (v === null ? 0 : 1))));
      encodeColumns(t.inner, values.filter((v) => v !== null).map((v) => v[0]), out);
      return;
    case "map": {
      putColumn(out, encodeInts(values.map((v) => v.length)));
      const entries = values.flat(1) as [unknown, unknown][];
      encodeColumns(t.key, entries.map((e) => e[0]), out);
      encodeColumns(t.value, entries.map((e) => e[1]), out);
      return;
    }
    case "enum":
      putColumn(out, encodeInts(values.map((v: NEnum) => v.i)));
      t.variants.forEach((vt, i) => encodeColumns(vt.type, values.filter((v: NEnum) => v.i === i).map((v: NEnum) => v.v), out));
      return;
    case "any": {
      const index = new Map<string, number>();
      const types: XbfType[] = [], metas: Uint8Array[] = [];
      const tags = values.map((v: NAny) => {
        const w = new Writer();
        writeMetadata(w, v.t, true);
        const m = w.finish();
        const k = hex(m);
        let i = index.get(k);
        if (i === undefined) { i = types.length; index.set(k, i); types.push(v.t); metas.push(m); }
        return i;
      });
      const body = [0x30];
      putVar(body, types.length);
      for (const m of metas) body.push(...m);
      putColumn(out, body);
      putColumn(out, encodeInts(tags));
      types.forEach((ty, i) => encodeColumns(ty, values.filter((_, j) => tags[j] === i).map((v: NAny) => v.v), out));
      return;
    }
    case "f32": case "f64": putFloatsColumn(out, values, t.kind === "f32"); return;
    case "string": columnsOf("string", values, out); return;
    case "bytes": putBytesColumn(out, values); return;
    case "u256": case "i256": {
      const body = [0x08];
      for (const v of values) { let x = BigInt.asUintN(256, v); for (let i = 0; i < 32; i++) { body.push(Number(x & 255n)); x >>= 8n; } }
      putColumn(out, body);
      return;
    }
    default: putColumn(out, encodeInts(columnInts(t.kind, values)));
  }
}

/** Whether a value holds enough repeated items for columns to pay (Rust's `worth_trying`). */
export function worthTrying(t: XbfType, n: any): boolean {
  const items = (t: XbfType, v: any, depth: number): number => {
    if (depth > 3) return 0;
    switch (t.kind) {
      case "vec": case "array": return v.length + v.slice(0, 4).reduce((a: number, x: any) => a + items(t.element, x, depth + 1), 0);
      case "map": return v.length;
      case "struct": return t.fields.reduce((a, f, i) => a + items(f.type, v[i], depth + 1), 0);
      default: return 0;
    }
  };
  return items(t, n, 0) >= 16;
}
