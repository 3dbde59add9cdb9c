// Delta-coded integer columns of small values (src/fast_bits.ts `undelta`, whose sums are kept in 32-bit integers
// when the caller's bound says they stay under 2^30): a column whose first value is made smaller by 1 to 3, so that
// its last sums fall just below 0, and every byte nudged by ±1 to ±3, give the reference decoder's value or its
// exact error (kind, offset, path); as do u8 and u16 columns whose sums pass the type by a little.
import { test } from "node:test";
import assert from "node:assert/strict";
import { encode, decode, decodeWithType, typeFromJson } from "../dist/index.js";

function sameOutcome(bytes) {
  let want, wantErr, got, gotErr;
  try { want = decodeWithType(bytes, {}).value; } catch (e) { wantErr = e; }
  try { got = decode(bytes); } catch (e) { gotErr = e; }
  if (wantErr) {
    assert.ok(gotErr, `decode gave a value where the reference fails with ${wantErr.message}`);
    assert.deepEqual([gotErr.kind, gotErr.offset, gotErr.path], [wantErr.kind, wantErr.offset, wantErr.path]);
  } else {
    assert.ok(!gotErr, `decode fails (${gotErr?.message}) where the reference does not`);
    assert.deepStrictEqual(got, want);
  }
}
/** Every byte of bytes moved by ±1, ±2, ±3 in turn: sameOutcome. */
function nudged(bytes) {
  for (let i = 0; i < bytes.length; i++) for (const d of [-3, -2, -1, 1, 2, 3]) { const c = bytes.slice(); c[i] = (c[i] + d) & 255; sameOutcome(c); }
}

test("delta columns of small values whose sums fall just below 0 or pass the type: the reference's value or error", () => {
  const down = Array.from({ length: 40 }, (_, i) => ({ a: 3 * (39 - i), b: i % 2 ? 0 : 2 }));
  const bytes = encode(down, { layout: "columns" });
  assert.deepStrictEqual(decode(bytes), down);
  nudged(bytes);
  for (const [kind, top] of [["u8", 255], ["u16", 65535]]) {
    const t = typeFromJson({ vec: { struct: "R", fields: [["a", kind]] } });
    const rows = Array.from({ length: 30 }, (_, i) => ({ a: top - 3 * (29 - i) - (i % 2) }));
    const b = encode(rows, { layout: "columns", type: t });
    assert.deepStrictEqual(decode(b), rows);
    nudged(b);
  }
});

// Decimal columns (src/fast_bits.ts `decimalsFor`, `decimalsDelta`: zigzag values and, for delta blocks, their sums
// kept in 32-bit integers while they fit in 31 bits): values of every sign around 0, sums falling below 0 when
// nudged, and widths on both sides of 24 bits, as the reference decodes them.
test("decimal columns in frame-of-reference and delta blocks, small and wide: the reference's numbers, nudged bytes its value or error", () => {
  const walk = Array.from({ length: 40 }, (_, i) => ({ d: (39 - i) * 0.25 - 3, f: ((i * 37) % 23) / 10 - 1.1 }));
  const bytes = encode(walk, { layout: "columns" });
  assert.deepStrictEqual(decode(bytes), walk);
  nudged(bytes);
  for (const scale of [1e2, 1e4, 1e6]) {
    const rows = Array.from({ length: 60 }, (_, i) => ({ x: Math.round(Math.sin(i) * 5000 * scale) / scale, y: Math.round((i * i - 900) * 7.5 * scale) / scale }));
    const b = encode(rows, { layout: "columns" });
    const got = decode(b), want = decodeWithType(b, {}).value;
    for (let i = 0; i < rows.length; i++) for (const k of ["x", "y"]) { assert.ok(Object.is(got[i][k], want[i][k])); assert.ok(Object.is(got[i][k], rows[i][k])); }
  }
});
