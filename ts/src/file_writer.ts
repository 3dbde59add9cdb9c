// Writing XBF files (SPEC 24.5): records are held until a block is full, then encoded in columns by the columnar
// encoder of messages (so the TypeScript writer never writes the file-only `04`/`05`, which every reader of
// files reads anyway), framed with the body's CRC-32C; the footer with every block's place and statistics ends
// the file. Appending writes more blocks after a finished file and a footer that lists them all.
import { XbfError, mismatch } from "./errors.js";
import { XbfType, fingerprint, writeMetadata } from "./metadata.js";
import { FLAG_CHECKSUM, FLAG_COLUMNAR, FLAG_REF, FLAG_STREAM } from "./decode_rows.js";
import { encodeColumns } from "./columnar.js";
import { crc32c } from "./checksums.js";
import { Writer } from "./varint.js";
import { normalize, checkAnyLevels } from "./values.js";
import { BlockInfo, ColumnStatistics, MAGIC, Slot, encodeFooter, gather, slots } from "./file_footer.js";
import { FileReader, FileReadOptions, columnRanges } from "./file.js";

export interface FileWriteOptions {
  /** The type of the records. */
  type: XbfType;
  /** Close a block at this many records (default 131,072, as the Rust writer). */
  blockRows?: number;
  /** Close a block once its records take about this many bytes as values (default 32 MiB; an estimate: 8 bytes
   * a scalar, strings and bytes by their length). */
  blockBytes?: number;
  /** The type's fingerprint in the header instead of its metadata (flag 01). */
  schemaByReference?: boolean;
}

const EMPTY: ColumnStatistics = { minMax: null, exact: false, nulls: 0, nans: 0 };

/**
 * Writes an XBF file: `write` records (public values, as `encode` takes them), `take` the bytes written so far
 * (to send or store them while writing: memory then holds one block), `finish` for the rest, footer included.
 */
export class FileWriter {
  readonly type: XbfType;
  private out = new Writer();
  private pending: unknown[] = [];
  private pendingBytes = 0;
  /** The file offset of the next byte. */
  private pos = 0;
  private readonly slots: Slot[] | null;
  private readonly rows: number;
  private readonly maxBytes: number;
  private finished = false;
  /** The blocks written so far, as the footer will list them. */
  readonly blocks: BlockInfo[] = [];

  constructor(opts: FileWriteOptions, resume?: { pos: number; blocks: BlockInfo[] }) {
    this.type = opts.type;
    this.slots = slots(opts.type);
    this.rows = Math.max(1, opts.blockRows ?? 131072);
    this.maxBytes = opts.blockBytes ?? 32 << 20;
    if (resume) {
      this.pos = resume.pos;
      this.blocks.push(...resume.blocks);
      return;
    }
    this.out.u8(0xc2);
    this.out.u8(FLAG_COLUMNAR | FLAG_STREAM | FLAG_CHECKSUM | (opts.schemaByReference ? FLAG_REF : 0));
    if (opts.schemaByReference) this.out.bytes(fingerprint(opts.type));
    else writeMetadata(this.out, opts.type, true);
    this.pos = this.out.len;
  }

  /**
   * Continues a finished file (SPEC 24.5): `existing` is its bytes; the writer's output (`take`, `finish`) is
   * what to add after them (new blocks, then a footer that lists the old blocks and the new). Nothing already
   * written changes. The file's type is used; `schemaByReference` must be the file's (`unsupported` otherwise).
   */
  static append(existing: Uint8Array, opts: Omit<FileWriteOptions, "type"> & FileReadOptions = {}): FileWriter {
    const r = new FileReader(existing, opts);
    if (r.byReference !== (opts.schemaByReference ?? false)) throw new XbfError("unsupported", undefined, "appending must keep the file's schema-by-reference flag");
    return new FileWriter({ ...opts, type: r.type }, { pos: existing.length, blocks: r.blocks });
  }

  /** Adds a record (a public value of the file's type); writes a block once enough records are held. */
  write(record: unknown): void {
    const n = normalize(this.type, record);
    checkAnyLevels(this.type, n);
    this.writeInternal(n);
  }
  /** Adds a record in the package's internal form (as `decodeInternal` gives values). */
  writeInternal(n: unknown): void {
    if (this.finished) throw mismatch("the file is finished");
    this.pendingBytes += approxSize(this.type, n);
    this.pending.push(n);
    if (this.pending.length >= this.rows || this.pendingBytes >= this.maxBytes) this.flush();
  }

  /** Writes the held records as a block now (nothing if none). */
  flush(): void {
    if (this.pending.length === 0) return;
    const records = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    const body = new Writer();
    body.uvar(records.length);
    encodeColumns(this.type, records, body);
    const bytes = body.finish();
    const stats = this.slots ? gather(this.type, records) : null;
    const places = columnRanges(this.type, bytes, 0, {});
    const columns = places.map((p, j) => {
      const slot = this.slots?.[j];
      const st = slot && slot.stat !== null ? stats!.get(slot.path) ?? EMPTY : EMPTY;
      return { size: p.size, crc: crc32c(bytes, p.offset, p.offset + p.size), stats: st };
    });
    const start = this.out.len;
    this.out.uvar(bytes.length);
    this.out.bytes(bytes);
    this.out.fixed(crc32c(bytes), 4);
    const size = this.out.len - start;
    this.blocks.push({ offset: this.pos, size, records: records.length, columns });
    this.pos += size;
  }

  /** The bytes written since the last `take` (or since the start). */
  take(): Uint8Array {
    const b = this.out.finish();
    this.out = new Writer();
    return b;
  }

  /** Writes the last block and the footer part; returns the bytes not yet taken. */
  finish(): Uint8Array {
    if (this.finished) throw mismatch("the file is finished");
    this.flush();
    this.finished = true;
    const body = encodeFooter(this.blocks, this.slots && this.slots.map((s) => s.stat));
    if (body.length > 0xffffffff) throw new XbfError("too-large", undefined, "a footer of 4 GiB or more: write fewer, larger blocks");
    this.out.u8(0);
    this.out.uvar(body.length);
    this.out.bytes(body);
    this.out.fixed(crc32c(body), 4);
    this.out.fixed(body.length, 4);
    this.out.bytes(MAGIC);
    return this.take();
  }
}

/** A string's UTF-8 length without encoding it (a lone surrogate is written as U+FFFD, 3 bytes). */
function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c < 0xdc00 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { n += 2; i++; } // 4 bytes for 2 units
    else n += 2;
  }
  return n;
}

/** A cheap estimate of a record's size as values, for cutting blocks (the Rust writer's, strings by UTF-8 bytes). */
function approxSize(t: XbfType, v: any): number {
  switch (t.kind) {
    case "string": return 8 + utf8Length(v as string);
    case "bytes": return 8 + (v as Uint8Array).length;
    case "vec": case "array": { let s = 8; for (const x of v) s += approxSize(t.element, x); return s; }
    case "struct": return t.fields.reduce((a, f, i) => a + approxSize(f.type, v[i]), 0);
    case "tuple": return t.elements.reduce((a, e, i) => a + approxSize(e, v[i]), 0);
    case "option": return 1 + (v === null ? 0 : approxSize(t.inner, v[0]));
    case "map": { let s = 8; for (const [k, x] of v) s += approxSize(t.key, k) + approxSize(t.value, x); return s; }
    case "enum": return 1 + approxSize(t.variants[v.i]!.type, v.v);
    case "any": return 1 + approxSize(v.t, v.v);
    default: return 8;
  }
}
