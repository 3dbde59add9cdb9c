import { XbfError, seg } from "./errors.js";
import { XbfType, isZeroSize, minSize, weight, writeMetadata, fingerprint } from "./metadata.js";
import { Reader, LimitOptions, FLAG_CHECKSUM, FLAG_REF, FLAG_STREAM, checkLimits } from "./decode_rows.js";
import { crc32c } from "./checksums.js";
import { Writer } from "./varint.js";
import { writeValue } from "./encode_rows.js";
import { ValueOptions, toPublic, normalize } from "./values.js";

export interface StreamReadOptions extends ValueOptions, LimitOptions {}

/**
 * Reads a record stream (SPEC 15). The header and type are read by the constructor (which throws
 * XbfError on them); iterating yields every record in order, then throws the stream's error, if any.
 */
export class StreamReader implements Iterable<unknown> {
  readonly type: XbfType;
  readonly checksums: boolean;
  /** Where the first block begins (the header's length) until iteration starts. */
  get headerEnd(): number { return this.start; }
  private readonly start: number;
  private pos: number;
  constructor(private bytes: Uint8Array, private opts: StreamReadOptions = {}) {
    checkLimits(opts);
    const r = new Reader(bytes, opts);
    const [t, flags] = r.head(true);
    this.type = t;
    this.checksums = (flags & FLAG_CHECKSUM) !== 0;
    this.pos = r.pos;
    this.start = r.pos;
  }

  /** Internal values of the records, in order (throws at the first error). */
  *internal(): Generator<unknown> {
    const b = this.bytes, len = b.length, t = this.type;
    let record = 0;
    while (this.pos < len) {
      const lenAt = this.pos;
      const lr = new Reader(b, this.opts, this.pos);
      lr.v2 = true;
      const declared = lr.uvarNum(64);
      if (declared === 0) throw new XbfError("invalid-varint", lenAt, "a block's length is at least 1");
      const base = lr.pos;
      let bodyEnd: number, next: number;
      if (this.checksums) {
        if (declared + 4 > len - base) throw new XbfError("truncated", lenAt, "the stream ends inside a checksummed block");
        bodyEnd = base + declared;
        const stored = new DataView(b.buffer, b.byteOffset).getUint32(bodyEnd, true);
        const actual = crc32c(b, base, bodyEnd);
        if (stored !== actual) {
          throw new XbfError("bad-checksum", bodyEnd, `the block's CRC-32C is ${actual.toString(16).padStart(8, "0")}, the stream says ${stored.toString(16).padStart(8, "0")}`);
        }
        next = bodyEnd + 4;
      } else {
        bodyEnd = Math.min(base + declared, len);
        next = bodyEnd;
      }
      const r = new Reader(b, this.opts, base, bodyEnd);
      r.v2 = true;
      const count = r.uvarNum(64);
      if (count === 0) throw new XbfError("invalid-varint", base, "a block holds at least one record");
      const min = minSize(t, true);
      if (min > 0) {
        // Exact: a declared length or a count past 2^53 is not a safe number (2^64 - 2 records do not
        // fit in 2^64 - 12 bytes, though both round to 2^64), so those are compared as bigints.
        const big = (at: number) => { const x = new Reader(b, this.opts, at); x.v2 = true; return x.uvarBig(64); };
        const exactCount = count > Number.MAX_SAFE_INTEGER ? big(base) : BigInt(count);
        const exactDeclared = declared > Number.MAX_SAFE_INTEGER ? big(lenAt) : BigInt(declared);
        const rest = exactDeclared - BigInt(r.pos - base);
        if (exactCount * BigInt(min) > rest) throw new XbfError("truncated", base, `${exactCount} records of at least ${min} bytes do not fit in the block's ${rest} bytes`);
      }
      if (min === 0) r.charge(base, count * weight(t));
      r.prepaid = isZeroSize(t) ? 1 : 0;
      for (let i = 0; i < count; i++) {
        let v: unknown;
        try { v = r.value(t, 0); } catch (e) { if (e instanceof XbfError) e.within(seg.record(record)); throw e; }
        record++;
        yield v;
      }
      if (bodyEnd - base < declared) throw new XbfError("truncated", bodyEnd, "the stream ends inside a block");
      if (r.pos < bodyEnd) throw new XbfError("trailing-bytes", r.pos, "bytes remain in the block after its records");
      this.pos = next;
    }
  }

  *[Symbol.iterator](): Generator<unknown> {
    for (const n of this.internal()) yield toPublic(this.type, n, this.opts);
  }
}

/** Reads a whole stream: its type, every record before the first error, and that error (or null). */
export function readStream(bytes: Uint8Array, opts: StreamReadOptions = {}): { type: XbfType | null; records: unknown[]; error: XbfError | null } {
  checkLimits(opts); // thrown, not returned: no byte of the stream was read
  const records: unknown[] = [];
  let type: XbfType | null = null;
  try {
    const s = new StreamReader(bytes, opts);
    type = s.type;
    for (const v of s) records.push(v);
    return { type, records, error: null };
  } catch (e) {
    if (e instanceof XbfError) return { type, records, error: e };
    throw e;
  }
}

export interface StreamWriteOptions {
  type: XbfType;
  /** A CRC-32C after every block (flag 08). */
  checksums?: boolean;
  /** The type's fingerprint instead of its metadata (flag 01). */
  schemaByReference?: boolean;
  /** Close a block once its body reaches this many bytes (default 64 KiB). */
  blockBytes?: number;
}

/** Writes a record stream: `write` records, `flush` to end a block, `finish` for the bytes. */
export class StreamWriter {
  private out = new Writer();
  private body = new Writer();
  private count = 0;
  readonly type: XbfType;
  constructor(private opts: StreamWriteOptions) {
    this.type = opts.type;
    this.out.u8(0xc2);
    this.out.u8(FLAG_STREAM | (opts.checksums ? FLAG_CHECKSUM : 0) | (opts.schemaByReference ? FLAG_REF : 0));
    if (opts.schemaByReference) this.out.bytes(fingerprint(opts.type));
    else writeMetadata(this.out, opts.type, true);
  }
  write(record: unknown): void {
    const n = normalize(this.type, record);
    writeValue(this.body, this.type, n, true);
    this.count++;
    if (this.body.len >= (this.opts.blockBytes ?? 65536)) this.flush();
  }
  /** Ends the current block (a block holds at least one record; an empty one is not written). */
  flush(): void {
    if (this.count === 0) return;
    const head = new Writer();
    head.uvar(this.count);
    const body = new Uint8Array(head.len + this.body.len);
    body.set(head.buf.subarray(0, head.len));
    body.set(this.body.buf.subarray(0, this.body.len), head.len);
    this.out.uvar(body.length);
    this.out.bytes(body);
    if (this.opts.checksums) this.out.fixed(crc32c(body), 4);
    this.body = new Writer();
    this.count = 0;
  }
  /** The bytes written so far, after ending the current block. */
  finish(): Uint8Array {
    this.flush();
    return this.out.finish();
  }
}
