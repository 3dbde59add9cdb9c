// A record stream (SPEC 15) read from a stream of chunks (a web ReadableStream, a Node stream, an async
// generator): records are yielded block by block as each whole block arrives, so memory holds about one block
// and one chunk. Each block is read by StreamReader (the header's bytes, then the block), so values and errors
// are those of reading the whole stream at once: error offsets are moved to the stream's, record paths renumbered.
import { XbfError } from "./errors.js";
import { StreamReader, type StreamReadOptions } from "./stream.js";
import { checkLimits } from "./decode_rows.js";
import { chunksOf, type ChunkSource } from "./file.js";
import type { XbfType } from "./metadata.js";

/** The varint at b[p..end): [value, its length], or null when it ends past `end` (more bytes needed). Values
 * past 2^53 (which no block of a real stream has) are returned as Infinity: StreamReader then reports them. */
function varint(b: Uint8Array, p: number, end: number): [number, number] | null {
  let v = 0, mul = 1;
  for (let i = p; i < end && i < p + 10; i++) {
    const c = b[i]!;
    v += (c & 127) * mul;
    if (c < 128) return [v, i + 1 - p];
    mul *= 128;
  }
  return end - p >= 10 ? [Infinity, 10] : null;
}

/**
 * Reads a record stream from chunks. Iterate it for the records; `type` is set once the header is read. The
 * error that ends the stream (as `StreamReader` would throw it on the whole bytes, with the same kind, offset
 * and path) is thrown after every record before it. The decoded-bytes budget (`maxDecodedBytes`) applies to
 * each block, since only one block is held at a time.
 */
export class StreamChunkReader implements AsyncIterable<unknown> {
  type: XbfType | null = null;
  constructor(private source: ChunkSource, private opts: StreamReadOptions = {}) { checkLimits(opts); }

  async *[Symbol.asyncIterator](): AsyncGenerator<unknown> {
    const it = chunksOf(this.source)[Symbol.asyncIterator]();
    let buf = new Uint8Array(0);
    let eof = false;
    const more = async (): Promise<boolean> => {
      if (eof) return false;
      const next = await it.next();
      if (next.done) { eof = true; return false; }
      const nb = new Uint8Array(buf.length + next.value.length);
      nb.set(buf); nb.set(next.value, buf.length);
      buf = nb;
      return true;
    };
    try {
      // The header: read again as chunks come until it is whole (or the stream ends inside it).
      let head: StreamReader;
      for (;;) {
        try { head = new StreamReader(buf, this.opts); break; } catch (e) {
          if (!(e instanceof XbfError) || e.kind !== "truncated" || !(await more())) throw e;
        }
      }
      this.type = head.type;
      const h = head.headerEnd, header = buf.slice(0, h);
      let at = h; // the stream offset of buf[h]
      let records = 0;
      buf = buf.subarray(h);
      for (;;) {
        if (buf.length === 0 && !(await more())) return;
        // A whole block: its length, its body and, with checksums, the 4 bytes after it.
        const lv = varint(buf, 0, buf.length);
        const need = lv === null ? Infinity : lv[1] + lv[0] + (head.checksums ? 4 : 0);
        if (need > buf.length && (lv === null || lv[0] > 0) && (await more())) continue;
        const whole = need <= buf.length && lv !== null && lv[0] > 0;
        const blockEnd = whole ? need : buf.length;
        const one = new Uint8Array(h + blockEnd);
        one.set(header); one.set(buf.subarray(0, blockEnd), h);
        let n = 0;
        try {
          for (const v of new StreamReader(one, this.opts)) { n++; yield v; }
        } catch (e) {
          if (e instanceof XbfError) {
            if (e.offset !== undefined && e.offset >= h) e.shifted(at - h);
            const first = e.segments[0];
            if (first !== undefined && /^#\d+$/.test(first)) { e.segments[0] = `#${records + Number(first.slice(1))}`; e.shifted(0); }
          }
          throw e;
        }
        records += n;
        at += blockEnd;
        buf = buf.subarray(blockEnd);
        if (!whole) return; // the rest of the stream was read as one (incomplete) block: it threw or ended
      }
    } finally {
      if (!eof) await it.return?.(undefined);
    }
  }
}
