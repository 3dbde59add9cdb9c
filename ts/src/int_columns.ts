// The writer of integer columns (SPEC 22.2): the four plain encodings of unsigned integers (varint, frame of
// reference, delta, run-length), sized in one pass and the smallest written, as the Rust writer chooses. Numbers
// below 2^51 take the number path (no BigInt per value); larger ones, bigints. Shared by the column writers of
// columnar.ts and string_columns.ts.
import { Writer, zigzag } from "./varint.js";

export function putVar(out: number[], x: bigint | number): void {
  let v = BigInt(x);
  while (v >= 128n) { out.push(Number(v & 127n) | 128); v >>= 7n; }
  out.push(Number(v));
}
function pack(out: number[], values: bigint[], width: number): void {
  if (width === 0) return;
  let acc = 0n, filled = 0n;
  const w = BigInt(width);
  for (const v of values) {
    acc |= v << filled;
    filled += w;
    while (filled >= 8n) { out.push(Number(acc & 255n)); acc >>= 8n; filled -= 8n; }
  }
  if (filled > 0n) out.push(Number(acc & 255n));
}
// Number versions of the integer encodings, for values below 2^51 (so that zigzag-mapped differences stay
// exact in a double): the same bytes as the bigint ones, sized first, only the winner written.
const TWO51 = 2 ** 51;
export const varLen = (x: number): number => {
  if (x < 128) return 1;
  if (x < 16384) return 2;
  if (x < 2097152) return 3;
  if (x < 268435456) return 4;
  let n = 5;
  for (x = Math.floor(x / 34359738368); x >= 1; x = Math.floor(x / 128)) n++;
  return n;
};
function putVarN(out: number[], x: number): void {
  // Above 2^31 by division (no floating-point remainder, which V8 calls out for); below it by bit operations.
  while (x > 0x7fffffff) { const h = Math.floor(x / 128); out.push((x - h * 128) | 128); x = h; }
  while (x >= 128) { out.push((x & 127) | 128); x >>>= 7; }
  out.push(x);
}
/** The bit length of a non-negative integer below 2^64 given as a number. */
export const bitsN = (x: number) => (x < 4294967296 ? 32 - Math.clz32(x) : 64 - Math.clz32(Math.floor(x / 4294967296)));
/** Appends (v - base) in `width` bits each, least significant bit first. */
function packN(out: number[], values: number[], width: number, base: number): void {
  if (width === 0) return;
  let acc = 0, filled = 0;
  for (let i = 0; i < values.length; i++) {
    let v = values[i]! - base, w = width;
    while (w > 0) {
      const take = w < 24 ? w : 24;
      const hi = take === w ? 0 : Math.floor(v / 16777216);
      const chunk = v - hi * 16777216;
      v = hi;
      acc |= chunk << filled;
      filled += take;
      w -= take;
      while (filled >= 8) { out.push(acc & 255); acc >>>= 8; filled -= 8; }
    }
  }
  if (filled > 0) out.push(acc & 255);
}
/** What measureN found: the smallest encoding (0 varint, 1 frame of reference, 2 delta, 3 run-length), its
 * size in bytes with the tag, and the parameters writeN needs (module state: no allocation per column). */
let mBest = 0, mSize = 0, mMin = 0, mWidth = 0, mZmin = 0, mZwidth = 0;
function measureN(values: number[]): void {
  const n = values.length;
  // One pass for the four sizes: varint, frame of reference (min, max), delta (the zigzag differences' min
  // and max), run-length (runs and their values); in 32-bit integers while the values stay below 2^30 (the
  // usual ones: Math.min/max and the sign as a number on doubles took twice the instructions), else on doubles.
  if (n === 0 || !measureInt(values)) measureWide(values);
  settle(values);
}
/** measureN's sizes and choice from what a measuring pass left in the module state (sVsize...), for `values`. */
function settle(values: readonly number[]): void {
  settleN(values.length, values.length > 1 ? values[0]! : 0);
}
/** settle() for n values whose first is `first` (read only when n > 1). */
function settleN(n: number, first: number): void {
  const min = sMin, max = sMax;
  let zmin = sZmin, zmax = sZmax;
  const rsize = n > 0 ? sRsize + varLen(sRun) + varLen(sPrev) : 1, vsize = sVsize;
  if (n < 2) { zmin = 0; zmax = 0; }
  const width = bitsN(max - min);
  const fsize = 1 + varLen(min) + 1 + Math.ceil((n * width) / 8);
  const zwidth = bitsN(zmax - zmin);
  const dsize = n > 1 ? 1 + varLen(first) + varLen(zmin) + 1 + Math.ceil(((n - 1) * zwidth) / 8) : Infinity;
  let best = 0, size = vsize;
  if (fsize < size) { best = 1; size = fsize; }
  if (dsize < size) { best = 2; size = dsize; }
  if (rsize < size) { best = 3; size = rsize; }
  mBest = best; mSize = size; mMin = min; mWidth = width; mZmin = zmin; mZwidth = zwidth;
}
/** What a measuring pass found (module state, as measureN's results): the varint size, min and max, the zigzag
 * differences' min and max, the run-length size without the last run, that run's length and value. */
let sVsize = 0, sMin = 0, sMax = 0, sZmin = 0, sZmax = 0, sRsize = 0, sRun = 0, sPrev = 0;
/** measureN's pass for values below 2^30 (their differences' zigzag forms fit in 32 bits); false, with nothing
 * set, at the first value that does not fit. n > 0. */
function measureInt(values: number[]): boolean {
  const n = values.length, x0 = values[0]!;
  if (!(x0 < 1073741824)) return false;
  let min = x0 | 0, max = min, prev = min, zmin = 0x7fffffff, zmax = 0, rsize = 1, run = 1;
  let vsize = 1 + (prev < 128 ? 1 : prev < 16384 ? 2 : prev < 2097152 ? 3 : prev < 268435456 ? 4 : 5);
  for (let i = 1; i < n; i++) {
    const x = values[i]!;
    if (!(x < 1073741824)) return false;
    const v = x | 0;
    vsize += v < 128 ? 1 : v < 16384 ? 2 : v < 2097152 ? 3 : v < 268435456 ? 4 : 5;
    if (v < min) min = v;
    if (v > max) max = v;
    const d = (v - prev) | 0;
    const z = (d << 1) ^ (d >> 31);
    if (z < zmin) zmin = z;
    if (z > zmax) zmax = z;
    if (d === 0) run++;
    else { rsize += (run < 128 ? 1 : varLen(run)) + (prev < 128 ? 1 : prev < 16384 ? 2 : prev < 2097152 ? 3 : prev < 268435456 ? 4 : 5); run = 1; }
    prev = v;
  }
  sVsize = vsize; sMin = min; sMax = max; sZmin = zmin; sZmax = zmax; sRsize = rsize; sRun = run; sPrev = prev;
  return true;
}
/** measureN's pass on doubles, for any values in [0, 2^51). */
function measureWide(values: number[]): void {
  const n = values.length;
  let vsize = 1, min = n ? values[0]! : 0, max = min, zmin = Infinity, zmax = -Infinity, rsize = 1, run = n ? 1 : 0;
  let prev = min;
  if (n > 0) vsize += prev < 128 ? 1 : prev < 16384 ? 2 : prev < 2097152 ? 3 : varLen(prev);
  for (let i = 1; i < n; i++) {
    const v = values[i]!;
    vsize += v < 128 ? 1 : v < 16384 ? 2 : v < 2097152 ? 3 : varLen(v);
    if (v < min) min = v;
    if (v > max) max = v;
    const d = v - prev;
    const z = d >= 0 ? 2 * d : -2 * d - 1;
    if (z < zmin) zmin = z;
    if (z > zmax) zmax = z;
    if (d === 0) run++;
    else { rsize += (run < 128 ? 1 : varLen(run)) + (prev < 128 ? 1 : varLen(prev)); run = 1; }
    prev = v;
  }
  sVsize = vsize; sMin = min; sMax = max; sZmin = zmin; sZmax = zmax; sRsize = rsize; sRun = run; sPrev = prev;
}
function encodeIntsN(values: number[]): number[] {
  measureN(values);
  const n = values.length, best = mBest, min = mMin, width = mWidth, zmin = mZmin, zwidth = mZwidth;
  const out: number[] = [best];
  switch (best) {
    case 0: for (let i = 0; i < n; i++) putVarN(out, values[i]!); break;
    case 1: putVarN(out, min); out.push(width); packN(out, values, width, min); break;
    case 2: {
      const zs: number[] = [];
      for (let i = 1; i < n; i++) { const d = values[i]! - values[i - 1]!; zs.push(d >= 0 ? 2 * d : -2 * d - 1); }
      putVarN(out, values[0]!); putVarN(out, zmin); out.push(zwidth); packN(out, zs, zwidth, zmin);
      break;
    }
    default:
      for (let i = 0; i < n;) {
        let j = i;
        while (j < n && values[j] === values[i]) j++;
        putVarN(out, j - i);
        putVarN(out, values[i]!);
        i = j;
      }
  }
  return out;
}
/** What putIntsColumn needs to write small numbers (measureN's results, kept by a caller that sizes several
 * columns before it writes one). */
export interface Measured { values: readonly number[]; best: number; size: number; min: number; width: number; zmin: number; zwidth: number }
/** measure() of a column of 0s and 1s (presence and option tags), by counting: its runs and its changes up and
 * down give the four sizes measureN finds, in one pass with no minimum or maximum to track. */
export function measureFlags(values: readonly number[]): Measured {
  const n = values.length;
  let ones = 0, ups = 0, downs = 0, rsize = 1, run = 0, prev = -1;
  for (let i = 0; i < n; i++) {
    const b = values[i]!;
    ones += b;
    if (b === prev) { run++; continue; }
    if (prev >= 0) { rsize += (run < 128 ? 1 : varLen(run)) + 1; if (b) ups++; else downs++; }
    run = 1; prev = b;
  }
  if (n > 0) rsize += varLen(run) + 1;
  const min = n > 0 && ones === n ? 1 : 0, max = ones > 0 ? 1 : 0, width = max - min;
  const fsize = 3 + Math.ceil((n * width) / 8);
  let zmin = 0, zmax = 0, dsize = Infinity;
  if (n > 1) {
    // The differences' zigzag forms: 0 for none, 2 for up, 1 for down.
    zmin = n - 1 - ups - downs > 0 ? 0 : downs > 0 ? 1 : 2;
    zmax = ups > 0 ? 2 : downs > 0 ? 1 : 0;
    dsize = 4 + Math.ceil(((n - 1) * bitsN(zmax - zmin)) / 8);
  }
  let best = 0, size = 1 + n;
  if (fsize < size) { best = 1; size = fsize; }
  if (dsize < size) { best = 2; size = dsize; }
  if (rsize < size) { best = 3; size = rsize; }
  return { values, best, size, min, width, zmin, zwidth: bitsN(zmax - zmin) };
}
/** measure() of values known to be numbers in [0, 2^51) (lengths, indices, zigzag integers below 2^50): no
 * pass to check them first. */
export function measureSmall(values: readonly number[]): Measured {
  measureN(values as number[]);
  return { values, best: mBest, size: mSize, min: mMin, width: mWidth, zmin: mZmin, zwidth: mZwidth };
}
/** measure() of n >= 1 values that are all `x` (a number in [0, 2^51), the caller knows it: a dictionary's ids when
 * it has one entry, lengths when all its entries have one length): what measureN's pass would find, with no pass. */
export function measureConst(values: readonly number[], x: number): Measured {
  const n = values.length;
  if (n === 0) return measureSmall(values);
  sVsize = 1 + n * varLen(x); sMin = x; sMax = x; sZmin = 0; sZmax = 0; sRsize = 1; sRun = n; sPrev = x;
  settle(values);
  return { values, best: mBest, size: mSize, min: mMin, width: mWidth, zmin: mZmin, zwidth: mZwidth };
}
/** measure() of n >= 2 values below 2^30 (`values`, which may be filled only later: read when written) from what
 * measureInt's pass over them would leave (a caller's own pass that measures several columns at once): their first
 * value, the varint size, least and greatest, their differences' zigzag forms' least and greatest, the run-length
 * size without the last run, that run's length and value. */
export function measureFrom(values: readonly number[], n: number, first: number, vsize: number, min: number, max: number, zmin: number,
  zmax: number, rsize: number, run: number, prev: number): Measured {
  sVsize = vsize; sMin = min; sMax = max; sZmin = zmin; sZmax = zmax; sRsize = rsize; sRun = run; sPrev = prev;
  settleN(n, first);
  return { values, best: mBest, size: mSize, min: mMin, width: mWidth, zmin: mZmin, zwidth: mZwidth };
}
/** The size of encodeInts(values) with what writing it needs, or null when they are not all small numbers. */
export function measure(values: readonly (bigint | number)[]): Measured | null {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (typeof v !== "number" || !(v >= 0 && v < TWO51)) return null;
  }
  measureN(values as number[]);
  return { values: values as number[], best: mBest, size: mSize, min: mMin, width: mWidth, zmin: mZmin, zwidth: mZwidth };
}
/** The length of encodeInts(values), without writing it when the values are small numbers. */
export function intsSize(values: readonly (bigint | number)[]): number {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (typeof v !== "number" || !(v >= 0 && v < TWO51)) return encodeInts(values).length;
  }
  measureN(values as number[]);
  return mSize;
}
/** The smallest encoding of unsigned values, as the Rust writer picks it. */
export function encodeInts(values: readonly (bigint | number)[]): number[] {
  let small = true;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (typeof v !== "number" || !(v >= 0 && v < TWO51)) { small = false; break; }
  }
  if (small) return encodeIntsN(values as number[]);
  return encodeIntsBig(values.map((v) => BigInt(v)));
}
/** The bit length of a non-negative bigint (0 for 0): by 32-bit words below 2^64, no string. */
function bitLen(x: bigint): number {
  if (x < 4294967296n) return 32 - Math.clz32(Number(x));
  if (x < 18446744073709551616n) return 64 - Math.clz32(Number(x >> 32n));
  return x.toString(2).length;
}
/** The varint length of a non-negative bigint. */
const varLenBig = (x: bigint): number => (x < 128n ? 1 : Math.ceil(bitLen(x) / 7));
/** The smallest encoding of unsigned bigints, as encodeIntsN picks it (the first of the smallest: varint, frame
 * of reference, delta, run-length): the four sizes from one pass (no array built, no string per value), then
 * only the winner written. */
function encodeIntsBig(values: bigint[]): number[] {
  const n = values.length;
  let vsize = 1, rsize = 1;
  let min = n ? values[0]! : 0n, max = min, zmin = 0n, zmax = 0n, run = n ? 1 : 0;
  if (n > 0) vsize += varLenBig(min);
  let prev = min;
  for (let i = 1; i < n; i++) {
    const v = values[i]!;
    vsize += varLenBig(v);
    if (v < min) min = v;
    if (v > max) max = v;
    const z = zigzag(BigInt.asIntN(128, v - prev), 128);
    if (i === 1 || z < zmin) zmin = z;
    if (i === 1 || z > zmax) zmax = z;
    if (v === prev) run++;
    else { rsize += varLenBig(BigInt(run)) + varLenBig(prev); run = 1; }
    prev = v;
  }
  if (n > 0) rsize += varLenBig(BigInt(run)) + varLenBig(prev);
  const width = bitLen(max - min), zwidth = bitLen(zmax - zmin);
  const fsize = 1 + varLenBig(min) + 1 + Math.ceil((n * width) / 8);
  const dsize = n > 1 ? 1 + varLenBig(values[0]!) + varLenBig(zmin) + 1 + Math.ceil(((n - 1) * zwidth) / 8) : Infinity;
  let best = 0, size = vsize;
  if (fsize < size) { best = 1; size = fsize; }
  if (dsize < size) { best = 2; size = dsize; }
  if (rsize < size) { best = 3; size = rsize; }
  const out = [best];
  switch (best) {
    case 0: for (const v of values) putVar(out, v); break;
    case 1: putVar(out, min); out.push(width); pack(out, values.map((v) => v - min), width); break;
    case 2: {
      putVar(out, values[0]!); putVar(out, zmin); out.push(zwidth);
      const zs: bigint[] = [];
      for (let i = 1; i < n; i++) zs.push(zigzag(BigInt.asIntN(128, values[i]! - values[i - 1]!), 128) - zmin);
      pack(out, zs, zwidth);
      break;
    }
    default:
      for (let i = 0; i < n;) {
        let j = i;
        while (j < n && values[j] === values[i]) j++;
        putVar(out, j - i);
        putVar(out, values[i]!);
        i = j;
      }
  }
  if (out.length !== size) throw new Error(`integer column sized ${size} but ${out.length} written`); // a bug, never input
  return out;
}

/** Whether a dictionary of a column of n values gives up when value i (from 0) is new, with index `id` among
 * the distinct values: the Rust writer's test (columnar::mostly_distinct), that more than 3,072 of a long
 * column's (over 8,192 values) first 4,096 are distinct; the limit of n / 2 + 16 is the caller's. */
export const mostlyDistinct = (i: number, id: number, n: number): boolean => n > 8192 && i < 4096 && id >= 3072;

/** An array for n numbers (or values) filled by index: sized once for up to 65,536 (not grown and copied as it
 * fills: flights-20k's encode 0.90 and 0.86 of the time against 4,096 in the two load orders, BENCHMARKS.md, tsenc12,
 * where tsenc5 had measured growing faster at 20,000); a longer one grows as it is filled. */
export const sizedArray = <T = number>(n: number): T[] => (n <= 65536 ? new Array<T>(n) : []);

/** The roles of scratchArray's kept arrays: the string writer's per-value numbers (string_columns.ts), a decimal
 * float column's zigzag integers (its values', and its dictionary's distinct values'), a float dictionary's ids,
 * an integer column's zigzag forms and an option's presence tags (fast_encode.ts). Each is used by one column at a
 * time and is done with before another column takes it. */
export const S_IDS = 0, S_VIEW_START = 1, S_VIEW_LEN = 2, S_VALUE_START = 3, S_VALUE_LEN = 4, S_SHARED = 5, S_REST = 6;
export const S_DEC_ZZ = 7, S_DEC_INNER_ZZ = 8, S_FLOAT_IDS = 9, S_INT_ZS = 10, S_TAGS = 11;
/** Writers' arrays of numbers per value, kept across columns and calls, one per role: a caller takes one only for
 * numbers it fills by index and drops before the role is taken again, and never hands it out. An array of more than
 * about 16,000 numbers is a large object to V8, on pages of its own mapped and faulted in at each allocation, which
 * costs more than filling it (BENCHMARKS.md, tsenc14). A kept array is reused at length n while n is at least half
 * the length it was made with (V8 then keeps its store rather than trimming it); from 4,096 to 65,536 values
 * (sizedArray's bound), else a new one each time. */
const POOL: number[][] = [], POOL_SIZE: number[] = [];
let keep = true;
/** Whether scratchArray keeps its arrays (for tests: false gives a new array each time, the path to compare with).
 * Not part of the package's interface. */
export function setScratchKept(on: boolean): void { keep = on; POOL.length = 0; POOL_SIZE.length = 0; }
export function scratchArray(role: number, n: number): number[] {
  if (n < 4096 || n > 65536 || !keep) return sizedArray(n);
  const a = POOL[role], size = POOL_SIZE[role] ?? 0;
  if (a !== undefined && n <= size && 2 * n >= size) { a.length = n; return a; }
  const b = new Array<number>(n);
  POOL[role] = b; POOL_SIZE[role] = n;
  return b;
}

export function putColumn(out: Writer, body: number[]): void {
  out.uvar(body.length);
  out.bytes(Uint8Array.from(body));
}
/** A column of unsigned integers (length and payload), as `putColumn(out, encodeInts(values))` writes it: small
 * numbers are sized by measureN and written straight into the writer's buffer (no intermediate array).
 * `prefixed` false: the payload alone (a dictionary's indices, which end their column). */
export function putIntsColumn(out: Writer, values: readonly (bigint | number)[], prefixed = true, m?: Measured | null): void {
  if (m && m.values === values) { putMeasured(out, m, prefixed); return; }
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (typeof v !== "number" || !(v >= 0 && v < TWO51)) {
      const body = encodeInts(values);
      if (prefixed) putColumn(out, body); else out.bytes(Uint8Array.from(body));
      return;
    }
  }
  measureN(values as number[]);
  putMeasured(out, { values: values as number[], best: mBest, size: mSize, min: mMin, width: mWidth, zmin: mZmin, zwidth: mZwidth }, prefixed);
}
/** putIntsColumn(out, values) for values the caller has checked to be numbers in [0, 2^51) (the integer column
 * writer's, which checks each as it zigzags it): no pass to check them again. */
export function putSmallInts(out: Writer, values: readonly number[]): void {
  measureN(values as number[]);
  putMeasured(out, { values, best: mBest, size: mSize, min: mMin, width: mWidth, zmin: mZmin, zwidth: mZwidth }, true);
}
/** Writes x (a non-negative integer below 2^53) as a varint into b at p; returns the position after it. Above
 * 2^31 by division (no floating-point remainder, which V8 calls out for); below it by bit operations. */
function varInto(b: Uint8Array, p: number, x: number): number {
  while (x > 0x7fffffff) { const h = Math.floor(x / 128); b[p++] = (x - h * 128) | 128; x = h; }
  while (x >= 128) { b[p++] = (x & 127) | 128; x >>>= 7; }
  b[p++] = x;
  return p;
}
/** Writes, `w` bits each, least significant bit first, (x - base) for the values xs[from..n), or with `delta`
 * (zigzag(xs[i] - xs[i - 1]) - base) for them, into b at p; returns the position after them. Widths up to 24 bits
 * in one shift a value (no call, no split); wider ones in 24-bit pieces. */
function packInto(b: Uint8Array, p: number, xs: readonly number[], from: number, n: number, w: number, base: number, delta: boolean): number {
  if (w === 0) return p;
  let acc = 0, filled = 0;
  // (The value before, for the differences, carried: one load a value.)
  let prev = delta ? xs[from - 1]! : 0;
  if (w <= 24) {
    for (let i = from; i < n; i++) {
      let v: number;
      const x = xs[i]!;
      if (delta) { const d = x - prev; prev = x; v = (d >= 0 ? 2 * d : -2 * d - 1) - base; } else v = x - base;
      acc |= v << filled;
      filled += w;
      while (filled >= 8) { b[p++] = acc & 255; acc >>>= 8; filled -= 8; }
    }
  } else {
    for (let i = from; i < n; i++) {
      let v: number, k = w;
      const x = xs[i]!;
      if (delta) { const d = x - prev; prev = x; v = (d >= 0 ? 2 * d : -2 * d - 1) - base; } else v = x - base;
      while (k > 0) {
        const take = k < 24 ? k : 24;
        const hi = take === k ? 0 : Math.floor(v / 16777216);
        const chunk = v - hi * 16777216;
        v = hi;
        acc |= chunk << filled;
        filled += take;
        k -= take;
        while (filled >= 8) { b[p++] = acc & 255; acc >>>= 8; filled -= 8; }
      }
    }
  }
  if (filled > 0) b[p++] = acc & 255;
  return p;
}
function putMeasured(out: Writer, m: Measured, prefixed: boolean): void {
  const xs = m.values, n = xs.length, size = m.size, best = m.best, min = m.min, width = m.width, zmin = m.zmin, zwidth = m.zwidth;
  if (prefixed) out.uvar(size);
  out.ensure(size + 8);
  const b = out.buf;
  let p = out.len;
  const start = p;
  b[p++] = best;
  switch (best) {
    case 0: for (let i = 0; i < n; i++) p = varInto(b, p, xs[i]!); break;
    case 1: p = varInto(b, p, min); b[p++] = width; p = packInto(b, p, xs, 0, n, width, min, false); break;
    case 2: p = varInto(b, p, xs[0]!); p = varInto(b, p, zmin); b[p++] = zwidth; p = packInto(b, p, xs, 1, n, zwidth, zmin, true); break;
    default:
      for (let i = 0; i < n;) {
        let j = i;
        while (j < n && xs[j] === xs[i]) j++;
        p = varInto(b, p, j - i);
        p = varInto(b, p, xs[i]!);
        i = j;
      }
  }
  if (p - start !== size) throw new Error(`integer column sized ${size} but ${p - start} written`); // a bug, never input
  out.len = p;
}
