// Issue 18 repros 8 and 10: what a JavaScript reader gives where the language cannot hold the value as
// written (SPEC 21.4), and the faithful form (`decodeWithType`, `exact: true`) that keeps it all.
import { test } from "node:test";
import assert from "node:assert/strict";
import { decode, decodeWithType, encode, XbfNaN, StreamWriter, StreamReader, typeFromJson } from "../dist/index.js";
import { decodeInternal } from "../dist/codec.js";
import { fromHex, hex } from "../dist/metadata.js";

const f64bits = (x) => { const b = new DataView(new ArrayBuffer(8)); b.setFloat64(0, x, true); return b.getBigUint64(0, true); };

test("repro 8: a map key of -0.0 stays -0 (as [key, value] pairs, since a Map would make it +0)", () => {
  const bytes = fromHex("c200170e0101000000000000008005");
  for (const v of [decode(bytes), decodeWithType(bytes).value]) {
    assert.ok(Array.isArray(v), "not pairs");
    assert.equal(v.length, 1);
    assert.ok(Object.is(v[0][0], -0), `key ${v[0][0]}`);
    assert.equal(v[0][1], 5);
  }
  const d = decodeWithType(bytes);
  assert.equal(hex(encode(d.value, { type: d.type })), "c200170e0101000000000000008005");
  // +0 alone is an ordinary Map key.
  const plus = fromHex("c200170e0101000000000000000005");
  const m = decode(plus);
  assert.ok(m instanceof Map && Object.is([...m.keys()][0], 0));
  // f32 keys too.
  const f32 = encode([[-0, 1]], { type: typeFromJson({ map: ["f32", "u8"] }) });
  assert.ok(Object.is(decode(f32)[0][0], -0));
});

test("repro 10: integer-like field names come first in a JS object; the type keeps the field order", () => {
  const h = "c2001200020161010131010506"; // struct { a: u8, 1: u8 } = { a: 5, 1: 6 }
  const bytes = fromHex(h);
  // What a JavaScript reader gives: the language lists integer-like keys first (SPEC 21.4).
  assert.deepEqual(Object.keys(decode(bytes)), ["1", "a"]);
  for (const exact of [false, true]) {
    const d = decodeWithType(bytes, { exact });
    assert.deepEqual(Object.keys(d.value), ["1", "a"]);
    assert.deepEqual(d.type.fields.map((f) => f.name), ["a", "1"]);
    assert.deepEqual([d.value.a, d.value["1"]], [5, 6]);
    // The faithful form: the value with its type writes the same bytes, field order included.
    assert.equal(hex(encode(d.value, { type: d.type })), h);
  }
  // Internal values are positional, in field order.
  assert.deepEqual(decodeInternal(bytes).n, [5, 6]);
});

test("repro 10: NaN payloads are kept by the exact form, in rows, columns and streams", () => {
  const snan64 = 0x7ff0000000000001n, qnan64 = 0x7ff8000000000123n, snan32 = 0x7f800001n, neg32 = 0xffc00000n;
  const f64 = (bits) => new XbfNaN(bits, 64), f32 = (bits) => new XbfNaN(bits, 32);
  const t = typeFromJson({ struct: "R", fields: [["x", "f64"], ["y", "f32"], ["xs", { vec: "f64" }], ["ys", { vec: "f32" }]] });
  const rec = (i) => ({ x: f64(snan64), y: f32(snan32), xs: [1.5, f64(qnan64), NaN, f64(snan64), i], ys: [f32(neg32), 2, f32(snan32)] });
  const value = Array.from({ length: 40 }, (_, i) => rec(i));
  const vt = { kind: "vec", element: t };
  for (const layout of ["rows", "columns"]) {
    const bytes = encode(value, { type: vt, layout });
    const d = decodeWithType(bytes, { exact: true });
    const r = d.value[7];
    assert.ok(r.x instanceof XbfNaN && r.x.bits === snan64, `${layout}: x`);
    assert.ok(r.y instanceof XbfNaN && r.y.bits === snan32 && r.y.width === 32, `${layout}: y`);
    assert.equal(r.xs[1].bits, qnan64);
    assert.ok(Number.isNaN(r.xs[2]) && f64bits(r.xs[2]) === 0x7ff8000000000000n, "the canonical NaN stays a number");
    assert.equal(r.xs[3].bits, snan64);
    assert.equal(r.ys[0].bits, neg32);
    assert.equal(r.ys[2].bits, snan32);
    // The exact form writes the same bytes back.
    assert.equal(hex(encode(d.value, { type: d.type, layout })), hex(bytes), layout);
    // The default form gives JavaScript's NaN (no payload promised).
    const friendly = decode(bytes)[7];
    assert.ok(Number.isNaN(friendly.x) && Number.isNaN(friendly.y) && Number.isNaN(friendly.xs[3]) && Number.isNaN(friendly.ys[2]));
    assert.ok(Number.isNaN(decodeWithType(bytes).value[7].xs[1]));
  }
  const w = new StreamWriter({ type: t });
  w.write(rec(1));
  const s = [...new StreamReader(w.finish(), { exact: true })];
  assert.equal(s[0].y.bits, snan32);
  assert.equal(s[0].xs[3].bits, snan64);
  // A root f32 signalling NaN (rows, v1): JS's number would make it quiet; the exact form does not.
  const v1 = fromHex("0d0100807f");
  const d = decodeWithType(v1, { exact: true });
  assert.equal(d.value.bits, 0x7f800001n);
  assert.equal(hex(encode(d.value, { type: d.type, version: 1 })), "0d0100807f");
  assert.throws(() => encode(f32(snan32), { type: typeFromJson("f64") }), /expected f64/);
});

test("NaN map keys are told apart by their bits, in rows and columns", () => {
  const t = typeFromJson({ map: ["f64", "u8"] });
  const a = new XbfNaN(0x7ff0000000000001n, 64), b = new XbfNaN(0x7ff0000000000002n, 64);
  for (const layout of ["rows", "columns"]) {
    const bytes = encode([[a, 1], [b, 2], [NaN, 3]], { type: t, layout });
    const d = decodeWithType(bytes, { exact: true });
    assert.deepEqual(d.value.map(([k]) => (k instanceof XbfNaN ? k.bits : f64bits(k))), [a.bits, b.bits, 0x7ff8000000000000n]);
    assert.equal(hex(encode(d.value, { type: t, layout })), hex(bytes));
    // The default form cannot tell the keys apart in a Map: pairs.
    assert.ok(Array.isArray(decode(bytes)));
  }
  assert.throws(() => encode([[a, 1], [new XbfNaN(a.bits, 64), 2]], { type: t }), (e) => e.kind === "duplicate-key");
});
