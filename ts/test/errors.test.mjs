import { test } from "node:test";
import assert from "node:assert/strict";
import { decode, encode, readStream, XbfError, SchemaRegistry, fingerprint, crc32c, sha256, typeFromJson } from "../dist/index.js";
import { fromHex, hex } from "../dist/metadata.js";

const h = (s) => fromHex(s.replace(/ /g, ""));
const msg = (bytes) => { try { decode(bytes); } catch (e) { assert.ok(e instanceof XbfError); return e.message.split(": ").slice(0, 2).join(": "); } return "ok"; };
const point1 = "120500000000000000506f696e740200050000000000000066697273740704000000000000006c617374072afb";

test("SPEC 8.5 error examples: kinds, offsets and paths", () => {
  const cases = [
    ["", "at byte 0: truncated"], ["13", "at byte 0: unknown-discriminant"], ["02 00", "at byte 1: truncated"],
    ["02 00 04 00", "at byte 3: trailing-bytes"], ["00 02", "at byte 1: invalid-bool"],
    ["10 05 00 00 00 00 00 00 00 68 65", "at byte 1: truncated"], ["10 02 00 00 00 00 00 00 00 c3 28", "at byte 1: invalid-utf8"],
    [point1.slice(0, -2), "at byte 44, in Point.last: truncated"],
    ["11 10 01 00 00 00 00 00 00 00 05 00 00 00 00 00 00 00 68 69", "at byte 10, in [0]: truncated"],
    ["11 02 01 00 00 00 00 00 00 00 2a", "at byte 2: truncated"], ["11 11 13", "at byte 2, in [][]: unknown-discriminant"],
    ["12 01 00 00 00 00 00 00 00 53 02 00 01 00 00 00 00 00 00 00 61 01 01 00 00 00 00 00 00 00 61 01", "at byte 22, in S: duplicate-field"],
    ["11 120100000000000000450000 56 55 55 01 00 00 00 00", "at byte 13: too-large"],
    ["11".repeat(129) + "00", `at byte 128, in ${"[]".repeat(128)}: too-deep`],
  ];
  for (const [input, want] of cases) assert.equal(msg(h(input)), want, input);
});

test("SPEC 17.4 error examples", () => {
  const cases = [
    ["c2", "at byte 1: truncated"], ["c3 00 13", "at byte 0: unsupported"], ["c2 10 13", "at byte 1: unsupported"],
    ["c2 08 13", "at byte 1: unsupported"], ["c2 04 13", "at byte 1: unsupported"], ["c2 00 24", "at byte 2: unknown-discriminant"],
    ["c2 00 02 80", "at byte 3: truncated"], ["c2 00 02 80 00", "at byte 3: invalid-varint"], ["c2 00 02 80 80 04", "at byte 3: invalid-varint"],
    ["c2 00 14 01 02", "at byte 4: invalid-bool"], ["c2 00 18 01 45 02 01 61 13 01 62 13 02", "at byte 12, in E: unknown-variant"],
    ["c2 00 12 01 53 02 01 61 01 01 61 24", "at byte 9, in S: duplicate-field"],
    ["c2 00 12 01 43 01 03 65 6e 76 17 10 10 02 01 61 01 78 01 61 01 79", "at byte 18, in C.env[1].key: duplicate-key"],
    ["c2 00 15 03 0d 00 00 80 3f 00 00 00 40", "at byte 5: truncated"], ["c2 00 11 13 d6 aa d5 0a", "at byte 4: too-large"],
    ["c2 00 19 24", "at byte 3: unknown-discriminant"], ["c2 01 39 55 9c 68 c0 fb a9 ac 2a fb", "at byte 2: unknown-schema"],
    ["c2 00" + "14".repeat(129) + "00 00", "at byte 130: too-deep"],
    ["c2 00" + "14".repeat(127) + "19" + "01".repeat(127) + "11 01 00", "at byte 257: too-deep"],
  ];
  for (const [input, want] of cases) assert.equal(msg(h(input)), want, input);
});

test("SPEC 18.10 stream damage table", () => {
  const plain = h("c2041205506f696e740205666972737407046c617374070502010203ff0301807f");
  const crc = h("c20c1205506f696e740205666972737407046c617374070502010203ff10aae03e0301807fd4a36d11");
  const run = (b) => { const r = readStream(b); return [r.records.length, r.error ? r.error.message.split(": ").slice(0, 2).join(": ") : null]; };
  assert.deepEqual(run(plain.subarray(0, 23)), [0, null]);
  assert.deepEqual(run(crc.subarray(0, 23)), [0, null]);
  assert.deepEqual(run(plain.subarray(0, 29)), [2, null]);
  assert.deepEqual(run(crc.subarray(0, 33)), [2, null]);
  assert.deepEqual(run(plain.subarray(0, 32)), [2, "at byte 32, in #2.last: truncated"]);
  assert.deepEqual(run(plain.subarray(0, 27)), [1, "at byte 27, in #1.first: truncated"]);
  assert.deepEqual(run(crc.subarray(0, 40)), [2, "at byte 33: truncated"]);
  assert.deepEqual(run(crc.subarray(0, 27)), [0, "at byte 23: truncated"]);
  const d1 = crc.slice(); d1[35] = 0x81;
  assert.deepEqual(run(d1), [2, "at byte 37: bad-checksum"]);
  const d2 = crc.slice(); d2[29] = 0x11;
  assert.deepEqual(run(d2), [0, "at byte 29: bad-checksum"]);
});

test("checksums, fingerprint and schema by reference", () => {
  assert.equal(crc32c(new TextEncoder().encode("123456789")), 0xe3069283);
  assert.equal(hex(sha256(new Uint8Array(0))), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  const point = typeFromJson({ struct: "Point", fields: [["first", "i8"], ["last", "i8"]] });
  assert.equal(hex(fingerprint(point)), "39559c68c0fba9ac");
  const bytes = encode({ first: 42, last: -5 }, { type: point, schemaByReference: true });
  assert.equal(hex(bytes), "c2013955" + "9c68c0fba9ac2afb");
  const registry = new SchemaRegistry();
  registry.add(point);
  assert.deepEqual(decode(bytes, { registry }), { first: 42, last: -5 });
});

test("encoder errors: type-mismatch with a path, v1 unsupported, duplicate keys", () => {
  const t = typeFromJson({ struct: "P", fields: [["xs", { vec: "u8" }]] });
  assert.throws(() => encode({ xs: [1, 300] }, { type: t }), (e) => e.kind === "type-mismatch" && e.path === ".xs[1]" && e.offset === undefined);
  assert.throws(() => encode(null, { version: 1 }), (e) => e.kind === "unsupported");
  assert.throws(() => encode(new Map([[1, 1], [1n, 2]]), { type: typeFromJson({ map: ["u64", "u8"] }) }), (e) => e.kind === "duplicate-key");
  assert.throws(() => encode(2n ** 300n), (e) => e.kind === "type-mismatch");
});

test("projection in rows and columns", () => {
  const v = { a: 1, b: { c: "x", d: true }, e: [1.5] };
  const rows = Array.from({ length: 20 }, (_, i) => ({ ...v, a: i }));
  for (const layout of ["rows", "columns"]) {
    assert.deepEqual(decode(encode(rows, { layout }), { fields: ["a", "b.c"] }), rows.map((r) => ({ a: r.a, b: { c: "x" } })));
  }
});

test("a zstd column is unsupported, not a crash", () => {
  // vec<u8> with a column whose encoding byte is 0x80
  assert.throws(() => decode(h("c2 02 11 01 02 00 01 04 80 02 00 00")), (e) => e.kind === "unsupported");
});

test("the decoded-memory budget: 48 bytes a zero-size value, 2^30 bytes by default (SPEC 16.2)", () => {
  const rows = Array.from({ length: 70000 }, (_, i) => ({ a: i % 100, b: null }));
  const bytes = encode(rows, { layout: "rows" });
  assert.equal(decode(bytes).length, 70000);
  // 65,537 units, which the old fixed budget of 65,536 refused, read; 22,369,622 do not.
  assert.equal(decode(Uint8Array.from([0xc2, 0x00, 0x11, 0x13, 0x81, 0x80, 0x04])).length, 65537);
  const many = Uint8Array.from([0xc2, 0x00, 0x11, 0x13, 0xd6, 0xaa, 0xd5, 0x0a]);
  assert.throws(() => decode(many), (e) => e.kind === "too-large" && e.offset === 4);
  // A budget of 65,536 values: the null column's 65,537th null is refused where it stands.
  const small = { maxDecodedBytes: 65536 * 48 };
  assert.throws(() => decode(bytes, small), (e) => e.kind === "too-large" && e.path === "[65536].b");
  assert.throws(() => decode(Uint8Array.from([0xc2, 0x00, 0x11, 0x13, 0x81, 0x80, 0x04]), small), (e) => e.kind === "too-large" && e.offset === 4);
  // Columns: [0, 1, ..., 999999] is a 14-byte delta column of 1,000,001 values (48,000,048 bytes), which
  // the old allowance (64 x input + 16 MiB) refused; a run of 2^40 units is refused at once.
  const ints = encode(Array.from({ length: 1000000 }, (_, i) => i), { layout: "columnar" });
  assert.ok(ints.length < 20, `${ints.length}`);
  assert.equal(decode(ints).length, 1000000);
  assert.throws(() => decode(ints, { maxDecodedBytes: 48000047 }), (e) => e.kind === "too-large");
  assert.equal(decode(ints, { maxDecodedBytes: 48000048 }).length, 1000000);
  const bomb = Uint8Array.from([0xc2, 0x02, 0x11, 0x13, 0x08, 0x03, 0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20]);
  assert.throws(() => decode(bomb), (e) => e.kind === "too-large" && e.offset === 13 && e.path === "[]");
});

test("encode of data nested 100,000 deep throws XbfError too-deep, never RangeError (issue 18)", () => {
  for (const wrap of [(x) => [x], (x) => ({ a: x }), (x) => [{ a: x }]]) {
    let v = null;
    for (let i = 0; i < 100_000; i++) v = wrap(v);
    for (const layout of ["rows", "columns", undefined]) {
      assert.throws(() => encode(v, { layout }), (e) => e instanceof XbfError && e.kind === "too-deep");
    }
    let shallow = null;
    for (let i = 0; i < 60; i++) shallow = wrap(shallow);
    assert.deepStrictEqual(decode(encode(shallow)), shallow);
  }
  // 128 levels come back; 129, or optional keys that make the type deeper than 128, are never written.
  let at = [];
  for (let i = 1; i < 128; i++) at = [at];
  assert.deepStrictEqual(decode(encode(at)), at);
  assert.throws(() => encode([at]), (e) => e instanceof XbfError && e.kind === "too-deep");
  let sparse = 1;
  for (let i = 0; i < 50; i++) sparse = [{ a: sparse }, {}];
  assert.throws(() => encode(sparse), (e) => e instanceof XbfError && e.kind === "too-deep");
  // A value of type any opens a level, and its own type more (SPEC 16.1).
  for (const layout of ["rows", "columns", undefined]) {
    let inner = [];
    for (let i = 1; i < 126; i++) inner = [inner];
    assert.deepStrictEqual(decode(encode([1, inner], { layout })), [1, inner]);
    assert.throws(() => encode([1, [inner]], { layout }), (e) => e instanceof XbfError && e.kind === "too-deep");
  }
  const cycle = [];
  cycle.push(cycle);
  assert.throws(() => encode(cycle), (e) => e instanceof XbfError && e.kind === "too-deep");
});

test("-0 keeps its sign and sparse records share one struct (SPEC 19, 19.1)", () => {
  assert.ok(Object.is(decode(encode(-0)), -0));
  const rows = [{ a: 1 }, { b: 1 }, { a: 1, b: 1 }];
  assert.deepStrictEqual(decode(encode(rows)), rows);
  assert.equal(hex(encode(rows)).slice(4, 8), "1112");
});

test("a stream block's count is checked against its declared length exactly, past 2^53 too (found by difffuzz)", () => {
  // u16 records; block length 2^64 - 2, count 2^64 - 2: the records cannot fit in the 2^64 - 12 bytes after
  // the count (SPEC 15.3 step 4), though both numbers round to 2^64 as doubles. Rust says the same.
  const cut = readStream(h("c2 04 02 feffffffffffffffff01 feffffffffffffffff01 27"));
  assert.deepEqual(cut.records, []);
  assert.equal(cut.error?.kind, "truncated");
  assert.equal(cut.error?.offset, 13);
  // 2^64 - 13 records would fit: they are read one by one until the input ends.
  const fits = readStream(h("c2 04 02 feffffffffffffffff01 f3ffffffffffffffff01 27"));
  assert.deepEqual(fits.records, [39]);
  assert.equal(fits.error?.kind, "truncated");
  assert.equal(fits.error?.offset, 24);
});
