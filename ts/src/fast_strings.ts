// The direct decoder's string columns (StringColumns, extending NumberColumns): plain, dictionary and
// shared-prefix encodings, each column decoded with one TextDecoder call where it can be.
import { ColReader, decodeStrings } from "./columnar.js";
import { bail, padded, small } from "./fast_common.js";
import { FILL_LOOP, NumberColumns } from "./fast_numbers.js";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
/** Shared-prefix values rebuilt one after the other into `all` (each the first shared[i] bytes of the one
 * before, then rest[i] bytes from b at q): pushes each value's length, returns the bytes written, or -1 when
 * a prefix is longer than the value before it. */
function rebuild(b: Uint8Array, q: number, shared: number[], rest: number[], all: Uint8Array, lens: number[]): number {
  let at = 0, prevAt = 0, prevLen = 0;
  const n = shared.length;
  for (let i = 0; i < n; i++) {
    const p = shared[i]!, l = rest[i]!;
    if (p > prevLen) return -1;
    // Short copies by hand (a call and a view per value cost more), long ones natively.
    if (p < 32) for (let k = 0; k < p; k++) all[at + k] = all[prevAt + k]!;
    else all.copyWithin(at, prevAt, prevAt + p);
    const to = at + p;
    if (l < 32) for (let k = 0; k < l; k++) all[to + k] = b[q + k]!;
    else all.set(b.subarray(q, q + l), to);
    q += l;
    prevAt = at;
    prevLen = p + l;
    lens.push(prevLen);
    at += prevLen;
  }
  return at;
}

/** The string columns of a columnar decode (extended by Columns, fast.ts). */
export class StringColumns extends NumberColumns {
  stringColumn(n: number): string[] {
    const end = this.column();
    const start = this.pos, left = this.left;
    const xs = this.strings(n, end);
    if (xs !== null && this.pos === end) return xs;
    this.left = left;
    const c = this.cursor(start, end);
    const r = new ColReader(this.left, this.o);
    const raw = decodeStrings(c, n, r);
    c.finish("column");
    this.left = r.left;
    this.pos = end;
    // Invalid UTF-8: the reference decoder reports it, with its offset and path.
    return raw.map((s) => { try { return utf8.decode(s); } catch { return bail(); } });
  }
  /** n byte lengths in a length-prefixed block, as numbers; null if unusual. */
  private lengths(n: number, end: number): number[] | null {
    const bend = this.block(end);
    if (bend < 0) return null;
    const xs = this.ints(n, 64, bend);
    return xs !== null && this.pos === bend ? xs : null;
  }
  /** The strings of consecutive byte lengths `lens` from byte p (their total `total`): one TextDecoder call. */
  private split(p: number, lens: number[], total: number, b: Uint8Array = this.b): string[] | null {
    const out: string[] = [];
    if (total === 0) { for (let i = 0; i < lens.length; i++) out.push(""); return out; }
    let s: string;
    try { s = utf8.decode(b.subarray(p, p + total)); } catch { return null; }
    if (s.length === total) {
      // All ASCII: characters are bytes.
      let q = 0;
      for (let i = 0; i < lens.length; i++) { const l = lens[i]!; out.push(s.slice(q, q + l)); q += l; }
      return out;
    }
    // Valid as a whole; each string is valid by itself when none starts inside a character.
    let q = p, cq = 0;
    for (let i = 0; i < lens.length; i++) {
      const l = lens[i]!, e = q + l;
      if (l > 0 && (b[q]! & 0xc0) === 0x80) return null;
      let u = 0;
      for (; q < e; q++) { const c = b[q]!; if ((c & 0xc0) !== 0x80) u += c >= 0xf0 ? 2 : 1; }
      out.push(s.slice(cq, cq + u));
      cq += u;
    }
    return out;
  }
  /** A dictionary column's n > 0 ids when they are a frame-of-reference block of 1 to 24 bits (at pos, ending
   * the column at `end`), each looked up in `distinct` as it is unpacked, the decoded size (the entries' byte
   * lengths `lens`) charged; null with pos unchanged for any other block, which `ints` then reads (an id past
   * the dictionary or a size over the budget is null either way). */
  private dictionaryIds(n: number, end: number, distinct: string[], lens: number[]): string[] | null {
    const b = this.b, start = this.pos, d = distinct.length;
    if (this.pos >= end || b[this.pos] !== 1) return null;
    this.pos++;
    const base = small(this, end);
    if (base < 0 || base >= d || this.pos >= end) { this.pos = start; return null; }
    const width = b[this.pos++]!, bytes = Math.ceil((n * width) / 8);
    if (width < 1 || width > 24 || bytes > end - this.pos || padded(b, this.pos, n * width)) { this.pos = start; return null; }
    const s = this.bitsView(this.pos, bytes), p0 = this.vp, mask = (1 << width) - 1;
    const out: string[] = new Array(n);
    let size = 0, bp = 0;
    for (let i = 0; i < n; i++, bp += width) {
      const id = base + ((s.getUint32(p0 + (bp >>> 3), true) >>> (bp & 7)) & mask);
      if (id >= d) { this.pos = start; return null; }
      size += lens[id]!;
      out[i] = distinct[id]!;
    }
    if (!(size <= this.left)) { this.pos = start; return null; }
    this.left -= size;
    this.pos += bytes;
    return out;
  }
  private strings(n: number, end: number): string[] | null {
    const b = this.b;
    if (this.pos >= end) return null;
    const enc = b[this.pos++]!;
    switch (enc) {
      case 0x20: {
        const lens = this.lengths(n, end);
        if (lens === null) return null;
        let total = 0;
        for (let i = 0; i < n; i++) total += lens[i]!;
        if (total > end - this.pos) return null;
        const out = this.split(this.pos, lens, total);
        this.pos += total;
        return out;
      }
      case 0x21: {
        const d = small(this, end);
        if (d < 0 || d > end - this.pos) return null;
        const lens = this.lengths(d, end);
        if (lens === null) return null;
        const bend = this.block(end);
        if (bend < 0) return null;
        let total = 0;
        for (let i = 0; i < d; i++) total += lens[i]!;
        if (total !== bend - this.pos) return null;
        const distinct = this.split(this.pos, lens, total);
        if (distinct === null) return null;
        this.pos = bend;
        // Each value is its dictionary entry's string itself (made once, shared by every row that uses it).
        // Frame-of-reference ids (the usual block): looked up as they are unpacked, no array of ids.
        const direct = n > 0 ? this.dictionaryIds(n, end, distinct, lens) : null;
        if (direct !== null) return direct;
        // Run-length ids (a column sorted by it, as countries by name): each run filled with its entry.
        const rs = n > 0 && this.pos < end && b[this.pos] === 3 ? this.idRuns(n, end, d) : null;
        if (rs !== null) {
          let size = 0;
          for (let r = 0; r < rs.length; r += 2) size += rs[r]! * lens[rs[r + 1]!]!;
          if (!(size <= this.left)) return null;
          this.left -= size;
          const out: string[] = new Array(n);
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
        let size = 0;
        const out: string[] = new Array(n);
        for (let i = 0; i < n; i++) {
          const id = ids[i]!;
          if (id >= d) return null;
          size += lens[id]!;
          out[i] = distinct[id]!;
        }
        if (!(size <= this.left)) return null;
        this.left -= size;
        return out;
      }
      case 0x22: {
        const shared = this.lengths(n, end);
        if (shared === null) return null;
        const rest = this.lengths(n, end);
        if (rest === null) return null;
        let t = 0, sh = 0;
        for (let i = 0; i < n; i++) { t += rest[i]!; sh += shared[i]!; }
        if (t > end - this.pos) return null;
        if (!(sh + t <= this.left)) return null;
        this.left -= sh + t;
        // All suffixes ASCII (one TextDecoder call gives a character a byte): each value is a prefix of the one
        // before (a slice) and its suffix (a slice), no bytes rebuilt.
        let suffixes: string;
        try { suffixes = utf8.decode(b.subarray(this.pos, this.pos + t)); } catch { return null; }
        if (suffixes.length === t) {
          const out: string[] = new Array(n);
          // `pre` is the prefix the value before was made with (it starts with it): a prefix no longer than
          // that is a slice of it, or that string itself when as long (the usual case, as dates of a month).
          let prev = "", pre = "", q = 0;
          for (let i = 0; i < n; i++) {
            const p = shared[i]!, l = rest[i]!;
            if (p > prev.length) return null;
            const head = p === pre.length ? pre : p < pre.length ? pre.slice(0, p) : prev.slice(0, p);
            // A one-character suffix (dates of a month, counters) read as `suffixes[q]`: V8's table of one-character
            // strings, where a slice is a builtin call.
            const v = l === 0 ? head : p === 0 ? suffixes.slice(q, q + l) : l === 1 ? head + suffixes[q]! : head + suffixes.slice(q, q + l);
            out[i] = v;
            prev = v;
            pre = head;
            q += l;
          }
          this.pos += t;
          return out;
        }
        // Rebuild every value's bytes one after the other (each the first p bytes of the one before, then its
        // suffix), then decode them all with one TextDecoder call and cut the strings out.
        const all = new Uint8Array(sh + t), lens: number[] = [];
        const at = rebuild(b, this.pos, shared, rest, all, lens);
        if (at < 0) return null;
        const out = this.split(0, lens, at, all);
        this.pos += t;
        return out;
      }
      default: return null;
    }
  }

}
