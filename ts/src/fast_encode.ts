// Direct encoding of the common record shapes (vecs, structs, options, absent-able fields, bools, integers
// that are numbers, floats, strings) from the public JS values, in rows and in columns, without normalize's
// intermediate tree. Its checks are at least as strict as normalize's: anything else (a bigint, a Date, a
// Map, an XbfEnum, a type it does not handle, a value of the wrong kind) throws BAIL, and codec.ts then
// encodes through normalize, which reports the error or writes the value. The bytes are the reference
// writer's: the same column encoders get the same values (tests compare both).
import { INT_INFO, XbfType, writeMetadata } from "./metadata.js";
import { Writer } from "./varint.js";
import { BAIL, MAX_GENERATED, canGenerate, generate, isIndexKey, keyAccess } from "./fast.js";
import { Gathered, inferType, isOptionalEnum, XbfEnum, XbfSome } from "./values.js";
import { columnsOf } from "./columnar.js";
import { S_INT_ZS, S_TAGS, measureFlags, putIntsColumn, putSmallInts, scratchArray, varLen } from "./int_columns.js";

function bail(): never {
  throw BAIL;
}
/** Set by the Encoder while it writes with a type it remembers: a field missing from an object may then not
 * stand for an option's null (it would decode as a key holding null, not as the missing key). */
let noAbsentNull = false;
export function setNoAbsentNull(on: boolean): void { noAbsentNull = on; }
/** Set while the type being written was inferred from this very value (SPEC 19.1): every object of a struct
 * place then has only the struct's keys, each field not held in a `json.optional` enum present in every one
 * of them (inference saw them all), so the columns skip the per-object key check and the own-key lookups. The
 * values themselves are still checked as they are written. */
let inferred = false;
export function setInferred(on: boolean): void { inferred = on; }
const hasOwn = Object.prototype.hasOwnProperty;
/** The fields inference gathered from the value being written (values.ts inferGathering), set by the encode that
 * inferred its type for the columns of its list of records; `gatheredFlat`: that list's records as the list case
 * hands them to the struct case (a copy), which takes the columns from there instead of loading every field again. */
let gathered: Gathered | null = null, gatheredFlat: unknown[] | null = null;
export function setGathered(g: Gathered | null): void { gathered = useGathered ? g : null; gatheredFlat = null; }
let useGathered = true;
/** Whether the columns take what inference gathered (for tests: false loads every field again, the path to compare
 * with). Not part of the package's interface. */
export function setGatheredUse(on: boolean): void { useGathered = on; }
type Struct = Extract<XbfType, { kind: "struct" }>;
/** What the writers need of a struct type beyond its fields, worked out once per type. The types this module is
 * given are known_types.ts' private copies (codec.ts's encodeDirect finds them): never changed after they are made,
 * so what is kept for them here cannot go stale, and inference's new type object each call finds the same copy. */
interface StructPlan {
  /** The field names, in order. */
  readonly keys: string[];
  /** The same as a set (made when first needed: struct's check). */
  names: Set<string> | undefined;
  /** Per field: whether it is held in a `json.optional` enum (absent or present). */
  readonly optional: boolean[];
  /** Per field: the type of its values (an optional field's present variant). */
  readonly types: XbfType[];
  /** Per field, for a type inferred from the records: whether every record has it (not optional). */
  readonly always: boolean[];
  /** The generated gatherers (undefined: not made yet; null: none may be made), for an inferred type and for a
   * given or remembered one. */
  inferredGather: Gather | null | undefined;
  checkedGather: Gather | null | undefined;
  /** The generated writer of a list of these records in rows, for an inferred type (undefined: not made yet; null:
   * none may be made). */
  rowWriter: RowWriter | null | undefined;
}
const PLANS = new WeakMap<Struct, StructPlan>();
function structPlan(t: Struct): StructPlan {
  let p = PLANS.get(t);
  if (p === undefined) {
    const fs = t.fields, optional = fs.map((f) => isOptionalEnum(f.type));
    p = {
      keys: fs.map((f) => f.name), names: undefined, optional, always: optional.map((o) => !o),
      types: fs.map((f, j) => (optional[j] ? (f.type as Extract<XbfType, { kind: "enum" }>).variants[1]!.type : f.type)),
      inferredGather: undefined, checkedGather: undefined, rowWriter: undefined,
    };
    PLANS.set(t, p);
  }
  return p;
}
function names(t: Struct): Set<string> {
  const p = structPlan(t);
  return (p.names ??= new Set(p.keys));
}
/** The object as a struct of type t: checks what normalize checks (a plain-enough object, no unknown keys). */
function struct(t: Struct, v: unknown): Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v) || v instanceof Map || ArrayBuffer.isView(v)) bail();
  const o = v as Record<string, unknown>;
  const ns = names(t);
  for (const k in o) if (!ns.has(k) && hasOwn.call(o, k) && o[k] !== undefined) bail();
  return o;
}
/** The own enumerable keys of an object that passes struct's check (bails otherwise), for the gatherers to let later
 * objects of the same keys skip the check; none ([]: every later object is checked) when one of them is not a field
 * (a key holding undefined passes the check, but a later object of the same keys may hold a value there, which it must
 * not: encode([{ a: 1, b: undefined }, { a: 2, b: 3 }]) with a type of field a alone lost b's 3 in columns). */
function ownKeys(t: Struct, o: Record<string, unknown>): string[] {
  struct(t, o);
  const ks = Object.keys(o), ns = names(t);
  for (let i = 0; i < ks.length; i++) if (!ns.has(ks[i]!)) return [];
  return ks;
}
/** A field's value, or undefined when absent (missing, or undefined). */
const field = (o: Record<string, unknown>, k: string): unknown => (hasOwn.call(o, k) ? o[k] : undefined);

/** Whether this writer handles t (and everything inside it). */
export function handles(t: XbfType): boolean {
  switch (t.kind) {
    case "bool": case "f32": case "f64": case "string": case "unit": return true;
    case "any": return true;
    case "vec": return handles(t.element);
    case "option": return t.inner.kind !== "option" && t.inner.kind !== "unit" && handles(t.inner);
    case "struct": return t.fields.every((f) => handles(isOptionalEnum(f.type) ? (f.type as Extract<XbfType, { kind: "enum" }>).variants[1]!.type : f.type));
    default: {
      const info = INT_INFO[t.kind];
      return info !== undefined && info[0] <= 64 && t.kind !== "date" && t.kind !== "timestamp";
    }
  }
}

/** An integer of `kind` given as a number: checked as normalize checks it (bigints and unsafe numbers bail). */
function int(kind: string, v: unknown): number {
  if (typeof v !== "number" || !Number.isInteger(v)) bail();
  const [bits, signed] = INT_INFO[kind]!;
  if (bits <= 32) {
    const lo = signed ? -(2 ** (bits - 1)) : 0, hi = signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
    if (v < lo || v > hi) bail();
    return v;
  }
  // Signed ones within ±2^50, so that their zigzag form (twice as large) stays exact in a double.
  if (!Number.isSafeInteger(v) || (signed ? Math.abs(v) > 2 ** 50 : v < 0)) bail();
  return v;
}

const UNIT: XbfType = { kind: "unit" };
/** The type inferred for a value of an `any` place, when it is null (unit), a bool, a number or a string (its
 * kind then names it); others bail. */
function anyType(v: unknown): XbfType {
  if (v === null || v === undefined) return UNIT;
  if (typeof v !== "boolean" && typeof v !== "number" && typeof v !== "string") bail();
  const it = inferType(v);
  if (!handles(it) || it.kind === "any") bail();
  return it;
}

/** An option's present value: an XbfSome's value, or the value itself (the typeof test first: instanceof walks
 * the prototype chain, for every number and string of an option column). */
const unwrap = (v: unknown): unknown => (typeof v === "object" && v instanceof XbfSome ? v.value : v);

// ------------------------------------------------------------------ rows
const zz = (n: number) => (n >= 0 ? 2 * n : -2 * n - 1);
/** Writes v of type t in XBF 2 rows. */
export function rowValue(w: Writer, t: XbfType, v: unknown): void {
  switch (t.kind) {
    case "any": { const it = anyType(v); writeMetadata(w, it, true); rowValue(w, it, v); return; }
    case "unit": if (v !== null && v !== undefined) bail(); return;
    case "bool": if (typeof v !== "boolean") bail(); w.u8(v ? 1 : 0); return;
    case "f64": if (typeof v !== "number") bail(); w.f64(v); return;
    case "f32": if (typeof v !== "number") bail(); w.f32(v); return;
    case "string": if (typeof v !== "string") bail(); w.string(v); return;
    case "vec": {
      if (!Array.isArray(v)) bail();
      w.uvar(v.length);
      const e = t.element;
      // Records of a type inferred from them, 16 or more: generated code writes them (rowWriter).
      if (e.kind === "struct" && inferred && !noAbsentNull && v.length >= 16) {
        const p = structPlan(e);
        if (p.rowWriter === undefined) p.rowWriter = rowWriter(p);
        if (p.rowWriter !== null) { p.rowWriter(w, v, v.length, p.types, rowValue, bail, hasOwn, absent, XbfEnum); return; }
      }
      for (let i = 0; i < v.length; i++) rowValue(w, e, v[i]);
      return;
    }
    case "option":
      if (v === null || v === undefined) { w.u8(0); return; }
      w.u8(1);
      rowValue(w, t.inner, unwrap(v));
      return;
    case "struct": {
      const o = struct(t, v), p = structPlan(t), keys = p.keys, optional = p.optional, types = p.types;
      for (let i = 0; i < keys.length; i++) {
        const x = field(o, keys[i]!), ft = types[i]!;
        if (optional[i]) {
          if (x === undefined) { w.u8(0); continue; }
          if (x instanceof XbfEnum) bail();
          w.u8(1);
          rowValue(w, ft, x);
        } else if (x === undefined) absent(w, ft);
        else rowValue(w, ft, x);
      }
      return;
    }
    default: {
      const n = int(t.kind, v);
      const [, signed, fixed] = INT_INFO[t.kind]!;
      if (fixed) { w.fixed(n, fixed); return; }
      w.uvar(signed ? zz(n) : n);
    }
  }
}

/** A field of type ft that is not held in a `json.optional` enum, missing from its object: null for an option (unless a
 * remembered type forbids that), nothing for a unit; anything else bails. */
function absent(w: Writer, ft: XbfType): void {
  if (noAbsentNull) bail();
  if (ft.kind === "unit") return;
  if (ft.kind !== "option") bail();
  w.u8(0);
}
type RowWriter = (w: Writer, vs: unknown[], n: number, types: XbfType[], row: typeof rowValue, fail: () => never, has: typeof hasOwn,
  missing: typeof absent, E: typeof XbfEnum) => void;
/** Generated code that writes n records of an inferred struct type in rows, as rowValue's struct case does for each:
 * one named load per key, and the bools, floats, strings and integers written inline (their checks are rowValue's);
 * other fields through rowValue. As the inferred gatherer (columnValues), no key check: every object of the place has
 * only the struct's keys, each field not held in a `json.optional` enum own in every one. Null where code may not be
 * generated, for a key `__proto__` or for very wide structs. Kept per key list and field kinds. */
function rowWriter(p: StructPlan): RowWriter | null {
  const keys = p.keys;
  if (keys.length === 0 || keys.length > MAX_GENERATED || keys.includes("__proto__") || !canGenerate()) return null;
  const kinds = p.types.map((t) => (t.kind in INT_INFO || t.kind === "f64" || t.kind === "f32" || t.kind === "bool" || t.kind === "string" ? t.kind : "x"));
  const tag = "rows:" + kinds.map((k, j) => (p.optional[j] ? "?" : "") + k).join(",");
  return generate(tag, keys, () => {
    // The statements writing x of field j, checked as rowValue checks it.
    const put = (j: number): string => {
      const k = kinds[j]!;
      switch (k) {
        case "f64": case "f32": return `if (typeof x !== "number") fail(); w.${k}(x);`;
        case "bool": return `if (typeof x !== "boolean") fail(); w.u8(x ? 1 : 0);`;
        case "string": return `if (typeof x !== "string") fail(); w.string(x);`;
        case "x": return `row(w, types[${j}], x);`;
        default: {
          // int()'s range, as columnValues' integer case spells it (a 64-bit one within ±2^50, or a safe unsigned one).
          const [bits, signed, fixed] = INT_INFO[k]!;
          const lo = bits <= 32 ? (signed ? -(2 ** (bits - 1)) : 0) : signed ? -(2 ** 50) : 0;
          const hi = bits <= 32 ? (signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1) : signed ? 2 ** 50 : Number.MAX_SAFE_INTEGER;
          const write = fixed ? `w.fixed(x, ${fixed});` : signed ? `w.uvar(x >= 0 ? 2 * x : -2 * x - 1);` : `w.uvar(x);`;
          return `if (typeof x !== "number" || !Number.isInteger(x) || x < ${lo} || x > ${hi}) fail(); ${write}`;
        }
      }
    };
    const body = keys.map((k, j) => {
      const key = JSON.stringify(k), at = keyAccess(k);
      if (p.optional[j]) return `x = has.call(o, ${key}) ? o${at} : undefined; if (x === undefined) w.u8(0); else { if (x instanceof E) fail(); w.u8(1); ${put(j)} }`;
      return `x = o${at}; ${kinds[j] === "x" ? `if (x === undefined) missing(w, types[${j}]); else ` : ""}{ ${put(j)} }`;
    }).join("\n");
    return new Function("w", "vs", "n", "types", "row", "fail", "has", "missing", "E",
      `let x; for (let i = 0; i < n; i++) { const o = vs[i]; if (o === null || typeof o !== "object") fail();\n${body}\n}`) as RowWriter;
  });
}

// ------------------------------------------------------------------ columns
/** A lower bound of the bytes the values written by columnValues since the last resetRowsBound would take in
 * rows (each value's least rows size, counted in the passes that check them: 8 per f64, 1 per option tag, a
 * string's UTF-16 length and one, ...). Layout auto keeps the columns without sizing or writing the rows when
 * this alone passes the columns' size (the rows are then surely larger: the choice the full comparison makes). */
let rowsBound = 0;
/** Whether some integer was counted short (3 bytes for a varint of 4 or more): rowsLarger's sum is then larger
 * than rowsBound; otherwise the two are the same sum. */
let boundShort = false;
export function resetRowsBound(): void { rowsBound = 0; boundShort = false; }
export function rowsLowerBound(): number { return rowsBound; }
/** Whether rowsLarger's sum over the values counted since resetRowsBound is rowsBound itself (the same counts
 * for every kind, no integer counted short). */
export function rowsBoundIsSum(): boolean { return !boundShort; }
/** The columns of the values `vs`, all of type t, as SPEC 22.1 lays them out. */
export function columnValues(t: XbfType, vs: unknown[], out: Writer): void {
  switch (t.kind) {
    case "any": {
      // Types in the order they first appear, a type index per value, then each type's values (SPEC 22.1).
      const index = new Map<string, number>(), types: XbfType[] = [], tags: number[] = [], groups: unknown[][] = [];
      for (let j = 0; j < vs.length; j++) {
        const v = vs[j], it = anyType(v);
        let i = index.get(it.kind);
        if (i === undefined) { i = types.length; index.set(it.kind, i); types.push(it); groups.push([]); }
        tags.push(i);
        groups[i]!.push(v);
      }
      rowsBound += vs.length; // each value's metadata (at least a byte), its value counted in its group
      const body = new Writer();
      body.u8(0x30);
      body.uvar(types.length);
      for (const ty of types) writeMetadata(body, ty, true);
      const b = body.finish();
      out.uvar(b.length);
      out.bytes(b);
      columnsOf("lengths", tags, out);
      types.forEach((ty, i) => columnValues(ty, groups[i]!, out));
      return;
    }
    // (Indexed loops: a for…of over the many kinds of arrays this function sees, holey ones from the gatherer's
    // `new Array(n)` among them, goes through the generic iterator, about 40 ns a value on political-contributions.)
    case "unit": for (let i = 0; i < vs.length; i++) { const v = vs[i]; if (v !== null && v !== undefined) bail(); } return;
    case "bool": for (let i = 0; i < vs.length; i++) if (typeof vs[i] !== "boolean") bail(); rowsBound += vs.length; columnsOf("bool", vs, out); return;
    case "f32": case "f64":
      for (let i = 0; i < vs.length; i++) if (typeof vs[i] !== "number") bail();
      rowsBound += vs.length * (t.kind === "f32" ? 4 : 8);
      columnsOf(t.kind, vs, out);
      return;
    case "string": {
      // A string's UTF-8 length is at least its UTF-16 length (a pair of units makes 4 bytes, any other unit 1
      // to 3), and so is its varint's length.
      let chars = 0;
      for (let i = 0; i < vs.length; i++) {
        const v = vs[i];
        if (typeof v !== "string") bail();
        const l = v.length;
        chars += l < 128 ? l + 1 : l + varLen(l);
      }
      rowsBound += chars;
      columnsOf("string", vs, out);
      return;
    }
    case "vec": {
      // One list (the root list of records, the usual call): its items are the elements' values as they are, read
      // by index as the copy's loop would read them; a copy of 20,000 pointers grown by push was most of a large
      // table's young-generation bytes, which a scavenge during the encode copies while they are live.
      let lens: number[], flat: unknown[];
      if (vs.length === 1 && Array.isArray(vs[0])) {
        const v = vs[0] as unknown[];
        lens = [v.length]; flat = v;
        rowsBound += v.length < 128 ? 1 : varLen(v.length);
      } else {
        lens = []; flat = [];
        for (let j = 0; j < vs.length; j++) {
          const v = vs[j];
          if (!Array.isArray(v)) bail();
          lens.push(v.length);
          rowsBound += v.length < 128 ? 1 : varLen(v.length);
          for (let i = 0; i < v.length; i++) flat.push(v[i]);
        }
      }
      if (gathered !== null && vs.length === 1 && vs[0] === gathered.src && inferred) gatheredFlat = flat;
      columnsOf("lengths", lens, out);
      columnValues(t.element, flat, out);
      return;
    }
    case "option": {
      // The tags in scratchArray's kept array: written before the values (which may take it again) are.
      const n = vs.length, present = scratchArray(S_TAGS, n), inner: unknown[] = [];
      for (let i = 0; i < n; i++) {
        const v = vs[i];
        if (v === null || v === undefined) { present[i] = 0; continue; }
        present[i] = 1;
        inner.push(unwrap(v));
      }
      rowsBound += vs.length;
      putIntsColumn(out, present, true, measureFlags(present));
      columnValues(t.inner, inner, out);
      return;
    }
    case "struct": {
      // One pass over the records: every field's values gathered at once (an own key's value, or undefined).
      const p = structPlan(t), m = p.keys.length, n = vs.length, keys = p.keys;
      // Generated code gathers the fields (one named load per key): for a type inferred from these records with
      // no key check (every field not in a `json.optional` enum is in every object), otherwise with struct's
      // check of every record whose keys differ from the last one checked.
      const always = inferred ? p.always : null;
      let gather = inferred ? p.inferredGather : p.checkedGather;
      if (gather === undefined) {
        gather = gatherer(keys, always);
        if (inferred) p.inferredGather = gather; else p.checkedGather = gather;
      }
      let cols: unknown[][] | null = null;
      if (gatheredFlat === vs && always) { cols = gatheredColumns(gathered!, keys, always, vs); gathered = null; gatheredFlat = null; }
      if (cols !== null) { /* gathered by inference */ }
      else if (gather) cols = gather(vs, n, hasOwn, bail, (o) => ownKeys(t, o));
      else {
        cols = [];
        for (let j = 0; j < m; j++) cols.push([]);
        if (always) {
          for (let i = 0; i < n; i++) {
            const o = vs[i] as Record<string, unknown>;
            if (o === null || typeof o !== "object") bail();
            for (let j = 0; j < m; j++) { const k = keys[j]!; cols[j]!.push(always[j] || hasOwn.call(o, k) ? o[k] : undefined); }
          }
        } else {
          // An object whose own enumerable keys are those of the last one checked, in the same order, passes the
          // same check (struct); only objects with other keys are checked again (and every object while they are
          // none: a Map, an empty array or a typed array has no keys either).
          let checked: string[] | null = null;
          for (let i = 0; i < n; i++) {
            const o = vs[i] as Record<string, unknown>;
            if (o === null || typeof o !== "object") bail();
            const ok = Object.keys(o);
            let same = checked !== null && ok.length === checked.length && ok.length > 0;
            for (let j = 0; same && j < ok.length; j++) same = ok[j] === checked![j];
            if (!same) checked = ownKeys(t, o);
            for (let j = 0; j < m; j++) { const k = keys[j]!; cols[j]!.push(hasOwn.call(o, k) ? o[k] : undefined); }
          }
        }
      }
      const optional = p.optional, types = p.types;
      for (let j = 0; j < m; j++) {
        const ft = types[j]!, xs = cols[j]!;
        if (optional[j]) {
          const tags = scratchArray(S_TAGS, xs.length), present: unknown[] = [];
          for (let i = 0; i < xs.length; i++) {
            const x = xs[i];
            if (x === undefined) { tags[i] = 0; continue; }
            if (x instanceof XbfEnum) bail();
            tags[i] = 1;
            present.push(x);
          }
          rowsBound += xs.length;
          putIntsColumn(out, tags, true, measureFlags(tags));
          columnValues(ft, present, out);
        } else {
          // A missing key (undefined) is refused: by the column's own check for every kind but `any` (which takes
          // undefined as null) and an option or unit (where it is null, unless a remembered type forbids that).
          const k = ft.kind;
          if (k === "any" || ((k === "option" || k === "unit") && noAbsentNull)) for (let i = 0; i < xs.length; i++) if (xs[i] === undefined) bail();
          columnValues(ft, xs, out);
        }
      }
      return;
    }
    default: {
      // int()'s checks and columnInts' zigzag in one pass, straight to the integer writer (no copy per step);
      // a 64-bit unsigned value past 2^50 sends the column through columnsOf's bigint path, as before.
      const [bits, signed] = INT_INFO[t.kind]!;
      const lo = bits <= 32 ? (signed ? -(2 ** (bits - 1)) : 0) : signed ? -(2 ** 50) : 0;
      const hi = bits <= 32 ? (signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1) : signed ? 2 ** 50 : Number.MAX_SAFE_INTEGER;
      // The column values (zigzag forms, or unsigned values as they are) copied into an array of sizedArray's: the
      // gathered arrays come in every elements kind (an option's present values share one array literal with every
      // other kind of column, so hold objects' kind), and the measure and the packer, which read each value again,
      // then see the few kinds sizedArray makes instead of a megamorphic load a value. (scratchArray's kept array:
      // written here and dropped before this returns.)
      const zs: number[] = scratchArray(S_INT_ZS, vs.length);
      const fixed = INT_INFO[t.kind]![2];
      let wide = false, rows = 0, zmax = 0;
      for (let i = 0; i < vs.length; i++) {
        const v = vs[i];
        if (typeof v !== "number" || !Number.isInteger(v) || v < lo || v > hi) bail();
        if (v > 1125899906842624) wide = true; // 2^50
        const z = signed ? (v >= 0 ? 2 * v : -2 * v - 1) : v;
        zs[i] = z;
        if (z > zmax) zmax = z;
        rows += z < 128 ? 1 : z < 16384 ? 2 : 3; // its varint's length, or less (at most 3 counted)
      }
      if (zmax >= 2097152) boundShort = true;
      rowsBound += fixed ? fixed * vs.length : rows;
      if (wide) columnsOf(t.kind, vs, out);
      // Checked whole numbers, not negative: below 2^51 they go to the number path without a second check; 2^51 itself
      // (2^50's zigzag form) goes through putIntsColumn's own choice, as before.
      else if (zmax < 2251799813685248) putSmallInts(out, zs);
      else putIntsColumn(out, zs);
    }
  }
}

/** The columns of the fields `keys` of the records `vs` from what inference gathered (`g`: their values from record
 * `from` on, which have exactly those keys in that order), the records before `from` read as the inferred gatherer
 * reads them (a field in every record directly, the others when own); null where inference gathered other keys or
 * another number of records. (Exported for the tests.) */
export function gatheredColumns(g: Gathered, keys: string[], always: boolean[], vs: unknown[]): unknown[][] | null {
  const gk = g.keys, m = keys.length, n = vs.length, cols = g.cols;
  if (gk.length !== m || cols.length !== m || (m > 0 && cols[0]!.length !== n)) return null;
  for (let j = 0; j < m; j++) if (gk[j] !== keys[j]) return null;
  for (let i = 0; i < g.from; i++) {
    const o = vs[i] as Record<string, unknown>;
    if (o === null || typeof o !== "object") bail();
    for (let j = 0; j < m; j++) { const k = keys[j]!; cols[j]![i] = always[j] || hasOwn.call(o, k) ? o[k] : undefined; }
  }
  return cols;
}

type Gather = (vs: unknown[], n: number, has: typeof hasOwn, fail: () => never, check: (o: Record<string, unknown>) => string[]) => unknown[][];
/** Generated code that gathers the fields `keys` of n objects into one array each, one named property load per key
 * instead of a keyed load per value; null where code may not be generated (a page's CSP), for a key `__proto__` or
 * for very wide structs. Kept per key list (fast.ts's cache of generated code).
 *
 * `always`, for a type inferred from these very objects: `always[j]` when key j is in every one of them (read
 * directly), the others read when own; no key check. null, for a type given or remembered: each object's keys are
 * walked (for…in, no array made) against those of the last object `check` passed (struct's check, which returns
 * its own enumerable keys); an object with other keys, or while they are none, is checked itself. A key of that
 * list is own (read directly); the others are read when own, as in columnValues' loop without generated code. */
function gatherer(keys: string[], always: boolean[] | null): Gather | null {
  if (keys.length === 0 || keys.length > MAX_GENERATED || keys.includes("__proto__") || !canGenerate()) return null;
  const tag = always ? "gather:" + always.map((x) => (x ? "1" : "0")).join("") : "gather-checked";
  return generate(tag, keys, () => {
    // Each column sized once (no growth and copies as it is filled) up to 65,536 values, as sizedArray.
    const decl = keys.map((_, j) => `c${j} = n <= 65536 ? new Array(n) : []`).join(", ");
    const names = keys.map((k) => JSON.stringify(k));
    const body = names.map((key, j) => {
      const own = always ? always[j] : `f${j}`, at = keyAccess(keys[j]!);
      return own === true ? `c${j}[i] = o${at};` : `c${j}[i] = ${own ? `${own} || ` : ""}has.call(o, ${key}) ? o${at} : undefined;`;
    }).join(" ");
    // The walk: for…in gives the own enumerable keys first (Object.keys' order), then inherited enumerable ones;
    // when it gives exactly the m keys K and the last is own, all are, and they are Object.keys(o). (The flags from
    // a Set: K.includes per field would take m² steps a check, and records may change keys every time.) Where some
    // key is an array index (an element, which for…in turns into a string at about twice Object.keys' cost),
    // Object.keys(o) is compared with K instead: an object that passes has exactly K as its own enumerable keys,
    // what the walk makes sure of (one with inherited enumerable keys too, which the walk sends to check, passes
    // the same check: the same K and flags).
    const compare = keys.some(isIndexKey)
      ? `let j = -1;
if (m > 0) { const ok = Object.keys(o); if (ok.length === m) { j = 0; while (j < m && ok[j] === K[j]) j++; } }`
      : `let j = 0;
if (m > 0) for (const key in o) { if (j === m || key !== K[j]) { j = -1; break; } j++; }`;
    const walk = always ? "" : `${compare}
if (m === 0 || j !== m || !has.call(o, K[m - 1])) { K = check(o); m = K.length; const S = new Set(K); ${names.map((key, j) => `f${j} = S.has(${key});`).join(" ")} }`;
    const state = always ? "" : `let K = [], m = -1, ${keys.map((_, j) => `f${j} = false`).join(", ")};`;
    const cols = keys.map((_, j) => `c${j}`).join(", ");
    return new Function("vs", "n", "has", "fail", "check",
      `const ${decl}; ${state} for (let i = 0; i < n; i++) { const o = vs[i]; if (o === null || typeof o !== "object") fail(); ${walk} ${body} } return [${cols}];`) as Gather;
  });
}

/** Rust's worth_trying on public values: 16 or more repeated items near the root. */
export function worthTryingPublic(t: XbfType, v: unknown): boolean {
  // A list's own length counts whole: a list of 16 or more needs no walk of its first items.
  if (t.kind === "vec" && Array.isArray(v) && v.length >= 16) return true;
  return items(t, v, 0) >= 16;
}
/** The repeated items of v near the root: a list's length and the items of its first four, a struct's fields'. */
function items(t: XbfType, v: any, depth: number): number {
  if (depth > 3 || v === null || v === undefined) return 0;
  let sum = 0;
  switch (t.kind) {
    case "vec": {
      // Not an array: a wrong value, which the writer leaves to the reference path to report.
      if (!Array.isArray(v)) return 0;
      sum = v.length;
      const e = t.element, k = Math.min(4, v.length);
      for (let i = 0; i < k; i++) sum += items(e, v[i], depth + 1);
      return sum;
    }
    case "struct": {
      const fs = t.fields;
      for (let i = 0; i < fs.length; i++) { const f = fs[i]!; if (!isOptionalEnum(f.type)) sum += items(f.type, v[f.name], depth + 1); }
      return sum;
    }
    default: return 0;
  }
}

// ------------------------------------------------------------------ rows size, for layout auto
const OVER = Symbol("over");
/** Whether the rows form of v (already checked by columnValues) takes more than `limit` bytes: a lower bound
 * of its size (strings count one byte per UTF-16 unit, at most their UTF-8 length), summed until it passes
 * the limit. Auto then keeps the columns without writing the rows. */
export function rowsLarger(t: XbfType, v: unknown, limit: number): boolean {
  let acc = 0;
  const add = (k: number) => { acc += k; if (acc > limit) throw OVER; };
  const size = (t: XbfType, v: any): void => {
    switch (t.kind) {
      case "unit": return;
      case "bool": add(1); return;
      case "f64": add(8); return;
      case "f32": add(4); return;
      case "string": add(varLen(v.length) + v.length); return;
      case "any": { const it = anyType(v); add(1); size(it, v); return; }
      case "vec": {
        add(varLen(v.length));
        const e = t.element;
        for (let i = 0; i < v.length; i++) size(e, v[i]);
        return;
      }
      case "option":
        add(1);
        if (v !== null && v !== undefined) size(t.inner, unwrap(v));
        return;
      case "struct": {
        const fs = t.fields;
        for (let i = 0; i < fs.length; i++) {
          const f = fs[i]!, x = field(v, f.name);
          if (isOptionalEnum(f.type)) { add(1); if (x !== undefined) size((f.type as Extract<XbfType, { kind: "enum" }>).variants[1]!.type, x); }
          else if (x === undefined) add(f.type.kind === "option" ? 1 : 0);
          else size(f.type, x);
        }
        return;
      }
      default: {
        const [, signed, fixed] = INT_INFO[t.kind]!;
        add(fixed ? fixed : varLen(signed ? zz(v) : v));
      }
    }
  };
  // A long list: first an estimate from 256 of its items spread over it, and when that passes the limit by a
  // quarter, the rows are taken as larger without summing them all (auto's choice from an estimate; a list whose
  // items differ that much in size is rare, and both layouts are valid).
  // (The sample's items are items of the list: their sum alone passing the limit is an answer too.)
  try {
    if (t.kind === "vec" && Array.isArray(v) && v.length >= 2048) {
      const step = v.length / 256;
      for (let i = 0; i < 256; i++) size(t.element, v[Math.floor(i * step)]);
      if ((acc * v.length) / 256 > 1.25 * limit) return true;
      acc = 0;
    }
    size(t, v);
  } catch (e) { if (e === OVER) return true; throw e; }
  return false;
}
