// Direct decoding: bytes to the public JS values (the default mapping of values.ts's toPublic), with no
// intermediate tree. This file: the columns (each column decoded straight into an array of public values,
// numbers while they are exact, one TextDecoder call per string column; struct rows built from those arrays
// with one fixed key order) and what the rows share with them. fast_rows.ts: the rows (a reader closure
// compiled once per message from its metadata) and the cache of parsed metadata.
//
// This path only has to be right on valid input. Anything unusual (a damaged byte, a value this path does not
// hold as a number, a type it does not specialise) either takes the reference decoder for that part
// (decode_rows.ts / columnar.ts, charging the same budgets) or throws BAIL, and codec.ts then decodes the
// whole message with the reference decoder, whose errors (kind, offset, path) are the ones reported. The
// checks here are at least as strict as the reference decoder's, so a message it rejects never comes back
// as a value; every allocation is bounded by the same budgets (counts against the bytes that remain, the
// decoded-memory budget of rows and columns) before it is made.
import { INT_INFO, XbfType } from "./metadata.js";
import { LimitOptions, DEFAULT_MAX_DECODED_BYTES } from "./decode_rows.js";
import { Cursor, ColReader, VALUE_COST, anyTypes, decodeFloats, decodeInts, decodeStrings } from "./columnar.js";
import { ENTROPY, RUNS, canonicalOrder, readCodes } from "./cascade.js";
import { ValueOptions, XbfDate, XbfEnum, XbfSome, XbfTimestamp, isOptionalEnum, toPublic } from "./values.js";
import { unzigzag, unzigzagNum } from "./varint.js";
import { SMI, MAX_LENGTH, smallInts, doubles, tagged, boxed, toDoubles, padCopy, bitsAt, bits32, F64, F32, WORDS, LITTLE, POW2, decimalsFor, decimalsDelta, decimalsForSmall, decimalsDeltaSmall, unpack, unpackZigzag, undelta } from "./fast_bits.js";

/** Thrown when the direct path gives up; the caller then runs the reference decoder. */
export const BAIL: unique symbol = Symbol("xbf.bail");
export function bail(): never {
  throw BAIL;
}

export type FastOptions = ValueOptions & LimitOptions;
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
export const MAX_SAFE = 9007199254740991;


/** Public value of an integer of `kind` (zigzag already undone) held exactly in a number. */
export function intConv(kind: string, o: FastOptions): ((x: number) => unknown) | null {
  if (kind === "date") return (x) => new XbfDate(x);
  if (kind === "timestamp") return (x) => new XbfTimestamp(BigInt(x));
  const bits = INT_INFO[kind]![0];
  if (bits > 32 && o.int64 === "bigint") return bigintOf;
  return null; // the number itself
}
/** BigInts of 0 to 4095, each made when first needed and then shared: a bigint has no identity (equal bigints
 * are the same value to every operation), so one object can be every value equal to it. */
const SMALL_BIGINTS: (bigint | undefined)[] = new Array(4096);
/** A 64-bit scratch integer seen as one BigInt and as two 32-bit halves (LO_HALF the low one on this machine). */
const BIG64 = new BigInt64Array(1), HALVES = new Int32Array(BIG64.buffer);
const LO_HALF = LITTLE ? 0 : 1, HI_HALF = 1 - LO_HALF;
/** 2^-32: x * 2^-32 is x / 2^32 exactly (a power of two), a multiplication where a division takes longer. */
const TWO_POW_MINUS_32 = 2 ** -32;
/** The bigint of x, an integer with |x| <= 2^53: 0 to 4095 from SMALL_BIGINTS, others from their two 32-bit halves
 * written to a scratch BigInt64Array and the element read back. `BigInt(x)` of a number past 2^31 calls a C++
 * builtin (about 420 instructions a value under callgrind, node 20); this is about 100, and exact: `x | 0` is x
 * modulo 2^32 (ToInt32) and x * 2^-32 is exact, so its floor is the high half, both within 32 bits for
 * |x| <= 2^53; for x in 32 bits the high half is x's sign (`x >> 31`), no floor. */
export function bigintOf(x: number): bigint {
  if (x >= 0 && x < 4096) { const c = SMALL_BIGINTS[x]; return c !== undefined ? c : (SMALL_BIGINTS[x] = BigInt(x)); }
  HALVES[LO_HALF] = x | 0;
  HALVES[HI_HALF] = x >= -2147483648 && x < 2147483648 ? x >> 31 : Math.floor(x * TWO_POW_MINUS_32);
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

/** Could the public value of `t` be null (so that a present option around it needs XbfSome)? */
export function nullable(t: XbfType): boolean {
  return t.kind === "option" || t.kind === "unit" || t.kind === "any";
}

// ------------------------------------------------------------------ object building
/** Builds n objects from their fields' columns. A field's mode says how its column is read: PLAIN, one value per
 * object; ABSENT_KEY (a `json.optional` field), only the values present, in order, and `tags[j][i]` says whether
 * object i has one (1) or leaves the key out (0); NULLABLE (an option whose present values are never null),
 * only the values present, and `tags[j][i]` 0 gives null. `tags[j]` is null for PLAIN fields. (No column of n
 * entries mixing values and a marker or null: such an array holds every number boxed, and costs a pass.) */
type Builder = (cols: unknown[][], n: number, tags: (number[] | null)[]) => unknown[];
const PLAIN = 0, ABSENT_KEY = 1, NULLABLE = 2;
let codegen: boolean | undefined;
/** Whether `new Function` is allowed here (a page's CSP may forbid it); checked once. */
/** Forbids (false) or allows again (undefined: checked anew) generated code: for the tests and the benchmark
 * of the paths a page whose CSP forbids `new Function` takes. Not part of the package's interface. */
export function setCodegen(allowed: false | undefined): void { codegen = allowed; }
export function canGenerate(): boolean {
  if (codegen === undefined) {
    try { codegen = new Function("return 1")() === 1; } catch { codegen = false; }
  }
  return codegen;
}
/** Structs with more fields than this are built by closures (generated code stays small whatever the input). */
export const MAX_GENERATED = 256;
/** Generated functions by tag and key list, at most `max` kept. When full, the entry made first goes (a Map
 * iterates in insertion order), not every entry at once: a working set smaller than the bound is never thrown
 * away and made again, and one more key list costs one function, not all of them. */
class CodeCache {
  private readonly m = new Map<string, unknown>();
  constructor(private readonly max: number) {}
  get<T>(tag: string, keys: string[], make: () => T): T {
    const id = tag + "\u0000" + keys.join("\u0000");
    let f = this.m.get(id) as T | undefined;
    if (f === undefined) {
      if (this.m.size >= this.max) this.m.delete(this.m.keys().next().value as string);
      f = make();
      this.m.set(id, f);
    }
    return f;
  }
}
/** A statement naming a key list, for the source of generated code whose text would otherwise not depend on the keys
 * (a builder or row reader calling the key list's record constructor): V8 keeps the code `new Function` compiles by its
 * source text, with its feedback, so two key lists whose builders read the same text (as many fields, the same modes)
 * would share one builder's feedback and optimised code, and its `new R(…)` would meet every such list's constructor
 * (a polymorphic call, not the one constructor inlined). In a program that decoded seattle-weather's records before
 * gapminder's (6 fields each) gapminder's decode took 1.4 times as long (BENCHMARKS.md, issue 23, tsdec13). */
export function keysStatement(keys: string[]): string {
  return `void ${JSON.stringify(keys.join("\u0000"))};`;
}
/** The encoder's and inference's generated code (values.ts, fast_encode.ts). */
const encodeCode = new CodeCache(512);
/** The decoders' (object builders of the columns, row readers): a cache of their own, so that however many key
 * lists inference meets, it never evicts a builder a decoder still uses. */
const decodeCode = new CodeCache(512);
/** untypedFloats' literals: a cache of their own, so that they never take a builder's place in decodeCode. */
const widenCode = new CodeCache(512);
/** Generated code for a key list, made once (at most 512 kept): the encoder's and inference's. */
export function generate<T>(tag: string, keys: string[], make: () => T): T {
  return encodeCode.get(tag, keys, make);
}
/** Generated code for a key list, made once (at most 512 kept): the decoders'. */
export function generateDecoder<T>(tag: string, keys: string[], make: () => T): T {
  return decodeCode.get(tag, keys, make);
}
/** Record constructors by key list (at most 512 kept): a cache of their own, so that a constructor is never evicted
 * while the builders and row readers made with it are kept. */
const recordCode = new CodeCache(512);
/** A generated record constructor: `new R(v0, v1, …)` is `{ k0: v0, k1: v1, … }`. */
export type RecordCtor = new (...values: unknown[]) => object;
/** The constructor of records with these keys, or null where an object literal has to build them. Why not a literal:
 * a literal has an allocation site, and once V8's new space has grown to its maximum (a long-running process, or a
 * benchmark that ran another file first) V8 pretenures a site whose objects survived a scavenge (a decode's records
 * do, until it returns), after which every record and its number boxes are allocated in old space (BENCHMARKS.md,
 * TypeScript, issue 23's pretenuring). `new` of an ordinary function has no allocation site. Its prototype is
 * Object.prototype, set before the first `new`, so its records are what the literal made: that prototype, no own
 * `constructor`, the keys in the same order. Null (a literal, as before) for a key Object.prototype has: the
 * constructor's stores would meet the prototype's property (a setter, `__proto__`; a method of a frozen
 * prototype), where a literal defines an own property. */
export function recordConstructor(keys: string[]): RecordCtor | null {
  if (keys.length === 0 || keys.length > MAX_GENERATED || !canGenerate() || keys.some((k) => k in Object.prototype)) return null;
  return recordCode.get("record", keys, () => {
    const body = keys.map((k, j) => `this[${JSON.stringify(k)}] = v${j};`).join(" ");
    const R = new Function(`return function R(${keys.map((_, j) => `v${j}`).join(", ")}) { ${body} };`)() as RecordCtor;
    R.prototype = Object.prototype;
    return R;
  });
}
/** The struct types whose float fields untypedFloats has widened (once each). */
const WIDENED = new WeakSet<XbfType>();
/** The builder of each struct type met (types are kept with their metadata: see cachedDirect). */
const BUILDERS = [new WeakMap<XbfType, Builder>(), new WeakMap<XbfType, Builder>()]; // without, with generated code
/** `variant` names the options that change the columns' values (int64 as bigints): each gets its own generated
 * builder, so that the object shapes and loads of one mode's builder never see another mode's values. */
function builder(keys: string[], modes: number[], variant: string): Builder {
  const generable = !keys.includes("__proto__") && keys.length > 0 && keys.length <= MAX_GENERATED && canGenerate();
  // A field's value in generated code: its column's next value, or null where its tag is 0.
  const value = (j: number) => (modes[j] === PLAIN ? `c${j}[i]` : modes[j] === NULLABLE ? `(t${j}[i] === 0 ? null : c${j}[q${j}++])` : `c${j}[q${j}++]`);
  const cs = keys.map((_, j) => (modes[j] === PLAIN ? `c${j} = cols[${j}]` : `c${j} = cols[${j}], t${j} = tags[${j}]`)).join(", ");
  const qs = ["_ = 0", ...keys.map((_, j) => (modes[j] === PLAIN ? "" : `q${j} = 0`)).filter((x) => x)].join(", ");
  const tag = modes.join("") + variant;
  if (generable && !modes.includes(ABSENT_KEY)) {
    // One constructor call (or object literal) per record: every row object gets the same shape, its fields
    // in-object, as JSON.parse makes them.
    // The array is sized once (n was charged to the decoded-memory budget, and every field's column is already an
    // array of n values, so n is a valid length): no growth copies while filling, as msgpackr sizes its arrays.
    // Made by the key list's record constructor where there is one (see recordConstructor), else by the literal.
    const R = recordConstructor(keys);
    // The generated code is kept per key list and given the constructor on each use (a constructor made again after
    // its cache evicted it then goes with the builders made since, as untypedFloats finds it).
    const make = generateDecoder((R === null ? "columns:" : "records:") + tag, keys, () => {
      const rec = R === null ? `{ ${keys.map((k, j) => `${JSON.stringify(k)}: ${value(j)}`).join(", ")} }` : `new R(${keys.map((_, j) => value(j)).join(", ")})`;
      return new Function("R", `return function (cols, n, tags) { ${keysStatement(keys)} const ${cs}; let ${qs}; const out = new Array(n); for (let i = 0; i < n; i++) out[i] = ${rec}; return out; };`) as (r: RecordCtor | null) => Builder;
    });
    return make(R);
  }
  if (generable) {
    // Records with keys that may be left out: one assignment per key, in order, an optional one only where its
    // tag says present, from its column's next value (straight-line code instead of a loop over the keys). A
    // generated constructor taking every field was slower (BENCHMARKS.md, TypeScript). `{}` has no allocation site
    // (V8's CreateEmptyObjectLiteral), so V8 cannot pretenure these records (an empty constructor's `new E()`
    // instead measured the same: BENCHMARKS.md, issue 23's pretenuring).
    return generateDecoder("optional:" + tag, keys, () => {
      const body = keys
        .map((k, j) => (modes[j] === ABSENT_KEY ? `if (t${j}[i] === 1) o[${JSON.stringify(k)}] = ${value(j)};` : `o[${JSON.stringify(k)}] = ${value(j)};`))
        .join(" ");
      return new Function("cols", "n", "tags", `const ${cs}; let ${qs}; const out = new Array(n); for (let i = 0; i < n; i++) { const o = {}; ${body} out[i] = o; } return out;`) as Builder;
    });
  }
  return (cols, n, tags) => {
    // Sized once, as the generated builders. A struct with no fields has no column bounding n: past JavaScript's
    // longest array (possible only without a decoded-memory budget) the reference decoder decides.
    if (n > MAX_LENGTH) bail();
    const out = new Array<unknown>(n);
    const m = keys.length;
    const q = new Array<number>(m).fill(0);
    for (let i = 0; i < n; i++) {
      const o: Record<string, unknown> = {};
      for (let j = 0; j < m; j++) {
        const tj = tags[j];
        if (tj && tj[i] !== 1 && modes[j] === ABSENT_KEY) continue;
        const v = tj ? (tj[i] === 0 ? null : cols[j]![q[j]!++]) : cols[j]![i];
        const k = keys[j]!;
        if (k === "__proto__") Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
        else o[k] = v;
      }
      out[i] = o;
    }
    return out;
  };
}

/** Makes the float fields of the objects an object literal with these keys (in this order) builds hold any value
 * (a tagged field) instead of a double of their own. V8 gives every object literal with the same keys in the same
 * order one chain of hidden classes, and a field of it that has only ever held numbers holds each as a double in
 * a box of its own: storing a float dictionary's shared box (a `tagged` column) there copies the number into a new
 * box per object. One object made here with a string where the numbers go widens those fields for the whole chain
 * at once (the string only here: the decoded objects' values are the same numbers), so the builder's stores then
 * copy the pointer to the entry's box. `firsts[j]` is field j's stand-in value: "" for a float field, a value of
 * the kind the others hold (0, "", null), which leaves theirs as it is. */
function untypedFloats(keys: string[], firsts: unknown[]): void {
  // Records made by a constructor have its maps, not the literal's: the widening goes to the same constructor.
  const R = recordConstructor(keys);
  if (R !== null) { new R(...firsts); return; }
  const make = widenCode.get("firsts", keys, () => {
    const lit = keys.map((k, j) => `${JSON.stringify(k)}: v[${j}]`).join(", ");
    return new Function("v", `return { ${lit} };`) as (v: unknown[]) => unknown;
  });
  make(firsts);
}
/** The stand-in values for `untypedFloats` of a struct's fields (their modes as `builder` takes them), or null when
 * it has no float field read straight from its column (nothing to widen). */
function floatFirsts(t: Extract<XbfType, { kind: "struct" }>, modes: number[], variant: string): unknown[] | null {
  let any = false;
  const firsts = t.fields.map((f, j) => {
    const k = f.type.kind;
    if (modes[j] !== PLAIN) return null;
    if (k === "f64" || k === "f32") { any = true; return ""; }
    if (k === "string") return "";
    if (k === "bool") return false;
    if (k === "date" || k === "timestamp") return null; // objects (XbfDate, XbfTimestamp)
    const info = INT_INFO[k];
    return info !== undefined && !(info[0] > 32 && variant !== "") ? 0 : null;
  });
  return any ? firsts : null;
}

// ------------------------------------------------------------------ columns
/** Runs up to this long are filled by a loop, longer ones by `fill`: Array.prototype.fill is a C++ builtin in node 20
 * (about 200 instructions a call under callgrind, where the loop's stores take a few each). */
const FILL_LOOP = 64;
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

class Columns {
  b: Uint8Array;
  dv: DataView;
  pos: number;
  left: number;
  /** The bytes are a block of an XBF file: the reference readers it calls may meet `04` and `05`. */
  file = false;
  /** Float dictionary columns read so far (a struct whose fields read one widens its float fields: see node). */
  dicts = 0;
  /** Where the bits start in the view bitsView last returned. */
  vp = 0;
  /** Whether the last `ints` call with `zig` undid the zigzag mapping itself (set by each call: read it at once). */
  zigged = false;
  constructor(b: Uint8Array, pos: number, public o: FastOptions) {
    this.b = b;
    this.dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    this.pos = pos;
    this.left = o.maxDecodedBytes ?? DEFAULT_MAX_DECODED_BYTES;
  }
  /** A reference cursor over [start, end), in a file's block if this is one. */
  cursor(start: number, end: number): Cursor {
    const c = new Cursor(this.b, start, end);
    c.file = this.file;
    return c;
  }
  /** A view for 32-bit loads over the `bytes` bytes at p with 4 readable bytes after them: the message's own,
   * or one over a padded copy when the message ends sooner (valid until the next call); `vp` is where the bytes
   * start in it. */
  bitsView(p: number, bytes: number): DataView {
    if (p + bytes + 4 <= this.b.length) { this.vp = p; return this.dv; }
    const c = padCopy(this.b, p, bytes);
    this.vp = 0;
    return new DataView(c.buffer, c.byteOffset, c.byteLength);
  }
  charge(x: number): void {
    if (!(x <= this.left)) bail();
    this.left -= x;
  }
  /** A column's start: returns the end of its payload, leaves pos at its encoding byte. */
  column(): number {
    const end = this.b.length;
    const len = small(this, end);
    if (len < 0 || len > end - this.pos) bail();
    if (len > 0 && this.b[this.pos] === 0x80) bail(); // zstd: the reference decoder reports it
    return this.pos + len;
  }
  /** A length-prefixed block inside [pos, end): returns its end. */
  block(end: number): number {
    const len = small(this, end);
    if (len < 0 || len > end - this.pos) return -1;
    return this.pos + len;
  }

  /** An integer payload (encoding byte and payload) of n values below 2^maxBits, as exact numbers; null if
   * any value is not an exact number or anything is unusual (the caller then reads it as bigints). Values all
   * below 2^30 come in a `smallInts` array (see there), others in a `doubles` one. */
  ints(n: number, maxBits: number, end: number, zig = false): number[] | null {
    const b = this.b;
    this.zigged = false;
    if (this.pos >= end) return null;
    const enc = b[this.pos++]!;
    const lim = maxBits >= 53 ? MAX_SAFE : POW2[maxBits]! - 1;
    switch (enc) {
      case 0: {
        if (n > end - this.pos) return null; // a byte a value at least: n is bounded by the bytes
        let out = smallInts(n), smi = true;
        for (let i = 0; i < n; i++) {
          const x = small(this, end);
          if (x < 0 || x > lim) return null;
          if (smi && x < SMI) out[i] = x | 0;
          else {
            if (smi) { out = toDoubles(out, i, n); smi = false; }
            out[i] = x;
          }
        }
        return out;
      }
      case 1: {
        const base = small(this, end);
        if (base < 0 || this.pos >= end) return null;
        const width = b[this.pos++]!;
        if (width > maxBits || width > 44 || base + POW2[width]! - 1 > lim) return null;
        const bytes = Math.ceil((n * width) / 8);
        if (bytes > end - this.pos || padded(b, this.pos, n * width)) return null;
        const smi = base + POW2[width]! <= SMI;
        // Sized once where the bytes bound n (width > 0); filled from 0, no hole is left.
        const out = width > 0 ? (smi ? smallInts(n) : doubles(n)) : smi ? smallInts(0) : doubles(0);
        // A signed column's small values: the zigzag mapping undone as they are unpacked (no second pass).
        if (zig && smi && width > 0 && width <= 24) {
          unpackZigzag(this.bitsView(this.pos, bytes), this.vp, out, n, width, base);
          this.zigged = true;
        } else unpack(this.bitsView(this.pos, bytes), this.vp, out, 0, n, width, base, smi);
        this.pos += bytes;
        return out;
      }
      case 2: {
        if (n === 0) return null;
        const v = small(this, end);
        if (v < 0 || v > lim) return null;
        const base = small(this, end);
        if (base < 0 || this.pos >= end) return null;
        const width = b[this.pos++]!;
        if (width > 44 || base + POW2[width]! > MAX_SAFE) return null;
        const bytes = Math.ceil(((n - 1) * width) / 8);
        if (bytes > end - this.pos || padded(b, this.pos, (n - 1) * width)) return null;
        // Every sum stays within the first value plus n - 1 of the largest step (a zigzag value below
        // base + 2^width is a step of at most half that): small integers when that bound is.
        const smi = v + (n - 1) * ((base + POW2[width]!) / 2) < SMI;
        if (width === 0) {
          const out = smi ? smallInts(0) : doubles(0);
          const d = unzigzagNum(base);
          let x = v;
          for (let i = 0; i < n; i++) {
            // A sum that leaves [0, lim] wraps in 128 bits or passes the type: the bigint reader decides.
            if (!(x >= 0 && x <= lim)) return null;
            if (smi) out.push(x | 0);
            else out.push(x);
            x += d;
          }
          return out;
        }
        const out = smi ? smallInts(n) : doubles(n);
        if (!undelta(this.bitsView(this.pos, bytes), this.vp, out, n, width, base, v, lim, smi)) return null;
        this.pos += bytes;
        return out;
      }
      case 3: {
        // n was charged to the decoded-memory budget: sized once, each run filled in place.
        if (n > MAX_LENGTH) return null;
        let count = 0, out = smallInts(n), smi = true;
        while (count < n) {
          const run = small(this, end);
          if (run <= 0 || run > n - count) return null;
          const x = small(this, end);
          if (x < 0 || x > lim) return null;
          if (smi && x >= SMI) { out = toDoubles(out, count, n); smi = false; }
          // Short runs (most, in columns like wind directions) by hand: a fill call costs more than a few stores (FILL_LOOP).
          // A signed column's run value has its zigzag mapping undone once per run (x < 2^30 in integers: a
          // small integer stays one), not per value in a second pass.
          const stop = count + run;
          if (smi) {
            const xi = zig ? (x >>> 1) ^ -(x & 1) : x | 0;
            if (run <= FILL_LOOP) for (let i = count; i < stop; i++) out[i] = xi;
            else out.fill(xi, count, stop);
          } else {
            const xd = zig ? unzigzagNum(x) : x;
            if (run <= FILL_LOOP) for (let i = count; i < stop; i++) out[i] = xd;
            else out.fill(xd, count, stop);
          }
          count += run;
        }
        this.zigged = zig;
        return out;
      }
      case ENTROPY: case RUNS: return this.file ? this.cascade(enc, n, maxBits, end) : null;
      default: return null;
    }
  }
  /** A frame-of-reference or delta-coded block (its encoding byte 1 or 2 at pos) of n > 0 zigzag-mapped
   * scaled decimals, decoded and divided by `scale` in one pass: `ints(n, 64, end)` then the scaling, without
   * the intermediate array. Null (pos unchanged) wherever ints would give null: the caller then takes that path. */
  private scaledDecimals(n: number, end: number, scale: number, f32: boolean): number[] | null {
    const b = this.b, start = this.pos;
    const delta = b[this.pos++] === 2;
    let v = 0;
    if (delta) { v = small(this, end); if (v < 0) { this.pos = start; return null; } }
    const base = small(this, end);
    if (base < 0 || this.pos >= end) { this.pos = start; return null; }
    const width = b[this.pos++]!;
    const count = delta ? n - 1 : n, bytes = Math.ceil((count * width) / 8);
    // ints' checks: a frame's largest value and a delta's largest difference stay exact in a double.
    if (width > 44 || base + POW2[width]! > MAX_SAFE || bytes > end - this.pos || padded(b, this.pos, count * width)) { this.pos = start; return null; }
    // Width 0: the caller's path (ints, then the scale).
    if (width === 0) { this.pos = start; return null; }
    const view = this.bitsView(this.pos, bytes), p0 = this.vp;
    // Sized once (no growth while filling); each value is written, so no hole is left.
    const out = doubles(n);
    // Zigzag values (and a delta block's sums) within 31 bits: in integers, by functions of their own.
    const narrow = width <= 24 && base + POW2[width]! <= 2 ** 31;
    if (!delta) { if (narrow) decimalsForSmall(view, p0, out, n, width, base, scale); else decimalsFor(view, p0, out, n, width, base, scale); }
    else if (!(narrow && v + (n - 1) * ((base + POW2[width]!) / 2) < 2 ** 31 ? decimalsDeltaSmall(view, p0, out, n, width, base, v, scale)
      : decimalsDelta(view, p0, out, n, width, base, v, scale))) { this.pos = start; return null; }
    if (f32) for (let i = 0; i < n; i++) out[i] = Math.fround(out[i]!);
    this.pos += bytes;
    return out;
  }
  /** A length-prefixed integer block of n values inside a cascade (not itself `nested`), or null. */
  private inner(n: number, maxBits: number, end: number, nested: number): number[] | null {
    const e = this.block(end);
    if (e < 0 || this.pos >= e || this.b[this.pos] === nested) return null;
    const xs = this.ints(n, maxBits, e);
    return xs !== null && this.pos === e ? xs : null;
  }
  /** The file-only encodings after their byte (SPEC 22.2.2, 22.2.3), as numbers; null where anything is unusual
   * (the reference reader in cascade.ts then decodes the column or reports the error). */
  private cascade(enc: number, n: number, maxBits: number, end: number): number[] | null {
    if (enc === ENTROPY) {
      const d = small(this, end);
      if (d < 2 || d > n) return null;
      const values = this.inner(d, maxBits, end, ENTROPY);
      if (values === null) return null;
      for (let i = 1; i < d; i++) if (!(values[i - 1]! < values[i]!)) return null;
      const lens = this.inner(d, 8, end, ENTROPY);
      if (lens === null) return null;
      const order = canonicalOrder(lens);
      if (typeof order === "string") return null;
      const codes = readCodes(this.b, this.pos, end, lens, order, n);
      if (typeof codes === "string") return null;
      this.pos = end;
      // The values ascend. A value read from a doubles array is a float: `| 0` for a smallInts one.
      if (values[d - 1]! < SMI) { const out = smallInts(n); for (let i = 0; i < n; i++) out[i] = values[codes[i]!]! | 0; return out; }
      const out = doubles(n);
      for (let i = 0; i < n; i++) out[i] = values[codes[i]!]!;
      return out;
    }
    const k = small(this, end);
    if (k < 1 || k > n) return null;
    const lens = this.inner(k, 64, end, RUNS);
    const vals = lens && this.inner(k, maxBits, end, RUNS);
    if (lens === null || vals === null) return null;
    let total = 0;
    for (let i = 0; i < k; i++) { if (lens[i]! === 0) return null; total += lens[i]!; }
    if (total !== n) return null;
    let max = 0;
    for (let i = 0; i < k; i++) if (vals[i]! > max) max = vals[i]!;
    const smi = max < SMI, out = smi ? smallInts(n) : doubles(n);
    let q = 0;
    for (let i = 0; i < k; i++) {
      const v = smi ? vals[i]! | 0 : vals[i]!, stop = q + lens[i]!;
      if (stop - q <= FILL_LOOP) for (let j = q; j < stop; j++) out[j] = v;
      else out.fill(v, q, stop);
      q = stop;
    }
    return out;
  }
  /** A column of n integers of `kind` (integer kinds, date, timestamp; bool as 0/1 numbers when raw). */
  intColumn(kind: string, n: number): unknown[] {
    const end = this.column();
    const start = this.pos;
    const [bits, signed] = kind === "bool" ? [1, false] : INT_INFO[kind]!;
    const xs = this.ints(n, bits, end, signed);
    if (xs !== null && this.pos === end) {
      if (kind === "bool") { const out: boolean[] = []; for (let i = 0; i < n; i++) out.push(xs[i] === 1); return out; }
      // Below 2^32 the zigzag mapping is undone in integers: a value of a `smallInts` array stays a small integer
      // in every tier (a float result, stored there even once, would turn its allocation site to doubles).
      // Where ints undid it already (run-length and small bit-packed blocks), nothing is left to do.
      // As bigints, the zigzag mapping is undone as each bigint is made (no pass writing the numbers back).
      if (bits > 32 && this.o.int64 === "bigint" && kind !== "date" && kind !== "timestamp") return bigints(xs, n, signed && !this.zigged);
      if (signed && !this.zigged) for (let i = 0; i < n; i++) { const x = xs[i]!; xs[i] = x < 4294967296 ? (x >>> 1) ^ -(x & 1) : unzigzagNum(x); }
      const conv = intConv(kind, this.o);
      if (conv === null) return xs;
      const out: unknown[] = [];
      for (let i = 0; i < n; i++) out.push(conv(xs[i]!));
      return out;
    }
    const c = this.cursor(start, end);
    const big = decodeInts(c, n, bits);
    c.finish("column");
    this.pos = end;
    if (kind === "bool") return big.map((x) => x === 1n);
    const conv = bigConv(kind, this.o);
    return big.map((z) => conv(signed ? unzigzag(z) : z));
  }
  /** n counts (lengths, presence, tags) as numbers, each at most `lim`; bails otherwise. */
  counts(n: number, bits: number): number[] {
    const end = this.column();
    const xs = this.ints(n, bits, end);
    if (xs === null || this.pos !== end) bail();
    return xs;
  }

  floatColumn(n: number, f32: boolean): number[] {
    const end = this.column();
    const start = this.pos;
    const xs = this.floats(n, f32, end);
    if (xs !== null && this.pos === end) return xs;
    const c = this.cursor(start, end);
    const v = decodeFloats(c, n, f32);
    c.finish("column");
    this.pos = end;
    // The public values: a NaN held with its bits (nan.ts) is JavaScript's NaN here.
    for (let i = 0; i < v.length; i++) if (typeof v[i] !== "number") v[i] = NaN;
    return v;
  }
  floats(n: number, f32: boolean, end: number): number[] | null {
    const b = this.b, dv = this.dv;
    if (this.pos >= end) return null;
    const w = f32 ? 4 : 8;
    const enc = b[this.pos++]!;
    switch (enc) {
      case 0x10: {
        if (n * w > end - this.pos) return null;
        const out = doubles(n);
        let p = this.pos;
        if (f32) for (let i = 0; i < n; i++, p += 4) out[i] = dv.getFloat32(p, true);
        else for (let i = 0; i < n; i++, p += 8) out[i] = dv.getFloat64(p, true);
        this.pos = p;
        return out;
      }
      case 0x11: {
        if (this.pos >= end) return null;
        const e = b[this.pos++]!;
        if (e > (f32 ? 10 : 18)) return null;
        const bend = this.block(end);
        if (bend < 0) return null;
        const scale = 10 ** e;
        // Frame of reference or delta (the usual blocks): decoded and scaled in one pass.
        let out = n > 0 && this.pos < bend && (b[this.pos] === 1 || b[this.pos] === 2) ? this.scaledDecimals(n, bend, scale, f32) : null;
        if (out === null) {
          const xs = this.ints(n, 64, bend);
          if (xs === null || this.pos !== bend) return null;
          out = doubles(n); // not xs: a smallInts array is never given a fraction
          if (f32) for (let i = 0; i < n; i++) out[i] = Math.fround(unzigzagNum(xs[i]!) / scale);
          else for (let i = 0; i < n; i++) out[i] = unzigzagNum(xs[i]!) / scale;
        } else if (this.pos !== bend) return null;
        const k = small(this, end);
        if (k < 0 || k > n) return null;
        if (k > 0) {
          const pend = this.block(end);
          if (pend < 0) return null;
          const positions = this.ints(k, 64, pend);
          if (positions === null || this.pos !== pend || k * w > end - this.pos) return null;
          let p = this.pos;
          for (let i = 0; i < k; i++, p += w) {
            const at = positions[i]!;
            // Past the column or not strictly ascending (SPEC 22.2): the reference decoder reports it.
            if (at >= n || (i > 0 && at <= positions[i - 1]!)) return null;
            out[at] = f32 ? dv.getFloat32(p, true) : dv.getFloat64(p, true);
          }
          this.pos = p;
        }
        return out;
      }
      case 0x12: {
        const d = small(this, end);
        if (d < 0 || d > n) return null;
        const iend = this.block(end);
        if (iend < 0 || (this.pos < iend && (b[this.pos] === 0x12 || b[this.pos] === 0x13))) return null;
        const values = this.floats(d, f32, iend);
        if (values === null || this.pos !== iend) return null;
        // Each entry boxed once and every value a pointer to its entry's box: an object's field built from this
        // column (made tagged by `untypedFloats`, see node's struct case) then holds that box, where a double array's
        // value would be boxed again for every object.
        const distinct = boxed(values, d), out = tagged(n);
        this.dicts++;
        // Frame-of-reference ids (the usual block): looked up as they are unpacked, no array of ids.
        if (n > 0 && this.pos < end && b[this.pos] === 1) {
          const start = this.pos;
          this.pos++;
          const base = small(this, end);
          if (base >= 0 && this.pos < end) {
            const width = b[this.pos++]!, bytes = Math.ceil((n * width) / 8);
            if (width >= 1 && width <= 24 && bytes <= end - this.pos && !padded(b, this.pos, n * width)) {
              const s = this.bitsView(this.pos, bytes), p0 = this.vp, mask = (1 << width) - 1;
              let bp = 0;
              for (let i = 0; i < n; i++, bp += width) {
                const id = base + ((s.getUint32(p0 + (bp >>> 3), true) >>> (bp & 7)) & mask);
                if (id >= d) return null;
                out[i] = distinct[id]!;
              }
              this.pos += bytes;
              return out;
            }
          }
          this.pos = start; // anything else: ints reads the block (or finds it unusual)
        }
        // Run-length ids (a column sorted by it): each run filled with its entry, no array of ids.
        const rs = n > 0 && this.pos < end && b[this.pos] === 3 ? this.idRuns(n, end, d) : null;
        if (rs !== null) {
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
        for (let i = 0; i < n; i++) {
          const id = ids[i]!;
          if (id >= d) return null;
          out[i] = distinct[id]!;
        }
        return out;
      }
      case 0x13: return this.xor(n, f32, end);
      default: return null;
    }
  }
  /** The XOR encoding's payload (SPEC 22.2.1: after its byte, the rest of the column up to `end`) of n values,
   * as decodeXor reads it but on numbers only; null wherever decodeXor would throw (it then reports it). */
  private xor(n: number, f32: boolean, end: number): number[] | null {
    const b = this.b, dv = this.dv, w = f32 ? 4 : 8, width = 8 * w, field = f32 ? 5 : 6, fmask = (1 << field) - 1;
    if (n === 0 || w > end - this.pos || !LITTLE) return null;
    const first = this.pos, sp = first + w, len = end - sp, total = 8 * len;
    if (Math.ceil((n - 1) / 8) > len) return null;
    // 32-bit loads from any bit of the stream read up to 4 bytes past it: from a copy with room after when
    // the message ends there. Bits past the stream are never used (each read is checked against `total`).
    const src = this.bitsView(sp, len), p0 = this.vp;
    // The previous value's bits: high and low 32-bit words (for f32 the one word is `lo`).
    let hi = f32 ? 0 : dv.getUint32(first + 4, true), lo = dv.getUint32(first, true);
    const out = doubles(n);
    out[0] = f32 ? dv.getFloat32(first, true) : dv.getFloat64(first, true);
    let lead = -1, wlen = 0, bit = 0;
    for (let i = 1; i < n; i++) {
      if (bit >= total) return null;
      const c = bitsAt(src, p0, bit, 2);
      if ((c & 1) === 0) { bit += 1; out[i] = out[i - 1]!; continue; }
      if ((c & 2) !== 0) {
        if (bit + 2 + 2 * field > total) return null;
        const f = bitsAt(src, p0, bit + 2, 2 * field);
        lead = f & fmask;
        wlen = (f >>> field) + 1;
        if (lead + wlen > width) return null;
        bit += 2 + 2 * field;
      } else {
        if (lead < 0 || bit + 2 > total) return null;
        bit += 2;
      }
      if (bit + wlen > total) return null;
      // wlen bits, shifted left by sh into the width-bit word (lead + wlen <= width, so nothing is lost).
      const sh = width - lead - wlen;
      let vl: number, vh = 0;
      if (wlen <= 32) vl = bits32(src, p0, bit, wlen);
      else { vl = bits32(src, p0, bit, 32); vh = bits32(src, p0, bit + 32, wlen - 32); }
      bit += wlen;
      if (sh === 0) { hi ^= vh; lo ^= vl; }
      else if (sh >= 32) hi ^= vl << (sh - 32);
      else { hi ^= (vh << sh) | (vl >>> (32 - sh)); lo ^= vl << sh; }
      if (f32) { WORDS[0] = lo; out[i] = F32[0]!; }
      else { WORDS[0] = lo; WORDS[1] = hi; out[i] = F64[0]!; }
    }
    if (Math.ceil(bit / 8) !== len) return null;
    if (bit % 8 !== 0 && b[sp + (bit >> 3)]! >> (bit % 8) !== 0) return null;
    this.pos = end;
    return out;
  }

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
  /** A dictionary column's n > 0 ids when they are a run-length block (at pos, within `end`), every id below d:
   * its runs as [length, id, length, id, ...] (pos past the block); null with pos unchanged otherwise (`ints`
   * then reads it, and gives null too where a run or an id is out of range). */
  private idRuns(n: number, end: number, d: number): number[] | null {
    const start = this.pos;
    this.pos++;
    const rs: number[] = [];
    let count = 0;
    while (count < n) {
      const run = small(this, end);
      const id = run > 0 && run <= n - count ? small(this, end) : -1;
      if (id < 0 || id >= d) { this.pos = start; return null; }
      rs.push(run, id);
      count += run;
    }
    return rs;
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
            const v = l === 0 ? head : p === 0 ? suffixes.slice(q, q + l) : head + suffixes.slice(q, q + l);
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

  /** The reference column reader for one node (types this path does not specialise). */
  reference(t: XbfType, n: number, depth: number): unknown[] {
    const r = new ColReader(this.left, this.o);
    const c = this.cursor(this.pos, this.b.length);
    const [, vals] = r.node(t, n, c, depth, null);
    this.left = r.left;
    this.pos = c.pos;
    const o = this.o;
    return vals.map((v) => toPublic(t, v, o));
  }

  /** The n public values of node `t` (SPEC 22.1). */
  node(t: XbfType, n: number, depth: number): unknown[] {
    switch (t.kind) {
      case "map": case "tuple": case "bytes": case "u256": case "i256":
        return this.reference(t, n, depth);
      default:
    }
    this.charge(n * VALUE_COST);
    const child = depth + 1;
    switch (t.kind) {
      case "unit": { const out: null[] = []; for (let i = 0; i < n; i++) out.push(null); return out; }
      case "bool": return this.intColumn("bool", n);
      case "f32": case "f64": return this.floatColumn(n, t.kind === "f32");
      case "string": return this.stringColumn(n);
      case "vec": {
        const lens = this.counts(n, 64);
        let tot = 0;
        for (let i = 0; i < n; i++) tot += lens[i]!;
        if (tot > MAX_SAFE) bail();
        const flat = this.node(t.element, tot, child);
        if (n === 1) return [flat];
        const out: unknown[][] = [];
        let q = 0;
        for (let i = 0; i < n; i++) { const l = lens[i]!; out.push(flat.slice(q, q + l)); q += l; }
        return out;
      }
      case "array": {
        const len = Number(t.len);
        const tot = n * len;
        if (!(tot <= MAX_SAFE)) bail();
        const flat = this.node(t.element, tot, child);
        const out: unknown[][] = [];
        for (let i = 0; i < n; i++) out.push(flat.slice(i * len, (i + 1) * len));
        return out;
      }
      case "struct": {
        const fs = t.fields;
        const dicts = this.dicts;
        const cols: unknown[][] = [];
        const modes: number[] = [], tags: (number[] | null)[] = [];
        for (let j = 0; j < fs.length; j++) {
          const ft = fs[j]!.type;
          if (isOptionalEnum(ft)) {
            const [g, vals] = this.optionalField(ft as Extract<XbfType, { kind: "enum" }>, n, child);
            modes.push(ABSENT_KEY); tags.push(g); cols.push(vals);
          } else if (ft.kind === "option" && !nullable(ft.inner)) {
            // The option node's work (node's "option" case) but its values left in two columns for the builder.
            this.charge(n * VALUE_COST);
            const present = this.counts(n, 1);
            let count = 0;
            for (let i = 0; i < n; i++) count += present[i]!;
            modes.push(NULLABLE); tags.push(present); cols.push(this.node(ft.inner, count, child + 1));
          } else { modes.push(PLAIN); tags.push(null); cols.push(this.node(ft, n, child)); }
        }
        const built = BUILDERS[canGenerate() ? 1 : 0]!;
        let build = built.get(t);
        const variant = this.o.int64 === "bigint" ? ":bigint" : "";
        if (build === undefined) { build = builder(fs.map((f) => f.name), modes, variant); built.set(t, build); }
        // A float dictionary column met among this struct's fields (once per type): its float fields widened, so
        // that the builder's objects hold the entries' shared boxes (structs whose floats never come from a
        // dictionary keep double fields, which cost the same for other float columns).
        if (this.dicts !== dicts && !WIDENED.has(t) && canGenerate()) {
          WIDENED.add(t);
          const keys = fs.map((f) => f.name), firsts = floatFirsts(t, modes, variant);
          if (firsts !== null && keys.length <= MAX_GENERATED && !keys.includes("__proto__") && !modes.includes(ABSENT_KEY)) untypedFloats(keys, firsts);
        }
        return build(cols, n, tags);
      }
      case "option": {
        const present = this.counts(n, 1);
        let count = 0;
        for (let i = 0; i < n; i++) count += present[i]!;
        const vals = this.node(t.inner, count, child);
        const wrap = nullable(t.inner);
        const out: unknown[] = [];
        let q = 0;
        for (let i = 0; i < n; i++) {
          if (present[i] === 0) out.push(null);
          else { const v = vals[q++]; out.push(wrap && v === null ? new XbfSome(v) : v); }
        }
        return out;
      }
      case "enum": {
        const tags = this.counts(n, 64);
        const k = t.variants.length;
        const counts = new Array<number>(k).fill(0);
        for (let i = 0; i < n; i++) { const g = tags[i]!; if (g >= k) bail(); counts[g]!++; }
        const payloads = t.variants.map((v, i) => this.node(v.type, counts[i]!, child));
        const at = new Array<number>(k).fill(0);
        const out: unknown[] = [];
        for (let i = 0; i < n; i++) { const g = tags[i]!; out.push(new XbfEnum(t.variants[g]!.name, payloads[g]![at[g]!++])); }
        return out;
      }
      case "any": {
        const c = this.cursor(this.pos, this.b.length);
        const types = anyTypes(c, child, this.o);
        this.pos = c.pos;
        const tags = this.counts(n, 64);
        const k = types.length;
        const counts = new Array<number>(k).fill(0);
        for (let i = 0; i < n; i++) { const g = tags[i]!; if (g >= k) bail(); counts[g]!++; }
        const parts = types.map((ty, i) => this.node(ty, counts[i]!, child));
        const at = new Array<number>(k).fill(0);
        const out: unknown[] = [];
        for (let i = 0; i < n; i++) { const g = tags[i]!; out.push(parts[g]![at[g]!++]); }
        return out;
      }
      default: return this.intColumn(t.kind, n);
    }
  }
  /** A `json.optional` field: its tags (1 present, 0 the key left out; checked to be one or the other) and the
   * values present, in order. */
  private optionalField(t: Extract<XbfType, { kind: "enum" }>, n: number, depth: number): [number[], unknown[]] {
    this.charge(n * VALUE_COST);
    const tags = this.counts(n, 64);
    let count = 0;
    for (let i = 0; i < n; i++) { const g = tags[i]!; if (g > 1) bail(); count += g; }
    this.charge((n - count) * VALUE_COST); // the absent variant's unit node
    return [tags, this.node(t.variants[1]!.type, count, depth + 1)];
  }
}

/** The value of a columnar message whose metadata ends at `pos`. */
export function columnsDirect(b: Uint8Array, pos: number, t: XbfType, o: FastOptions): unknown {
  const c = new Columns(b, pos, o);
  const vals = c.node(t, 1, 0);
  if (c.pos !== b.length) bail();
  return vals[0];
}

/** The n records of a block body `b` of an XBF file (SPEC 24.1) whose record count ends at `pos`. */
export function blockDirect(b: Uint8Array, pos: number, t: XbfType, n: number, o: FastOptions): unknown[] {
  const c = new Columns(b, pos, o);
  c.file = true;
  const vals = c.node(t, n, 0);
  if (c.pos !== b.length) bail();
  return vals;
}

// ------------------------------------------------------------------ varints and padding
/** Whether the packed bits from byte p, `bits` of them, leave padding bits that are not 0 (SPEC 22.2: the
 * reference decoder reports them). */
function padded(b: Uint8Array, p: number, bits: number): boolean {
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
