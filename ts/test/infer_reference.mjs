// The inference of SPEC 19.1 as values.ts wrote it before its per-key-list generated code (branch tsenc2, from
// main at a803385, compiled by tsc, unchanged but for these imports and the export): kept as the reference that
// infer_same.test.mjs compares the current inferType with.
import { XbfError, mismatch } from "../dist/errors.js";
import { depthOf } from "../dist/metadata.js";
import { XbfNaN } from "../dist/nan.js";
import { XbfDate, XbfAny, XbfEnum, XbfSome, anyLevel, OPTIONAL_ENUM } from "../dist/values.js";

function describe(v) {
    if (v === null)
        return "null";
    if (Array.isArray(v))
        return "an array";
    if (v instanceof Uint8Array)
        return "a Uint8Array";
    if (typeof v === "object")
        return `an object (${v.constructor?.name ?? "null prototype"})`;
    return `${typeof v} ${String(v).slice(0, 40)}`;
}
const BOUNDS = new Map();
const newShape = () => ({
    nulls: 0, values: 0, kinds: new Set(), lastKind: "", min: 0n, max: 0n, allSafe: true, nints: 0, nmin: 0, nmax: 0, nbigs: 0, firstInt: false,
    elems: undefined, keys: undefined, keyIndex: undefined, keyShapes: undefined, keyCounts: undefined, next: undefined, last: undefined,
    objects: 0, totalKeys: 0, mapKeys: undefined, mapValues: undefined,
});
/** The least and greatest integer seen, as SPEC 19.1 needs them: counted from 0 when the place's first value was
 * not an integer (as the single running range did before numbers and bigints were kept apart). */
function intRange(s) {
    let min, max;
    if (s.nints > 0) {
        min = BigInt(s.nmin);
        max = BigInt(s.nmax);
    }
    if (s.nbigs > 0) {
        if (min === undefined || s.min < min)
            min = s.min;
        if (max === undefined || s.max > max)
            max = s.max;
    }
    min ??= 0n;
    max ??= 0n;
    if (!s.firstInt) {
        if (min > 0n)
            min = 0n;
        if (max < 0n)
            max = 0n;
    }
    return [min, max];
}
function kindOf(v) {
    if (typeof v === "boolean")
        return "bool";
    if (typeof v === "number")
        return Number.isSafeInteger(v) && !Object.is(v, -0) ? "int" : "float";
    if (v instanceof XbfNaN)
        return "float";
    if (typeof v === "bigint")
        return "int";
    if (typeof v === "string")
        return "string";
    if (v instanceof Uint8Array)
        return "bytes";
    if (v instanceof XbfDate)
        return "date";
    if (v instanceof Date)
        return "timestamp";
    if (Array.isArray(v))
        return "array";
    if (v instanceof Map)
        return "map";
    if (v instanceof XbfAny || v instanceof XbfEnum || v instanceof XbfSome)
        return "other";
    if (ArrayBuffer.isView(v))
        return "array";
    if (typeof v === "object" && v !== null)
        return "object";
    throw mismatch(`cannot infer an XBF type for ${describe(v)}`);
}
function add(s, v, depth) {
    if (depth > 128)
        throw new XbfError("too-deep", undefined, "the value nests deeper than 128 levels");
    if (v === null || v === undefined) {
        s.nulls++;
        return;
    }
    s.values++;
    // The usual places first: a string, or a number of the kind the place held last (no Set, no kindOf).
    if (typeof v === "string") {
        if (s.lastKind !== "string") {
            s.kinds.add("string");
            s.lastKind = "string";
        }
        return;
    }
    if (typeof v === "number" && s.lastKind !== "") {
        if (s.lastKind === "float") {
            if (!Number.isSafeInteger(v) || Object.is(v, -0))
                return;
        }
        else if (s.lastKind === "int" && s.nints > 0 && Number.isSafeInteger(v) && !Object.is(v, -0)) {
            if (v < s.nmin)
                s.nmin = v;
            if (v > s.nmax)
                s.nmax = v;
            s.nints++;
            return;
        }
    }
    const k = kindOf(v);
    if (k !== s.lastKind) {
        s.kinds.add(k);
        s.lastKind = k;
    }
    if (k === "int") {
        if (s.values === 1)
            s.firstInt = true;
        if (typeof v === "number") {
            if (s.nints === 0 || v < s.nmin)
                s.nmin = v;
            if (s.nints === 0 || v > s.nmax)
                s.nmax = v;
            s.nints++;
        }
        else {
            const b = v;
            if (s.nbigs === 0 || b < s.min)
                s.min = b;
            if (s.nbigs === 0 || b > s.max)
                s.max = b;
            s.nbigs++;
            s.allSafe = false;
        }
    }
    else if (k === "array") {
        s.elems ??= newShape();
        const a = v;
        for (let i = 0; i < a.length; i++)
            add(s.elems, a[i], depth + 1);
    }
    else if (k === "map") {
        s.mapKeys ??= newShape();
        s.mapValues ??= newShape();
        for (const [mk, mv] of v) {
            add(s.mapKeys, mk, depth + 1);
            add(s.mapValues, mv, depth + 1);
        }
    }
    else if (k === "object") {
        s.objects++;
        const o = v;
        const own = Object.keys(o);
        // The usual case: the keys of the object before, in its order, none undefined (no new edge, no lookups).
        const last = s.last;
        if (last !== undefined && own.length === last.length) {
            const keys = s.keys;
            let same = true;
            for (let i = 0; i < own.length; i++)
                if (own[i] !== keys[last[i]]) {
                    same = false;
                    break;
                }
            // The values in the keys' order, by one native call: a lookup by a key that varies (o[own[i]]) is a
            // megamorphic load, the most expensive step of this loop.
            const vals = same ? Object.values(o) : undefined;
            if (vals !== undefined && vals.length !== own.length)
                same = false; // a getter that changed the object
            else if (vals !== undefined)
                for (let i = 0; i < vals.length; i++)
                    if (vals[i] === undefined) {
                        same = false;
                        break;
                    }
            if (same) {
                const shapes = s.keyShapes, counts = s.keyCounts;
                for (let i = 0; i < own.length; i++) {
                    const j = last[i];
                    counts[j]++;
                    add(shapes[j], vals[i], depth + 1);
                }
                s.totalKeys += own.length;
                return;
            }
        }
        const keys = (s.keys ??= []), shapes = (s.keyShapes ??= []), counts = (s.keyCounts ??= []), next = (s.next ??= []);
        const index = (s.keyIndex ??= new Map());
        const slots = [];
        for (const key of own) {
            const x = o[key];
            if (x === undefined)
                continue;
            let j = index.get(key);
            if (j === undefined) {
                j = keys.length;
                keys.push(key);
                index.set(key, j);
                shapes.push(newShape());
                counts.push(0);
                next.push(new Set());
            }
            if (slots.length > 0)
                next[slots[slots.length - 1]].add(j);
            slots.push(j);
            counts[j]++;
            add(shapes[j], x, depth + 1);
        }
        s.totalKeys += slots.length;
        s.last = slots;
    }
}
/** Adds what `from` saw to `into` (as if its values had come after), for the value type of a map of objects. */
function mergeShape(into, from) {
    if (into.values === 0)
        into.firstInt = from.firstInt;
    into.nulls += from.nulls;
    into.values += from.values;
    for (const k of from.kinds)
        into.kinds.add(k);
    if (from.nints > 0) {
        if (into.nints === 0 || from.nmin < into.nmin)
            into.nmin = from.nmin;
        if (into.nints === 0 || from.nmax > into.nmax)
            into.nmax = from.nmax;
        into.nints += from.nints;
    }
    if (from.nbigs > 0) {
        if (into.nbigs === 0 || from.min < into.min)
            into.min = from.min;
        if (into.nbigs === 0 || from.max > into.max)
            into.max = from.max;
        into.nbigs += from.nbigs;
    }
    into.allSafe &&= from.allSafe;
    if (from.elems)
        mergeShape((into.elems ??= newShape()), from.elems);
    if (from.mapKeys)
        mergeShape((into.mapKeys ??= newShape()), from.mapKeys);
    if (from.mapValues)
        mergeShape((into.mapValues ??= newShape()), from.mapValues);
    if (from.keys) {
        const keys = (into.keys ??= []), shapes = (into.keyShapes ??= []), counts = (into.keyCounts ??= []);
        const next = (into.next ??= []), index = (into.keyIndex ??= new Map());
        const slot = from.keys.map((key, i) => {
            let j = index.get(key);
            if (j === undefined) {
                j = keys.length;
                keys.push(key);
                index.set(key, j);
                shapes.push(newShape());
                counts.push(0);
                next.push(new Set());
            }
            mergeShape(shapes[j], from.keyShapes[i]);
            counts[j] += from.keyCounts[i];
            return j;
        });
        from.next.forEach((set, a) => { for (const b of set)
            next[slot[a]].add(slot[b]); });
        into.last = from.last?.map((j) => slot[j]);
    }
    into.objects += from.objects;
    into.totalKeys += from.totalKeys;
}
/** The field order of SPEC 19.1: a topological order of the key graph, ties going to the key seen first;
 * undefined on a cycle (two objects put keys in opposite orders). */
function keyOrder(s) {
    const n = s.keys.length, next = s.next;
    const indegree = new Array(n).fill(0);
    for (const set of next)
        for (const b of set)
            indegree[b]++;
    // A binary min-heap of the keys whose predecessors are all placed.
    const heap = [];
    const push = (x) => {
        let i = heap.push(x) - 1;
        while (i > 0) {
            const p = (i - 1) >> 1;
            if (heap[p] <= x)
                break;
            heap[i] = heap[p];
            i = p;
        }
        heap[i] = x;
    };
    const pop = () => {
        const top = heap[0], x = heap.pop();
        if (heap.length > 0) {
            let i = 0;
            for (;;) {
                let c = 2 * i + 1;
                if (c >= heap.length)
                    break;
                if (c + 1 < heap.length && heap[c + 1] < heap[c])
                    c++;
                if (heap[c] >= x)
                    break;
                heap[i] = heap[c];
                i = c;
            }
            heap[i] = x;
        }
        return top;
    };
    for (let i = 0; i < n; i++)
        if (indegree[i] === 0)
            push(i);
    const order = [];
    while (heap.length > 0) {
        const a = pop();
        order.push(a);
        for (const b of next[a])
            if (--indegree[b] === 0)
                push(b);
    }
    return order.length === n ? order : undefined;
}
function intType(min, max) {
    if (min >= 0n) {
        for (const [k, b] of [["u64", 64n], ["u128", 128n], ["u256", 256n]])
            if (max < 1n << b)
                return { kind: k };
    }
    else {
        for (const [k, b] of [["i64", 63n], ["i128", 127n], ["i256", 255n]])
            if (min >= -(1n << b) && max < 1n << b)
                return { kind: k };
    }
    return undefined;
}
function resolve(s) {
    let kinds = [...s.kinds];
    // JavaScript has one number type: integers and fractions at one place share f64.
    if (kinds.includes("int") && kinds.includes("float") && s.allSafe)
        kinds = kinds.filter((k) => k !== "int");
    let t;
    if (kinds.length === 0)
        return { kind: "unit" };
    if (kinds.length > 1)
        t = { kind: "any" };
    else {
        switch (kinds[0]) {
            case "bool":
                t = { kind: "bool" };
                break;
            case "int": {
                const [min, max] = intRange(s);
                t = intType(min, max) ?? { kind: "any" };
                break;
            }
            case "float":
                t = { kind: "f64" };
                break;
            case "string":
                t = { kind: "string" };
                break;
            case "bytes":
                t = { kind: "bytes" };
                break;
            case "date":
                t = { kind: "date" };
                break;
            case "timestamp":
                t = { kind: "timestamp" };
                break;
            case "array":
                t = { kind: "vec", element: s.elems ? resolve(s.elems) : { kind: "unit" } };
                break;
            case "map":
                t = { kind: "map", key: resolve(s.mapKeys), value: resolve(s.mapValues) };
                break;
            case "object": {
                const keys = s.keys, counts = s.keyCounts, shapes = s.keyShapes;
                // Keys that are data (SPEC 19.1): more than 64 distinct, and more than 8 times as many as an object has on average.
                if (keys.length > 64 && keys.length * s.objects > 8 * s.totalKeys) {
                    const all = newShape();
                    for (const shape of shapes)
                        mergeShape(all, shape);
                    t = { kind: "map", key: { kind: "string" }, value: resolve(all) };
                    break;
                }
                const order = keyOrder(s);
                if (order === undefined) {
                    t = { kind: "any" };
                    break;
                }
                t = {
                    kind: "struct", name: "Object",
                    fields: order.map((j) => {
                        const ft = resolve(shapes[j]);
                        if (counts[j] < s.objects) {
                            return { name: keys[j], type: { kind: "enum", name: OPTIONAL_ENUM, variants: [{ name: "absent", type: { kind: "unit" } }, { name: "present", type: ft }] } };
                        }
                        return { name: keys[j], type: ft };
                    }),
                };
                break;
            }
            default: t = { kind: "any" };
        }
    }
    if (s.nulls > 0 && t.kind !== "any")
        t = { kind: "option", inner: t };
    return t;
}
/** The XBF 2 type that SPEC 19.1 infers for a JS value (see README for the JS specifics). */
export function referenceInferType(v) {
    const s = newShape();
    add(s, v, 0);
    const t = resolve(s);
    if (t.kind === "any" && !(v instanceof XbfAny)) {
        // A single value that no type holds (an integer past 256 bits, an XbfEnum without type, ...).
        if (s.kinds.has("int"))
            throw mismatch(`integer ${v} passes 256 bits`);
        throw mismatch(`cannot infer an XBF type for ${describe(v)}`);
    }
    if (v instanceof XbfAny)
        return { kind: "any" };
    // Readers refuse types nested past 128 levels (an option is a level too), and an any value opens one more
    // (SPEC 16.1): never write either.
    if (depthOf(t) > 128)
        throw new XbfError("too-deep", undefined, `the inferred type nests ${depthOf(t)} levels, more than 128`);
    if (anyLevel(t, 0) >= 128)
        throw new XbfError("too-deep", undefined, "a value of type any would open level 129");
    return t;
}
