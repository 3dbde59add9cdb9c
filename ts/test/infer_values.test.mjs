// inferType's shortcut for a lone string, bool, number or null (each value of an `any` column is inferred alone)
// against the reference inference (infer_reference.mjs): the same type or the same error for every such value.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { inferType } from "../dist/index.js";
import { referenceInferType } from "./infer_reference.mjs";

const outcome = (f, v) => { try { return JSON.stringify(f(v)); } catch (e) { return `error ${e.kind ?? e.message}`; } };

test("a lone primitive infers the reference's type", () => {
  const edges = ["", "é", true, false, 0, -0, 1, -1, 255, 256, -128, -129, 2 ** 32, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, -(2 ** 53),
    2 ** 64, 0.5, -1e-300, 1e300, NaN, Infinity, -Infinity, Number.MIN_VALUE, null, undefined];
  for (const v of edges) assert.equal(outcome(inferType, v), outcome(referenceInferType, v), String(v));
  fc.assert(fc.property(fc.oneof(fc.double(), fc.integer(), fc.maxSafeInteger(), fc.string(), fc.boolean()), (v) => {
    assert.equal(outcome(inferType, v), outcome(referenceInferType, v));
  }), { numRuns: 2000 });
});
