// The direct decoder's integer arrays and bit-packed blocks (fast_numbers.ts's column readers use them): arrays that stay
// V8 small-integer arrays, 32-bit loads of bit-packed fields at their bit positions, decimal and delta blocks
// decoded in one pass. Everything here reads only what its caller has checked is there (plus the 4 bytes after,
// which the caller's view guarantees: NumberColumns.bitsView).
import { unzigzagNum } from "./varint.js";

const MAX_SAFE = 9007199254740991;

// ------------------------------------------------------------------ integer arrays
/** Integers below this are small integers in V8 (Smis: 31 bits with pointer compression). A column decoded
 * into a `smallInts` array holding only such values keeps them unboxed, and so do the objects built from it;
 * from a double array every value would be boxed again in every object (a heap number per field). */
export const SMI = 2 ** 30;
/** 2^k for k in 0..64, looked up: `2 ** k` with k not a constant is a call to the C library's pow in V8's
 * optimised code (a few per column, tens of nanoseconds each: on a table of 120 rows and 24 columns, a visible
 * share of the whole decode). Index it only with a k already checked to be at most 64. */
export const POW2: readonly number[] = Array.from({ length: 65 }, (_, k) => 2 ** k);
/** The longest array this path sizes at once (JavaScript's limit; a larger count, possible only without a
 * decoded-memory budget, is left to the reference decoder). */
export const MAX_LENGTH = 2 ** 32 - 1;
/** The only place `smallInts` arrays are made, and they are given only integers in (-2^30, 2^30): V8's
 * allocation-site and store feedback for them then never turns them into double arrays. */
export function smallInts(n: number): number[] {
  return new Array<number>(n);
}
/** An array for numbers of any value, holding doubles from its first write (made here: the shared loops that
 * fill it never see an array change kind, which would have them change every array they fill). */
export function doubles(n: number): number[] {
  const a = new Array<number>(n > 0 ? n : 1);
  a[0] = 0.5;
  if (n === 0) a.length = 0;
  return a;
}
/** An array of pointers to numbers (generic elements from its first write, made here): a number stored in it is
 * a small integer or a heap number kept as it is, so that one heap number can stand for every value equal to
 * it (a float dictionary's entries: see `boxed`). Given only numbers after that first write. */
export function tagged(n: number): number[] {
  const a = new Array<number>(n > 0 ? n : 1);
  (a as unknown[])[0] = null;
  if (n === 0) a.length = 0;
  return a;
}
/** The first d numbers of xs in a `tagged` array: each boxed once here (a heap number, or a small integer where
 * it is one), to be shared by every value that is this entry (copied as a pointer, no box of its own). */
export function boxed(xs: number[], d: number): number[] {
  const e = tagged(d);
  for (let i = 0; i < d; i++) e[i] = xs[i]!;
  return e;
}
/** The first k values of a `smallInts` array in a `doubles(n)` one (n 0: k values long, to push to). */
export function toDoubles(a: number[], k: number, n: number): number[] {
  const d = doubles(n);
  if (n > 0) for (let i = 0; i < k; i++) d[i] = a[i]!;
  else for (let i = 0; i < k; i++) d.push(a[i]!);
  return d;
}
/** A scratch copy of b[p, p + len) followed by at least 4 zero bytes (reused: valid until the next call). */
let scratch = new Uint8Array(256);
/** A view of all of `scratch`, made again only when scratch is (not a DataView per padded read: a message whose last
 * column is bit-packed reads one on every decode). */
let scratchView = new DataView(scratch.buffer);
export function padCopy(b: Uint8Array, p: number, len: number): Uint8Array {
  if (scratch.length < len + 4) { scratch = new Uint8Array(Math.max(len + 4, 2 * scratch.length)); scratchView = new DataView(scratch.buffer); }
  scratch.set(b.subarray(p, p + len));
  scratch.fill(0, len, len + 4);
  return scratch;
}
/** padCopy's copy as a DataView, its bytes from 0 (valid until the next call of either). */
export function padView(b: Uint8Array, p: number, len: number): DataView {
  padCopy(b, p, len);
  return scratchView;
}
/** The k (1..24) bits of s from bit `bit` after byte p, the first the lowest (a 32-bit load: s has 4 bytes
 * after the bits read). */
export function bitsAt(s: DataView, p: number, bit: number, k: number): number {
  return (s.getUint32(p + (bit >>> 3), true) >>> (bit & 7)) & ((1 << k) - 1);
}
/** As bitsAt for k up to 32: 16 bits, then the rest above them (decodeXor's order). */
export function bits32(s: DataView, p: number, bit: number, k: number): number {
  return k <= 24 ? bitsAt(s, p, bit, k) : bitsAt(s, p, bit, 16) + bitsAt(s, p, bit + 16, k - 16) * 65536;
}
/** A float's bits as two 32-bit words, low first (on a little-endian machine: LITTLE says it is one). */
export const F64 = new Float64Array(1), F32 = new Float32Array(F64.buffer, 0, 1), WORDS = new Uint32Array(F64.buffer);
export const LITTLE = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
// Decimal columns (SPEC 22.2: a float column of integers k, each value k / 10^e): the bits of each value found
// by its bit position, the low (at most 24) bits, then the rest, each from a little-endian 32-bit load at its
// byte (a shift of at most 7 leaves 25 bits); `s` has 4 bytes after the bits. No carried bit accumulator: each
// value's loads are independent of the one before. The zigzag mapping is undone with its parity found in
// integers (the low bits of the base and of the loaded bits), not a floating-point floor per value. The
// division stays: k / 10^e rounded once is the value (a product by 10^-e is not always the same float).
/** n values unzigzag(base + width bits) / scale into out[0..n); width 1..44, base + 2^width <= 2^53. With base = 2B + bb
 * (bb its parity) and y = bb + the value's bits, the zigzag value is 2B + y: its parity is y's, found from the low
 * part in integers, and unzigzag gives B + (y >> 1) when even, -B - (y >> 1) - 1 when odd (exact: below 2^53). */
export function decimalsFor(s: DataView, p0: number, out: number[], n: number, width: number, base: number, scale: number): void {
  const bb = base % 2, B = (base - bb) * 0.5;
  if (width <= 24) {
    const mask = (1 << width) - 1;
    for (let i = 0, bp = 0; i < n; i++, bp += width) {
      const y = ((s.getUint32(p0 + (bp >>> 3), true) >>> (bp & 7)) & mask) + bb, k = y >>> 1;
      out[i] = ((y & 1) === 0 ? B + k : -B - k - 1) / scale;
    }
    return;
  }
  // Wider: the low 24 bits and the rest, each from a 32-bit load at its byte (the rest's is 3 bytes on, at the same
  // shift); y >> 1 is the low part's half plus the rest times 2^23 (the rest is a multiple of 2^24: even).
  const hmask = (1 << (width - 24)) - 1;
  for (let i = 0, bp = 0; i < n; i++, bp += width) {
    const q = p0 + (bp >>> 3), sh = bp & 7;
    const y = ((s.getUint32(q, true) >>> sh) & 0xffffff) + bb;
    const k = (y >>> 1) + ((s.getUint32(q + 3, true) >>> sh) & hmask) * 8388608;
    out[i] = ((y & 1) === 0 ? B + k : -B - k - 1) / scale;
  }
}
/** decimalsFor where every zigzag value fits in 31 bits (width at most 24, base + 2^width at most 2^31): the
 * mapping undone with integer operations. Chosen by the caller (NumberColumns.scaledDecimals), not by decimalsFor:
 * with this loop in decimalsFor, or called from it, sp500's 29-bit decimal columns measured slower (BENCHMARKS.md,
 * issue 23's decode subsections). */
export function decimalsForSmall(s: DataView, p0: number, out: number[], n: number, width: number, base: number, scale: number): void {
  const mask = (1 << width) - 1;
  for (let i = 0, bp = 0; i < n; i++, bp += width) {
    const z = base + ((s.getUint32(p0 + (bp >>> 3), true) >>> (bp & 7)) & mask);
    out[i] = ((z >>> 1) ^ -(z & 1)) / scale;
  }
}
/** n delta-coded values (the first the zigzag value v, then n - 1 zigzag steps base + width bits) undone and
 * divided by scale into out[0..n); false when a sum leaves [0, 2^53) (the bigint reader then decides, as ints
 * does). width 1..44, base + 2^width <= 2^53. */
export function decimalsDelta(s: DataView, p0: number, out: number[], n: number, width: number, base: number, v: number, scale: number): boolean {
  const lw = width < 24 ? width : 24, hw = width - lw, lmask = (1 << lw) - 1, hmask = (1 << hw) - 1;
  const b3 = base % 4;
  let vodd = v % 2;
  out[0] = (vodd === 0 ? v * 0.5 : -(v - 1) * 0.5 - 1) / scale;
  let bp = 0;
  for (let i = 1; i < n; i++) {
    let q = p0 + (bp >>> 3), sh = bp & 7;
    const lo = (s.getUint32(q, true) >>> sh) & lmask;
    let z = base + lo;
    if (hw > 0) {
      const hp = bp + 24;
      q = p0 + (hp >>> 3); sh = hp & 7;
      z += ((s.getUint32(q, true) >>> sh) & hmask) * 16777216;
    }
    bp += width;
    // The step d = unzigzag(z) and its parity from z's two low bits (z mod 4 is base's plus lo's, mod 4):
    // z = 4m + r gives d = 2m (r 0), -2m - 1 (r 1), 2m + 1 (r 2), -2m - 2 (r 3): odd for r 1 and 2.
    const r = (b3 + lo) & 3, zodd = r & 1, h = (z - zodd) * 0.5;
    v += zodd === 0 ? h : -h - 1;
    if (!(v >= 0 && v <= MAX_SAFE)) return false;
    vodd ^= (r ^ (r >>> 1)) & 1;
    const hv = (v - vodd) * 0.5;
    out[i] = (vodd === 0 ? hv : -hv - 1) / scale;
  }
  return true;
}
/** decimalsDelta where every step fits in 31 bits and every sum stays under 2^31 (v plus n - 1 of the largest step;
 * above -2^31 the same way; the caller checks this): the sums and the zigzag mapping in 32-bit integers. */
export function decimalsDeltaSmall(s: DataView, p0: number, out: number[], n: number, width: number, base: number, v: number, scale: number): boolean {
  const mask = (1 << width) - 1;
  let x = v | 0;
  out[0] = ((x >>> 1) ^ -(x & 1)) / scale;
  for (let i = 1, bp = 0; i < n; i++, bp += width) {
    const z = base + ((s.getUint32(p0 + (bp >>> 3), true) >>> (bp & 7)) & mask);
    x = (x + ((z >>> 1) ^ -(z & 1))) | 0;
    if (x < 0) return false;
    out[i] = ((x >>> 1) ^ -(x & 1)) / scale;
  }
  return true;
}
/** Writes n values base + (width bits each, LSB first from byte p0 of s, which has 4 bytes after them) to
 * out[at...] (from out.length on when width is 0); width 0..44 (exact in a double). `smi`: every value is
 * below 2^30 (out is a `smallInts`). Each value's bits found by its bit position: the low (at most 24) bits,
 * then the rest, each from a little-endian 32-bit load at its byte (a shift of at most 7 leaves 25 bits). */
export function unpack(s: DataView, p0: number, out: number[], at: number, n: number, width: number, base: number, smi: boolean): void {
  if (width === 0) {
    if (smi) for (let i = 0; i < n; i++) out.push(base | 0);
    else for (let i = 0; i < n; i++) out.push(base);
    return;
  }
  if (width <= 24) {
    const mask = (1 << width) - 1;
    let bp = 0;
    for (let i = 0; i < n; i++, bp += width) {
      const x = (s.getUint32(p0 + (bp >>> 3), true) >>> (bp & 7)) & mask;
      // Two stores, each seeing one kind of array.
      if (smi) out[at + i] = (base + x) | 0;
      else out[at + i] = base + x;
    }
    return;
  }
  const hw = width - 24, hmask = (1 << hw) - 1;
  let bp = 0;
  for (let i = 0; i < n; i++, bp += width) {
    const lo = (s.getUint32(p0 + (bp >>> 3), true) >>> (bp & 7)) & 0xffffff, hp = bp + 24;
    const x = lo + ((s.getUint32(p0 + (hp >>> 3), true) >>> (hp & 7)) & hmask) * 16777216;
    if (smi) out[at + i] = (base + x) | 0;
    else out[at + i] = base + x;
  }
}
/** As unpack for a `smallInts` out (base + 2^width at most 2^30) of n > 0 values of width 1..24, each a zigzag
 * value whose mapping is undone as it is stored (a signed column's values: in integers, so each stays a small
 * integer), from out[0]. */
export function unpackZigzag(s: DataView, p0: number, out: number[], n: number, width: number, base: number): void {
  const mask = (1 << width) - 1;
  let bp = 0;
  for (let i = 0; i < n; i++, bp += width) {
    const z = base + ((s.getUint32(p0 + (bp >>> 3), true) >>> (bp & 7)) & mask);
    out[i] = (z >>> 1) ^ -(z & 1);
  }
}
/** Delta-coded values (SPEC 22.2: the first v, then n - 1 steps, each the zigzag value base + width bits from
 * byte p0 of s, as unpack reads them; width 1..44) into out[0..n): false when a sum leaves [0, lim] (it wraps
 * in 128 bits or passes the type: the bigint reader decides). Unpacks, sums and checks in one pass. `smi` as
 * for unpack. */
export function undelta(s: DataView, p0: number, out: number[], n: number, width: number, base: number, v: number, lim: number, smi: boolean): boolean {
  if (smi) out[0] = v | 0;
  else out[0] = v;
  if (width <= 24 && base + POW2[width]! <= 2 ** 31) {
    // Every zigzag step fits in 31 bits: undone with integer operations.
    const mask = (1 << width) - 1;
    let bp = 0;
    if (smi) {
      // `smi`: every sum is below 2^30 (the caller's bound: v plus n - 1 of the largest step) and above -2^30 (n - 1
      // of the largest step down), so the sums are exact in 32-bit integers: no floating-point add and compare.
      const l = lim < SMI ? lim | 0 : SMI - 1;
      let x = v | 0;
      for (let i = 1; i < n; i++, bp += width) {
        const z = base + ((s.getUint32(p0 + (bp >>> 3), true) >>> (bp & 7)) & mask);
        x = (x + ((z >>> 1) ^ -(z & 1))) | 0;
        if (x < 0 || x > l) return false;
        out[i] = x;
      }
      return true;
    }
    for (let i = 1; i < n; i++, bp += width) {
      const z = base + ((s.getUint32(p0 + (bp >>> 3), true) >>> (bp & 7)) & mask);
      v += (z >>> 1) ^ -(z & 1);
      if (!(v >= 0 && v <= lim)) return false;
      if (smi) out[i] = v | 0;
      else out[i] = v;
    }
    return true;
  }
  const lw = width < 24 ? width : 24, hw = width - lw, lmask = (1 << lw) - 1, hmask = (1 << hw) - 1;
  let bp = 0;
  for (let i = 1; i < n; i++, bp += width) {
    let z = base + ((s.getUint32(p0 + (bp >>> 3), true) >>> (bp & 7)) & lmask);
    if (hw > 0) { const hp = bp + 24; z += ((s.getUint32(p0 + (hp >>> 3), true) >>> (hp & 7)) & hmask) * 16777216; }
    v += unzigzagNum(z);
    if (!(v >= 0 && v <= lim)) return false;
    if (smi) out[i] = v | 0;
    else out[i] = v;
  }
  return true;
}
