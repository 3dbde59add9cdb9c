// floatTolerance (SPEC 22.5.1): float columns rounded within the bound, rows exact, bad bounds refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { encode, decode, Encoder, XbfError } from "../dist/index.js";

function stockRows() {
  const text = readFileSync(new URL("../../crates/xbf-cli/data/sp500-2019.csv", import.meta.url), "utf8");
  const [head, ...lines] = text.trim().split(/\r?\n/);
  const keys = head.split(",");
  return lines.map((l) => Object.fromEntries(l.split(",").map((c, i) => [keys[i], c !== "" && !Number.isNaN(Number(c)) ? Number(c) : c])));
}
function worst(a, b) {
  let w = 0;
  a.forEach((r, i) => { for (const k of Object.keys(r)) if (typeof r[k] === "number") w = Math.max(w, Math.abs(r[k] - b[i][k])); });
  return w;
}

test("the stock rows: SPEC 22.5.1's sizes (6,308 exact, 4,217 at 0.005, 3,147 at 0.5), each float within the bound", () => {
  const v = stockRows();
  assert.equal(encode(v, { layout: "columns" }).length, 6308);
  for (const [t, size] of [[0.005, 4217], [0.5, 3147]]) {
    const b = encode(v, { layout: "columns", floatTolerance: t });
    assert.equal(b.length, size);
    assert.ok(worst(decode(b), v) <= t);
    assert.deepStrictEqual(new Encoder({ layout: "columns", floatTolerance: t }).encode(v), b);
  }
  // Rows stay exact.
  assert.deepStrictEqual(encode(v, { layout: "rows", floatTolerance: 0.5 }), encode(v, { layout: "rows" }));
});

test("any floats and bounds: every decoded float within the bound; NaN, infinities and zeros exact", () => {
  const x = fc.oneof(fc.double(), fc.double({ min: -1000, max: 1000, noNaN: true }), fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 0.125, 2.675));
  fc.assert(fc.property(fc.array(fc.record({ x, n: fc.nat(9) }), { minLength: 1, maxLength: 40 }), fc.double({ min: 1e-12, max: 1e6, noNaN: true }), (v, t) => {
    const back = decode(encode(v, { layout: "columns", floatTolerance: t }));
    back.forEach((r, i) => {
      const a = v[i].x;
      if (!Number.isFinite(a) || a === 0) assert.ok(Object.is(r.x, a), `${a} stays exact`);
      else assert.ok(Math.abs(r.x - a) <= t, `${r.x} within ${t} of ${a}`);
    });
  }), { numRuns: 300 });
});

test("a bound that is not positive and finite is refused, as the Rust writer refuses it", () => {
  for (const t of [0, -1, NaN, Infinity, "0.5"]) {
    assert.throws(() => encode([{ x: 1.5 }], { floatTolerance: t }), (e) => e instanceof XbfError && e.kind === "invalid-options");
    assert.throws(() => new Encoder({ floatTolerance: t }).encode([{ x: 1.5 }]), (e) => e instanceof XbfError && e.kind === "invalid-options");
  }
});
