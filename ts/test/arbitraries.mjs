import fc from "fast-check";

/** JSON-like JS values without -0, NaN or infinities (JSON cannot carry them). */
export const jsonish = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null), fc.boolean(), fc.integer({ min: -1e15, max: 1e15 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
    fc.string(), fc.string({ unit: "grapheme", maxLength: 8 }),
    fc.array(tie("value"), { maxLength: 5 }),
    fc.dictionary(fc.string({ maxLength: 4 }), tie("value"), { maxKeys: 4 }),
    // records of one shape: where struct, option and json.optional inference matters
    fc.array(fc.record({ id: fc.integer({ min: 0, max: 1000 }), name: fc.option(fc.string()), x: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)) }, { requiredKeys: ["id"] }), { maxLength: 20 }),
  ),
})).value;
