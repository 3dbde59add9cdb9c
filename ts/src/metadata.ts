import { XbfError, mismatch } from "./errors.js";
import { sha256 } from "./checksums.js";
import { Writer } from "./varint.js";

/** Names of the types without parameters (SPEC 1 and 12.1). */
export type PrimitiveKind =
  | "bool" | "u8" | "u16" | "u32" | "u64" | "u128" | "u256"
  | "i8" | "i16" | "i32" | "i64" | "i128" | "i256" | "f32" | "f64" | "bytes" | "string"
  | "unit" | "any" | "date" | "timestamp"
  | "fixed-u16" | "fixed-u32" | "fixed-u64" | "fixed-u128"
  | "fixed-i16" | "fixed-i32" | "fixed-i64" | "fixed-i128";

export interface Member { name: string; type: XbfType }

/** The metadata as a walkable object. */
export type XbfType =
  | { kind: PrimitiveKind }
  | { kind: "vec"; element: XbfType }
  | { kind: "struct"; name: string; fields: Member[] }
  | { kind: "option"; inner: XbfType }
  | { kind: "array"; len: number | bigint; element: XbfType }
  | { kind: "tuple"; elements: XbfType[] }
  | { kind: "map"; key: XbfType; value: XbfType }
  | { kind: "enum"; name: string; variants: Member[] };

export const PRIMS: PrimitiveKind[] = [
  "bool", "u8", "u16", "u32", "u64", "u128", "u256", "i8", "i16", "i32", "i64", "i128", "i256",
  "f32", "f64", "bytes", "string",
];
/** Discriminant of each primitive (and `any`). */
export const DISC: Record<string, number> = {};
PRIMS.forEach((p, i) => (DISC[p] = i));
Object.assign(DISC, {
  vec: 0x11, struct: 0x12, unit: 0x13, option: 0x14, array: 0x15, tuple: 0x16, map: 0x17, enum: 0x18, any: 0x19,
  date: 0x1a, timestamp: 0x1b, "fixed-u16": 0x1c, "fixed-u32": 0x1d, "fixed-u64": 0x1e, "fixed-u128": 0x1f,
  "fixed-i16": 0x20, "fixed-i32": 0x21, "fixed-i64": 0x22, "fixed-i128": 0x23,
});
export const KIND_OF: string[] = [];
for (const [k, d] of Object.entries(DISC)) KIND_OF[d] = k;

/** Integer kinds: [bits, signed, fixed byte width in XBF 2 (0 = varint)]. */
export const INT_INFO: Record<string, [number, boolean, number]> = {
  u8: [8, false, 1], u16: [16, false, 0], u32: [32, false, 0], u64: [64, false, 0], u128: [128, false, 0],
  u256: [256, false, 32], i8: [8, true, 1], i16: [16, true, 0], i32: [32, true, 0], i64: [64, true, 0],
  i128: [128, true, 0], i256: [256, true, 32], "fixed-u16": [16, false, 2], "fixed-u32": [32, false, 4],
  "fixed-u64": [64, false, 8], "fixed-u128": [128, false, 16], "fixed-i16": [16, true, 2],
  "fixed-i32": [32, true, 4], "fixed-i64": [64, true, 8], "fixed-i128": [128, true, 16],
  date: [32, true, 0], timestamp: [64, true, 0],
};
export const V1_PRIM = new Set<string>(PRIMS);

export const prim = (kind: PrimitiveKind): XbfType => ({ kind });
const LEVEL = new Set(["vec", "struct", "option", "array", "tuple", "map", "enum"]);

export function isZeroSize(t: XbfType): boolean {
  switch (t.kind) {
    case "unit": return true;
    case "struct": return t.fields.every((f) => isZeroSize(f.type));
    case "tuple": return t.elements.every(isZeroSize);
    case "array": return Number(t.len) === 0 || isZeroSize(t.element);
    default: return false;
  }
}

/** Minimum value size (SPEC 7.2 for v1, 16.2 for XBF 2); saturates as a float. */
export function minSize(t: XbfType, v2: boolean): number {
  switch (t.kind) {
    case "struct": return t.fields.reduce((a, f) => a + minSize(f.type, v2), 0);
    case "tuple": return t.elements.reduce((a, e) => a + minSize(e, v2), 0);
    case "array": { const m = minSize(t.element, v2); return m === 0 ? 0 : Number(t.len) * m; }
    case "vec": return v2 ? 1 : 8;
    case "option": case "map": case "enum": case "any": return 1;
    case "unit": return 0;
    case "bool": case "u8": case "i8": return 1;
    case "bytes": case "string": return v2 ? 1 : 8;
    case "f32": return 4;
    case "f64": return 8;
    default: {
      const info = INT_INFO[t.kind]!;
      if (!v2) return info[0] / 8;
      return info[2] || 1;
    }
  }
}

/** Number of zero-size values in one value of a zero-size type (SPEC 7.2 weight). */
export function weight(t: XbfType): number {
  switch (t.kind) {
    case "array": return Number(t.len) * weight(t.element) + 1;
    case "struct": return t.fields.reduce((a, f) => a + weight(f.type), 0) + 1;
    case "tuple": return t.elements.reduce((a, e) => a + weight(e), 0) + 1;
    default: return 1;
  }
}

export function depthOf(t: XbfType): number {
  switch (t.kind) {
    case "vec": case "array": return 1 + depthOf(t.element);
    case "option": return 1 + depthOf(t.inner);
    case "struct": return 1 + Math.max(0, ...t.fields.map((f) => depthOf(f.type)));
    case "enum": return 1 + Math.max(0, ...t.variants.map((f) => depthOf(f.type)));
    case "tuple": return 1 + Math.max(0, ...t.elements.map(depthOf));
    case "map": return 1 + Math.max(depthOf(t.key), depthOf(t.value));
    default: return 0;
  }
}

const enc = new TextEncoder();

/** Writes the metadata bytes of `t` (SPEC 2 for v1, 12.2 for XBF 2). */
export function writeMetadata(w: Writer, t: XbfType, v2: boolean): void {
  const d = DISC[t.kind];
  if (d === undefined || (!v2 && !V1_PRIM.has(t.kind) && t.kind !== "vec" && t.kind !== "struct")) {
    throw new XbfError("unsupported", undefined, `XBF v1 has no type ${typeToString(t)}`);
  }
  w.u8(d);
  switch (t.kind) {
    case "vec": return writeMetadata(w, t.element, v2);
    case "option": return writeMetadata(w, t.inner, v2);
    case "array": w.uvar(t.len); return writeMetadata(w, t.element, v2);
    case "tuple": w.uvar(t.elements.length); for (const e of t.elements) writeMetadata(w, e, v2); return;
    case "map": writeMetadata(w, t.key, v2); return writeMetadata(w, t.value, v2);
    case "struct": writeName(w, t.name, v2); return writeMembers(w, t.fields, v2);
    case "enum": writeName(w, t.name, v2); return writeMembers(w, t.variants, v2);
    default:
  }
}
/** A struct's, enum's, field's or variant's name. */
function writeName(w: Writer, s: string, v2: boolean): void {
  if (v2) { w.string(s); return; } // its UTF-8 length as a varint, then the bytes (short ASCII names by hand)
  const b = enc.encode(s);
  w.fixed(b.length, 8);
  w.bytes(b);
}
/** Members past this many are checked for duplicates with a Set; fewer, against the names before them (no Set
 * made for each struct of each call). */
const SCAN_MEMBERS = 16;
function writeMembers(w: Writer, ms: Member[], v2: boolean): void {
  const n = ms.length;
  if (v2) w.uvar(n);
  else {
    if (n > 65535) throw new XbfError("too-large", undefined, `${n} fields; XBF v1 allows 65,535`);
    w.fixed(n, 2);
  }
  const seen = n > SCAN_MEMBERS ? new Set<string>() : null;
  for (let i = 0; i < n; i++) {
    const m = ms[i]!, name = m.name;
    let dup = false;
    if (seen) { dup = seen.has(name); seen.add(name); } else for (let j = 0; j < i && !dup; j++) dup = ms[j]!.name === name;
    if (dup) throw new XbfError("duplicate-field", undefined, `${JSON.stringify(name)} appears twice`);
    writeName(w, name, v2);
    writeMetadata(w, m.type, v2);
  }
}

export function metadataBytes(t: XbfType, v2 = true): Uint8Array {
  const w = new Writer();
  writeMetadata(w, t, v2);
  return w.finish();
}

/** The 8-byte fingerprint of a type: the first 8 bytes of SHA-256 of its XBF 2 metadata (SPEC 14.1). */
export function fingerprint(t: XbfType): Uint8Array {
  return sha256(metadataBytes(t, true)).subarray(0, 8);
}

/** A registry of types by fingerprint, for schema by reference (SPEC 14.3). */
export class SchemaRegistry {
  private byKey = new Map<string, { type: XbfType; meta: string }>();
  add(t: XbfType): Uint8Array {
    const meta = metadataBytes(t, true);
    const fp = sha256(meta).subarray(0, 8);
    const key = hex(fp), m = hex(meta);
    const old = this.byKey.get(key);
    if (old && old.meta !== m) throw new XbfError("duplicate-key", undefined, `another type has fingerprint ${key}`);
    this.byKey.set(key, { type: t, meta: m });
    return fp;
  }
  get(fp: Uint8Array): XbfType | undefined {
    return this.byKey.get(hex(fp))?.type;
  }
}

export function hex(b: Uint8Array): string {
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s;
}
export function fromHex(s: string): Uint8Array {
  const out = new Uint8Array(s.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.substr(i * 2, 2), 16);
  return out;
}

/** The type in the conformance vectors' JSON form (SPEC 21.1), e.g. `{"vec": "u16"}`. */
export function typeFromJson(j: unknown): XbfType {
  if (typeof j === "string") {
    if (DISC[j] === undefined || LEVEL.has(j)) throw mismatch(`unknown type word ${j}`);
    return { kind: j as PrimitiveKind };
  }
  const o = j as Record<string, any>;
  if (o && typeof o === "object") {
    if ("vec" in o) return { kind: "vec", element: typeFromJson(o.vec) };
    if ("option" in o) return { kind: "option", inner: typeFromJson(o.option) };
    if ("array" in o) return { kind: "array", len: typeof o.len === "string" ? BigInt(o.len) : o.len, element: typeFromJson(o.array) };
    if ("tuple" in o) return { kind: "tuple", elements: o.tuple.map(typeFromJson) };
    if ("map" in o) return { kind: "map", key: typeFromJson(o.map[0]), value: typeFromJson(o.map[1]) };
    if ("struct" in o) return { kind: "struct", name: o.struct, fields: o.fields.map(([n, t]: [string, unknown]) => ({ name: n, type: typeFromJson(t) })) };
    if ("enum" in o) return { kind: "enum", name: o.enum, variants: o.variants.map(([n, t]: [string, unknown]) => ({ name: n, type: typeFromJson(t) })) };
  }
  throw mismatch(`not a type: ${JSON.stringify(j)}`);
}

export function typeToJson(t: XbfType): unknown {
  switch (t.kind) {
    case "vec": return { vec: typeToJson(t.element) };
    case "option": return { option: typeToJson(t.inner) };
    case "array": return { array: typeToJson(t.element), len: typeof t.len === "bigint" ? t.len.toString() : t.len };
    case "tuple": return { tuple: t.elements.map(typeToJson) };
    case "map": return { map: [typeToJson(t.key), typeToJson(t.value)] };
    case "struct": return { struct: t.name, fields: t.fields.map((f) => [f.name, typeToJson(f.type)]) };
    case "enum": return { enum: t.name, variants: t.variants.map((f) => [f.name, typeToJson(f.type)]) };
    default: return t.kind;
  }
}

/** A type as a declaration, as `xbf schema` prints it, e.g. `vec<struct Point { first: i8, last: i8 }>`. */
export function typeToString(t: XbfType): string {
  switch (t.kind) {
    case "vec": return `vec<${typeToString(t.element)}>`;
    case "option": return `option<${typeToString(t.inner)}>`;
    case "array": return `[${typeToString(t.element)}; ${t.len}]`;
    case "tuple": return `(${t.elements.map(typeToString).join(", ")})`;
    case "map": return `map<${typeToString(t.key)}, ${typeToString(t.value)}>`;
    case "struct": return `struct ${t.name} { ${t.fields.map((f) => `${f.name}: ${typeToString(f.type)}`).join(", ")} }`;
    case "enum": return `enum ${JSON.stringify(t.name)} { ${t.variants.map((f) => f.type.kind === "unit" ? f.name : `${f.name}: ${typeToString(f.type)}`).join(", ")} }`;
    default: return t.kind;
  }
}

export function sameType(a: XbfType, b: XbfType): boolean {
  return JSON.stringify(typeToJson(a)) === JSON.stringify(typeToJson(b));
}
