// The direct writer's integer columns (fast_encode.ts: checked once, then sized and written without a second check;
// int_columns.ts: the delta packing carrying the value before) against the reference writer (normalize, then
// columnar.ts), signed and unsigned, at the edges where the number path ends (2^50, its zigzag form 2^51) and where
// the measures change (2^21, 2^28, 2^30), in runs and in slow drifts (the delta encoding).
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { typeFromJson } from "../dist/index.js";
import { encodeDirect, encodeInternal } from "../dist/codec.js";
import { normalize } from "../dist/values.js";

const edges = [0, 1, 127, 128, 2 ** 21 - 1, 2 ** 21, 2 ** 28, 2 ** 30 - 1, 2 ** 30, 2 ** 31, 2 ** 49, 2 ** 50 - 1, 2 ** 50, 2 ** 50 + 1, 2 ** 51 - 1, 2 ** 52];
const edge = fc.constantFrom(...edges);
const signedEdge = fc.tuple(edge, fc.boolean()).map(([x, neg]) => (neg ? -x : x));

function same(kind, xs) {
  const t = typeFromJson({ vec: { struct: "R", fields: [["x", kind]] } });
  const v = xs.map((x) => ({ x }));
  let want;
  try { want = encodeInternal(t, normalize(t, v), { layout: "columns" }); } catch { return; } // out of the type's range
  let got;
  try { got = encodeDirect(t, v, { layout: "columns" }); } catch { return; } // left to the reference
  assert.deepStrictEqual(got, want, `${kind} ${xs}`);
}

test("integer columns near the number path's end are the reference writer's bytes", () => {
  const column = (x) => fc.oneof(
    fc.array(x, { minLength: 1, maxLength: 40 }),
    // slow drifts from an edge (delta) and runs of one value (run-length)
    fc.tuple(x, fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 2, maxLength: 60 })).map(([s, ds]) => { let y = s; return ds.map((d) => (y += d)); }),
    fc.tuple(x, fc.integer({ min: 1, max: 200 })).map(([s, n]) => Array(n).fill(s)),
  );
  fc.assert(fc.property(column(signedEdge), (xs) => { same("i64", xs); same("i32", xs); }), { numRuns: 800 });
  fc.assert(fc.property(column(edge), (xs) => { same("u64", xs); same("u32", xs); }), { numRuns: 800 });
  for (const x of [2 ** 50, -(2 ** 50), 2 ** 50 - 1, -(2 ** 50 - 1)]) { same("i64", [x, 0, x]); same("i64", [0, x]); same("i64", Array(300).fill(x)); }
});
