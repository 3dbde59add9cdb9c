// The inspector's logic, without the DOM: schema text, the table model, byte annotations and the
// column list. Importable from Node (test/inspector.test.mjs) and from the page (app.mjs).
import {
  decodeWithType, encode, readStream, XbfError, XbfEnum, XbfAny, XbfSome, XbfDate, XbfTimestamp, XbfNaN, FileReader, readFileForward,
} from "../dist/index.js";

// ------------------------------------------------------------------ schema text

const isIdentifier = (s) => /^[\p{L}_][\p{L}\p{N}_]*$/u.test(s);
/** A name as declarations write it: bare if an identifier, quoted if not (Rust's `Name`). */
export const declName = (s) => (isIdentifier(s) ? s : JSON.stringify(s));

/**
 * A type as a declaration, as Rust's `Metadata` Display prints it; `pretty` (the default) is `{:#}`:
 * one member a line, indented by four spaces a level.
 */
export function schemaText(t, pretty = true, indent = 0) {
  const sub = (x) => schemaText(x, pretty, indent);
  switch (t.kind) {
    case "vec": return `vec<${sub(t.element)}>`;
    case "option": return `option<${sub(t.inner)}>`;
    case "array": return `[${sub(t.element)}; ${t.len}]`;
    case "tuple": return `(${t.elements.map(sub).join(", ")}${t.elements.length === 1 ? ",)" : ")"}`;
    case "map": return `map<${sub(t.key)}, ${sub(t.value)}>`;
    case "struct": case "enum": {
      const members = t.kind === "struct" ? t.fields : t.variants;
      let s = `${t.kind} ${declName(t.name)} {`;
      if (members.length === 0) return s + "}";
      members.forEach((m, i) => {
        s += pretty ? `\n${" ".repeat((indent + 1) * 4)}${declName(m.name)}` : `${i === 0 ? " " : ", "}${declName(m.name)}`;
        if (t.kind === "struct" || m.type.kind !== "unit") s += ": " + schemaText(m.type, pretty, indent + 1);
        if (pretty) s += ",";
      });
      return s + (pretty ? `\n${" ".repeat(indent * 4)}}` : " }");
    }
    default: return t.kind;
  }
}

// ------------------------------------------------------------------ what the input is

/** What the bytes are, from the first two (as `xbf inspect`'s first line). */
export function detect(b) {
  if (b.length === 0) return { format: "empty", label: "empty input" };
  if (b[0] === 0xc2) {
    const flags = b.length > 1 ? b[1] : 0;
    if ((flags & 0x0e) === 0x0e) return { format: "file", label: "XBF file" };
    if (flags & 0x04) return { format: "stream", label: "XBF 2 record stream" };
    if (flags & 0x02) return { format: "columns", label: "XBF 2 message, columnar" };
    return { format: "rows", label: "XBF 2 message" };
  }
  if (b[0] <= 0x12) return { format: "v1", label: "XBF v1 message" };
  return { format: "unknown", label: `not XBF (first byte 0x${b[0].toString(16).padStart(2, "0")})` };
}

const errorInfo = (e) => ({ kind: e.kind, offset: e.offset, path: e.path, detail: e.detail, message: e.message });

/**
 * Opens an input: its format, type, value (a message) or records (a stream), the first error (kind, offset,
 * path, message) or null, the annotated bytes and, for a columnar message, its columns.
 * `limitBytes` bounds the annotations to the items that start in the first N bytes.
 */
export function inspect(bytes, { limitBytes = Infinity, block = 0 } = {}) {
  const { format, label } = detect(bytes);
  const out = { format, label, size: bytes.length, type: null, value: undefined, records: null, error: null, annotations: [], columns: null, stopped: null, file: null };
  try {
    if (format === "file") {
      readFile(bytes, out, block);
    } else if (format === "stream") {
      const r = readStream(bytes);
      out.type = r.type;
      out.records = r.records;
      if (r.error) out.error = errorInfo(r.error);
    } else {
      const d = decodeWithType(bytes);
      out.type = d.type;
      out.value = d.value;
    }
  } catch (e) {
    if (!(e instanceof XbfError)) throw e;
    out.error = errorInfo(e);
  }
  const end = out.error && out.error.offset !== undefined ? Math.min(out.error.offset, bytes.length) : bytes.length;
  const w = new Walker(bytes, end, limitBytes);
  try {
    w.top();
  } catch (s) {
    if (s !== END && s !== LIMIT) throw s;
    if (s === LIMIT) out.stopped = limitBytes;
  }
  if (!out.type && w.rootType) out.type = w.rootType;
  if (out.error && out.error.offset !== undefined) {
    const at = out.error.offset;
    w.items.push({ start: at, end: Math.min(at + 1, bytes.length), text: `error: ${out.error.message}`, error: true });
  } else if (!out.stopped && w.pos < bytes.length && format !== "unknown") {
    w.items.push({ start: w.pos, end: w.pos, text: `bytes ${w.pos}.. not annotated`, note: true });
  }
  out.annotations = w.items;
  if (format === "columns") out.columns = w.columns;
  return out;
}

// ------------------------------------------------------------------ XBF files (SPEC 24)

const u32le = (b, p) => (b[p] | (b[p + 1] << 8) | (b[p + 2] << 16) | (b[p + 3] << 24)) >>> 0;
const crcText = (x) => x.toString(16).padStart(8, "0");

/** A statistics bound (internal form of `type`) as a cell shows it. */
export function statText(v, type) {
  if (type === "date") return dayText(v);
  if (type === "timestamp") return microText(BigInt(v));
  if (type === "f32" || type === "f64") return floatText(v instanceof XbfNaN ? NaN : v, type === "f32");
  if (typeof v === "string") return quote(v); // whole: a bound holds at most 64 bytes (SPEC 24.4)
  return cellText(v);
}

/**
 * A file read from its footer: `out.file` gets every block (offset, size, records, CRC-32C) with its columns
 * (path, encoding, offset, size, statistics) or the error that stops reading it, and `out.records` the records
 * of block `chosen`. A file without a readable footer is read forward: its whole blocks' records, then the error.
 */
function readFile(bytes, out, chosen) {
  let r;
  try {
    r = new FileReader(bytes);
  } catch (e) {
    if (!(e instanceof XbfError)) throw e;
    const f = readFileForward(bytes);
    out.type = f.type;
    out.records = f.records;
    out.error = errorInfo(f.error ?? e);
    out.file = { blocks: null, recordCount: null, chosen: null, footerError: errorInfo(e) };
    return;
  }
  out.type = r.type;
  const blocks = r.blocks.map((b, i) => {
    const info = { index: i, offset: b.offset, size: b.size, records: b.records, crc: crcText(u32le(bytes, b.offset + b.size - 4)), columns: null, error: null };
    try {
      info.columns = r.blockColumns(i).map((c) => ({
        path: c.path || "(the record)", encoding: c.encodingName, offset: c.offset, size: c.size, crc: crcText(c.crc),
        min: c.stats.minMax ? statText(c.stats.minMax[0], c.statType) : null, max: c.stats.minMax ? statText(c.stats.minMax[1], c.statType) : null,
        exact: c.stats.exact, nulls: c.stats.nulls, nans: c.stats.nans, hasStats: c.statType !== null,
      }));
    } catch (e) {
      if (!(e instanceof XbfError)) throw e;
      info.error = errorInfo(e);
    }
    return info;
  });
  const pick = blocks.length === 0 ? null : Math.min(Math.max(0, chosen), blocks.length - 1);
  out.file = { blocks, recordCount: r.recordCount, chosen: pick, footerError: null };
  out.records = [];
  if (pick !== null) {
    try { out.records = r.readBlock(pick); } catch (e) { if (!(e instanceof XbfError)) throw e; out.error = errorInfo(e); }
  }
}

// ------------------------------------------------------------------ the byte walker

const END = Symbol("end"), LIMIT = Symbol("limit");
const PRIM = ["bool", "u8", "u16", "u32", "u64", "u128", "u256", "i8", "i16", "i32", "i64", "i128", "i256", "f32", "f64", "bytes", "string"];
const PRIM2 = { 0x13: "unit", 0x1a: "date", 0x1b: "timestamp", 0x1c: "fixed-u16", 0x1d: "fixed-u32", 0x1e: "fixed-u64", 0x1f: "fixed-u128", 0x20: "fixed-i16", 0x21: "fixed-i32", 0x22: "fixed-i64", 0x23: "fixed-i128" };
const FIXED = { u16: [2, false], u32: [4, false], u64: [8, false], u128: [16, false], i16: [2, true], i32: [4, true], i64: [8, true], i128: [16, true] };
const ENCODINGS = { 0x00: "varint", 0x01: "frame of reference", 0x02: "delta", 0x03: "run-length", 0x04: "entropy-coded", 0x05: "cascaded runs", 0x08: "plain 256", 0x10: "plain float", 0x11: "decimal float", 0x12: "float dictionary", 0x13: "XOR float", 0x20: "plain strings", 0x21: "string dictionary", 0x22: "shared prefixes", 0x30: "types", 0x80: "zstd" };
const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });
const label = (path) => path || "the value";
const ESC = { "\0": "\\0", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\\": "\\\\", '"': '\\"' };
/** A string quoted as Rust's `{:?}` quotes it. */
export const quote = (s) => '"' + s.replace(/[\0\t\n\r\\"]|[\p{Cc}\p{Cf}\p{Cn}\p{Co}\p{Cs}\p{Mn}\p{Me}\p{Zl}\p{Zp}]/gu,
  (c) => ESC[c] ?? `\\u{${c.codePointAt(0).toString(16)}}`) + '"';
const showStr = (s) => { const cs = [...s]; return cs.length > 48 ? quote(cs.slice(0, 48).join("")) + "…" : quote(s); };
const unzig = (u) => (u >> 1n) ^ -(u & 1n);
const leInt = (b, at, n, signed) => {
  let x = 0n;
  for (let i = n - 1; i >= 0; i--) x = (x << 8n) | BigInt(b[at + i]);
  return signed ? BigInt.asIntN(n * 8, x) : x;
};
const zeroSize = (t) => t.kind === "unit" || (t.kind === "struct" && t.fields.every((f) => zeroSize(f.type)))
  || (t.kind === "tuple" && t.elements.every(zeroSize)) || (t.kind === "array" && (Number(t.len) === 0 || zeroSize(t.element)));
/** A float as Rust's `{:?}` prints it: shortest digits that read back, `1.0`, `-0.0`, `1e-45`, `inf`. */
export function floatText(x, f32 = false) {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  let e = x.toExponential();
  if (f32) for (let p = 0; p <= 8; p++) { const t = x.toExponential(p); if (Math.fround(Number(t)) === x) { e = t; break; } }
  const [, sign, int, frac = "", ex] = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(e);
  const digits = (int + frac).replace(/0+$/, "") || "0", exp = Number(ex), a = Math.abs(x);
  if (a >= 1e-5 && a < 1e16) {
    let s;
    if (exp < 0) s = "0." + "0".repeat(-exp - 1) + digits;
    else if (digits.length > exp + 1) s = digits.slice(0, exp + 1) + "." + digits.slice(exp + 1);
    else s = digits + "0".repeat(exp + 1 - digits.length) + ".0";
    return sign + s;
  }
  return `${sign}${digits[0]}${digits.length > 1 ? "." + digits.slice(1) : ""}e${exp}`;
}
const fmtFloat = floatText;
/** A day number as a proleptic Gregorian date (yyyy-mm-dd; years past 9999 get a sign, as in ISO 8601). */
export function dayText(days) {
  const z = Number(days) + 719468, era = Math.floor(z / 146097), doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100)), mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1, m = mp < 10 ? mp + 3 : mp - 9, y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  const ys = y >= 0 && y <= 9999 ? String(y).padStart(4, "0") : (y < 0 ? "-" : "+") + String(Math.abs(y)).padStart(4, "0");
  return `${ys}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
}
const microText = (us) => {
  const m = 1000000n, secs = us >= 0n ? us / m : -((-us + m - 1n) / m), frac = us - secs * m;
  const days = secs >= 0n ? secs / 86400n : -((-secs + 86399n) / 86400n), sod = Number(secs - days * 86400n);
  const two = (n) => String(n).padStart(2, "0");
  const t = `${dayText(days)}T${two(Math.floor(sod / 3600))}:${two(Math.floor(sod / 60) % 60)}:${two(sod % 60)}`;
  return frac === 0n ? t + "Z" : `${t}.${String(frac).padStart(6, "0")}Z`;
};

/** Mirrors the decoder over bytes it has accepted (up to `end`), as `xbf inspect` does, into items {start, end, text}. */
class Walker {
  constructor(b, end, limit) {
    Object.assign(this, { b, end, limit, pos: 0, v2: false, depth: 0, items: [], columns: [], rootType: null });
  }
  take(n) {
    if (n > this.end - this.pos) throw END;
    const p = this.pos;
    this.pos += n;
    return p;
  }
  u8() { return this.b[this.take(1)]; }
  emit(start, text) {
    if (start >= this.limit) throw LIMIT;
    this.items.push({ start, end: this.pos, text });
  }
  varint() {
    let v = 0n;
    for (let i = 0; i < 19; i++) {
      const x = this.u8();
      v |= BigInt(x & 0x7f) << BigInt(7 * i);
      if (!(x & 0x80)) return v;
    }
    throw END;
  }
  count() {
    if (this.v2) return this.varint();
    const p = this.take(8);
    return leInt(this.b, p, 8, false);
  }
  takeBig(n) {
    if (n > BigInt(this.end - this.pos)) throw END;
    return this.take(Number(n));
  }
  name(what) {
    let start = this.pos;
    const n = this.count();
    this.emit(start, `${what} length ${n}`);
    start = this.pos;
    const p = this.takeBig(n);
    const s = utf8.decode(this.b.subarray(p, this.pos));
    this.emit(start, showStr(s));
    return s;
  }
  enter() { if (++this.depth > 400) throw END; }

  meta(path, root) {
    this.enter();
    const start = this.pos;
    const d = this.u8();
    const role = path === "" ? "discriminant" : `type of ${path}`;
    let t;
    const kind = d < 17 ? PRIM[d] : PRIM2[d];
    if (kind) {
      this.emit(start, `${role}: ${kind}`);
      t = { kind };
    } else if (d === 0x11) {
      this.emit(start, `${role}: vec of`);
      t = { kind: "vec", element: this.meta(`${path}[]`, false) };
    } else if (d === 0x12 || d === 0x18) {
      const [kw, member] = d === 0x12 ? ["struct", "field"] : ["enum", "variant"];
      this.emit(start, `${role}: ${kw}`);
      const name = this.name(`${kw} name`);
      const base = root ? name : path;
      const cs = this.pos;
      const n = this.v2 ? this.count() : leInt(this.b, this.take(2), 2, false);
      this.emit(cs, `${member} count ${n}`);
      const members = [];
      for (let i = 0n; i < n; i++) {
        const m = this.name(`${member} name`);
        members.push({ name: m, type: this.meta(`${base}.${m}`, false) });
      }
      t = d === 0x12 ? { kind: "struct", name, fields: members } : { kind: "enum", name, variants: members };
    } else if (d === 0x14) {
      this.emit(start, `${role}: option of`);
      t = { kind: "option", inner: this.meta(path, false) };
    } else if (d === 0x15) {
      this.emit(start, `${role}: array`);
      const s = this.pos;
      const n = this.count();
      this.emit(s, `array length ${n}`);
      t = { kind: "array", len: n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n, element: this.meta(`${path}[]`, false) };
    } else if (d === 0x16) {
      this.emit(start, `${role}: tuple`);
      const s = this.pos;
      const n = this.count();
      this.emit(s, `tuple of ${n} elements`);
      const elements = [];
      for (let j = 0n; j < n; j++) elements.push(this.meta(`${path}.${j}`, false));
      t = { kind: "tuple", elements };
    } else if (d === 0x17) {
      this.emit(start, `${role}: map`);
      t = { kind: "map", key: this.meta(`${path}[].key`, false), value: this.meta(`${path}[].value`, false) };
    } else if (d === 0x19) {
      this.emit(start, `${role}: any (each value carries its own type)`);
      t = { kind: "any" };
    } else throw END;
    this.depth--;
    return t;
  }

  fixed(n, signed) { return leInt(this.b, this.take(n), n, signed); }

  primitive(kind, path) {
    const start = this.pos;
    let text;
    switch (kind) {
      case "unit": return;
      case "bool": text = this.u8() === 0 ? "false" : "true"; break;
      case "u8": text = String(this.u8()); break;
      case "i8": text = String((this.u8() << 24) >> 24); break;
      case "f32": { const p = this.take(4); text = fmtFloat(new DataView(this.b.buffer, this.b.byteOffset + p, 4).getFloat32(0, true), true); break; }
      case "f64": { const p = this.take(8); text = fmtFloat(new DataView(this.b.buffer, this.b.byteOffset + p, 8).getFloat64(0, true)); break; }
      case "u256": case "i256": text = String(this.fixed(32, kind === "i256")); break;
      case "date": { const d = unzig(this.varint()); text = `${dayText(d)} (day ${d})`; break; }
      case "timestamp": { const us = unzig(this.varint()); text = `${microText(us)} (${us} µs)`; break; }
      case "bytes": case "string": {
        const n = this.count();
        this.emit(start, `${label(path)}: ${kind} of length ${n}`);
        const s = this.pos;
        const p = this.takeBig(n);
        return this.emit(s, kind === "string" ? showStr(utf8.decode(this.b.subarray(p, this.pos))) : `${n} bytes`);
      }
      default:
        if (kind.startsWith("fixed-")) {
          const [n, signed] = FIXED[kind.slice(6)];
          text = String(this.fixed(n, signed));
        } else if (!this.v2) {
          const [n, signed] = FIXED[kind];
          text = String(this.fixed(n, signed));
        } else if (kind[0] === "u") {
          text = `${this.varint()} (varint)`;
        } else {
          const u = this.varint();
          text = `${unzig(u)} (zigzag ${u})`;
        }
    }
    this.emit(start, `${label(path)} = ${text} (${kind})`);
  }

  value(t, path) {
    this.enter();
    switch (t.kind) {
      case "vec": case "map": {
        const start = this.pos;
        const n = this.count();
        const isMap = t.kind === "map";
        this.emit(start, `${label(path)}: ${isMap ? "entry" : "element"} count ${n}`);
        if (isMap ? zeroSize(t.key) && zeroSize(t.value) : zeroSize(t.element)) {
          if (!isMap) this.emit(this.pos, `(${n} elements of zero size: no bytes)`);
        } else {
          for (let i = 0n; i < n; i++) {
            if (isMap) {
              this.value(t.key, `${path}[${i}].key`);
              this.value(t.value, `${path}[${i}].value`);
            } else this.value(t.element, `${path}[${i}]`);
          }
        }
        break;
      }
      case "struct": for (const f of t.fields) this.value(f.type, `${path}.${f.name}`); break;
      case "option": {
        const start = this.pos;
        const tag = this.u8();
        this.emit(start, `${label(path)}: ${tag === 0 ? "absent" : "present"}`);
        if (tag !== 0) this.value(t.inner, path);
        break;
      }
      case "array":
        if (!zeroSize(t.element)) for (let i = 0n; i < BigInt(t.len); i++) this.value(t.element, `${path}[${i}]`);
        break;
      case "tuple": t.elements.forEach((e, j) => this.value(e, `${path}.${j}`)); break;
      case "enum": {
        const start = this.pos;
        const i = this.varint();
        const v = t.variants[Number(i)];
        if (!v) throw END;
        this.emit(start, `${label(path)}: variant ${i}, ${v.name}`);
        this.value(v.type, `${path}.${v.name}`);
        break;
      }
      case "any": this.value(this.meta(`${path} (any)`, false), path); break;
      default: this.primitive(t.kind, path);
    }
    this.depth--;
  }

  top() {
    const b = this.b;
    if (b.length === 0) return;
    if (b[0] !== 0xc2) {
      if (b[0] > 0x12) return;
      const t = (this.rootType = this.meta("", true));
      return this.value(t, t.kind === "struct" ? t.name : "");
    }
    this.v2 = true;
    this.take(1);
    this.emit(0, "version byte: XBF 2");
    const flags = this.u8();
    const what = [];
    if (flags === 0) what.push("none (a message with inline metadata)");
    for (const [bit, name] of [[1, "schema by reference"], [2, "columnar"], [4, "record stream"], [8, "block checksums"]]) if (flags & bit) what.push(name);
    if (flags & 0xf0) what.push("reserved bits set");
    this.emit(1, `flags: ${what.join(", ")}`);
    if (flags & 0x01) {
      const s = this.pos;
      this.take(8);
      this.emit(s, "fingerprint of the type (schema by reference)");
      throw END;
    }
    const t = (this.rootType = this.meta("", true));
    const root = t.kind === "struct" || t.kind === "enum" ? t.name : "";
    if ((flags & 0x0e) === 0x0e) return this.file(t, root);
    if (flags & 0x02) return this.node(t, root);
    if (!(flags & 0x04)) return this.value(t, root);
    let block = 0, record = 0n;
    while (this.pos < this.end) {
      let s = this.pos;
      const len = this.count();
      this.emit(s, `block ${block}: body length ${len}`);
      const outer = this.end;
      this.end = Math.min(this.end, this.pos + Number(len));
      s = this.pos;
      const n = this.count();
      this.emit(s, `record count ${n}`);
      if (zeroSize(t)) {
        this.emit(this.pos, `(${n} records of zero size: no bytes)`);
        record += n;
      } else {
        for (let i = 0n; i < n; i++) this.value(t, `#${record++}`);
      }
      this.end = outer;
      if (flags & 0x08) {
        s = this.pos;
        const crc = Number(this.fixed(4, false));
        this.emit(s, `CRC-32C of block ${block}'s body: ${crc.toString(16).padStart(8, "0")}`);
      }
      block++;
    }
  }

  /** The blocks and footer parts of an XBF file (SPEC 24.1), after its type. */
  file(t, root) {
    let block = 0;
    while (this.pos < this.end) {
      let s = this.pos;
      const len = this.varint();
      if (len === 0n) {
        this.emit(s, "footer part: 00 where a block's length would stand");
        s = this.pos;
        const f = this.varint();
        this.emit(s, `footer length ${f}`);
        s = this.pos;
        this.takeBig(f);
        const fr = new Walker(this.b, this.pos, Infinity);
        fr.pos = s;
        fr.v2 = true;
        this.emit(s, `footer: ${fr.varint()} blocks, their places, record counts and column statistics`);
        s = this.pos;
        this.emit(s, `CRC-32C of the footer: ${crcText(Number(this.fixed(4, false)))}`);
        s = this.pos;
        this.emit(s, `footer length ${this.fixed(4, false)} (u32)`);
        s = this.pos;
        this.take(4);
        this.emit(s, "magic XBFF");
        continue;
      }
      this.emit(s, `block ${block}: body length ${len}`);
      const outer = this.end;
      this.end = Math.min(this.end, this.pos + Number(len));
      s = this.pos;
      const n = this.count();
      this.emit(s, `record count ${n}`);
      this.node(t, root);
      this.end = outer;
      s = this.pos;
      this.emit(s, `CRC-32C of block ${block}'s body: ${crcText(Number(this.fixed(4, false)))}`);
      block++;
    }
  }

  // -------------------------------------------------------------- columns (SPEC 22)

  /** One column: its varint length, its encoding byte and payload, as one item and one entry of `columns`. */
  column(path, role) {
    const start = this.pos;
    const len = this.varint();
    const p = this.takeBig(len);
    const enc = len > 0n ? this.b[p] : undefined;
    const encoding = enc === undefined ? "(empty)" : ENCODINGS[enc] ?? `unknown 0x${enc.toString(16).padStart(2, "0")}`;
    const entry = { path: label(path), role, offset: start, bytes: this.pos - start, payload: Number(len), encoding };
    this.columns.push(entry);
    this.emit(start, `${entry.path}: ${role} column, ${len} bytes, ${encoding}`);
    return p;
  }

  /** Walks the columns of a node in the order SPEC 22.1 gives. */
  node(t, path) {
    this.enter();
    switch (t.kind) {
      case "unit": break;
      case "vec": this.column(path, "lengths"); this.node(t.element, `${path}[]`); break;
      case "array": this.node(t.element, `${path}[]`); break;
      case "struct": for (const f of t.fields) this.node(f.type, `${path}.${f.name}`); break;
      case "tuple": t.elements.forEach((e, j) => this.node(e, `${path}.${j}`)); break;
      case "option": this.column(path, "presence"); this.node(t.inner, path); break;
      case "map": this.column(path, "lengths"); this.node(t.key, `${path}[].key`); this.node(t.value, `${path}[].value`); break;
      case "enum": this.column(path, "variant"); for (const v of t.variants) this.node(v.type, `${path}.${v.name}`); break;
      case "any": {
        const start = this.pos;
        const len = this.varint();
        const colEnd = this.pos + Number(len);
        if (len > BigInt(this.end - this.pos)) throw END;
        this.columns.push({ path: label(path), role: "types", offset: start, bytes: colEnd - start, payload: Number(len), encoding: "types" });
        this.emit(start, `${label(path)}: types column, ${len} bytes`);
        const outer = this.end;
        this.end = colEnd;
        const s = this.pos;
        if (this.u8() !== 0x30) throw END;
        const d = this.varint();
        this.emit(s, `encoding: types, ${d} of them`);
        const types = [];
        for (let i = 0n; i < d; i++) types.push(this.meta(`${path} (type ${i})`, false));
        this.end = outer;
        this.column(path, "type index");
        types.forEach((ty, i) => this.node(ty, `${path} (type ${i}: ${schemaText(ty, false)})`));
        break;
      }
      default: this.column(path, `${t.kind} values`);
    }
    this.depth--;
  }
}

/** The items as `xbf inspect` lines: at most `width` bytes a line, the text on an item's first line. */
export function annotationLines(bytes, items, width = 8) {
  const lines = [];
  items.forEach((it, index) => {
    if (it.end <= it.start) { lines.push({ offset: it.start, hex: "", text: it.text, index, error: !!it.error, note: !!it.note }); return; }
    for (let at = it.start, first = true; at < it.end; at += width, first = false) {
      const chunk = bytes.subarray(at, Math.min(at + width, it.end));
      lines.push({ offset: at, hex: [...chunk].map((x) => x.toString(16).padStart(2, "0")).join(" "), text: first ? it.text : "", index, error: !!it.error, note: !!it.note });
    }
  });
  return lines;
}

/** The lines as text, as `xbf inspect` prints them. */
export function annotationText(bytes, items) {
  const w = Math.max(2, String(bytes.length).length);
  return annotationLines(bytes, items).map((l) => `${String(l.offset).padStart(w)}  ${l.hex.padEnd(27)}${l.text}`.trimEnd()).join("\n");
}

// ------------------------------------------------------------------ records: table or tree

const flatKinds = new Set([...PRIM, ...Object.values(PRIM2), "any"]);
const isFlat = (t) => flatKinds.has(t.kind) || (t.kind === "option" && isFlat(t.inner))
  || (t.kind === "enum" && t.variants.every((v) => v.type.kind === "unit"));

/**
 * A table for a list of flat structs (or of flat values): `{ columns: [{name, type}], rows, rowCount }`, where
 * `rows(from, to)` gives the cells as text. Null when the records are not a list of flat values.
 * `records`: the stream's records; otherwise the message's value is the list.
 */
export function tableModel(type, value, records = null) {
  let elem, list;
  if (records) { elem = type; list = records; } else if (type && type.kind === "vec" && Array.isArray(value)) { elem = type.element; list = value; } else return null;
  if (!elem) return null;
  let columns, cells;
  if (elem.kind === "struct" && elem.fields.length > 0 && elem.fields.every((f) => isFlat(f.type))) {
    columns = elem.fields.map((f) => ({ name: f.name, type: schemaText(f.type, false) }));
    cells = (r) => elem.fields.map((f) => cellText(r?.[f.name]));
  } else if (isFlat(elem)) {
    columns = [{ name: "value", type: schemaText(elem, false) }];
    cells = (r) => [cellText(r)];
  } else return null;
  return { columns, rowCount: list.length, rows: (from, to) => list.slice(from, to).map(cells) };
}

const hexOf = (b) => [...b].map((x) => x.toString(16).padStart(2, "0")).join("");

/** A scalar value as one line of text (strings quoted, bytes in hex). */
export function cellText(v) {
  if (v === undefined) return "(absent)";
  if (v === null) return "null";
  if (typeof v === "string") return showStr(v);
  if (typeof v === "bigint") return `${v}`;
  if (typeof v === "number") return Object.is(v, -0) ? "-0" : String(v);
  if (typeof v === "boolean") return String(v);
  if (v instanceof Uint8Array) return `0x${hexOf(v.subarray(0, 32))}${v.length > 32 ? `… (${v.length} bytes)` : ""}`;
  if (v instanceof XbfDate) return dayText(v.days);
  if (v instanceof XbfTimestamp) return microText(v.micros);
  if (v instanceof Date) return v.toISOString();
  if (v instanceof XbfEnum) return v.value === null ? v.variant : `${v.variant}(${cellText(v.value)})`;
  if (v instanceof XbfSome) return `some(${cellText(v.value)})`;
  if (v instanceof XbfAny) return cellText(v.value);
  if (Array.isArray(v)) return `[${v.length} items]`;
  if (v instanceof Map) return `{${v.size} entries}`;
  if (typeof v === "object") return `{${Object.keys(v).join(", ")}}`;
  return String(v);
}

/**
 * A node of the collapsible tree: `{ label, text, count, children(from, to) }`; `count` is the number of
 * children (0 for a leaf, whose `text` is the value).
 */
export function treeNode(v, name = "") {
  let entries = null;
  if (v instanceof XbfEnum) return v.value === null ? leaf(name, v.variant) : { ...treeNode(v.value, name), text: `${v.variant}` };
  if (v instanceof XbfSome) return { ...treeNode(v.value, name), text: "some" };
  if (v instanceof XbfAny) return treeNode(v.value, name);
  if (Array.isArray(v)) entries = { count: v.length, at: (i) => [`[${i}]`, v[i]], text: `${v.length} items` };
  else if (v instanceof Map) {
    const es = [...v.entries()];
    entries = { count: es.length, at: (i) => [cellText(es[i][0]), es[i][1]], text: `map, ${es.length} entries` };
  } else if (v && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
    const ks = Object.keys(v);
    entries = { count: ks.length, at: (i) => [ks[i], v[ks[i]]], text: `{${ks.length} fields}` };
  }
  if (!entries) return leaf(name, cellText(v));
  return {
    label: name, text: entries.text, count: entries.count,
    children: (from = 0, to = entries.count) => {
      const out = [];
      for (let i = from; i < Math.min(to, entries.count); i++) { const [k, x] = entries.at(i); out.push(treeNode(x, k)); }
      return out;
    },
  };
}
const leaf = (label, text) => ({ label, text, count: 0, children: () => [] });

// ------------------------------------------------------------------ sizes: XBF against JSON and MessagePack

/**
 * The decoded value as a JSON or MessagePack program would hold it: enums as their variant name (unit
 * payload) or `{ variant: payload }` (the forms `encode` accepts), `XbfSome`/`XbfAny` as their inner value.
 * Dates stay `Date`s (JSON writes them as text, MessagePack as its timestamp extension).
 */
export function portable(v) {
  if (v instanceof XbfEnum) return v.value === null ? v.variant : { [v.variant]: portable(v.value) };
  if (v instanceof XbfSome || v instanceof XbfAny) return portable(v.value);
  if (Array.isArray(v)) return v.map(portable);
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [portable(k), portable(x)]));
  if (v && typeof v === "object" && !(v instanceof Date) && !ArrayBuffer.isView(v)) {
    const o = {};
    for (const k of Object.keys(v)) o[k] = portable(v[k]);
    return o;
  }
  return v;
}

const base64 = (b) => { let s = ""; for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000)); return btoa(s); };

/**
 * A value as compact JSON text: bigints as their digits (JSON numbers have no size limit), bytes as base64,
 * `XbfDate` as "YYYY-MM-DD", other dates as JSON.stringify writes them, maps whose keys are all strings as
 * objects, other maps as `[key, value]` pairs, non-finite numbers as null (as JSON.stringify).
 */
export function jsonText(v) {
  if (v === null || v === undefined) return "null";
  switch (typeof v) {
    case "boolean": return String(v);
    case "number": return Number.isFinite(v) ? JSON.stringify(v) : "null";
    case "bigint": return v.toString();
    case "string": return JSON.stringify(v);
  }
  if (v instanceof XbfDate) return `"${dayText(v.days)}"`;
  if (v instanceof Date) return JSON.stringify(v);
  if (v instanceof Uint8Array) return `"${base64(v)}"`;
  if (ArrayBuffer.isView(v)) return jsonText(Array.from(v));
  if (v instanceof XbfEnum || v instanceof XbfSome || v instanceof XbfAny) return jsonText(portable(v));
  if (Array.isArray(v)) return `[${v.map(jsonText).join(",")}]`;
  if (v instanceof Map) {
    const es = [...v];
    return es.every(([k]) => typeof k === "string")
      ? `{${es.map(([k, x]) => `${JSON.stringify(k)}:${jsonText(x)}`).join(",")}}`
      : jsonText(es);
  }
  return `{${Object.keys(v).filter((k) => v[k] !== undefined).map((k) => `${JSON.stringify(k)}:${jsonText(v[k])}`).join(",")}}`;
}

const strBytes = (s) => {
  // UTF-8 length without allocating: 1 byte to U+007F, 2 to U+07FF, 3 to U+FFFF, 4 for a surrogate pair.
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { n += 4; i++; }
    else n += 3; // includes lone surrogates, which TextEncoder writes as U+FFFD (3 bytes)
  }
  return n;
};
const lenHeader = (n, fix) => (n < fix ? 1 : n < 0x10000 ? 3 : 5);

/**
 * The size in bytes of a value in MessagePack with field names, as @msgpack/msgpack's `encode(v,
 * { useBigInt64: true })` writes it: the smallest int format, floats as float64, strings/bin/arrays/maps with
 * the smallest header, plain objects as maps of their keys, `Date` as the timestamp extension (6, 10 or 15
 * bytes), bigints as int64/uint64. No MessagePack library is needed to count.
 */
export function msgpackSize(v) {
  if (v === null || v === undefined || typeof v === "boolean") return 1;
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v)) return 9;
    if (v >= 0) return v < 0x80 ? 1 : v < 0x100 ? 2 : v < 0x10000 ? 3 : v < 0x100000000 ? 5 : 9;
    return v >= -0x20 ? 1 : v >= -0x80 ? 2 : v >= -0x8000 ? 3 : v >= -0x80000000 ? 5 : 9;
  }
  if (typeof v === "bigint") {
    if (v < -(1n << 63n) || v >= (1n << 64n)) throw new RangeError(`${v} does not fit MessagePack's 64-bit integers`);
    return 9;
  }
  if (typeof v === "string") { const n = strBytes(v); return n + (n < 32 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 5); }
  if (v instanceof Date) {
    const ms = v.getTime(), sec = Math.floor(ms / 1000), nsec = (ms - sec * 1000) * 1e6;
    if (sec >= 0 && sec < 2 ** 34) return nsec === 0 && sec < 2 ** 32 ? 6 : 10;
    return 15;
  }
  if (v instanceof Uint8Array) return v.length + (v.length < 0x100 ? 2 : v.length < 0x10000 ? 3 : 5);
  if (ArrayBuffer.isView(v)) { const n = v.byteLength; return n + (n < 0x100 ? 2 : n < 0x10000 ? 3 : 5); } // as bin
  if (Array.isArray(v)) { let n = lenHeader(v.length, 16); for (const x of v) n += msgpackSize(x); return n; }
  if (v instanceof Map) { let n = lenHeader(v.size, 16); for (const [k, x] of v) n += msgpackSize(k) + msgpackSize(x); return n; }
  const ks = Object.keys(v);
  let n = lenHeader(ks.length, 16);
  for (const k of ks) n += msgpackSize(k) + msgpackSize(v[k]);
  return n;
}

/**
 * The same data's size as XBF rows, XBF columns, JSON and MessagePack: `[{ format, bytes, note }]`, `bytes`
 * null (and `note` why) where a format cannot hold it. `type` and `value` as `inspect` gives them (for a
 * stream, `records` and the record type); `original`: the input's own size and format label, listed first.
 */
export function sizeComparison(type, value, { records = null, original = null } = {}) {
  const data = records ?? value;
  const t = records ? { kind: "vec", element: type } : type;
  const out = [];
  if (original) out.push({ format: `this input (${original.label})`, bytes: original.bytes, note: "" });
  const attempt = (format, f, note = "") => {
    try { out.push({ format, bytes: f(), note }); } catch (e) { out.push({ format, bytes: null, note: e instanceof Error ? e.message : String(e) }); }
  };
  attempt("XBF 2, rows", () => encode(data, { type: t, layout: "rows" }).length);
  attempt("XBF 2, columns", () => {
    if (!(t.kind === "vec" || t.kind === "array")) throw new Error("columns hold a list; this value is not one");
    return encode(data, { type: t, layout: "columns" }).length;
  });
  const p = portable(data);
  attempt("JSON (compact)", () => strBytes(jsonText(p)));
  attempt("MessagePack (field names)", () => msgpackSize(p));
  return out;
}
