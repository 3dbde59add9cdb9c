// The direct decoder's generated code and how it builds records: whether `new Function` may be used, the caches of
// generated functions by key list (the encoder's, the decoders', the record constructors'), the record constructors,
// the builders that make a struct column's objects from its fields' columns (fast.ts's struct case), and the
// widening of float fields that lets those objects share a float dictionary's boxes.
import { INT_INFO, XbfType } from "./metadata.js";
import { MAX_LENGTH } from "./fast_bits.js";
import { bail } from "./fast_common.js";

/** Builds n objects from their fields' columns. A field's mode says how its column is read: PLAIN, one value per
 * object; ABSENT_KEY (a `json.optional` field), only the values present, in order, and `tags[j][i]` says whether
 * object i has one (1) or leaves the key out (0); NULLABLE (an option whose present values are never null),
 * only the values present, and `tags[j][i]` 0 gives null. `tags[j]` is null for PLAIN fields. (No column of n
 * entries mixing values and a marker or null: such an array holds every number boxed, and costs a pass.) */
export type Builder = (cols: unknown[][], n: number, tags: (number[] | null)[]) => unknown[];
export const PLAIN = 0, ABSENT_KEY = 1, NULLABLE = 2;
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
    // The keys as JSON: one text for one list only (keys joined by a separator would not be: ["a", "b\0c"] and
    // ["a\0b", "c"] would share their functions, each reading the other's keys).
    const id = tag + "\u0000" + JSON.stringify(keys);
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
  return `void ${JSON.stringify(JSON.stringify(keys))};`;
}
/** Whether k is an array index ("0" to "4294967294", canonical: no sign, no leading zero), a key that V8 keeps among
 * an object's elements rather than its named properties (JSON.parse puts a record's keys such as years there). */
export function isIndexKey(k: string): boolean {
  return /^(?:0|[1-9][0-9]{0,9})$/.test(k) && Number(k) <= 4294967294;
}
/** The property access `[k]` for generated code: an array index as its number (an element load; the string key
 * makes V8 look the string up and then load the same element), any other key as a string literal. */
export function keyAccess(k: string): string {
  return isIndexKey(k) ? `[${k}]` : `[${JSON.stringify(k)}]`;
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
export const WIDENED = new WeakSet<XbfType>();
/** The builder of each struct type met (types are kept with their metadata: see cachedDirect). */
export const BUILDERS = [new WeakMap<XbfType, Builder>(), new WeakMap<XbfType, Builder>()]; // without, with generated code
/** `variant` names the options that change the columns' values (int64 as bigints): each gets its own generated
 * builder, so that the object shapes and loads of one mode's builder never see another mode's values. */
export function builder(keys: string[], modes: number[], variant: string): Builder {
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
export function untypedFloats(keys: string[], firsts: unknown[]): void {
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
export function floatFirsts(t: Extract<XbfType, { kind: "struct" }>, modes: number[], variant: string): unknown[] | null {
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
