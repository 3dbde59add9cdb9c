/** A NaN other than the canonical quiet NaN (f32 7fc00000, f64 7ff8000000000000), with its exact bits.
 *
 * A JS number cannot promise to keep a NaN's bits: widening an f32 to a number sets the quiet bit of a
 * signalling NaN, and engines may canonicalise NaNs stored in arrays. The reference decoder therefore holds
 * such a NaN as an XbfNaN in its internal values and in the `exact: true` form, and the writers write its
 * bits back unchanged; the default form gives `NaN` (SPEC 21.4). */
export class XbfNaN {
  constructor(public readonly bits: bigint, public readonly width: 32 | 64) {}
}

/** A float of an internal value: a number, or an XbfNaN. */
export type Float = number | XbfNaN;

const QUIET32 = 0x7fc00000, QUIET64 = 0x7ff8000000000000n;

/** The f32 at `p` (little-endian). */
export function readF32(dv: DataView, p: number): Float {
  const x = dv.getFloat32(p, true);
  if (x === x) return x;
  const bits = dv.getUint32(p, true);
  return bits === QUIET32 ? NaN : new XbfNaN(BigInt(bits), 32);
}

/** The f64 at `p` (little-endian). */
export function readF64(dv: DataView, p: number): Float {
  const x = dv.getFloat64(p, true);
  if (x === x) return x;
  const bits = dv.getBigUint64(p, true);
  return bits === QUIET64 ? NaN : new XbfNaN(bits, 64);
}

/** A float as a JS number (an XbfNaN is NaN). */
export const plainFloat = (x: Float): number => (typeof x === "number" ? x : NaN);
