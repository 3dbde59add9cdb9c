import { INT_INFO, XbfType, writeMetadata } from "./metadata.js";
import { Writer, zigzag, zigzagNum } from "./varint.js";
import type { NAny, NEnum } from "./values.js";

const utf8 = new TextEncoder();

/** Writes an internal value of type `t` in rows (SPEC 3 for v1, 13 for XBF 2). */
export function writeValue(w: Writer, t: XbfType, n: any, v2: boolean): void {
  switch (t.kind) {
    case "bool": w.u8(n ? 1 : 0); return;
    case "unit": return;
    case "f32": w.f32(n); return;
    case "f64": w.f64(n); return;
    case "string": case "bytes": {
      if (v2 && typeof n === "string") { w.string(n); return; }
      const b = typeof n === "string" ? utf8.encode(n) : (n as Uint8Array);
      if (v2) w.uvar(b.length); else w.fixed(b.length, 8);
      w.bytes(b);
      return;
    }
    case "vec": {
      const a = n as unknown[];
      if (v2) w.uvar(a.length); else w.fixed(a.length, 8);
      const e = t.element;
      for (let i = 0; i < a.length; i++) writeValue(w, e, a[i], v2);
      return;
    }
    case "array": for (const x of n as unknown[]) writeValue(w, t.element, x, v2); return;
    case "tuple": t.elements.forEach((et, i) => writeValue(w, et, n[i], v2)); return;
    case "struct": { const fs = t.fields; for (let i = 0; i < fs.length; i++) writeValue(w, fs[i]!.type, n[i], v2); return; }
    case "option":
      if (n === null) w.u8(0);
      else { w.u8(1); writeValue(w, t.inner, n[0], v2); }
      return;
    case "map":
      w.uvar(n.length);
      for (const [k, v] of n as [unknown, unknown][]) { writeValue(w, t.key, k, v2); writeValue(w, t.value, v, v2); }
      return;
    case "enum": {
      const e = n as NEnum;
      w.uvar(e.i);
      writeValue(w, t.variants[e.i]!.type, e.v, v2);
      return;
    }
    case "any": {
      const a = n as NAny;
      writeMetadata(w, a.t, true);
      writeValue(w, a.t, a.v, v2);
      return;
    }
    default: {
      const [bits, signed, fixed] = INT_INFO[t.kind]!;
      if (!v2) { w.fixed(n, bits / 8); return; }
      if (fixed) { w.fixed(n, fixed); return; }
      if (!signed) { w.uvar(n); return; }
      if (typeof n === "number") w.uvar(zigzagNum(n));
      else if (n >= -1125899906842624n && n <= 1125899906842624n) w.uvar(zigzagNum(Number(n))); // |n| <= 2^50: exact
      else w.uvar(zigzag(n, bits));
    }
  }
}
