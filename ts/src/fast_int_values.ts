// The public values of decoded integers, shared by the columns (fast_numbers.ts) and the rows (fast_rows.ts):
// dates and timestamps, and 64-bit integers as bigints (int64: "bigint"), made cheaply and shared where equal.
import { INT_INFO } from "./metadata.js";
import { XbfDate, XbfTimestamp } from "./values.js";
import { unzigzagNum } from "./varint.js";
import { LITTLE, POW2 } from "./fast_bits.js";
import { FastOptions } from "./fast_common.js";

/** Public value of an integer of `kind` (zigzag already undone) held exactly in a number. */
export function intConv(kind: string, o: FastOptions): ((x: number) => unknown) | null {
  if (kind === "date") return (x) => new XbfDate(x);
  if (kind === "timestamp") return (x) => new XbfTimestamp(BigInt(x));
  const bits = INT_INFO[kind]![0];
  if (bits > 32 && o.int64 === "bigint") return bigintOf;
  return null; // the number itself
}
/** A 64-bit scratch integer seen as one BigInt and as two 32-bit halves (LO_HALF the low one on this machine). */
const BIG64 = new BigInt64Array(1), HALVES = new Int32Array(BIG64.buffer);
const LO_HALF = LITTLE ? 0 : 1, HI_HALF = 1 - LO_HALF;
/** 2^-32: x * 2^-32 is x / 2^32 exactly (a power of two), a multiplication where a division takes longer. */
const TWO_POW_MINUS_32 = 2 ** -32;
/** The bigint of x, an integer with |x| <= 2^53. In 32 bits, `BigInt(x | 0)`: V8 makes the bigint of a small
 * integer cheaply (fewer instructions than the scratch below, and than looking it up in a table of shared small
 * bigints, measured under callgrind, node 20). Past 32 bits `BigInt(x)` of a heap number calls a C++ builtin
 * (several times dearer), so the two 32-bit halves are written to a scratch BigInt64Array and the element read
 * back; exact: `x | 0` is x modulo 2^32 (ToInt32) and x * 2^-32 is exact, so its floor is the high half, both
 * within 32 bits for |x| <= 2^53. */
export function bigintOf(x: number): bigint {
  if (x >= -2147483648 && x < 2147483648) return BigInt(x | 0);
  HALVES[LO_HALF] = x | 0;
  HALVES[HI_HALF] = Math.floor(x * TWO_POW_MINUS_32);
  return BIG64[0]!;
}
/** The n integers of xs (exact numbers, zigzag-mapped where `zig`: their mapping undone here) as bigints (int64:
 * "bigint"): each made by bigintOf, a value equal to the one before (a run) the same bigint. For the blocks that
 * NumberColumns.bigInts leaves to ints (varint blocks, a file's cascades, delta blocks of width 0, anything unusual). */
export function bigints(xs: number[], n: number, zig: boolean): bigint[] {
  const out = new Array<bigint>(n);
  let prev = NaN, last = 0n;
  for (let i = 0; i < n; i++) {
    const z = xs[i]!;
    if (z !== prev) {
      last = bigintOf(!zig ? z : z < 4294967296 ? (z >>> 1) ^ -(z & 1) : unzigzagNum(z));
      prev = z;
    }
    out[i] = last;
  }
  return out;
}
/** The bigint of a column's number z (zigzag-mapped where `zig`: the mapping undone here), z exact. */
export function bigOfColumn(z: number, zig: boolean): bigint {
  return bigintOf(!zig ? z : z < 4294967296 ? (z >>> 1) ^ -(z & 1) : unzigzagNum(z));
}
/** Frames of reference this narrow (at most 2^12 values) that have at least as many values as the frame has share
 * one bigint per value through a table indexed by the packed field: years, ages, codes, directions. */
const SHARED_WIDTH = 12;
/** A frame-of-reference block's n > 0 values (base + width bits each, LSB first from byte p0 of s, which has 4
 * bytes after them, as fast_bits.ts's unpack reads them; width 0..44, base + 2^width - 1 exact) as bigints, each
 * made as its field is read (no array of numbers first). A bigint is a primitive, its identity not observable,
 * so equal values share one: in a narrow frame (SHARED_WIDTH) each field value's bigint is made once, from a
 * table, in a wider one a field equal to the one before is the same bigint. */
export function bigFrame(s: DataView, p0: number, n: number, width: number, base: number, zig: boolean): bigint[] {
  const out = new Array<bigint>(n);
  if (width <= SHARED_WIDTH && POW2[width]! <= n) {
    const t = new Array<bigint | undefined>(POW2[width]!), mask = (1 << width) - 1;
    for (let i = 0, bp = 0; i < n; i++, bp += width) {
      const x = (s.getUint32(p0 + (bp >>> 3), true) >>> (bp & 7)) & mask;
      let v = t[x];
      if (v === undefined) t[x] = v = bigOfColumn(base + x, zig);
      out[i] = v;
    }
    return out;
  }
  let prev = -1, last = 0n;
  if (width <= 24) {
    const mask = (1 << width) - 1;
    for (let i = 0, bp = 0; i < n; i++, bp += width) {
      const x = (s.getUint32(p0 + (bp >>> 3), true) >>> (bp & 7)) & mask;
      if (x !== prev) { last = bigOfColumn(base + x, zig); prev = x; }
      out[i] = last;
    }
    return out;
  }
  const hmask = (1 << (width - 24)) - 1;
  for (let i = 0, bp = 0; i < n; i++, bp += width) {
    const hp = bp + 24;
    const x = ((s.getUint32(p0 + (bp >>> 3), true) >>> (bp & 7)) & 0xffffff) + ((s.getUint32(p0 + (hp >>> 3), true) >>> (hp & 7)) & hmask) * 16777216;
    if (x !== prev) { last = bigOfColumn(base + x, zig); prev = x; }
    out[i] = last;
  }
  return out;
}
/** A delta-coded block's n > 0 values (the first the column's number v, then n - 1 zigzag steps of base + width
 * bits read as bigFrame reads fields; width 1..44, base + 2^width exact) as bigints, each made as its sum is
 * taken; a step of 0 gives the same bigint. Null when a sum leaves [0, lim] (fast_bits.ts's undelta gives up
 * there too: the caller's other paths decide). */
export function bigDelta(s: DataView, p0: number, n: number, width: number, base: number, v: number, lim: number, zig: boolean): bigint[] | null {
  const out = new Array<bigint>(n);
  let last = bigOfColumn(v, zig);
  out[0] = last;
  if (width <= 24 && base + POW2[width]! <= 2 ** 31) {
    // Every zigzag step fits in 31 bits: undone with integer operations (each sum is exact: v <= lim <= 2^53).
    const mask = (1 << width) - 1;
    for (let i = 1, bp = 0; i < n; i++, bp += width) {
      const z = base + ((s.getUint32(p0 + (bp >>> 3), true) >>> (bp & 7)) & mask);
      if (z !== 0) {
        v += (z >>> 1) ^ -(z & 1);
        if (!(v >= 0 && v <= lim)) return null;
        last = bigOfColumn(v, zig);
      }
      out[i] = last;
    }
    return out;
  }
  const lw = width < 24 ? width : 24, hw = width - lw, lmask = (1 << lw) - 1, hmask = (1 << hw) - 1;
  for (let i = 1, bp = 0; i < n; i++, bp += width) {
    let z = base + ((s.getUint32(p0 + (bp >>> 3), true) >>> (bp & 7)) & lmask);
    if (hw > 0) { const hp = bp + 24; z += ((s.getUint32(p0 + (hp >>> 3), true) >>> (hp & 7)) & hmask) * 16777216; }
    if (z !== 0) {
      v += unzigzagNum(z);
      if (!(v >= 0 && v <= lim)) return null;
      last = bigOfColumn(v, zig);
    }
    out[i] = last;
  }
  return out;
}
/** Public value of an integer given as a bigint (zigzag already undone). */
export function bigConv(kind: string, o: FastOptions): (x: bigint) => unknown {
  if (kind === "date") return (x) => new XbfDate(Number(x));
  if (kind === "timestamp") return (x) => new XbfTimestamp(x);
  const bits = INT_INFO[kind]![0];
  if (bits <= 32) return Number;
  if (o.int64 === "bigint") return (x) => x;
  return (x) => (x <= 9007199254740991n && x >= -9007199254740991n ? Number(x) : x);
}
