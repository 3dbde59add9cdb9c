// The decode-only entry point (`xbf/decode`) reads what the full package writes, with the same errors.
import { test } from "node:test";
import assert from "node:assert/strict";
import { encode } from "xbf";
import { decode, decodeWithType, XbfError, StreamReader } from "xbf/decode";
import * as full from "xbf";

test("xbf/decode reads rows and columns written by xbf", () => {
  const rows = Array.from({ length: 40 }, (_, i) => ({ id: i, name: `n${i % 3}`, x: i / 4, tag: i % 5 ? null : "t" }));
  for (const layout of ["rows", "columns"]) {
    const bytes = encode(rows, { layout });
    assert.deepEqual(decode(bytes), rows);
    assert.deepEqual(decodeWithType(bytes).type, full.decodeWithType(bytes).type);
  }
  assert.equal(StreamReader, full.StreamReader);
});

test("xbf/decode reports the same XbfError as xbf", () => {
  const bytes = encode([{ a: 1 }, { a: 2 }]).subarray(0, 7);
  const kind = (f) => { try { f(bytes); } catch (e) { assert.ok(e instanceof XbfError); return [e.kind, e.offset, e.path]; } assert.fail("no error"); };
  assert.deepEqual(kind(decode), kind(full.decode));
});
