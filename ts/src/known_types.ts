// The types the encoder met lately, each as a private copy with its metadata bytes, found again by structure.
//
// Why by structure: `encode(value)` infers a new type object every call, so a cache keyed by the object never hits
// for the default call; and a type given by the caller (or an Encoder's `type`) may be changed in place between
// calls, so a cache keyed by that object could hand back the bytes or the field lists of what it used to be. Here a
// type is compared, node by node, with the copies kept (the last one first: a series of calls with one type costs
// one comparison, names compared by `===`, mostly the same interned strings); the copy found, never given out and so
// never changed, is what the writer then encodes with, and the per-type caches of fast_encode.ts key on its nodes.
import { Member, XbfType, metadataBytes } from "./metadata.js";

/** A type met lately: its private copy and the copy's XBF 2 metadata bytes. */
export interface KnownType {
  /** The copy: the same structure as the type asked for, never given out. */
  readonly type: XbfType;
  /** Its XBF 2 metadata (SPEC 12.2). */
  readonly meta: Uint8Array;
}

/** At most this many types kept (a process that encodes more kinds of values in turn makes copies again; each
 * call compares its type with those kept until one is the same, most of them differing at their first nodes). */
const MAX_TYPES = 16;
/** Types of more nodes than this (a struct field, an element, ...) are copied for the call and not kept: their
 * comparisons would cost as much as the metadata they save. */
const MAX_NODES = 4096;
/** Nor are types whose metadata passes this many bytes (long names): at most 16 × 64 KiB kept. */
const MAX_META = 64 * 1024;
/** Most recent first. */
const known: KnownType[] = [];

/** The kept copy of a type with the structure of `t`, made (and kept, the oldest dropped past MAX_TYPES) when there
 * is none. Throws what writing t's metadata throws (a duplicate field, an unknown kind): nothing is kept then. */
export function knownType(t: XbfType): KnownType {
  for (let i = 0; i < known.length; i++) {
    const k = known[i]!;
    if (k.type !== t && !same(k.type, t)) continue;
    if (i > 0) { known.splice(i, 1); known.unshift(k); }
    return k;
  }
  const nodes = { left: MAX_NODES };
  const type = copy(t, nodes);
  const k: KnownType = { type, meta: metadataBytes(type, true) };
  if (nodes.left >= 0 && k.meta.length <= MAX_META) {
    if (known.unshift(k) > MAX_TYPES) known.pop();
  }
  return k;
}

/** How many types are kept (for tests). */
export function knownTypeCount(): number {
  return known.length;
}
/** Whether a type of t's structure is kept (for tests). */
export function isKept(t: XbfType): boolean {
  return known.some((k) => same(k.type, t));
}

/** Whether t has the structure of the kept copy c (c's nodes are well formed: t is read only as far as c goes). */
function same(c: XbfType, t: XbfType): boolean {
  if (t === null || typeof t !== "object" || c.kind !== t.kind) return false;
  switch (c.kind) {
    case "vec": return same(c.element, (t as typeof c).element);
    case "option": return same(c.inner, (t as typeof c).inner);
    case "array": return c.len === (t as typeof c).len && same(c.element, (t as typeof c).element);
    case "map": return same(c.key, (t as typeof c).key) && same(c.value, (t as typeof c).value);
    case "tuple": {
      const a = c.elements, b = (t as typeof c).elements;
      if (!Array.isArray(b) || a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) if (!same(a[i]!, b[i]!)) return false;
      return true;
    }
    case "struct": return c.name === (t as typeof c).name && sameMembers(c.fields, (t as typeof c).fields);
    case "enum": return c.name === (t as typeof c).name && sameMembers(c.variants, (t as typeof c).variants);
    default: return true;
  }
}
function sameMembers(a: Member[], b: Member[]): boolean {
  if (!Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!, y = b[i];
    if (y === null || typeof y !== "object" || x.name !== y.name || !same(x.type, y.type)) return false;
  }
  return true;
}

/** A copy of t's structure (only the properties the format reads), counting its nodes down from `nodes.left`. */
function copy(t: XbfType, nodes: { left: number }): XbfType {
  nodes.left--;
  switch (t.kind) {
    case "vec": return { kind: "vec", element: copy(t.element, nodes) };
    case "option": return { kind: "option", inner: copy(t.inner, nodes) };
    case "array": return { kind: "array", len: t.len, element: copy(t.element, nodes) };
    case "map": return { kind: "map", key: copy(t.key, nodes), value: copy(t.value, nodes) };
    case "tuple": return { kind: "tuple", elements: t.elements.map((e) => copy(e, nodes)) };
    case "struct": return { kind: "struct", name: t.name, fields: t.fields.map((f) => ({ name: f.name, type: copy(f.type, nodes) })) };
    case "enum": return { kind: "enum", name: t.name, variants: t.variants.map((f) => ({ name: f.name, type: copy(f.type, nodes) })) };
    default: return { kind: t.kind };
  }
}
