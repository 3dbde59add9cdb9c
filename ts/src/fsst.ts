// The FSST string encoding `23` of XBF files only (SPEC 22.2.4): a table of up to 255 symbols of 1 to 8 bytes,
// the values' lengths as an integer block, then the values' bytes, joined, as codes (a byte below 255 stands for
// its symbol, 255 for the byte after it). A reader of messages treats `23` as unknown, so it is read only through
// a Cursor whose `file` flag is set. Same checks and error offsets as the Rust reader
// (crates/xbf/src/columnar/fsst.rs). The TypeScript writer does not produce it; the Rust writer does, in files.
import { XbfError } from "./errors.js";
import type { Cursor } from "./columnar.js";

export const FSST = 0x23;
const ESCAPE = 255;
const invalid = (at: number, d: string) => new XbfError("invalid-column", at, d);

/** Encoding `23` after its byte (at `at`): `n` values; `readLens` reads the lengths block, `charge` the budget. */
export function decodeFsst(
  c: Cursor,
  n: number,
  at: number,
  readLens: (c: Cursor, n: number) => bigint[],
  charge: (at: number, bytes: bigint) => void,
): Uint8Array[] {
  const tableAt = c.pos;
  const count = c.u8();
  const w = c.take(count);
  const widths = c.b.subarray(w, w + count);
  let need = 0;
  for (let i = 0; i < count; i++) {
    const width = widths[i]!;
    if (width < 1 || width > 8) throw invalid(tableAt, `symbol ${i} of ${width} bytes (FSST symbols take 1 to 8)`);
    need += width;
  }
  let s = c.take(need);
  const starts: number[] = [];
  for (let i = 0; i < count; i++) { starts.push(s); s += widths[i]!; }
  const lens = readLens(c, n);
  const codesAt = c.pos;
  const codes = c.b.subarray(codesAt, c.end);
  c.pos = c.end;
  let sum = 0n;
  for (const l of lens) sum += l;
  // A code makes at most 8 bytes: a claim past that is refused before anything is allocated, and so is one past
  // the budget.
  if (sum > 8n * BigInt(codes.length)) throw invalid(at, `${codes.length} bytes of codes cannot make the ${sum} bytes of the values`);
  charge(at, sum);
  const total = Number(sum);
  const out = new Uint8Array(total);
  let end = 0;
  for (let i = 0; i < codes.length;) {
    const code = codes[i]!;
    if (code === ESCAPE) {
      if (i + 1 >= codes.length) throw new XbfError("truncated", codesAt + i, "an FSST escape with no byte after it");
      if (end + 1 > total) throw invalid(codesAt + i, `the FSST codes make more than the ${total} bytes of the values`);
      out[end++] = codes[i + 1]!;
      i += 2;
    } else {
      if (code >= count) throw invalid(codesAt + i, `FSST code ${code} past the ${count} symbols`);
      const width = widths[code]!;
      if (end + width > total) throw invalid(codesAt + i, `the FSST codes make more than the ${total} bytes of the values`);
      out.set(c.b.subarray(starts[code]!, starts[code]! + width), end);
      end += width;
      i += 1;
    }
  }
  if (end !== total) throw invalid(at, `the FSST codes make ${end} bytes, the lengths ${total}`);
  const values: Uint8Array[] = [];
  let q = 0;
  for (const l of lens) { const e = q + Number(l); values.push(out.subarray(q, e)); q = e; }
  return values;
}
