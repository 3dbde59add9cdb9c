// What every part of the direct decoder (fast.ts and the files it is split into, fast_rows.ts) shares: the
// signal that it gives up (BAIL), its options, the small-varint reader and the padding check of bit-packed blocks.
// The contract of the whole direct path is in fast.ts's header.
import { XbfType } from "./metadata.js";
import { LimitOptions } from "./decode_rows.js";
import { ValueOptions } from "./values.js";

/** Thrown when the direct path gives up; the caller then runs the reference decoder. */
export const BAIL: unique symbol = Symbol("xbf.bail");
export function bail(): never {
  throw BAIL;
}

export type FastOptions = ValueOptions & LimitOptions;
export const MAX_SAFE = 9007199254740991;

/** Could the public value of `t` be null (so that a present option around it needs XbfSome)? */
export function nullable(t: XbfType): boolean {
  return t.kind === "option" || t.kind === "unit" || t.kind === "any";
}

/** Whether the packed bits from byte p, `bits` of them, leave padding bits that are not 0 (SPEC 22.2: the
 * reference decoder reports them). */
export function padded(b: Uint8Array, p: number, bits: number): boolean {
  return bits % 8 !== 0 && b[p + Math.floor(bits / 8)]! >> (bits % 8) !== 0;
}

/** A canonical varint of at most 7 bytes (49 bits) at r.pos, ending before `end`, as a number (pos moves
 * past it), or -1 (pos unchanged) when it is longer or damaged: the one small-varint reader of the columns
 * and the rows, which fall back to the reference decoder on -1. */
export function small(r: { b: Uint8Array; pos: number }, end: number): number {
  const b = r.b;
  let p = r.pos, x = 0, mul = 1;
  for (let i = 0; i < 7; i++) {
    if (p >= end) return -1;
    const c = b[p++]!;
    x += (c & 127) * mul;
    if (c < 128) {
      if (c === 0 && i > 0) return -1;
      r.pos = p;
      return x;
    }
    mul *= 128;
  }
  return -1;
}
