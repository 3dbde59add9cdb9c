// The writer of float columns (SPEC 22.2): plain (0x10), decimal (0x11), dictionary (0x12) and XOR (0x13), as
// the Rust writer chooses among them. Each candidate is sized first (the decimal one from its integers'
// measures, XOR by counting its bits, the dictionary from its parts) and only the smallest is written, straight
// into the Writer; a lossy float tolerance (SPEC 22.5.1) rounds the values first. Shared by the column writers
// of columnar.ts and fast_encode.ts.
import type { Float } from "./nan.js";
import { Writer, zigzag } from "./varint.js";
import {
  Measured, S_DEC_INNER_ZZ, S_DEC_ZZ, S_FLOAT_IDS, bitsN, encodeInts, measureConst, measureSmall, mostlyDistinct, putIntsColumn, putVar, scratchArray, sizedArray,
  varLen,
} from "./int_columns.js";

/** A float column's values. */
type Floats = ArrayLike<Float>;
const scratchF = new Float64Array(1), scratchF32 = new Float32Array(scratchF.buffer, 0, 1);
const scratchB = new Uint8Array(scratchF.buffer), scratchU = new Uint32Array(scratchF.buffer), scratchBig = new BigUint64Array(scratchF.buffer);
const f64Bits = (x: number) => { scratchF[0] = x; return scratchBig[0]!; };
const f32Round = Math.fround;
/** 10^e for the exponents a decimal column may have, computed as `10 ** e` at run time (the same doubles the
 * expression gives inline, and as columnar.ts's reader divides by). */
const P10: number[] = [];
for (let e = 0; e <= 18; e++) P10.push(10 ** e);
/** n ÷ 10^e, as the reader gives it back. */
function fromDecimalN(n: number, e: number, f32: boolean): number {
  const x = n / P10[e]!;
  return f32 ? f32Round(x) : x;
}
/** v × 10^e rounded half away from zero, when it is a safe integer within the decimal encoding's range. */
function scaled(v: number, e: number, f32: boolean): number | undefined {
  const x = v * P10[e]!;
  const a = Math.round(x < 0 ? -x : x);
  if (!(a < (f32 ? 1.6e7 : 9.0e15))) return undefined; // also NaN and the infinities
  return a === 0 ? 0 : x < 0 ? -a : a;
}
function sameBits(a: number, b: number, f32: boolean): boolean {
  if (a === a) return Object.is(a, b); // not NaN: equal and the same zero
  if (b === b) return false;
  if (f32) { scratchF32[0] = a; const x = scratchU[0]; scratchF32[0] = b; return x === scratchU[0]; }
  scratchF[0] = a; const lo = scratchU[0], hi = scratchU[1]; scratchF[0] = b;
  return lo === scratchU[0] && hi === scratchU[1];
}
/** Appends the raw bytes of `values[i]` for each i of `at` (all of them when null): an XbfNaN's bits go
 * through the 64-bit scratch word as they are (its low 4 bytes for an f32). */
function putRaw(out: Writer, values: Floats, at: readonly number[] | null, f32: boolean): void {
  const k = at ? at.length : values.length, w = f32 ? 4 : 8;
  out.ensure(k * w);
  const b = out.buf;
  let p = out.len;
  for (let j = 0; j < k; j++) {
    const v = values[at ? at[j]! : j]!;
    if (typeof v !== "number") scratchBig[0] = v.bits;
    else if (f32) scratchF32[0] = v;
    else scratchF[0] = v;
    for (let q = 0; q < w; q++) b[p++] = scratchB[q]!;
  }
  out.len = p;
}

// ---------------------------------------------------------------- decimal (0x11)
/** A decimal column sized and ready to write: its exponent, the zigzag integers (0 at an exception) and the
 * exceptions' positions with their measures, and its size in bytes; `bytes` instead when an integer passes 2^49
 * (the bigint path writes it first). */
interface Decimal { e: number; zz: number[]; exc: number[]; mZz: Measured | null; mExc: Measured | null; size: number; bytes: number[] | null }
/** The decimal column of `values` at exponent e: each value's scaled integer when it gives the value back exactly,
 * else an exception (0 in the integers, its raw bits after them). Exported for the tests. `role`: scratchArray's
 * role for the integers, or -1 for an array of their own (a plan that another one of the same role may outlive). */
export function planDecimal(values: Floats, e: number, f32: boolean, limit: number, role = -1): Decimal | null {
  const n = values.length, zz = role < 0 ? sizedArray(n) : scratchArray(role, n), exc: number[] = [], p = P10[e]!, cap = f32 ? 1.6e7 : 9.0e15;
  let big = false;
  // The value before and its zigzag integer (-1: an exception): a value equal to it (not a zero: +0 and -0 are equal
  // and not the same column value; a NaN equals nothing) has the same, with no arithmetic (columns of repeats).
  let pv: unknown = NaN, pz = -1;
  for (let i = 0; i < n; i++) {
    const v = values[i] as number; // an XbfNaN: NaN, an exception
    if (v === pv && v !== 0) {
      if (pz >= 0) zz[i] = pz; else { zz[i] = 0; exc.push(i); }
      continue;
    }
    pv = v;
    const x = v * p;
    // A whole number (+0 too, not -0) whose product stays under the cap: the product is exact (the cap is below 2^53),
    // so it is the scaled integer and gives v back (an f32 one too: below 2^24); no rounding, no division.
    if (v === Math.floor(v) && x < cap && x > -cap && (x !== 0 || 1 / v > 0)) {
      zz[i] = pz = x >= 0 ? 2 * x : -2 * x - 1;
      if (x >= 562949953421312 || x <= -562949953421312) big = true;
      continue;
    }
    // scaled() and sameBits() inline: n ÷ 10^e is never NaN, so the same bits are equal values of the same sign.
    const a = Math.round(x < 0 ? -x : x);
    if (a < cap) { // not NaN nor an infinity either
      const m = a === 0 ? 0 : x < 0 ? -a : a, q = f32 ? f32Round(m / p) : m / p;
      if (q === v && (q !== 0 || Object.is(q, v))) {
        zz[i] = pz = m >= 0 ? 2 * m : -2 * m - 1;
        if (a >= 562949953421312) big = true; // 2^49: the zigzag form may pass what the number path holds
        continue;
      }
    }
    zz[i] = 0; exc.push(i); pz = -1;
  }
  const k = exc.length, w = f32 ? 4 : 8;
  if (big) {
    // The exact size needs the integers as bigints (decimalBig); first a lower bound from the doubles, which
    // alone rules the column out where it cannot be smaller than `limit` (random doubles: their exceptions and
    // 50-bit integers outweigh the plain column), with no bigint made.
    const es = k ? measureSmall(exc).size : 0, zs = bigIntsLowerBound(zz);
    if (2 + varLen(zs) + zs + varLen(k) + (k ? varLen(es) + es + k * w : 0) >= limit) return null;
    const bytes = decimalBig(values, e, f32);
    return { e, zz, exc, mZz: null, mExc: null, size: bytes.length, bytes };
  }
  const mZz = measureSmall(zz), mExc = exc.length ? measureSmall(exc) : null;
  const zs = mZz.size, es = mExc ? mExc.size : 0;
  const size = 2 + varLen(zs) + zs + varLen(k) + (k ? varLen(es) + es + k * w : 0);
  return { e, zz, exc, mZz, mExc, size, bytes: null };
}
/** A lower bound of the size of encodeInts over the exact zigzag integers that `zz` holds as doubles (each
 * within a rounding of its integer, which may pass 2^53): each of the four encodings' sizes bounded from below
 * with margins larger than the doubles' errors (relative 2^-53 per value, a few units once subtracted), the
 * least of them. */
export function bigIntsLowerBound(zz: readonly number[]): number {
  const n = zz.length;
  if (n === 0) return 1;
  const shrink = 1 - 2 ** -50; // x × shrink is below the integer x stands for (x > 0)
  // rsize: each run's count (a byte at least) and value; equal doubles may stand for different integers, which
  // only merges runs (a lower bound still).
  let vsize = 1, min = zz[0]!, max = min, rsize = 1, zmaxLow = -Infinity, zminHigh = Infinity;
  for (let i = 0; i < n; i++) {
    const v = zz[i]!, vl = varLen(v * shrink);
    vsize += vl;
    if (v < min) min = v;
    if (v > max) max = v;
    if (i === 0) { rsize += 1 + vl; continue; }
    const u = zz[i - 1]!;
    if (v !== u) rsize += 1 + vl;
    // The zigzag of the difference, within 2 err + 1 of the zigzag of the doubles' difference.
    const d = v - u, z = d >= 0 ? 2 * d : -2 * d - 1, err = (v + u) * 2 ** -48 + 16;
    if (z - 2 * err - 1 > zmaxLow) zmaxLow = z - 2 * err - 1;
    if (z + 2 * err + 1 < zminHigh) zminHigh = z + 2 * err + 1;
  }
  const bits = (x: number) => (x > 0 ? bitsN(x) : 0);
  const width = bits(max - min - (max + min) * 2 ** -48 - 16);
  const fsize = 2 + varLen(min * shrink) + Math.ceil((n * width) / 8);
  const dsize = n > 1 ? 4 + Math.ceil(((n - 1) * bits(zmaxLow - zminHigh)) / 8) : Infinity;
  return Math.min(vsize, fsize, dsize, rsize);
}
/** The decimal column's bytes where some scaled integer passes 2^49 (bigint zigzag). */
function decimalBig(values: Floats, e: number, f32: boolean): number[] {
  const ints: bigint[] = [], exc: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    const x = scaled(v, e, f32);
    if (x !== undefined && sameBits(fromDecimalN(x, e, f32), v, f32)) ints.push(zigzag(BigInt(x), 128));
    else { ints.push(0n); exc.push(i); }
  }
  const out = [0x11, e];
  const body = encodeInts(ints);
  putVar(out, body.length); for (const b of body) out.push(b);
  putVar(out, exc.length);
  if (exc.length) {
    const pos = encodeInts(exc);
    putVar(out, pos.length); for (const b of pos) out.push(b);
    const w = new Writer();
    putRaw(w, values, exc, f32);
    for (let i = 0; i < w.len; i++) out.push(w.buf[i]!);
  }
  return out;
}
function putDecimal(out: Writer, d: Decimal, values: Floats, f32: boolean): void {
  const at = out.len;
  if (d.bytes) { out.bytes(Uint8Array.from(d.bytes)); return; }
  out.u8(0x11); out.u8(d.e);
  putIntsColumn(out, d.zz, true, d.mZz);
  out.uvar(d.exc.length);
  if (d.exc.length) { putIntsColumn(out, d.exc, true, d.mExc); putRaw(out, values, d.exc, f32); }
  if (out.len - at !== d.size) throw new Error(`decimal column sized ${d.size} but ${out.len - at} written`); // a bug, never input
}
/** The decimal column of `values` when it is smaller than the plain one (1 + n × width bytes), else null. */
function decimalColumn(values: Floats, f32: boolean, role: number): Decimal | null {
  const e = exponent(values, f32);
  if (e < 0) return null;
  const plain = 1 + values.length * (f32 ? 4 : 8), d = planDecimal(values, e, f32, plain, role);
  return d && d.size < plain ? d : null;
}

/** The exponent of the decimal column of `values` (SPEC 22.2), or -1 when none can be smaller than the plain
 * one: chosen on a sample of at most 256 values: each sampled value's least exponent that holds it exactly
 * (counted up from 0), then the least exponent that leaves the fewest of them as exceptions; -1 when more than
 * half of the sample are exceptions at every exponent. */
export function exponent(values: Floats, f32: boolean): number {
  if (!values.length) return -1;
  const maxE = f32 ? 10 : 18;
  const step = Math.max(1, Math.floor(values.length / 256));
  // hist[e]: sampled values whose least exact exponent is e; `never`: none holds them (or too large).
  const hist = HIST;
  for (let e = 0; e < 19; e++) hist[e] = 0; // (not fill: a call into the runtime's C++, per column)
  // More than half of all the samples held by no exponent: the answer is already -1 (random doubles stop here).
  const half = Math.ceil(values.length / step) / 2;
  // maxHeld: the largest least exponent of the f64 values sampled so far (-1 before any is held). The answer
  // below is that largest one (the least e where no held value is above e), so a value held at or below it is
  // counted at any exponent up to it (leastExponentOver64) without changing the answer.
  let sampled = 0, never = 0, maxHeld = -1;
  // The value sampled before and the exponent it was counted at: a value equal to it (not a zero: +0 and -0 are equal
  // with other bits; a NaN equals nothing) is counted at the same one with no test. For an f32 that is its least
  // exponent; for an f64, the one the state left by it (maxHeld) gives again: it was held at q (q is still maxHeld's),
  // or leastExponentOver64 found e, which is then maxHeld or at most maxHeld unchanged, and held at e (isHeldAt's
  // test: not 0 is held with a nonzero integer), or held nowhere, each test giving the same answer again.
  let pv: unknown = NaN, pe = 0;
  for (let i = 0; i < values.length; i += step) {
    const v = values[i] as number; // an XbfNaN: NaN below, as for a NaN
    sampled++;
    let e = 0;
    if (v === pv && v !== 0) e = pe;
    else if (!f32) {
      // leastExponentOver64's first test inline (most values of a decimal column pass it): held at q. A whole number
      // (+0 too, not -0) is held at every exponent where its product stays under the cap (exact products): no
      // rounding, no division (the test below gives the same answer for it).
      const q = maxHeld < 0 ? 0 : maxHeld, av = v < 0 ? -v : v, ax = av * P10F[q]!;
      if (v === Math.floor(v) && (v !== 0 ? ax < 9.0e15 : 1 / v > 0)) { e = q; if (q > maxHeld) maxHeld = q; }
      else if (isHeldAt(v, ax, q)) { e = q; if (q > maxHeld) maxHeld = q; }
      else { e = leastExponentOver64(v, maxHeld); if (e <= maxE && e > maxHeld) maxHeld = e; }
    }
    else for (; e <= maxE; e++) {
      // scaled(v, e) inline, with a test that needs no division first: when n / 10^e gives back the double v,
      // v × 10^e (one rounding) is within |n|·2^-52 of n, so a product further than 2^-51 of itself from
      // the nearest integer cannot give v back (for f64; an f32's rounding is coarser: always divided).
      const x = v * P10[e]!, ax = x < 0 ? -x : x, a = Math.round(ax);
      if (!(a < (f32 ? 1.6e7 : 9.0e15))) { e = maxE + 1; break; } // also NaN, the infinities; larger e only scale it further
      if (!f32 && (ax > a ? ax - a : a - ax) > ax * 4.440892098500626e-16) continue;
      if (sameBits(fromDecimalN(a === 0 ? 0 : x < 0 ? -a : a, e, f32), v, f32)) break;
    }
    pv = v; pe = e;
    if (e > maxE) { if (++never > half) return -1; } else hist[e]!++;
  }
  if (never * 2 > sampled) return -1;
  // Misses at e: the sampled values needing more than e, plus those no exponent holds.
  let bestE = 0, bestMisses = Infinity, above = sampled - never;
  for (let e = 0; e <= maxE; e++) {
    above -= hist[e]!;
    const misses = above + never;
    if (misses < bestMisses) { bestMisses = misses; bestE = e; }
    if (above === 0) break;
  }
  return bestMisses * 2 > sampled ? -1 : bestE;
}
const HIST = new Array<number>(19).fill(0);
const P10F = Float64Array.from(P10);
/** exponent()'s first test for an f64 value v at q, its product |v| × 10^q being ax. */
function isHeldAt(v: number, ax: number, q: number): boolean {
  const a = Math.round(ax), d = ax - a, tol = ax * 4.440892098500626e-16;
  return a < 9.0e15 && a !== 0 && d <= tol && -d <= tol && (v < 0 ? -a : a) / P10F[q]! === v;
}
/** exponent()'s loop for one f64 value (an XbfNaN: NaN): the least e that holds it exactly, 19 when none does;
 * the same answer as testing each e up from 0 (heldAt64), found with fewer tests. Why the jump is exact: let v
 * (not 0, |v| a normal double) be held at E, i.e. |v| = fl(a / 10^E) with a an integer, so |v| is within
 * |v|·2^-53 of a / 10^E. For any e ≥ E, X = |v|·10^e is then within X·2^-53 of the integer N = a·10^(e-E), and
 * its product fl(X) within another X·2^-53: fl(X) is within fl(X)·2^-52 (+ a rounding) of N. Where fl(X) is
 * under 10^15 that distance is under 0.25, so Math.round gives N, the tolerance test (2^-51 of fl(X)) and the
 * range test pass, and N / 10^e, the same rational as a / 10^E, rounds to |v|: the test at e passes. So on the
 * exponents whose products stay under 10^15 the tests fail up to E and pass from E on: one test at the largest of
 * them tells whether E is among them (found by bisection) or above them (the loop goes on from there). Zero, NaN,
 * the infinities, tiny and huge values take the loop from 0. */
export function leastExponent64(v: number): number { return leastExponentOver64(v, -1); }
/** leastExponent64(v) when it is over m; else some exponent from 0 to m (v is held, at m or below): exponent()
 * needs only the largest least exponent of its sample, so a value held at or below the largest so far costs one
 * test instead of the bisection. */
function leastExponentOver64(v: number, m: number): number {
  const av = v < 0 ? -v : v;
  // First the test at m (at 0 when m < 0): where it passes (its range test too, so every smaller exponent's
  // passes) the least exponent is at most m (is 0): whole numbers and a column's usual decimals stop here.
  const q = m < 0 ? 0 : m, aq = Math.round(av * P10F[q]!);
  if (aq < 9.0e15 && heldAt64(v, av, q)) return q;
  if (!(av > 1e-290 && av < 1e15)) return leastExponentFrom64(v, av, 0); // also 0 and NaN
  let top = 18;
  while (av * P10F[top]! >= 1e15) top--; // stops at 0 at the latest: av < 10^15
  // Failing at q within the exponents up to top rules out every exponent up to q. Then the test at top: failing
  // there rules out every exponent up to top (random doubles: one test, then the loop above top); passing, the
  // next three after q are tested in turn (a column's decimals that its first values did not need), then the
  // bisection. Above top (random doubles once the largest is 16 or more) the jump comes first.
  let lo = 0;
  if (q < top) {
    if (!heldAt64(v, av, top)) return leastExponentFrom64(v, av, top + 1);
    for (const end = Math.min((lo = q + 1) + 3, top); lo < end; lo++) if (heldAt64(v, av, lo)) return lo;
  } else if (q === top || !heldAt64(v, av, top)) return leastExponentFrom64(v, av, top + 1);
  else if (top <= m) return top; // held at top, so the least exponent is at most top
  let hi = top; // the least exponent is in [lo, hi]; the test passes at hi
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (heldAt64(v, av, mid)) hi = mid; else lo = mid + 1;
  }
  return lo;
}
/** The loop's test at exponent e for v (|v| = av) when the range test passes: whether a / 10^e gives v back. */
function heldAt64(v: number, av: number, e: number): boolean {
  const ax = av * P10F[e]!, a = Math.round(ax);
  const d = ax - a, tol = ax * 4.440892098500626e-16;
  if (d > tol || -d > tol) return false;
  if (a === 0) return v === 0 && 1 / v > 0; // 0 ÷ 10^e is +0: only +0 is held
  return (v < 0 ? -a : a) / P10F[e]! === v;
}
/** The loop itself from exponent `from` (the tests of every smaller e known to fail), on |v| (|v| × 10^e is
 * |v × 10^e|: rounding is symmetric) with the powers in a typed array and sameBits spelled out for numbers that are
 * not NaN (a NaN fails the range test first). */
function leastExponentFrom64(v: number, av: number, from: number): number {
  for (let e = from; e <= 18; e++) {
    const ax = av * P10F[e]!, a = Math.round(ax);
    if (!(a < 9.0e15)) return 19;
    const d = ax - a, tol = ax * 4.440892098500626e-16;
    if (d > tol || -d > tol) continue;
    if (a === 0) { if (v === 0 && 1 / v > 0) return e; continue; } // 0 ÷ 10^e is +0: only +0 is held
    if ((v < 0 ? -a : a) / P10F[e]! === v) return e;
  }
  return 19;
}

/** The bytes of the XOR encoding of `values` (at least one), as the Rust writer chooses its fields (SPEC
 * 22.2.1), without writing it: on 32-bit words. */
export function xorSize(values: ArrayLike<number>, f32: boolean): number {
  const width = f32 ? 32 : 64, field = f32 ? 5 : 6;
  let bits = 0, wl = -1, wlen = 0;
  const word = (v: Float) => {
    if (typeof v !== "number") { scratchBig[0] = v.bits; return f32 ? 0 : scratchU[1]!; }
    if (f32) { scratchF32[0] = v; return 0; }
    scratchF[0] = v; return scratchU[1]!;
  };
  let ph = word(values[0]!), pl = scratchU[0]!, pv: unknown = values[0];
  for (let i = 1; i < values.length; i++) {
    const v = values[i]!;
    // The value before again (not a zero: +0 and -0 are equal with other bits; a NaN equals nothing): the same bits.
    if (v === pv && v !== 0) { bits += 1; continue; }
    pv = v;
    const h = word(v), l = scratchU[0]!;
    const xh = (h ^ ph) >>> 0, xl = (l ^ pl) >>> 0;
    ph = h; pl = l;
    if (xh === 0 && xl === 0) { bits += 1; continue; }
    // Leading and trailing zeros of the width-bit XOR (for f32 the high word is 0).
    const lead = (xh !== 0 ? Math.clz32(xh) : 32 + Math.clz32(xl)) - (64 - width);
    const trail = xl !== 0 ? 31 - Math.clz32(xl & -xl) : 32 + 31 - Math.clz32(xh & -xh);
    const len = width - lead - trail;
    if (wl >= 0 && lead >= wl && trail >= width - wl - wlen && wlen <= len + 2 * field) bits += 2 + wlen;
    else { bits += 2 + 2 * field + len; wl = lead; wlen = len; }
  }
  return 1 + (f32 ? 4 : 8) + Math.ceil(bits / 8);
}
/** The XOR encoding of `values` (at least one), as putXor writes it (for the tests). */
export function xorEncode(values: number[], f32: boolean): number[] {
  const w = new Writer();
  putXor(w, values, f32, 1 + (f32 ? 4 : 8) + Math.ceil((values.length * (14 + (f32 ? 32 : 64))) / 8));
  return Array.from(w.finish());
}
/** Appends the XOR encoding of `values` (at least one), `room` bytes at most (xorSize's): the fields found as
 * xorSize finds them, on 32-bit words (no BigInt per value); the bits go out least significant first, at most 16
 * at a time, straight into the writer's buffer. */
function putXor(out: Writer, values: Floats, f32: boolean, room: number): void {
  out.ensure(room + 8);
  out.u8(0x13);
  putRaw(out, values, FIRST, f32);
  const b = out.buf, width = f32 ? 32 : 64, field = f32 ? 5 : 6;
  let p = out.len, acc = 0, filled = 0, wl = -1, wlen = 0;
  const word = (v: Float) => {
    if (typeof v !== "number") { scratchBig[0] = v.bits; return f32 ? 0 : scratchU[1]!; }
    if (f32) { scratchF32[0] = v; return 0; }
    scratchF[0] = v; return scratchU[1]!;
  };
  let ph = word(values[0]!), pl = scratchU[0]!;
  for (let i = 1; i < values.length; i++) {
    const h = word(values[i]!), l = scratchU[0]!;
    const xh = (h ^ ph) >>> 0, xl = (l ^ pl) >>> 0;
    ph = h; pl = l;
    // (Each field is added to at most 7 pending bits, and whole bytes leave at once: acc stays below 2^23.)
    if (xh === 0 && xl === 0) { if (++filled === 8) { b[p++] = acc & 255; acc = 0; filled = 0; } continue; }
    const lead = (xh !== 0 ? Math.clz32(xh) : 32 + Math.clz32(xl)) - (64 - width);
    const trail = xl !== 0 ? 31 - Math.clz32(xl & -xl) : 32 + 31 - Math.clz32(xh & -xh);
    const len = width - lead - trail;
    let s: number, k: number;
    if (wl >= 0 && lead >= wl && trail >= width - wl - wlen && wlen <= len + 2 * field) {
      acc |= 1 << filled; filled += 2;
      s = width - wl - wlen; k = wlen;
    } else {
      acc |= 3 << filled; filled += 2;
      while (filled >= 8) { b[p++] = acc & 255; acc >>>= 8; filled -= 8; }
      acc |= lead << filled; filled += field;
      while (filled >= 8) { b[p++] = acc & 255; acc >>>= 8; filled -= 8; }
      acc |= (len - 1) << filled; filled += field;
      s = trail; k = len;
      wl = lead; wlen = len;
    }
    while (filled >= 8) { b[p++] = acc & 255; acc >>>= 8; filled -= 8; }
    // The k low bits of the 64-bit word (xh, xl) shifted right by s, 16 at a time.
    let hi = xh, lo = xl;
    if (s >= 32) { lo = hi >>> (s - 32); hi = 0; }
    else if (s > 0) { lo = ((lo >>> s) | (hi << (32 - s))) >>> 0; hi = hi >>> s; }
    while (k > 0) {
      const take = k < 16 ? k : 16;
      acc |= (lo & ((1 << take) - 1)) << filled; filled += take;
      while (filled >= 8) { b[p++] = acc & 255; acc >>>= 8; filled -= 8; }
      lo = ((lo >>> take) | (hi << (32 - take))) >>> 0; hi = hi >>> take;
      k -= take;
    }
  }
  if (filled > 0) b[p++] = acc & 255;
  out.len = p;
}
const FIRST = [0];

// ---------------------------------------------------------------- the choice
/** A float column sized: its kind (0x10 plain, 0x11 decimal, 0x12 dictionary, 0x13 XOR), its payload's size,
 * and what writing it needs. */
interface FloatPlan {
  kind: number; size: number; values: Floats;
  dec: Decimal | null;
  /** A dictionary: its distinct values, their column (decimal, or plain when null), and each value's index. */
  distinct: Float[] | null; inner: Decimal | null; innerSize: number; ids: number[] | null; mIds: Measured | null;
}
/** The smallest encoding of `values` as the Rust writer picks it: decimal when smaller than plain, then XOR when
 * smaller than that, then a dictionary (at most n/2 + 16 distinct values by bits) when smaller still. `kept`: its
 * arrays of numbers per value are scratchArray's (the plan is written before another column is planned); not when
 * two plans are compared (a tolerance). */
function planFloats(values: Floats, f32: boolean, kept: boolean): FloatPlan {
  const n = values.length, w = f32 ? 4 : 8;
  const dec = decimalColumn(values, f32, kept ? S_DEC_ZZ : -1);
  const p: FloatPlan = { kind: dec ? 0x11 : 0x10, size: dec ? dec.size : 1 + n * w, values, dec, distinct: null, inner: null, innerSize: 0, ids: null, mIds: null };
  if (n) { const x = xorSize(values as ArrayLike<number>, f32); if (x < p.size) { p.kind = 0x13; p.size = x; } }
  const limit = Math.floor(n / 2) + 16;
  let found = floatDictionary(values as ArrayLike<number>, f32, limit, kept);
  if (found === null) return p;
  if (found === undefined) { // an XbfNaN in the column: its bits key a Map
    const index = new Map<number | string, number>(), distinct: Float[] = [], ids: number[] = [];
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!, x = v;
      const k = typeof x !== "number" ? "n" + x.bits : x !== 0 && x === x ? x : Object.is(x, 0) ? "+0" : Object.is(x, -0) ? "-0" : f32 ? (scratchF32[0] = x, "n" + scratchU[0]) : "n" + f64Bits(x);
      let id = index.get(k);
      if (id === undefined) { id = distinct.length; distinct.push(v); index.set(k, id); if (mostlyDistinct(i, id, n)) return p; }
      ids.push(id);
      if (distinct.length > limit) return p;
    }
    found = { distinct: distinct as number[], ids };
  }
  const { distinct, ids } = found;
  const inner = decimalColumn(distinct, f32, kept ? S_DEC_INNER_ZZ : -1), innerSize = inner ? inner.size : 1 + distinct.length * w;
  const mIds = distinct.length === 1 ? measureConst(ids, 0) : measureSmall(ids); // (one entry: every id is 0)
  const size = 1 + varLen(distinct.length) + varLen(innerSize) + innerSize + mIds.size;
  if (size < p.size) { p.kind = 0x12; p.size = size; p.distinct = distinct; p.inner = inner; p.innerSize = innerSize; p.ids = ids; p.mIds = mIds; }
  return p;
}
/** Writes the planned column (its length, then its payload). */
function putPlan(out: Writer, p: FloatPlan, f32: boolean): void {
  out.uvar(p.size);
  const at = out.len;
  switch (p.kind) {
    case 0x10: out.u8(0x10); putRaw(out, p.values, null, f32); break;
    case 0x11: putDecimal(out, p.dec!, p.values, f32); break;
    case 0x13: putXor(out, p.values, f32, p.size); break;
    default: {
      const d = p.distinct!;
      out.u8(0x12); out.uvar(d.length); out.uvar(p.innerSize);
      if (p.inner) putDecimal(out, p.inner, d, f32);
      else { out.u8(0x10); putRaw(out, d, null, f32); }
      putIntsColumn(out, p.ids!, false, p.mIds);
    }
  }
  if (out.len - at !== p.size) throw new Error(`float column sized ${p.size} but ${out.len - at} written`); // a bug, never input
}

/** The open-addressing table of floatDictionary (slot: distinct id + 1, 0 empty) and the bits of each distinct
 * value (its high and low 32-bit words), kept across calls and grown as needed. */
let SLOTS = new Int32Array(1024), KEY_HI = new Uint32Array(512), KEY_LO = new Uint32Array(512);
/** The dictionary of a float column: its distinct values by bits (the two zeros apart, each NaN payload apart;
 * an f32 column's NaNs by their 32-bit words), in the order they first appear, and each value's index among them;
 * null as soon as there are more than `limit`; undefined when a value is an XbfNaN (the caller keys those by
 * their bits). One pass with a hash table on the bits: no sort, no Map, no string key per value. Exported for the tests. */
export function floatDictionary(values: ArrayLike<number>, f32: boolean, limit: number, kept: boolean): { distinct: number[]; ids: number[] } | null | undefined {
  const n = values.length;
  let cap = 16; // sized by the column: a short one clears few slots
  while (cap < 2 * (Math.min(n, limit) + 1)) cap *= 2;
  // Tables up to 2^16 slots are kept for the next column; a larger one is this column's only (not held on to).
  let slots = SLOTS, keyHi = KEY_HI, keyLo = KEY_LO;
  if (cap > SLOTS.length) {
    slots = new Int32Array(cap); keyHi = new Uint32Array(cap >> 1); keyLo = new Uint32Array(cap >> 1);
    if (cap <= 1 << 16) { SLOTS = slots; KEY_HI = keyHi; KEY_LO = keyLo; }
  } else slots.fill(0, 0, cap);
  const mask = cap - 1, distinct: number[] = [], ids = kept ? scratchArray(S_FLOAT_IDS, n) : sizedArray(n);
  // The value before and its id: a value equal to it (not a zero: +0 and -0 are equal with other bits; a NaN equals
  // nothing) has the same bits, hence the same entry, with no hash (columns of repeats).
  let pv = NaN, pid = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (typeof v !== "number") return undefined;
    if (v === pv && v !== 0) { ids[i] = pid; continue; }
    pv = v;
    let hi: number, lo: number;
    // An f32 column's NaN by its 32-bit word (tagged with a high word no number has); any other value by its
    // 64 bits, as it is given.
    if (f32 && v !== v) { scratchF32[0] = v; hi = 0xffffffff; lo = scratchU[0]!; } else { scratchF[0] = v; lo = scratchU[0]!; hi = scratchU[1]!; }
    // Mixed so that every bit of both words reaches the low bits (a product's low bits see only its factors' low
    // bits: 2.0, 2.5 and 3.0, whose low words and low halves of their high words are all 0, would share a slot).
    const k = Math.imul(lo ^ Math.imul(hi, 0x85ebca77), 0x9e3779b1);
    let h = (k ^ (k >>> 16)) & mask;
    let id: number;
    for (;;) {
      const s = slots[h]!;
      if (s === 0) {
        id = distinct.length;
        if (id >= limit || mostlyDistinct(i, id, n)) return null;
        slots[h] = id + 1; keyHi[id] = hi; keyLo[id] = lo; distinct.push(v);
        break;
      }
      if (keyLo[s - 1] === lo && keyHi[s - 1] === hi) { id = s - 1; break; }
      h = (h + 1) & mask;
    }
    ids[i] = id; pid = id;
  }
  return { distinct, ids };
}
/** The absolute error allowed in float columns (SPEC 22.5.1), while an encode with `floatTolerance` runs. */
let tolerance: number | undefined;
/** Sets (or clears, with undefined) the float tolerance of the columns written next; codec.ts sets it around
 * one encode. */
export function setFloatTolerance(t: number | undefined): void { tolerance = t; }
/** Each value rounded to e decimals as the decimal encoding gives them back (the nearest, else the other
 * neighbour of a midpoint), where that is within t of it; NaN, the infinities, both zeros and values too large
 * for the scaled integer stay as they are (the Rust writer's quantize). */
function quantize(values: number[], t: number, e: number, f32: boolean): number[] {
  const out = values.slice();
  for (let i = 0; i < values.length; i++) {
    const x = values[i]!;
    if (typeof x !== "number" || !Number.isFinite(x) || x === 0) continue;
    const n = scaled(x, e, f32);
    if (n === undefined) continue;
    const other = fromDecimalN(n, e, f32) > x ? n - 1 : n + 1;
    for (const m of [n, other]) {
      const q = fromDecimalN(m, e, f32);
      if (Math.abs(q - x) <= t) { out[i] = q; break; }
    }
  }
  return out;
}
/** The column (length and payload) of the floats `values`, f32 or f64. With a tolerance set (SPEC 22.5.1), the
 * values rounded at the smallest exponent whose half unit is within it and at the next one, the smaller column
 * kept; exact when no exponent is fine enough. */
export function putFloatsColumn(out: Writer, values: readonly Float[], f32: boolean): void {
  const t = tolerance;
  const maxE = f32 ? 10 : 18;
  let e = -1;
  if (t !== undefined) for (let k = 0; k <= maxE; k++) if (0.5 / P10[k]! <= t) { e = k; break; }
  if (e < 0) { putPlan(out, planFloats(values, f32, true), f32); return; }
  let best = planFloats(quantize(values as number[], t!, e, f32), f32, false);
  if (e < maxE) { const next = planFloats(quantize(values as number[], t!, e + 1, f32), f32, false); if (next.size < best.size) best = next; }
  putPlan(out, best, f32);
}
