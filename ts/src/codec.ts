import { XbfError, mismatch } from "./errors.js";
import { XbfType, Member, SchemaRegistry, writeMetadata, fingerprint, typeToString } from "./metadata.js";
import { sha256 } from "./checksums.js";
import { Reader, LimitOptions, FLAG_COLUMNAR, FLAG_REF, checkLimits } from "./decode_rows.js";
import { decodeColumns, encodeColumns, selectionFromPaths, Selection, worthTrying } from "./columnar.js";
import { setFloatTolerance } from "./float_columns.js";
import { Writer } from "./varint.js";
import { writeValue } from "./encode_rows.js";
import { Gathered, ValueOptions, toPublic, normalize, inferType, inferGathering, checkAnyLevels, anyLevel } from "./values.js";
import { BAIL, columnsDirect } from "./fast.js";
import { MetadataCache, cachedDirect, rowsDirect } from "./fast_rows.js";
import { knownType } from "./known_types.js";
import { columnValues, handles, resetRowsBound, rowValue, rowsBoundIsSum, rowsLarger, rowsLowerBound, setGathered, setInferred, setNoAbsentNull, worthTryingPublic } from "./fast_encode.js";

export interface DecodeOptions extends ValueOptions, LimitOptions {
  /** Projection: decode only these struct fields, as dotted paths through vecs, arrays and options (`"b.c"`). */
  fields?: string[];
}

export interface Decoded {
  type: XbfType;
  value: unknown;
  /** 1 for v1, 2 for XBF 2. */
  version: 1 | 2;
  /** Whether the value was laid out in columns. */
  columnar: boolean;
}

/** Decodes one message (v1 or XBF 2, rows or columns) into its internal value and type. */
export function decodeInternal(bytes: Uint8Array, opts: DecodeOptions = {}): { type: XbfType; n: unknown; version: 1 | 2; columnar: boolean } {
  checkLimits(opts);
  if (!(bytes instanceof Uint8Array)) throw mismatch("decode takes a Uint8Array");
  const r = new Reader(bytes, opts);
  const [t, flags] = r.head(false);
  const sel = opts.fields ? selectionFromPaths(opts.fields) : null;
  if (flags & FLAG_COLUMNAR) {
    const [pt, n] = decodeColumns(bytes, r.pos, t, opts, sel);
    return { type: pt, n, version: 2, columnar: true };
  }
  const n = r.rootValue(t);
  if (r.pos < bytes.length) throw new XbfError("trailing-bytes", r.pos, "bytes remain after the message");
  const version = r.v2 ? 2 : 1;
  if (!sel) return { type: t, n, version, columnar: false };
  const pt = pruneType(t, sel);
  if (!pt) throw mismatch("the selected fields are not in the message");
  return { type: pt, n: pruneValue(t, n, pt, sel), version, columnar: false };
}

/** Decodes one message and gives its type along with the value. */
export function decodeWithType(bytes: Uint8Array, opts: DecodeOptions = {}): Decoded {
  const d = decodeInternal(bytes, opts);
  return { type: d.type, value: toPublic(d.type, d.n, opts), version: d.version, columnar: d.columnar };
}

/** Decodes one XBF message (v1 or XBF 2, rows or columnar) into a JS value. */
export function decode(bytes: Uint8Array, opts: DecodeOptions = {}): unknown {
  if (opts.maxDepth !== undefined || opts.maxDecodedBytes !== undefined) checkLimits(opts);
  return decodeWith(bytes, opts, undefined);
}
function decodeWith(bytes: Uint8Array, opts: DecodeOptions, cache: MetadataCache | undefined): unknown {
  if (!opts.exact && !opts.fields && bytes instanceof Uint8Array) {
    try {
      return decodeDirect(bytes, opts, cache);
    } catch (e) {
      // Damaged input, or a part the direct path does not hold (BAIL, or an XbfError of the column readers it
      // shares): the reference decoder below decodes it or reports the error with its offset and path. Anything
      // else is a bug, not to be hidden.
      if (e !== BAIL && !(e instanceof XbfError)) throw e;
    }
  }
  const d = decodeInternal(bytes, opts);
  return toPublic(d.type, d.n, opts);
}

/** A decoder kept across calls, as msgpackr's `Unpackr`: its options, and its own cache of the metadata it has
 * met (parsed types and compiled row readers, by the metadata's bytes), so that a service reading one kind of
 * message parses its schema once, whatever other code decodes meanwhile. `decode` alone shares one such cache
 * in the module (256 schemas of at most 8 KiB of metadata each). */
export class Decoder {
  private readonly cache: MetadataCache = new Map();
  /** Throws `invalid-options` for a limit out of its range. */
  constructor(private readonly opts: DecodeOptions = {}) { checkLimits(opts); }
  /** Decodes one message, as `decode(bytes, opts)` with this decoder's options. */
  decode(bytes: Uint8Array): unknown {
    return decodeWith(bytes, this.opts, this.cache);
  }
}

/** XBF 2 bytes straight to public values (fast.ts); throws (BAIL or an error) where the reference decoder
 * has to take over. Exported for the tests that compare both paths. */
export function decodeDirect(bytes: Uint8Array, opts: DecodeOptions = {}, cache?: MetadataCache): unknown {
  const cached = cachedDirect(bytes, opts, cache);
  if (cached) return cached.value;
  const r = new Reader(bytes, opts);
  const [t, flags] = r.head(false);
  if (flags & FLAG_COLUMNAR) return columnsDirect(bytes, r.pos, t, opts);
  if (!r.v2) throw BAIL;
  return rowsDirect(r, t, opts);
}

function pruneType(t: XbfType, sel: Selection): XbfType | undefined {
  switch (t.kind) {
    case "struct": {
      const fields: Member[] = [];
      for (const f of t.fields) {
        if (!sel.has(f.name)) continue;
        const sub = sel.get(f.name);
        if (sub === null || sub === undefined) fields.push(f);
        else { const ft = pruneType(f.type, sub); if (ft) fields.push({ name: f.name, type: ft }); }
      }
      return fields.length ? { kind: "struct", name: t.name, fields } : undefined;
    }
    case "vec": { const e = pruneType(t.element, sel); return e && { kind: "vec", element: e }; }
    case "array": { const e = pruneType(t.element, sel); return e && { kind: "array", len: t.len, element: e }; }
    case "option": { const e = pruneType(t.inner, sel); return e && { kind: "option", inner: e }; }
    default: return t;
  }
}
function pruneValue(t: XbfType, n: any, pt: XbfType, sel: Selection): unknown {
  if (t.kind === "struct" && pt.kind === "struct") {
    return pt.fields.map((pf) => {
      const i = t.fields.findIndex((f) => f.name === pf.name);
      const sub = sel.get(pf.name);
      return sub ? pruneValue(t.fields[i]!.type, n[i], pf.type, sub) : n[i];
    });
  }
  if ((t.kind === "vec" || t.kind === "array") && (pt.kind === "vec" || pt.kind === "array")) return n.map((x: unknown) => pruneValue(t.element, x, pt.element, sel));
  if (t.kind === "option" && pt.kind === "option") return n === null ? null : [pruneValue(t.inner, n[0], pt.inner, sel)];
  return n;
}

export interface EncodeOptions {
  /** The type to encode with; inferred from the value as SPEC 19.1 does when absent. */
  type?: XbfType;
  /** 2 (default) for XBF 2, 1 for the v1 layout (v1 types only). */
  version?: 1 | 2;
  /** `"auto"` (default, as the Rust writer's `Layout::Auto`): columns when the value holds 16 or more repeated
   * items and they come out smaller than rows, rows otherwise; `"rows"` or `"columns"` force either. */
  layout?: "rows" | "columns" | "auto";
  /** Write the type's 8-byte fingerprint instead of its metadata (flag 01); the reader needs it in its registry. */
  schemaByReference?: boolean;
  /** Lossy floats, only on request (SPEC 22.5.1, the CLI's `--float-tolerance`): an absolute error bound,
   * positive and finite. Float columns are rounded to short decimals within it (each decoded float is within
   * the bound of the original); floats written in rows stay exact. */
  floatTolerance?: number;
}

/** Runs an encode with the float tolerance of `opts` set for the column writers (checked first). */
function withTolerance<T>(opts: EncodeOptions, f: () => T): T {
  const t = opts.floatTolerance;
  if (t === undefined) return f();
  if (!(typeof t === "number" && Number.isFinite(t) && t > 0)) throw new XbfError("invalid-options", undefined, `a float tolerance must be a positive finite number, not ${String(t)}`);
  setFloatTolerance(t);
  try { return f(); } finally { setFloatTolerance(undefined); }
}

/** The writer `encode` writes into (its result is a copy: `finish`), kept across calls so that its buffer does not
 * grow from 256 bytes each time; one that grew past 1 MiB is dropped after its call (not held on to). Taken
 * (null) while an encode writes: an encode run from inside it (a getter of the value) takes a writer of its own. */
let scratch: Writer | null = new Writer();

/** Encodes a JS value as one XBF message. */
export function encode(value: unknown, opts: EncodeOptions = {}): Uint8Array {
  return withTolerance(opts, () => encodeExact(value, opts));
}
function encodeExact(value: unknown, opts: EncodeOptions): Uint8Array {
  // (An inferred type: the records' fields gathered as inference loads them, for the columns below.)
  let g: Gathered | null = null, t: XbfType;
  if (opts.type) t = opts.type;
  else ({ type: t, gathered: g } = inferGathering(value));
  if (opts.type && anyLevel(t, 0) >= 128) throw new XbfError("too-deep", undefined, "a value of type any would open level 129");
  // Every writer below gets the kept copy of t's structure (known_types.ts): the caches they keep per type (here
  // and in values.ts) then cannot see a type object the caller changed since. A type whose metadata is refused
  // (a duplicate field) is used as given: the writers report it.
  try { t = knownType(t).type; } catch (e) { if (!(e instanceof XbfError)) throw e; }
  if (opts.version !== 1 && handles(t)) {
    setInferred(!opts.type);
    setGathered(g);
    const w = scratch ?? new Writer();
    scratch = null;
    try {
      return encodeDirect(t, value, opts, w);
    } catch (e) {
      // A value the direct writer does not take (BAIL) or a wrong one (an XbfError): normalize below checks it
      // and reports. Anything else is a bug, not to be hidden.
      if (e !== BAIL && !(e instanceof XbfError)) throw e;
    } finally {
      setInferred(false);
      setGathered(null);
      if (w.buf.length <= 1 << 20) scratch = w;
    }
  }
  const n = normalize(t, value);
  checkAnyLevels(t, n);
  return encodeInternal(t, n, opts);
}

/** Column writes started (encodeDirect), to tell whether one ran inside another. */
let encodes = 0;

/** XBF 2 straight from the public values (fast_encode.ts), for the types `handles` accepts; throws where the
 * reference path (normalize, then encodeInternal) has to take over. Exported for the tests. `w`: a writer to
 * reuse (its contents are dropped). The values are written with the kept copy of a type of t's structure
 * (known_types.ts), which holds its metadata bytes and is what fast_encode.ts's per-type caches key on. */
export function encodeDirect(type: XbfType, value: unknown, opts: EncodeOptions = {}, w: Writer = new Writer()): Uint8Array {
  const known = knownType(type), t = known.type; // (the same object when encodeExact found it)
  // Header: the magic, the flags, then the fingerprint or the metadata; `at` is where the values begin.
  w.len = 0;
  w.u8(0xc2);
  w.u8(opts.schemaByReference ? FLAG_REF : 0);
  if (opts.schemaByReference) w.bytes(sha256(known.meta).subarray(0, 8));
  else w.bytes(known.meta);
  const at = w.len;
  const flags = opts.schemaByReference ? FLAG_REF : 0;
  const rows = () => { w.len = at; w.buf[1] = flags; rowValue(w, t, value); return w.finish(); };
  // The rows bound counted while the columns are written; -1 when another encode ran meanwhile (from a getter of
  // the value: it counted into the same place).
  let bound = -1;
  const cols = () => {
    w.len = at; w.buf[1] = flags | FLAG_COLUMNAR;
    const run = ++encodes;
    resetRowsBound();
    columnValues(t, [value], w);
    bound = run === encodes ? rowsLowerBound() : -1;
    return w.finish();
  };
  const layout = opts.layout ?? "auto";
  if (layout === "rows") return rows();
  if (layout === "columns") return cols();
  if (!worthTryingPublic(t, value)) return rows();
  const c = cols();
  // Rows and columns share the header and metadata; when the rows' values alone surely take more than the
  // columns', the rows are not written (the reference writes both and keeps the smaller: same choice). First
  // from the lower bound the column writers counted as they checked the values (no pass of its own), then
  // from rowsLarger's closer one.
  // (rowsLarger's sum is the bound itself when no integer was counted short: it would not pass the columns' size
  // either, and is skipped, unless its estimate from a sample of a long list may decide: that is a choice.)
  if (bound > c.length - at) return c;
  const sampled = t.kind === "vec" && Array.isArray(value) && value.length >= 2048;
  if ((sampled || bound < 0 || !rowsBoundIsSum()) && rowsLarger(t, value, c.length - at)) return c;
  const r = rows();
  return c.length < r.length ? c : r;
}

/** An encoder kept across calls, as msgpackr's `Packr`: it remembers the type it last inferred (or was
 * given) and its output buffer. `encode(value)` first tries the remembered type: when the value fits it
 * (the same checks as `encode` with that type), the message is written with it and nothing is inferred;
 * otherwise the type is inferred from the value, as `encode` does, and remembered in its place. A value
 * encoded with a remembered type may therefore carry a wider type than `encode(value)` would infer for it
 * alone (an option where it has no null, a field that may be absent): the same JS values decode from it,
 * and a reader that keeps schemas by reference sees one type for the whole series. */
export class Encoder {
  private t: XbfType | undefined;
  private readonly w = new Writer();
  constructor(private readonly opts: EncodeOptions = {}) {
    if (opts.type && anyLevel(opts.type, 0) >= 128) throw new XbfError("too-deep", undefined, "a value of type any would open level 129");
    this.t = opts.type;
  }
  /** The type used by the last call (or given), if any. */
  get type(): XbfType | undefined { return this.t; }
  /** Encodes one value as one XBF message (a new Uint8Array; the encoder's buffer is reused). */
  encode(value: unknown): Uint8Array {
    const opts = this.opts;
    if (opts.version === 1) return encode(value, opts);
    const known = this.t;
    if (known && handles(known)) {
      // A type remembered, not given: a missing key may not become an option's null (the value would not
      // decode as it was).
      setNoAbsentNull(!opts.type);
      try { return withTolerance(opts, () => encodeDirect(known, value, opts, this.w)); } catch (e) {
        if (e !== BAIL && !(e instanceof XbfError && e.kind !== "unsupported")) throw e;
      } finally { setNoAbsentNull(false); }
      if (opts.type) return encode(value, opts); // a given type is kept: the reference path reports the error
    }
    const t = inferType(value);
    this.t = t;
    if (handles(t)) {
      setInferred(true);
      try { return withTolerance(opts, () => encodeDirect(t, value, opts, this.w)); } catch (e) {
        if (e !== BAIL && !(e instanceof XbfError)) throw e;
      } finally { setInferred(false); }
    }
    return encode(value, { ...opts, type: t });
  }
}

export function encodeInternal(t: XbfType, n: unknown, opts: EncodeOptions = {}): Uint8Array {
  if (opts.version === 1) {
    if (opts.schemaByReference || (opts.layout && opts.layout !== "rows")) throw new XbfError("unsupported", undefined, "XBF v1 has no header flags");
    const w = new Writer();
    try { writeMetadata(w, t, false); } catch (e) {
      if (e instanceof XbfError && e.kind === "unsupported") throw new XbfError("unsupported", undefined, `XBF v1 has no type ${typeToString(t)}`);
      throw e;
    }
    writeValue(w, t, n, false);
    return w.finish();
  }
  const head = (columnar: boolean) => {
    const w = new Writer();
    w.u8(0xc2);
    w.u8((opts.schemaByReference ? FLAG_REF : 0) | (columnar ? FLAG_COLUMNAR : 0));
    if (opts.schemaByReference) w.bytes(fingerprint(t));
    else writeMetadata(w, t, true);
    return w;
  };
  const rows = () => { const w = head(false); writeValue(w, t, n, true); return w.finish(); };
  const cols = () => { const w = head(true); encodeColumns(t, [n], w); return w.finish(); };
  const layout = opts.layout ?? "auto";
  if (layout === "rows") return rows();
  if (layout === "columns") return cols();
  const r = rows();
  if (!worthTrying(t, n)) return r;
  const c = cols();
  return c.length < r.length ? c : r;
}

export { SchemaRegistry };
