// Direct decoding: bytes to the public JS values (the default mapping of values.ts's toPublic), with no
// intermediate tree. This file: the walk of a columnar message's type
// (struct, vec, array, option, enum, any; the reference reader for the kinds not specialised) and its entry
// points. The columns are decoded straight into arrays of public values, numbers while they are exact, one
// TextDecoder call per string column; struct rows are built from those arrays with one fixed key order. Split by
// role: fast_common.ts (BAIL, options, the small-varint reader), fast_int_values.ts (dates, bigints),
// fast_records.ts (generated code: its caches, record constructors and builders), fast_numbers.ts (the reader's
// state, integer and float columns; fast_bits.ts their bit-level loops), fast_strings.ts (string columns).
// fast_rows.ts: the rows (a reader closure compiled once per message from its metadata) and the cache of parsed
// metadata.
//
// This path only has to be right on valid input. Anything unusual (a damaged byte, a value this path does not
// hold as a number, a type it does not specialise) either takes the reference decoder for that part
// (decode_rows.ts / columnar.ts, charging the same budgets) or throws BAIL, and codec.ts then decodes the
// whole message with the reference decoder, whose errors (kind, offset, path) are the ones reported. The
// checks here are at least as strict as the reference decoder's, so a message it rejects never comes back
// as a value; every allocation is bounded by the same budgets (counts against the bytes that remain, the
// decoded-memory budget of rows and columns) before it is made.
import { XbfType } from "./metadata.js";
import { ColReader, VALUE_COST, anyTypes } from "./columnar.js";
import { XbfEnum, XbfSome, isOptionalEnum, toPublic } from "./values.js";
import { FastOptions, MAX_SAFE, bail, nullable } from "./fast_common.js";
import { ABSENT_KEY, BUILDERS, MAX_GENERATED, NULLABLE, PLAIN, WIDENED, builder, canGenerate, floatFirsts, untypedFloats } from "./fast_records.js";
import { StringColumns } from "./fast_strings.js";

// What the other modules, the tests and the benchmarks import from here.
export { BAIL, bail, MAX_SAFE, nullable, small } from "./fast_common.js";
export type { FastOptions } from "./fast_common.js";
export { bigConv, bigintOf, bigints, intConv } from "./fast_int_values.js";
export { MAX_GENERATED, canGenerate, generate, generateDecoder, isIndexKey, keyAccess, keysStatement, recordConstructor, setCodegen } from "./fast_records.js";
export type { RecordCtor } from "./fast_records.js";

/** A columnar decode: the walk of the message's type over the number and string columns it extends. */
class Columns extends StringColumns {
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
