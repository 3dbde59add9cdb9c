// A given type's struct check in columns (fast_encode.ts' gatherers): an object whose keys are those of the last one
// checked skips the check, which must not let a key that is no field through when the object checked held undefined
// there (columns wrote [{ a: "0" }, { a: "4" }] for [{ a: "0", b: undefined }, { a: "4", b: "3" }], losing b's "3",
// where rows and the reference writer refuse the value).
import { test } from "node:test";
import assert from "node:assert/strict";
import { encode, inferType } from "../dist/index.js";
import { encodeInternal } from "../dist/codec.js";
import { normalize } from "../dist/values.js";
import { setCodegen } from "../dist/fast.js";

const outcome = (f) => { try { return f(); } catch (e) { return `error ${e.message}`; } };

test("a key that is no field of the given type is refused after an object that held undefined there", () => {
  for (const [a, b] of [["a", "b"], ["1962", "1963"], ["x", "0"]]) {
    const t = inferType([{ [a]: "0" }]);
    const rec = (x, y) => ({ [a]: x, [b]: y });
    for (const v of [[rec("0", undefined), rec("4", "3")], [rec("0", undefined), rec("1", undefined), rec("4", "3"), rec("5", undefined)],
      [...Array.from({ length: 20 }, (_, i) => rec(String(i), undefined)), rec("4", "3")]]) {
      for (const codegen of [undefined, false]) {
        setCodegen(codegen);
        try {
          for (const layout of ["rows", "columns", "auto"]) {
            const want = outcome(() => encodeInternal(t, normalize(t, v), { layout }));
            assert.match(String(want), /^error /);
            assert.deepStrictEqual(outcome(() => encode(v, { type: t, layout })), want, `${layout} codegen ${codegen} ${JSON.stringify(v)}`);
          }
        } finally { setCodegen(undefined); }
      }
    }
  }
});
