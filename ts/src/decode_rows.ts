import { readF32, readF64 } from "./nan.js";
import { XbfError, seg } from "./errors.js";
import { DISC, INT_INFO, KIND_OF, V1_PRIM, XbfType, Member, SchemaRegistry, hex, isZeroSize, minSize, weight, depthOf } from "./metadata.js";
import { unzigzag, unzigzagNum } from "./varint.js";

export const FLAG_REF = 1, FLAG_COLUMNAR = 2, FLAG_STREAM = 4, FLAG_CHECKSUM = 8;

/** What one decoded value costs against the budget (SPEC 16.2: the size of the Rust reader's value). */
export const VALUE_BYTES = 48;
/** The default decoded-memory budget: 2^30 bytes (SPEC 16.2). */
export const DEFAULT_MAX_DECODED_BYTES = 2 ** 30;

export interface LimitOptions {
  /** Nesting depth limit (default 128; an integer from 0 to 256, as Rust's `DecodeOptions::max_depth`). */
  maxDepth?: number;
  /**
   * Decoded-memory budget in bytes, per message or stream block (SPEC 16.2, 22.3; default 2^30 = 1 GiB):
   * zero-size values in rows and every value in columns cost 48 bytes each, and the bytes that string
   * dictionaries, shared prefixes and zstd make one each. Passing it is `too-large`. Range: an integer from 0
   * up, or `Infinity` for no budget.
   */
  maxDecodedBytes?: number;
  /** Types known by fingerprint, for messages and streams with flag 01. */
  registry?: SchemaRegistry;
}

/** The most levels `maxDepth` allows (Rust's `MAX_DEPTH_CEILING`): the decoders recurse once a level. */
export const MAX_DEPTH_CEILING = 256;

/** Refuses limits out of their documented range with `invalid-options` (SPEC 8.1), as Rust's and Go's options
 * builders do: called where a decoder takes its options, before any byte is read. A limit silently lowered or
 * ignored (a negative depth, a NaN budget, which no comparison fails) would let through what the caller meant
 * to refuse. */
export function checkLimits(opts: LimitOptions): void {
  const d = opts.maxDepth, m = opts.maxDecodedBytes;
  if (d !== undefined && !(typeof d === "number" && Number.isInteger(d) && d >= 0 && d <= MAX_DEPTH_CEILING)) {
    throw new XbfError("invalid-options", undefined, `maxDepth must be an integer from 0 to ${MAX_DEPTH_CEILING}, not ${String(d)}`);
  }
  if (m !== undefined && !(typeof m === "number" && m >= 0 && (Number.isInteger(m) || m === Infinity))) {
    throw new XbfError("invalid-options", undefined, `maxDecodedBytes must be an integer from 0 up (or Infinity), not ${String(m)}`);
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A front-to-back decoder of rows over `b[pos..end)`, offsets counted from `b[0]`. */
export class Reader {
  pos: number;
  end: number;
  v2 = false;
  /** Zero-size values charged so far (SPEC 16.2). */
  used = 0;
  prepaid = 0;
  maxDepth: number;
  dv: DataView;
  constructor(public b: Uint8Array, public opts: LimitOptions, pos = 0, end = b.length) {
    this.pos = pos;
    this.end = end;
    this.maxDepth = opts.maxDepth ?? 128;
    this.dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  remaining(): number { return this.end - this.pos; }
  truncated(at: number, detail = "the input ends early"): XbfError { return new XbfError("truncated", at, detail); }
  u8(): number {
    if (this.pos >= this.end) throw this.truncated(this.pos);
    return this.b[this.pos++]!;
  }
  need(n: number): number {
    if (n > this.end - this.pos) throw this.truncated(this.pos, `needs ${n} bytes, ${this.end - this.pos} remain`);
    const p = this.pos;
    this.pos += n;
    return p;
  }
  /** A varint of at most `bits` bits as a number (exact below 2^53; lengths and counts). */
  uvarNum(bits: number): number {
    const start = this.pos;
    let x = 0, shift = 0;
    for (;;) {
      if (this.pos >= this.end) throw this.truncated(start, "the input ends inside a varint");
      const b = this.b[this.pos++]!;
      const low = b & 0x7f;
      if (shift + 7 > bits && low >> (bits - shift) !== 0) throw new XbfError("invalid-varint", start, `does not fit in ${bits} bits`);
      x += low * 2 ** shift;
      if ((b & 0x80) === 0) {
        if (b === 0 && shift > 0) throw new XbfError("invalid-varint", start, "overlong: it ends with a zero byte");
        return x;
      }
      shift += 7;
      if (shift >= bits) throw new XbfError("invalid-varint", start, `longer than a ${bits}-bit varint can be`);
    }
  }
  /** A varint of at most `bits` bits, exact, as a bigint. */
  uvarBig(bits: number): bigint {
    const start = this.pos;
    // Fast path: the first 7 bytes (49 bits, exact in a double, below every width this reads: 64, 128, 256)
    // accumulate in a number (for widths of 64 bits and more; narrower ones take the checked loop); one BigInt conversion at the end instead of BigInt arithmetic per byte.
    let n = 0, shift = 0;
    while (bits >= 64 && shift < 49) {
      if (this.pos >= this.end) throw this.truncated(start, "the input ends inside a varint");
      const b = this.b[this.pos++]!;
      n += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) {
        if (b === 0 && shift > 0) throw new XbfError("invalid-varint", start, "overlong: it ends with a zero byte");
        return BigInt(n);
      }
      shift += 7;
    }
    let x = BigInt(n);
    for (;;) {
      if (this.pos >= this.end) throw this.truncated(start, "the input ends inside a varint");
      const b = this.b[this.pos++]!;
      const low = b & 0x7f;
      if (shift + 7 > bits && low >> (bits - shift) !== 0) throw new XbfError("invalid-varint", start, `does not fit in ${bits} bits`);
      x |= BigInt(low) << BigInt(shift);
      if ((b & 0x80) === 0) {
        if (b === 0 && shift > 0) throw new XbfError("invalid-varint", start, "overlong: it ends with a zero byte");
        return x;
      }
      shift += 7;
      if (shift >= bits) throw new XbfError("invalid-varint", start, `longer than a ${bits}-bit varint can be`);
    }
  }
  /** A length or count: u64 LE in v1, a varint in XBF 2 (as a float above 2^53). */
  length(): number {
    if (this.v2) return this.uvarNum(64);
    const p = this.need(8);
    return this.dv.getUint32(p, true) + this.dv.getUint32(p + 4, true) * 4294967296;
  }
  string(): string {
    const start = this.pos;
    const len = this.length();
    if (len > this.end - this.pos) throw this.truncated(start, `a length of ${len} where ${this.end - this.pos} bytes remain`);
    const p = this.pos;
    this.pos += len;
    try {
      return utf8.decode(this.b.subarray(p, p + len));
    } catch {
      throw new XbfError("invalid-utf8", start, "the string is not valid UTF-8");
    }
  }
  checkFits(at: number, count: number, min: number): void {
    if (count * min > this.end - this.pos) {
      throw new XbfError("truncated", at, `${count} items of at least ${min} bytes each do not fit in the ${this.end - this.pos} bytes that remain`);
    }
  }
  /** SPEC 16.2: zero-size values cost 48 bytes each; their total may not pass the budget. */
  charge(at: number, w: number): void {
    const budget = this.opts.maxDecodedBytes ?? DEFAULT_MAX_DECODED_BYTES;
    // Whole values only; `w` may be past 2^53 (then far past the budget), which the comparison still orders.
    const allowed = Math.floor(budget / VALUE_BYTES);
    if (!(this.used + w <= allowed)) {
      throw new XbfError("too-large", at, `zero-size values would take more than the ${budget} bytes allowed (maxDecodedBytes, ${VALUE_BYTES} bytes a value)`);
    }
    this.used += w;
  }
  checkCount(at: number, count: number, item: XbfType): boolean {
    if (!isZeroSize(item)) { this.checkFits(at, count, minSize(item, this.v2)); return false; }
    if (this.prepaid === 0) this.charge(at, count * weight(item));
    return true;
  }

  // ------------------------------------------------------------ metadata
  metadata(depth: number): XbfType {
    const start = this.pos;
    return this.metadataAfter(this.u8(), start, depth);
  }
  metadataAfter(d: number, start: number, depth: number): XbfType {
    const kind = KIND_OF[d];
    const v2 = this.v2;
    if (kind !== undefined && d !== 0x11 && d !== 0x12 && (v2 ? d <= 0x23 && ![0x14, 0x15, 0x16, 0x17, 0x18].includes(d) : V1_PRIM.has(kind))) {
      return { kind } as XbfType;
    }
    const composite = d === 0x11 || d === 0x12 || (v2 && d >= 0x14 && d <= 0x18);
    if (!composite) throw new XbfError("unknown-discriminant", start, `0x${d.toString(16).padStart(2, "0")} is not a ${v2 ? "XBF 2" : "v1"} type`);
    if (depth >= this.maxDepth) throw new XbfError("too-deep", start, `more than ${this.maxDepth} levels of nesting`);
    const child = depth + 1;
    const wrap = <T>(s: string, f: () => T): T => {
      try { return f(); } catch (e) { if (e instanceof XbfError) e.within(s); throw e; }
    };
    switch (d) {
      case 0x11: return { kind: "vec", element: wrap(seg.element, () => this.metadata(child)) };
      case 0x14: return { kind: "option", inner: this.metadata(child) };
      case 0x15: {
        const at = this.pos;
        let len: number | bigint = this.uvarNum(64);
        if (len > Number.MAX_SAFE_INTEGER) { this.pos = at; len = this.uvarBig(64); }
        return { kind: "array", len, element: wrap(seg.element, () => this.metadata(child)) };
      }
      case 0x16: {
        const at = this.pos;
        const n = this.length();
        this.checkFits(at, n, 1);
        const elements: XbfType[] = [];
        for (let i = 0; i < n; i++) elements.push(wrap(seg.position(i), () => this.metadata(child)));
        return { kind: "tuple", elements };
      }
      case 0x17: {
        const key = wrap(seg.element, () => wrap(seg.field("key"), () => this.metadata(child)));
        const value = wrap(seg.element, () => wrap(seg.field("value"), () => this.metadata(child)));
        return { kind: "map", key, value };
      }
      default: {
        const name = this.string();
        try {
          const members = this.members(child);
          return d === 0x12 ? { kind: "struct", name, fields: members } : { kind: "enum", name, variants: members };
        } catch (e) {
          if (depth === 0 && e instanceof XbfError) e.within(seg.root(name));
          throw e;
        }
      }
    }
  }
  private members(child: number): Member[] {
    const at = this.pos;
    let count: number;
    if (this.v2) count = this.length();
    else { const p = this.need(2); count = this.dv.getUint16(p, true); }
    this.checkFits(at, count, this.v2 ? 2 : 9);
    const out: Member[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < count; i++) {
      const nat = this.pos;
      const name = this.string();
      if (seen.has(name)) throw new XbfError("duplicate-field", nat, `${JSON.stringify(name)} appears twice`);
      seen.add(name);
      let type: XbfType;
      try { type = this.metadata(child); } catch (e) { if (e instanceof XbfError) e.within(seg.field(name)); throw e; }
      out.push({ name, type });
    }
    return out;
  }

  /** The header and type of a message or stream: returns [type, flags]; leaves pos at the value. */
  head(stream: boolean): [XbfType, number] {
    const first = this.u8();
    if (first !== 0xc2) {
      if (stream) throw new XbfError("unsupported", 0, `a record stream starts with the XBF 2 header c2, not 0x${first.toString(16)}`);
      if ((first & 0xf0) === 0xc0) throw new XbfError("unsupported", 0, `first byte 0x${first.toString(16)} announces XBF version ${first & 15}, which this decoder does not know`);
      this.v2 = false;
      return [this.metadataAfter(first, 0, 0), 0];
    }
    this.v2 = true;
    const at = this.pos;
    const flags = this.u8();
    const isStream = (flags & FLAG_STREAM) !== 0;
    if ((flags & ~15) !== 0 || ((flags & FLAG_CHECKSUM) !== 0 && !isStream) || ((flags & FLAG_COLUMNAR) !== 0 && isStream)) {
      throw new XbfError("unsupported", at, `header flags 0x${flags.toString(16).padStart(2, "0")} are not supported`);
    }
    if (isStream && !stream) throw new XbfError("unsupported", at, "this is a record stream: read it with readStream, not as one message");
    if (!isStream && stream) throw new XbfError("unsupported", 1, "this is a single message, not a record stream");
    if ((flags & FLAG_REF) === 0) return [this.metadata(0), flags];
    const fat = this.pos;
    this.need(8);
    const fp = this.b.subarray(fat, fat + 8);
    const t = this.opts.registry?.get(fp);
    if (!t) throw new XbfError("unknown-schema", fat, `no known schema has fingerprint ${hex(fp)}`);
    if (depthOf(t) > this.maxDepth) throw new XbfError("too-deep", fat, "the referenced schema nests too deep");
    return [t, flags];
  }

  // ------------------------------------------------------------ values
  rootValue(t: XbfType): unknown {
    try {
      return this.value(t, 0);
    } catch (e) {
      if (e instanceof XbfError && (t.kind === "struct" || t.kind === "enum")) e.within(seg.root(t.name));
      throw e;
    }
  }
  value(t: XbfType, depth: number): unknown {
    if (this.prepaid > 0 || !isZeroSize(t)) return this.valueOf(t, depth);
    this.charge(this.pos, weight(t));
    this.prepaid++;
    try { return this.valueOf(t, depth); } finally { this.prepaid--; }
  }
  private items(elem: XbfType, count: number, at: number, child: number): unknown[] {
    const out: unknown[] = [];
    if (count === 0) return out;
    const paid = this.checkCount(at, count, elem);
    if (paid) this.prepaid++;
    let i = 0;
    try {
      for (; i < count; i++) out.push(this.value(elem, child));
    } catch (e) {
      if (e instanceof XbfError) e.within(seg.index(i));
      throw e;
    } finally {
      if (paid) this.prepaid--;
    }
    return out;
  }
  private valueOf(t: XbfType, depth: number): unknown {
    const child = depth + 1;
    switch (t.kind) {
      case "bool": {
        const at = this.pos, b = this.u8();
        if (b > 1) throw new XbfError("invalid-bool", at, `byte 0x${b.toString(16).padStart(2, "0")} is neither 0 nor 1`);
        return b === 1;
      }
      case "unit": return null;
      case "u8": return this.u8();
      case "i8": { const b = this.u8(); return b > 127 ? b - 256 : b; }
      case "f32": return readF32(this.dv, this.need(4));
      case "f64": return readF64(this.dv, this.need(8));
      case "string": return this.string();
      case "bytes": {
        const start = this.pos;
        const len = this.length();
        if (len > this.end - this.pos) throw this.truncated(start, `a length of ${len} where ${this.end - this.pos} bytes remain`);
        const p = this.pos;
        this.pos += len;
        return this.b.slice(p, p + len);
      }
      case "vec": {
        const at = this.pos;
        const count = this.length();
        return this.items(t.element, count, at, child);
      }
      case "array": return this.items(t.element, Number(t.len), this.pos, child);
      case "struct": {
        const out = new Array(t.fields.length);
        for (let i = 0; i < t.fields.length; i++) {
          const f = t.fields[i]!;
          try { out[i] = this.value(f.type, child); } catch (e) { if (e instanceof XbfError) e.within(seg.field(f.name)); throw e; }
        }
        return out;
      }
      case "tuple": {
        const out = new Array(t.elements.length);
        for (let i = 0; i < t.elements.length; i++) {
          try { out[i] = this.value(t.elements[i]!, child); } catch (e) { if (e instanceof XbfError) e.within(seg.position(i)); throw e; }
        }
        return out;
      }
      case "option": {
        const at = this.pos, b = this.u8();
        if (b === 0) return null;
        if (b === 1) return [this.value(t.inner, child)];
        throw new XbfError("invalid-bool", at, `byte 0x${b.toString(16).padStart(2, "0")} is neither 0 nor 1`);
      }
      case "map": return this.map(t, child);
      case "enum": {
        const at = this.pos;
        const i = this.length();
        if (i >= t.variants.length) throw new XbfError("unknown-variant", at, `enum ${t.name} has ${t.variants.length} variants; there is no variant ${i}`);
        const m = t.variants[i]!;
        try { return { i, v: this.value(m.type, child) }; } catch (e) { if (e instanceof XbfError) e.within(seg.field(m.name)); throw e; }
      }
      case "any": {
        const at = this.pos;
        if (child > this.maxDepth) throw new XbfError("too-deep", at, `more than ${this.maxDepth} levels of nesting`);
        const own = this.metadata(child);
        return { t: own, v: this.value(own, child) };
      }
      default: return this.integer(t.kind);
    }
  }
  private map(t: Extract<XbfType, { kind: "map" }>, child: number): unknown {
    const at = this.pos;
    const count = this.length();
    let paid = false;
    if (isZeroSize(t.key) && isZeroSize(t.value)) {
      this.checkCount(at, count, { kind: "tuple", elements: [t.key, t.value] });
      paid = true;
    } else this.checkFits(at, count, minSize(t.key, this.v2) + minSize(t.value, this.v2));
    const out: [unknown, unknown][] = [];
    const seen = new Set<string>();
    if (paid) this.prepaid++;
    let i = 0;
    try {
      for (; i < count; i++) {
        const kat = this.pos;
        let k: unknown;
        try {
          k = this.value(t.key, child);
          let kb = "";
          for (let p = kat; p < this.pos; p++) kb += String.fromCharCode(this.b[p]!);
          if (seen.has(kb)) throw new XbfError("duplicate-key", kat, "a key appears twice");
          seen.add(kb);
        } catch (e) { if (e instanceof XbfError) e.within(seg.field("key")); throw e; }
        let v: unknown;
        try { v = this.value(t.value, child); } catch (e) { if (e instanceof XbfError) e.within(seg.field("value")); throw e; }
        out.push([k, v]);
      }
    } catch (e) {
      if (e instanceof XbfError) e.within(seg.index(i));
      throw e;
    } finally {
      if (paid) this.prepaid--;
    }
    return out;
  }
  private integer(kind: string): number | bigint {
    const [bits, signed, fixed] = INT_INFO[kind]!;
    if (this.v2 && !fixed) {
      if (bits <= 32) { const u = this.uvarNum(bits); return signed ? unzigzagNum(u) : u; }
      const u = this.uvarBig(bits);
      return signed ? unzigzag(u) : u;
    }
    const width = this.v2 ? fixed : bits / 8;
    const p = this.need(width);
    const dv = this.dv;
    switch (width) {
      case 1: return signed ? dv.getInt8(p) : dv.getUint8(p);
      case 2: return signed ? dv.getInt16(p, true) : dv.getUint16(p, true);
      case 4: return signed ? dv.getInt32(p, true) : dv.getUint32(p, true);
      case 8: return signed ? dv.getBigInt64(p, true) : dv.getBigUint64(p, true);
      default: {
        let x = 0n;
        for (let i = width - 1; i >= 0; i--) x = (x << 8n) | BigInt(this.b[p + i]!);
        return signed ? BigInt.asIntN(width * 8, x) : x;
      }
    }
  }
}
export { DISC };
