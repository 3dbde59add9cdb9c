// The direct decoder's columns of numbers: the column reader's state (NumberColumns: the bytes, position and
// decoded-memory budget, which fast_strings.ts and fast.ts extend), integer payloads of every encoding (bit-packed,
// delta, run-length, the file cascade's), integer, bool and count columns, and float columns (plain, scaled
// decimals, dictionaries, XOR). The bit-level loops are in fast_bits.ts.
import { INT_INFO } from "./metadata.js";
import { DEFAULT_MAX_DECODED_BYTES } from "./decode_rows.js";
import { Cursor, decodeFloats, decodeInts } from "./columnar.js";
import { ENTROPY, RUNS, canonicalOrder, readCodes } from "./cascade.js";
import { unzigzag, unzigzagNum } from "./varint.js";
import { SMI, MAX_LENGTH, smallInts, doubles, tagged, boxed, toDoubles, padView, bitsAt, bits32, F64, F32, WORDS, LITTLE, POW2, decimalsFor, decimalsDelta, decimalsForSmall, decimalsDeltaSmall, unpack, unpackZigzag, undelta } from "./fast_bits.js";
import { FastOptions, MAX_SAFE, bail, padded, small } from "./fast_common.js";
import { bigConv, bigDelta, bigFrame, bigOfColumn, bigints, intConv } from "./fast_int_values.js";

/** Runs up to this long are filled by a loop, longer ones by `fill`: Array.prototype.fill is a C++ builtin in node 20
 * (about 200 instructions a call under callgrind, where the loop's stores take a few each). */
export const FILL_LOOP = 64;

/** The state of one columnar decode and its number columns (extended by StringColumns, then Columns). */
export class NumberColumns {
  b: Uint8Array;
  dv: DataView;
  pos: number;
  left: number;
  /** The bytes are a block of an XBF file: the reference readers it calls may meet `04` and `05`. */
  file = false;
  /** Float dictionary columns read so far (a struct whose fields read one widens its float fields: see node). */
  dicts = 0;
  /** Where the bits start in the view bitsView last returned. */
  vp = 0;
  /** Whether the last `ints` call with `zig` undid the zigzag mapping itself (set by each call: read it at once). */
  zigged = false;
  constructor(b: Uint8Array, pos: number, public o: FastOptions) {
    this.b = b;
    this.dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    this.pos = pos;
    this.left = o.maxDecodedBytes ?? DEFAULT_MAX_DECODED_BYTES;
  }
  /** A reference cursor over [start, end), in a file's block if this is one. */
  cursor(start: number, end: number): Cursor {
    const c = new Cursor(this.b, start, end);
    c.file = this.file;
    return c;
  }
  /** A view for 32-bit loads over the `bytes` bytes at p with 4 readable bytes after them: the message's own,
   * or one over a padded copy when the message ends sooner (valid until the next call); `vp` is where the bytes
   * start in it. */
  bitsView(p: number, bytes: number): DataView {
    if (p + bytes + 4 <= this.b.length) { this.vp = p; return this.dv; }
    this.vp = 0;
    return padView(this.b, p, bytes);
  }
  charge(x: number): void {
    if (!(x <= this.left)) bail();
    this.left -= x;
  }
  /** A column's start: returns the end of its payload, leaves pos at its encoding byte. */
  column(): number {
    const end = this.b.length;
    const len = small(this, end);
    if (len < 0 || len > end - this.pos) bail();
    if (len > 0 && this.b[this.pos] === 0x80) bail(); // zstd: the reference decoder reports it
    return this.pos + len;
  }
  /** A length-prefixed block inside [pos, end): returns its end. */
  block(end: number): number {
    const len = small(this, end);
    if (len < 0 || len > end - this.pos) return -1;
    return this.pos + len;
  }

  /** An integer payload (encoding byte and payload) of n values below 2^maxBits, as exact numbers; null if
   * any value is not an exact number or anything is unusual (the caller then reads it as bigints). Values all
   * below 2^30 come in a `smallInts` array (see there), others in a `doubles` one. */
  ints(n: number, maxBits: number, end: number, zig = false): number[] | null {
    const b = this.b;
    this.zigged = false;
    if (this.pos >= end) return null;
    const enc = b[this.pos++]!;
    const lim = maxBits >= 53 ? MAX_SAFE : POW2[maxBits]! - 1;
    switch (enc) {
      case 0: {
        if (n > end - this.pos) return null; // a byte a value at least: n is bounded by the bytes
        let out = smallInts(n), smi = true;
        for (let i = 0; i < n; i++) {
          const x = small(this, end);
          if (x < 0 || x > lim) return null;
          if (smi && x < SMI) out[i] = x | 0;
          else {
            if (smi) { out = toDoubles(out, i, n); smi = false; }
            out[i] = x;
          }
        }
        return out;
      }
      case 1: {
        const base = small(this, end);
        if (base < 0 || this.pos >= end) return null;
        const width = b[this.pos++]!;
        if (width > maxBits || width > 44 || base + POW2[width]! - 1 > lim) return null;
        const bytes = Math.ceil((n * width) / 8);
        if (bytes > end - this.pos || padded(b, this.pos, n * width)) return null;
        const smi = base + POW2[width]! <= SMI;
        // Sized once where the bytes bound n (width > 0); filled from 0, no hole is left.
        const out = width > 0 ? (smi ? smallInts(n) : doubles(n)) : smi ? smallInts(0) : doubles(0);
        // A signed column's small values: the zigzag mapping undone as they are unpacked (no second pass).
        if (zig && smi && width > 0 && width <= 24) {
          unpackZigzag(this.bitsView(this.pos, bytes), this.vp, out, n, width, base);
          this.zigged = true;
        } else unpack(this.bitsView(this.pos, bytes), this.vp, out, 0, n, width, base, smi);
        this.pos += bytes;
        return out;
      }
      case 2: {
        if (n === 0) return null;
        const v = small(this, end);
        if (v < 0 || v > lim) return null;
        const base = small(this, end);
        if (base < 0 || this.pos >= end) return null;
        const width = b[this.pos++]!;
        if (width > 44 || base + POW2[width]! > MAX_SAFE) return null;
        const bytes = Math.ceil(((n - 1) * width) / 8);
        if (bytes > end - this.pos || padded(b, this.pos, (n - 1) * width)) return null;
        // Every sum stays within the first value plus n - 1 of the largest step (a zigzag value below
        // base + 2^width is a step of at most half that): small integers when that bound is.
        const smi = v + (n - 1) * ((base + POW2[width]!) / 2) < SMI;
        if (width === 0) {
          const out = smi ? smallInts(0) : doubles(0);
          const d = unzigzagNum(base);
          let x = v;
          for (let i = 0; i < n; i++) {
            // A sum that leaves [0, lim] wraps in 128 bits or passes the type: the bigint reader decides.
            if (!(x >= 0 && x <= lim)) return null;
            if (smi) out.push(x | 0);
            else out.push(x);
            x += d;
          }
          return out;
        }
        const out = smi ? smallInts(n) : doubles(n);
        if (!undelta(this.bitsView(this.pos, bytes), this.vp, out, n, width, base, v, lim, smi)) return null;
        this.pos += bytes;
        return out;
      }
      case 3: {
        // n was charged to the decoded-memory budget: sized once, each run filled in place.
        if (n > MAX_LENGTH) return null;
        let count = 0, out = smallInts(n), smi = true;
        while (count < n) {
          const run = small(this, end);
          if (run <= 0 || run > n - count) return null;
          const x = small(this, end);
          if (x < 0 || x > lim) return null;
          if (smi && x >= SMI) { out = toDoubles(out, count, n); smi = false; }
          // Short runs (most, in columns like wind directions) by hand: a fill call costs more than a few stores (FILL_LOOP).
          // A signed column's run value has its zigzag mapping undone once per run (x < 2^30 in integers: a
          // small integer stays one), not per value in a second pass.
          const stop = count + run;
          if (smi) {
            const xi = zig ? (x >>> 1) ^ -(x & 1) : x | 0;
            if (run <= FILL_LOOP) for (let i = count; i < stop; i++) out[i] = xi;
            else out.fill(xi, count, stop);
          } else {
            const xd = zig ? unzigzagNum(x) : x;
            if (run <= FILL_LOOP) for (let i = count; i < stop; i++) out[i] = xd;
            else out.fill(xd, count, stop);
          }
          count += run;
        }
        this.zigged = zig;
        return out;
      }
      case ENTROPY: case RUNS: return this.file ? this.cascade(enc, n, maxBits, end) : null;
      default: return null;
    }
  }
  /** An integer payload (encoding byte and payload) of n > 0 values below 2^maxBits, zigzag-mapped where `zig`, as
   * bigints (int64: "bigint"), each made as the block is read: frame of reference, delta and run-length blocks,
   * with ints' checks. Null (pos unchanged) for anything else or anything unusual: the caller then takes ints'
   * path (numbers, then `bigints`), which decides as before. */
  bigInts(n: number, maxBits: number, end: number, zig: boolean): bigint[] | null {
    const b = this.b, start = this.pos;
    // n was charged to the decoded-memory budget; past JavaScript's longest array (possible only without one) the
    // other paths decide.
    if (n === 0 || n > MAX_LENGTH || start >= end) return null;
    const enc = b[this.pos++]!;
    const lim = maxBits >= 53 ? MAX_SAFE : POW2[maxBits]! - 1;
    let out: bigint[] | null = null;
    if (enc === 1) {
      const base = small(this, end);
      if (base >= 0 && this.pos < end) {
        const width = b[this.pos++]!, bytes = Math.ceil((n * width) / 8);
        if (width <= maxBits && width <= 44 && base + POW2[width]! - 1 <= lim && bytes <= end - this.pos && !padded(b, this.pos, n * width)) {
          out = bigFrame(this.bitsView(this.pos, bytes), this.vp, n, width, base, zig);
          this.pos += bytes;
        }
      }
    } else if (enc === 2) {
      const v = small(this, end);
      const base = v >= 0 && v <= lim ? small(this, end) : -1;
      if (base >= 0 && this.pos < end) {
        const width = b[this.pos++]!, bytes = Math.ceil(((n - 1) * width) / 8);
        if (width > 0 && width <= 44 && base + POW2[width]! <= MAX_SAFE && bytes <= end - this.pos && !padded(b, this.pos, (n - 1) * width)) {
          out = bigDelta(this.bitsView(this.pos, bytes), this.vp, n, width, base, v, lim, zig);
          this.pos += bytes;
        }
      }
    } else if (enc === 3) {
      // One bigint a run.
      const o = new Array<bigint>(n);
      let count = 0;
      while (count < n) {
        const run = small(this, end);
        if (run <= 0 || run > n - count) break;
        const x = small(this, end);
        if (x < 0 || x > lim) break;
        const v = bigOfColumn(x, zig), stop = count + run;
        if (run <= FILL_LOOP) for (let i = count; i < stop; i++) o[i] = v;
        else o.fill(v, count, stop);
        count = stop;
      }
      if (count === n) out = o;
    }
    if (out === null) this.pos = start;
    return out;
  }
  /** A frame-of-reference or delta-coded block (its encoding byte 1 or 2 at pos) of n > 0 zigzag-mapped
   * scaled decimals, decoded and divided by `scale` in one pass: `ints(n, 64, end)` then the scaling, without
   * the intermediate array. Null (pos unchanged) wherever ints would give null: the caller then takes that path. */
  private scaledDecimals(n: number, end: number, scale: number, f32: boolean): number[] | null {
    const b = this.b, start = this.pos;
    const delta = b[this.pos++] === 2;
    let v = 0;
    if (delta) { v = small(this, end); if (v < 0) { this.pos = start; return null; } }
    const base = small(this, end);
    if (base < 0 || this.pos >= end) { this.pos = start; return null; }
    const width = b[this.pos++]!;
    const count = delta ? n - 1 : n, bytes = Math.ceil((count * width) / 8);
    // ints' checks: a frame's largest value and a delta's largest difference stay exact in a double.
    if (width > 44 || base + POW2[width]! > MAX_SAFE || bytes > end - this.pos || padded(b, this.pos, count * width)) { this.pos = start; return null; }
    // Width 0: the caller's path (ints, then the scale).
    if (width === 0) { this.pos = start; return null; }
    const view = this.bitsView(this.pos, bytes), p0 = this.vp;
    // Sized once (no growth while filling); each value is written, so no hole is left.
    const out = doubles(n);
    // Zigzag values (and a delta block's sums) within 31 bits: in integers, by functions of their own.
    const narrow = width <= 24 && base + POW2[width]! <= 2 ** 31;
    if (!delta) { if (narrow) decimalsForSmall(view, p0, out, n, width, base, scale); else decimalsFor(view, p0, out, n, width, base, scale); }
    else if (!(narrow && v + (n - 1) * ((base + POW2[width]!) / 2) < 2 ** 31 ? decimalsDeltaSmall(view, p0, out, n, width, base, v, scale)
      : decimalsDelta(view, p0, out, n, width, base, v, scale))) { this.pos = start; return null; }
    if (f32) for (let i = 0; i < n; i++) out[i] = Math.fround(out[i]!);
    this.pos += bytes;
    return out;
  }
  /** A length-prefixed integer block of n values inside a cascade (not itself `nested`), or null. */
  private inner(n: number, maxBits: number, end: number, nested: number): number[] | null {
    const e = this.block(end);
    if (e < 0 || this.pos >= e || this.b[this.pos] === nested) return null;
    const xs = this.ints(n, maxBits, e);
    return xs !== null && this.pos === e ? xs : null;
  }
  /** The file-only encodings after their byte (SPEC 22.2.2, 22.2.3), as numbers; null where anything is unusual
   * (the reference reader in cascade.ts then decodes the column or reports the error). */
  private cascade(enc: number, n: number, maxBits: number, end: number): number[] | null {
    if (enc === ENTROPY) {
      const d = small(this, end);
      if (d < 2 || d > n) return null;
      const values = this.inner(d, maxBits, end, ENTROPY);
      if (values === null) return null;
      for (let i = 1; i < d; i++) if (!(values[i - 1]! < values[i]!)) return null;
      const lens = this.inner(d, 8, end, ENTROPY);
      if (lens === null) return null;
      const order = canonicalOrder(lens);
      if (typeof order === "string") return null;
      const codes = readCodes(this.b, this.pos, end, lens, order, n);
      if (typeof codes === "string") return null;
      this.pos = end;
      // The values ascend. A value read from a doubles array is a float: `| 0` for a smallInts one.
      if (values[d - 1]! < SMI) { const out = smallInts(n); for (let i = 0; i < n; i++) out[i] = values[codes[i]!]! | 0; return out; }
      const out = doubles(n);
      for (let i = 0; i < n; i++) out[i] = values[codes[i]!]!;
      return out;
    }
    const k = small(this, end);
    if (k < 1 || k > n) return null;
    const lens = this.inner(k, 64, end, RUNS);
    const vals = lens && this.inner(k, maxBits, end, RUNS);
    if (lens === null || vals === null) return null;
    let total = 0;
    for (let i = 0; i < k; i++) { if (lens[i]! === 0) return null; total += lens[i]!; }
    if (total !== n) return null;
    let max = 0;
    for (let i = 0; i < k; i++) if (vals[i]! > max) max = vals[i]!;
    const smi = max < SMI, out = smi ? smallInts(n) : doubles(n);
    let q = 0;
    for (let i = 0; i < k; i++) {
      const v = smi ? vals[i]! | 0 : vals[i]!, stop = q + lens[i]!;
      if (stop - q <= FILL_LOOP) for (let j = q; j < stop; j++) out[j] = v;
      else out.fill(v, q, stop);
      q = stop;
    }
    return out;
  }
  /** A column of n integers of `kind` (integer kinds, date, timestamp; bool as 0/1 numbers when raw). */
  intColumn(kind: string, n: number): unknown[] {
    const end = this.column();
    const start = this.pos;
    const [bits, signed] = kind === "bool" ? [1, false] : INT_INFO[kind]!;
    // As bigints, made as the block is read where it is a usual one (no array of numbers and no second pass).
    if (bits > 32 && this.o.int64 === "bigint" && kind !== "date" && kind !== "timestamp") {
      const big = this.bigInts(n, bits, end, signed);
      if (big !== null && this.pos === end) return big;
      this.pos = start;
    }
    const xs = this.ints(n, bits, end, signed);
    if (xs !== null && this.pos === end) {
      if (kind === "bool") { const out: boolean[] = []; for (let i = 0; i < n; i++) out.push(xs[i] === 1); return out; }
      // Below 2^32 the zigzag mapping is undone in integers: a value of a `smallInts` array stays a small integer
      // in every tier (a float result, stored there even once, would turn its allocation site to doubles).
      // Where ints undid it already (run-length and small bit-packed blocks), nothing is left to do.
      // As bigints, the zigzag mapping is undone as each bigint is made (no pass writing the numbers back).
      if (bits > 32 && this.o.int64 === "bigint" && kind !== "date" && kind !== "timestamp") return bigints(xs, n, signed && !this.zigged);
      if (signed && !this.zigged) for (let i = 0; i < n; i++) { const x = xs[i]!; xs[i] = x < 4294967296 ? (x >>> 1) ^ -(x & 1) : unzigzagNum(x); }
      const conv = intConv(kind, this.o);
      if (conv === null) return xs;
      const out: unknown[] = [];
      for (let i = 0; i < n; i++) out.push(conv(xs[i]!));
      return out;
    }
    const c = this.cursor(start, end);
    const big = decodeInts(c, n, bits);
    c.finish("column");
    this.pos = end;
    if (kind === "bool") return big.map((x) => x === 1n);
    const conv = bigConv(kind, this.o);
    return big.map((z) => conv(signed ? unzigzag(z) : z));
  }
  /** n counts (lengths, presence, tags) as numbers, each at most `lim`; bails otherwise. */
  counts(n: number, bits: number): number[] {
    const end = this.column();
    const xs = this.ints(n, bits, end);
    if (xs === null || this.pos !== end) bail();
    return xs;
  }

  floatColumn(n: number, f32: boolean): number[] {
    const end = this.column();
    const start = this.pos;
    const xs = this.floats(n, f32, end);
    if (xs !== null && this.pos === end) return xs;
    const c = this.cursor(start, end);
    const v = decodeFloats(c, n, f32);
    c.finish("column");
    this.pos = end;
    // The public values: a NaN held with its bits (nan.ts) is JavaScript's NaN here.
    for (let i = 0; i < v.length; i++) if (typeof v[i] !== "number") v[i] = NaN;
    return v;
  }
  floats(n: number, f32: boolean, end: number): number[] | null {
    const b = this.b, dv = this.dv;
    if (this.pos >= end) return null;
    const w = f32 ? 4 : 8;
    const enc = b[this.pos++]!;
    switch (enc) {
      case 0x10: {
        if (n * w > end - this.pos) return null;
        const out = doubles(n);
        let p = this.pos;
        if (f32) for (let i = 0; i < n; i++, p += 4) out[i] = dv.getFloat32(p, true);
        else for (let i = 0; i < n; i++, p += 8) out[i] = dv.getFloat64(p, true);
        this.pos = p;
        return out;
      }
      case 0x11: {
        if (this.pos >= end) return null;
        const e = b[this.pos++]!;
        if (e > (f32 ? 10 : 18)) return null;
        const bend = this.block(end);
        if (bend < 0) return null;
        const scale = 10 ** e;
        // Frame of reference or delta (the usual blocks): decoded and scaled in one pass.
        let out = n > 0 && this.pos < bend && (b[this.pos] === 1 || b[this.pos] === 2) ? this.scaledDecimals(n, bend, scale, f32) : null;
        if (out === null) {
          const xs = this.ints(n, 64, bend);
          if (xs === null || this.pos !== bend) return null;
          out = doubles(n); // not xs: a smallInts array is never given a fraction
          if (f32) for (let i = 0; i < n; i++) out[i] = Math.fround(unzigzagNum(xs[i]!) / scale);
          else for (let i = 0; i < n; i++) out[i] = unzigzagNum(xs[i]!) / scale;
        } else if (this.pos !== bend) return null;
        const k = small(this, end);
        if (k < 0 || k > n) return null;
        if (k > 0) {
          const pend = this.block(end);
          if (pend < 0) return null;
          const positions = this.ints(k, 64, pend);
          if (positions === null || this.pos !== pend || k * w > end - this.pos) return null;
          let p = this.pos;
          for (let i = 0; i < k; i++, p += w) {
            const at = positions[i]!;
            // Past the column or not strictly ascending (SPEC 22.2): the reference decoder reports it.
            if (at >= n || (i > 0 && at <= positions[i - 1]!)) return null;
            out[at] = f32 ? dv.getFloat32(p, true) : dv.getFloat64(p, true);
          }
          this.pos = p;
        }
        return out;
      }
      case 0x12: {
        const d = small(this, end);
        if (d < 0 || d > n) return null;
        const iend = this.block(end);
        if (iend < 0 || (this.pos < iend && (b[this.pos] === 0x12 || b[this.pos] === 0x13))) return null;
        const values = this.floats(d, f32, iend);
        if (values === null || this.pos !== iend) return null;
        // Each entry boxed once and every value a pointer to its entry's box: an object's field built from this
        // column (made tagged by `untypedFloats`, see node's struct case) then holds that box, where a double array's
        // value would be boxed again for every object.
        const distinct = boxed(values, d), out = tagged(n);
        this.dicts++;
        // Frame-of-reference ids (the usual block): looked up as they are unpacked, no array of ids.
        if (n > 0 && this.pos < end && b[this.pos] === 1) {
          const start = this.pos;
          this.pos++;
          const base = small(this, end);
          if (base >= 0 && this.pos < end) {
            const width = b[this.pos++]!, bytes = Math.ceil((n * width) / 8);
            if (width >= 1 && width <= 24 && bytes <= end - this.pos && !padded(b, this.pos, n * width)) {
              const s = this.bitsView(this.pos, bytes), p0 = this.vp, mask = (1 << width) - 1;
              let bp = 0;
              for (let i = 0; i < n; i++, bp += width) {
                const id = base + ((s.getUint32(p0 + (bp >>> 3), true) >>> (bp & 7)) & mask);
                if (id >= d) return null;
                out[i] = distinct[id]!;
              }
              this.pos += bytes;
              return out;
            }
          }
          this.pos = start; // anything else: ints reads the block (or finds it unusual)
        }
        // Run-length ids (a column sorted by it): each run filled with its entry, no array of ids.
        const rs = n > 0 && this.pos < end && b[this.pos] === 3 ? this.idRuns(n, end, d) : null;
        if (rs !== null) {
          for (let r = 0, q = 0; r < rs.length; r += 2) {
            const v = distinct[rs[r + 1]!]!, stop = q + rs[r]!;
            if (stop - q <= FILL_LOOP) for (let j = q; j < stop; j++) out[j] = v;
            else out.fill(v, q, stop);
            q = stop;
          }
          return out;
        }
        const ids = this.ints(n, 64, end);
        if (ids === null) return null;
        for (let i = 0; i < n; i++) {
          const id = ids[i]!;
          if (id >= d) return null;
          out[i] = distinct[id]!;
        }
        return out;
      }
      case 0x13: return this.xor(n, f32, end);
      default: return null;
    }
  }
  /** The XOR encoding's payload (SPEC 22.2.1: after its byte, the rest of the column up to `end`) of n values,
   * as decodeXor reads it but on numbers only; null wherever decodeXor would throw (it then reports it). */
  private xor(n: number, f32: boolean, end: number): number[] | null {
    const b = this.b, dv = this.dv, w = f32 ? 4 : 8, width = 8 * w, field = f32 ? 5 : 6, fmask = (1 << field) - 1;
    if (n === 0 || w > end - this.pos || !LITTLE) return null;
    const first = this.pos, sp = first + w, len = end - sp, total = 8 * len;
    if (Math.ceil((n - 1) / 8) > len) return null;
    // 32-bit loads from any bit of the stream read up to 4 bytes past it: from a copy with room after when
    // the message ends there. Bits past the stream are never used (each read is checked against `total`).
    const src = this.bitsView(sp, len), p0 = this.vp;
    // The previous value's bits: high and low 32-bit words (for f32 the one word is `lo`).
    let hi = f32 ? 0 : dv.getUint32(first + 4, true), lo = dv.getUint32(first, true);
    const out = doubles(n);
    out[0] = f32 ? dv.getFloat32(first, true) : dv.getFloat64(first, true);
    let lead = -1, wlen = 0, bit = 0;
    for (let i = 1; i < n; i++) {
      if (bit >= total) return null;
      const c = bitsAt(src, p0, bit, 2);
      if ((c & 1) === 0) { bit += 1; out[i] = out[i - 1]!; continue; }
      if ((c & 2) !== 0) {
        if (bit + 2 + 2 * field > total) return null;
        const f = bitsAt(src, p0, bit + 2, 2 * field);
        lead = f & fmask;
        wlen = (f >>> field) + 1;
        if (lead + wlen > width) return null;
        bit += 2 + 2 * field;
      } else {
        if (lead < 0 || bit + 2 > total) return null;
        bit += 2;
      }
      if (bit + wlen > total) return null;
      // wlen bits, shifted left by sh into the width-bit word (lead + wlen <= width, so nothing is lost).
      const sh = width - lead - wlen;
      let vl: number, vh = 0;
      if (wlen <= 32) vl = bits32(src, p0, bit, wlen);
      else { vl = bits32(src, p0, bit, 32); vh = bits32(src, p0, bit + 32, wlen - 32); }
      bit += wlen;
      if (sh === 0) { hi ^= vh; lo ^= vl; }
      else if (sh >= 32) hi ^= vl << (sh - 32);
      else { hi ^= (vh << sh) | (vl >>> (32 - sh)); lo ^= vl << sh; }
      if (f32) { WORDS[0] = lo; out[i] = F32[0]!; }
      else { WORDS[0] = lo; WORDS[1] = hi; out[i] = F64[0]!; }
    }
    if (Math.ceil(bit / 8) !== len) return null;
    if (bit % 8 !== 0 && b[sp + (bit >> 3)]! >> (bit % 8) !== 0) return null;
    this.pos = end;
    return out;
  }
  /** A dictionary column's n > 0 ids when they are a run-length block (at pos, within `end`), every id below d:
   * its runs as [length, id, length, id, ...] (pos past the block); null with pos unchanged otherwise (`ints`
   * then reads it, and gives null too where a run or an id is out of range). */
  protected idRuns(n: number, end: number, d: number): number[] | null {
    const start = this.pos;
    this.pos++;
    const rs: number[] = [];
    let count = 0;
    while (count < n) {
      const run = small(this, end);
      const id = run > 0 && run <= n - count ? small(this, end) : -1;
      if (id < 0 || id >= d) { this.pos = start; return null; }
      rs.push(run, id);
      count += run;
    }
    return rs;
  }
}
