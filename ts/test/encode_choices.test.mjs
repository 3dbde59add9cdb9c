// The encode side's shortcuts make the choices the full comparisons make: layout auto's rows-size lower bound,
// the presence columns' counting measure, and the float columns sized before they are written (their bytes
// against the Rust writer's are in cross.test.mjs; here, every kind of float column reads back exactly).
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { encode, decode, decodeWithType } from "../dist/index.js";
import { inferType } from "../dist/values.js";
import { worthTryingPublic } from "../dist/fast_encode.js";
import { encodeInts, measure, measureFlags } from "../dist/int_columns.js";
import { bigIntsLowerBound, exponent, leastExponent64 } from "../dist/float_columns.js";
import { jsonish } from "./arbitraries.mjs";

const same = (a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;

test("a column of 0s and 1s is measured by counting as measureN measures it", () => {
  const runs = fc.array(fc.tuple(fc.constantFrom(0, 1), fc.integer({ min: 1, max: 300 })), { maxLength: 12 });
  fc.assert(fc.property(runs, (rs) => {
    const xs = rs.flatMap(([b, k]) => new Array(k).fill(b));
    const want = measure(xs), got = measureFlags(xs);
    // Only what writing the chosen encoding reads has to agree, but all of it does.
    for (const k of ["best", "size", "min", "width", "zmin", "zwidth"]) assert.equal(got[k], want[k], k);
  }), { numRuns: 1000 });
});

// Records with the kinds the column writers count for the rows bound: floats, strings (some not ASCII), small and
// large integers, options, absent fields, nested lists.
const record = fc.record({
  f: fc.double({ noNaN: true }),
  d: fc.integer({ min: -1000, max: 1000 }).map((x) => x / 100),
  s: fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom("é", "😀", "a".repeat(130))),
  i: fc.oneof(fc.integer({ min: -200, max: 200 }), fc.integer({ min: -(2 ** 40), max: 2 ** 40 })),
  o: fc.option(fc.integer({ min: 0, max: 70000 })),
  l: fc.array(fc.boolean(), { maxLength: 3 }),
}, { requiredKeys: ["f", "s", "i", "o", "l"] });

test("layout auto keeps what the smaller of the two layouts is, as the full comparison chooses", () => {
  const values = fc.oneof(fc.array(record, { maxLength: 40 }), jsonish);
  fc.assert(fc.property(values, (v) => {
    const auto = encode(v), rows = encode(v, { layout: "rows" }), cols = encode(v, { layout: "columns" });
    const want = !worthTryingPublic(inferType(v), v) ? rows : cols.length < rows.length ? cols : rows;
    assert.ok(same(auto, want), `auto wrote ${auto.length} bytes; rows ${rows.length}, columns ${cols.length}`);
  }), { numRuns: 300 });
});

test("float columns of every encoding read back bit for bit", () => {
  const bits = (x) => { const b = new DataView(new ArrayBuffer(8)); b.setFloat64(0, x); return b.getBigUint64(0); };
  const kinds = [
    fc.double(), // random doubles: plain or XOR
    fc.integer({ min: -1e6, max: 1e6 }).map((x) => x / 100), // decimal
    fc.integer({ min: -(2 ** 52), max: 2 ** 52 }).map((x) => x / 1000), // decimal past 2^49: the bigint path
    fc.constantFrom(0.5, -0, 0, Infinity, -Infinity, NaN, 1e300, 5e-324), // dictionary
  ];
  const column = fc.oneof(...kinds.map((k) => fc.array(k, { maxLength: 80 })), fc.array(fc.oneof(...kinds), { maxLength: 80 }));
  fc.assert(fc.property(column, (xs) => {
    const value = xs.map((x) => ({ x }));
    const bytes = encode(value, { layout: "columns" });
    assert.equal(decodeWithType(bytes).columnar, true);
    const back = decode(bytes);
    assert.equal(back.length, xs.length);
    for (let i = 0; i < xs.length; i++) assert.equal(bits(back[i].x), bits(xs[i]), `value ${i}`);
  }), { numRuns: 400 });
});

test("an encode run from a getter of the value being encoded leaves the outer one's bytes as they would be", () => {
  const inner = Array.from({ length: 40 }, (_, i) => ({ s: "x".repeat(i % 7), n: i * 1.5 }));
  const plain = Array.from({ length: 60 }, (_, i) => ({ a: i % 3, b: `v${i % 5}`, c: i / 4 }));
  const tricky = plain.map((o) => ({ a: o.a, b: o.b, get c() { encode(inner); encode(inner, { layout: "rows" }); return o.c; } }));
  for (const layout of ["auto", "columns", "rows"]) assert.ok(same(encode(tricky, { layout }), encode(plain, { layout })), layout);
});

test("a decimal column's integers past 2^49 are bounded from below without bigints (never above the exact size)", () => {
  // The integers as planDecimal holds them (zigzag forms as doubles, rounded past 2^53) and as bigints.
  const big = fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }).filter((m) => Math.abs(m) < 9.0e15);
  const m = fc.oneof(big, fc.constant(0), fc.integer({ min: -1000, max: 1000 }), fc.constantFrom(2 ** 52, -(2 ** 52), 2 ** 53 - 1, -(2 ** 53 - 1)));
  const column = fc.oneof(fc.array(m, { maxLength: 60 }), fc.array(m, { minLength: 1, maxLength: 8 }).chain((xs) => fc.array(fc.constantFrom(...xs), { maxLength: 60 })));
  fc.assert(fc.property(column, (ms) => {
    const zz = ms.map((x) => (x >= 0 ? 2 * x : -2 * x - 1));
    const exact = encodeInts(ms.map((x) => (x >= 0 ? 2n * BigInt(x) : -2n * BigInt(x) - 1n))).length;
    const bound = bigIntsLowerBound(zz);
    assert.ok(bound <= exact, `bound ${bound}, exact ${exact}`);
  }), { numRuns: 2000 });
  // Random 16-digit fractions (as normal-2d's): the bound is close enough to rule the decimal column out.
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const ms = Array.from({ length: 500 }, () => Math.round((rnd() - 0.5) * 1.6e16));
  const zz = ms.map((x) => (x >= 0 ? 2 * x : -2 * x - 1));
  const exact = encodeInts(ms.map((x) => (x >= 0 ? 2n * BigInt(x) : -2n * BigInt(x) - 1n))).length;
  assert.ok(bigIntsLowerBound(zz) >= exact - 8, `bound ${bigIntsLowerBound(zz)}, exact ${exact}`);
});

test("a double's least exact decimal exponent is the one the loop over sameBits finds", () => {
  // The loop exponent() ran before (scaled, fromDecimalN and sameBits by bits), as the reference.
  const bits = (x) => { const b = new DataView(new ArrayBuffer(8)); b.setFloat64(0, x); return b.getBigUint64(0); };
  const reference = (v) => {
    for (let e = 0; e <= 18; e++) {
      const x = v * 10 ** e, ax = x < 0 ? -x : x, a = Math.round(ax);
      if (!(a < 9.0e15)) return 19;
      if ((ax > a ? ax - a : a - ax) > ax * 4.440892098500626e-16) continue;
      const q = (a === 0 ? 0 : x < 0 ? -a : a) / 10 ** e;
      if (bits(q) === bits(v)) return e;
    }
    return 19;
  };
  // Neighbours of decimals (one or two units in the last place away) and doubles of every magnitude the jump in
  // leastExponent64 treats (its bound of 10^15 on the products, the bisection's ends) as well as random ones.
  const near = (x, k) => { const b = new DataView(new ArrayBuffer(8)); b.setFloat64(0, x); b.setBigInt64(0, b.getBigInt64(0) + BigInt(k)); return b.getFloat64(0); };
  const decimal = fc.integer({ min: -9e15, max: 9e15 }).chain((n) => fc.integer({ min: 0, max: 20 }).map((e) => n / 10 ** e));
  const value = fc.oneof(fc.double(), fc.integer({ min: -(2 ** 53), max: 2 ** 53 }).chain((n) => fc.integer({ min: 0, max: 20 }).map((e) => n / 10 ** e)),
    decimal, fc.tuple(decimal, fc.integer({ min: -2, max: 2 })).map(([x, k]) => (Number.isFinite(x) && x !== 0 ? near(x, k) : x)),
    fc.tuple(fc.double({ min: 1, max: 10, noNaN: true }), fc.integer({ min: -20, max: 17 })).map(([m, p]) => m * 10 ** p),
    fc.tuple(fc.integer({ min: 1, max: 999999 }), fc.integer({ min: 0, max: 20 }), fc.integer({ min: -20, max: 16 })).map(([n, e, p]) => (n / 10 ** e) * 10 ** p),
    fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 5e-324, 1e300, 0.1, 0.3, 1 / 3, 123456789.123, 9.0e15, 8.999999999999999e15,
      0.5, 1.5, 2.5, -2.5, 0.05, 0.25, 1125899906842624.5, 2251799813685247.5, 4503599627370495.5, 1125899906842624.25, 112589990684262.45));
  fc.assert(fc.property(value, (v) => { assert.equal(leastExponent64(v), reference(v), String(v)); }), { numRuns: 60000 });
});

test("a column's decimal exponent is the largest least exponent of its sample, as counted from every value's loop", () => {
  // The rule exponent() states, with each sampled value's least exponent from leastExponent64 (tested against
  // the loop above): -1 when more than half the sample is held at no exponent, else the largest held one.
  const reference = (vs) => {
    const step = Math.max(1, Math.floor(vs.length / 256));
    let sampled = 0, never = 0, max = 0;
    for (let i = 0; i < vs.length; i += step) { sampled++; const e = leastExponent64(vs[i]); if (e > 18) never++; else if (e > max) max = e; }
    return never * 2 > sampled ? -1 : max;
  };
  const pool = fc.oneof(fc.double({ noNaN: true }), fc.double({ min: -1000, max: 1000, noNaN: true }),
    fc.tuple(fc.integer({ min: -9e15, max: 9e15 }), fc.integer({ min: 0, max: 19 })).map(([n, e]) => n / 10 ** e),
    fc.tuple(fc.integer({ min: -99999, max: 99999 }), fc.integer({ min: 0, max: 6 })).map(([n, e]) => n / 10 ** e));
  fc.assert(fc.property(fc.array(pool, { minLength: 1, maxLength: 700 }), (vs) => { assert.equal(exponent(vs, false), reference(vs)); }), { numRuns: 600 });
});
