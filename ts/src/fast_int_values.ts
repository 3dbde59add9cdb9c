// The public values of decoded integers, shared by the columns (fast_numbers.ts) and the rows (fast_rows.ts):
// dates and timestamps, and 64-bit integers as bigints (int64: "bigint"), made cheaply and shared where equal.
import { INT_INFO } from "./metadata.js";
import { XbfDate, XbfTimestamp } from "./values.js";
import { unzigzagNum } from "./varint.js";
import { LITTLE } from "./fast_bits.js";
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
 * "bigint"): each made by bigintOf, a value equal to the one before (a run) the same bigint. */
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
/** Public value of an integer given as a bigint (zigzag already undone). */
export function bigConv(kind: string, o: FastOptions): (x: bigint) => unknown {
  if (kind === "date") return (x) => new XbfDate(Number(x));
  if (kind === "timestamp") return (x) => new XbfTimestamp(x);
  const bits = INT_INFO[kind]![0];
  if (bits <= 32) return Number;
  if (o.int64 === "bigint") return (x) => x;
  return (x) => (x <= 9007199254740991n && x >= -9007199254740991n ? Number(x) : x);
}
