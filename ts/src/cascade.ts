// The integer encodings of XBF files only (SPEC 22.2.2 entropy-coded `04`, 22.2.3 cascaded runs `05`): a reader
// of messages treats both as unknown, so they are read only through a Cursor whose `file` flag is set, as the
// blocks of an XBF file are. Both are cascades over the plain integer blocks of columnar.ts, with the same
// checks and error offsets as the Rust reader (crates/xbf/src/columnar/{entropy,runs}.rs). The TypeScript
// writer does not produce them; the Rust writer does, in files.
import { XbfError } from "./errors.js";
import type { Cursor } from "./columnar.js";

/** The integer block decoder of columnar.ts, passed in (columnar.ts imports this module, not the reverse). */
export type DecodeInts = (c: Cursor, n: number, maxBits: number) => bigint[];

export const ENTROPY = 0x04, RUNS = 0x05;
/** The longest code length (SPEC 22.2.2). */
const MAX_LEN = 24;
const invalid = (at: number, d: string) => new XbfError("invalid-column", at, d);

/** A length-prefixed integer block inside a cascade, which must not be `nested` again. */
function innerBlock(decodeInts: DecodeInts, c: Cursor, n: number, maxBits: number, nested: number, what: string): bigint[] {
  const block = c.block();
  const at = block.pos;
  if (block.pos < block.end && block.b[block.pos] === nested) throw invalid(at, what);
  const v = decodeInts(block, n, maxBits);
  block.finish("integer block");
  return v;
}

/** Encoding `04` after its byte: `n` values of at most `maxBits` bits from canonical Huffman codes. */
export function decodeEntropy(decodeInts: DecodeInts, c: Cursor, n: number, maxBits: number): bigint[] {
  const at = c.pos;
  const d = c.varNum(64);
  if (d < 2 || d > n) throw invalid(at, `${d} distinct values for a column of ${n}`);
  const values = innerBlock(decodeInts, c, d, maxBits, ENTROPY, "an entropy-coded block inside an entropy-coded column");
  for (let i = 1; i < d; i++) if (values[i - 1]! >= values[i]!) throw invalid(at, "the distinct values are not in ascending order");
  const lensAt = c.pos;
  const lens = innerBlock(decodeInts, c, d, 8, ENTROPY, "an entropy-coded block inside an entropy-coded column").map(Number);
  const order = canonicalOrder(lens);
  if (order === "length") throw invalid(lensAt, `a code length of ${lens.find((l) => l === 0 || l > MAX_LEN)}`);
  if (order === "incomplete") throw invalid(lensAt, "the code lengths do not make a complete prefix code");
  const streamAt = c.pos;
  const p = c.take(c.remaining());
  const codes = readCodes(c.b, p, c.end, lens, order, n);
  if (codes === "short") throw new XbfError("truncated", streamAt, "the entropy-coded values end early");
  if (codes === "left") throw invalid(streamAt, "bits or bytes left over after the entropy-coded values");
  const out = new Array<bigint>(n);
  for (let i = 0; i < n; i++) out[i] = values[codes[i]!]!;
  return out;
}

/** The distinct values' indices in canonical order (by code length, then by value, i.e. by index), or what is
 * wrong with the lengths: one is 0 or above 24, or they are not a complete prefix code. */
export function canonicalOrder(lens: number[]): number[] | "length" | "incomplete" {
  // Kraft's sum in units of 2^-24: exactly 2^24 for a complete prefix code (d ≤ n fits in a double exactly).
  let kraft = 0;
  for (const l of lens) {
    if (!(l >= 1 && l <= MAX_LEN)) return "length";
    kraft += 2 ** (MAX_LEN - l);
  }
  if (kraft !== 2 ** MAX_LEN) return "incomplete";
  return lens.map((_, i) => i).sort((a, b) => lens[a]! - lens[b]! || a - b);
}

/** The n canonical Huffman codes of `b[p..end)` as indices of the distinct values (SPEC 22.2.2), read one bit at
 * a time, most significant first, until the bits are the code of a value of that length; or "short" (the
 * stream ends first) or "left" (whole bytes or padding bits that are not 0 after the last code). The lengths
 * are a complete code (`canonicalOrder`), so every code ends within 24 bits. */
export function readCodes(b: Uint8Array, p: number, end: number, lens: number[], order: number[], n: number): Uint32Array | "short" | "left" {
  const count = new Array<number>(MAX_LEN + 1).fill(0);
  for (const l of lens) count[l]!++;
  const totalBits = (end - p) * 8;
  const out = new Uint32Array(n);
  let bit = 0;
  for (let i = 0; i < n; i++) {
    let code = 0, first = 0, index = 0, len = 1;
    for (;;) {
      if (bit >= totalBits) return "short";
      code |= (b[p + (bit >> 3)]! >> (bit & 7)) & 1;
      bit++;
      const k = count[len]!;
      if (code < first + k) { out[i] = order[index + code - first]!; break; }
      index += k;
      first = (first + k) * 2;
      code *= 2;
      len++;
    }
  }
  const used = Math.ceil(bit / 8);
  if (used * 8 !== totalBits || (bit % 8 !== 0 && b[p + used - 1]! >> (bit % 8) !== 0)) return "left";
  return out;
}

/** Encoding `05` after its byte: *k* runs as a block of lengths and a block of values. */
export function decodeRuns(decodeInts: DecodeInts, c: Cursor, n: number, maxBits: number): bigint[] {
  const at = c.pos;
  const k = c.varNum(64);
  if (k === 0 || k > n) throw invalid(at, `${k} runs for a column of ${n} values`);
  // k is at most n, which the decoder's budget already paid for.
  const lens = innerBlock(decodeInts, c, k, 64, RUNS, "runs inside a runs column");
  const lensAt = c.pos;
  const vals = innerBlock(decodeInts, c, k, maxBits, RUNS, "runs inside a runs column");
  let total = 0n;
  for (const l of lens) {
    if (l === 0n) throw invalid(lensAt, "a run of length 0");
    total += l;
  }
  if (total !== BigInt(n)) throw invalid(lensAt, `runs of ${total} values for a column of ${n}`);
  const out = new Array<bigint>(n);
  let q = 0;
  for (let i = 0; i < k; i++) { const v = vals[i]!; for (let j = Number(lens[i]!); j > 0; j--) out[q++] = v; }
  return out;
}
