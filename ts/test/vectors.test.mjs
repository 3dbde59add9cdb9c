import { test } from "node:test";
import assert from "node:assert/strict";
import {
  decodeWithType, encode, typeFromJson, typeToJson, XbfError, StreamReader, StreamWriter,
} from "../dist/index.js";
import { decodeInternal, encodeInternal } from "../dist/codec.js";
import { normalize } from "../dist/values.js";
import { fromHex, hex } from "../dist/metadata.js";
import { load, fromVector } from "./helpers.mjs";

const counts = { valid: 0, invalid: 0, streams: 0 };

for (const file of ["v1.json", "v2.json", "columnar.json"]) {
  for (const v of load(file)) {
    test(`${file}: ${v.name}`, () => {
      const bytes = fromHex(v.hex);
      if (v.error) {
        counts.invalid++;
        assert.throws(() => decodeInternal(bytes), (e) => {
          assert.ok(e instanceof XbfError, `not an XbfError: ${e}`);
          assert.deepEqual([e.kind, e.offset, e.path], [v.error, v.offset, v.path], e.message);
          return true;
        });
        return;
      }
      counts.valid++;
      const t = typeFromJson(v.type);
      const expected = fromVector(t, v.value);
      const d = decodeInternal(bytes);
      assert.deepEqual(typeToJson(d.type), typeToJson(t));
      assert.deepStrictEqual(d.n, expected);
      const columnar = (bytes[0] === 0xc2 && (bytes[1] & 2) !== 0);
      const opts = { version: v.version === 2 ? 2 : 1, layout: columnar ? "columns" : "rows" };
      assert.equal(hex(encodeInternal(t, expected, opts)), v.hex);
      // Through the public values: exact, then the default (friendly) mapping, back to the same bytes.
      const exact = decodeWithType(bytes, { exact: true });
      assert.equal(hex(encode(exact.value, { ...opts, type: exact.type })), v.hex);
      if (JSON.stringify(v.type).includes('"any"')) return; // the default mapping gives `any` values without their type
      const friendly = decodeWithType(bytes);
      assert.equal(hex(encode(friendly.value, { ...opts, type: friendly.type })), v.hex);
    });
  }
}

for (const v of load("v2-streams.json")) {
  test(`v2-streams.json: ${v.name}`, () => {
    counts.streams++;
    const bytes = fromHex(v.hex);
    const t = typeFromJson(v.type);
    const got = [];
    let error = null;
    try {
      const s = new StreamReader(bytes);
      assert.deepEqual(typeToJson(s.type), typeToJson(t));
      for (const r of s.internal()) got.push(r);
    } catch (e) {
      assert.ok(e instanceof XbfError, `not an XbfError: ${e}`);
      error = e;
    }
    assert.deepStrictEqual(got, v.records.map((r) => fromVector(t, r)));
    if (v.error) assert.equal(error?.kind, v.error, error ? error.message : "no error");
    else assert.equal(error, null, error?.message);
    if (v.error) assert.deepEqual([error.offset, error.path], [v.offset, v.path], error.message);
    if (v.blocks) {
      const w = new StreamWriter({ type: t, checksums: (bytes[1] & 8) !== 0, schemaByReference: (bytes[1] & 1) !== 0 });
      let i = 0;
      const exact = [...new StreamReader(bytes, { exact: true })];
      for (const n of v.blocks) {
        for (let k = 0; k < n; k++) w.write(exact[i++]);
        w.flush();
      }
      assert.equal(hex(w.finish()), v.hex);
    }
  });
}

test("vector counts", () => {
  console.log(`vectors: ${counts.valid} valid, ${counts.invalid} invalid, ${counts.streams} streams`);
});
