import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { typeFromJson } from "../dist/index.js";
import { fromHex } from "../dist/metadata.js";

export const VECTORS = fileURLToPath(new URL("../../vectors/", import.meta.url));
export const load = (name) => JSON.parse(readFileSync(VECTORS + name, "utf8"));

const BIG = new Set(["u64", "u128", "u256", "i64", "i128", "i256", "fixed-u64", "fixed-u128", "fixed-i64", "fixed-i128", "timestamp"]);

/** A vector's JSON value (SPEC 21.1) as the package's internal value of type `t`. */
export function fromVector(t, j) {
  switch (t.kind) {
    case "f32": case "f64":
      if (j === "NaN") return NaN;
      if (j === "Infinity") return Infinity;
      if (j === "-Infinity") return -Infinity;
      return t.kind === "f32" ? Math.fround(j) : j;
    case "bytes": return fromHex(j);
    case "unit": return null;
    case "option": return j === null ? null : [fromVector(t.inner, j.some)];
    case "vec": case "array": return j.map((x) => fromVector(t.element, x));
    case "tuple": return j.map((x, i) => fromVector(t.elements[i], x));
    case "struct": return t.fields.map((f) => fromVector(f.type, j[f.name]));
    case "map": return j.map(([k, v]) => [fromVector(t.key, k), fromVector(t.value, v)]);
    case "enum": {
      const i = t.variants.findIndex((v) => v.name === j.variant);
      return { i, v: fromVector(t.variants[i].type, j.value) };
    }
    case "any": { const at = typeFromJson(j.type); return { t: at, v: fromVector(at, j.value) }; }
    default: return BIG.has(t.kind) ? BigInt(j) : j;
  }
}
