// The writer of string and bytes columns (SPEC 22.3): plain (0x20), dictionary (0x21) and shared prefixes
// (0x22), each sized first and the smallest written, as the Rust writer chooses. The byte strings are views of
// one buffer (a column's strings UTF-8 encoded by one TextEncoder call, or a dictionary's distinct entries):
// no Uint8Array per value.
import { Writer } from "./varint.js";
import {
  Measured, S_IDS, S_REST, S_SHARED, S_VALUE_LEN, S_VALUE_START, S_VIEW_LEN, S_VIEW_START, intsSize, measureConst, measureSmall, mostlyDistinct,
  putIntsColumn, scratchArray, varLen, measureFrom,
} from "./int_columns.js";

const utf8e = new TextEncoder();

/** n byte strings as views of one buffer: string i is `buf[start[i], start[i] + len[i])`. */
interface Views { buf: Uint8Array; start: number[]; len: number[]; ascii?: boolean }
/** A dictionary: the index of each value's entry, and the distinct entries in the order they first appear. */
interface Dict { ids: number[]; distinct: Views }

const wellFormed = (s: string): boolean => {
  const f = (String.prototype as { isWellFormed?: () => boolean }).isWellFormed;
  return f ? f.call(s) : !/[\uD800-\uDFFF]/.test(s);
};

/** The column of strings `values` (length and payload). When they have few distinct values (at most the
 * dictionary's limit, n/2 + 16) only those are UTF-8 encoded and every value is a view of its entry; the
 * strings key the dictionary when all are well formed (equal bytes are then equal strings), else its bytes do. */
export function putStringColumn(out: Writer, values: string[]): void {
  const n = values.length, limit = Math.floor(n / 2) + 16;
  const strs: string[] = [], ids = scratchArray(IDS, n);
  const found = mapIds(values, limit, strs, ids);
  if (found === GAVE_UP) {
    // More distinct strings than a dictionary may hold, or mostly distinct (the Rust writer's test, whose choice
    // this is). When all are well formed, distinct strings have distinct bytes and no dictionary is looked for.
    const v = utf8Views(values); // (all ASCII: well formed, with no pass to tell)
    putStrings(out, v, v.ascii || values.every(wellFormed) ? null : undefined);
    return;
  }
  // (Entries all ASCII, as utf8Views found them copying or encoding them, are well formed with no pass to tell: the
  // isWellFormed call an entry was most of this step on columns of short codes and figures.)
  const distinct = utf8Views(strs), dlen = distinct.len, dict = { ids, distinct };
  if (!distinct.ascii && !strs.every(wellFormed)) { putStrings(out, utf8Views(values), undefined); return; }
  // A column of sorted runs (every value at least the one before: ids 0, 0, …, 1, 1, …, as gapminder's countries)
  // goes straight to the general path: the one pass's own first test measured the entries and then, for
  // gapminder's countries, sent the column back anyway, and on the short sorted columns measured (cars' years,
  // penguins' species) the general path took fewer instructions. (The tests' checking mode still sends them
  // through the one pass, which must write the same bytes.)
  if (fused && (found !== SORTED || checkFused) && n >= 2 && strs.length >= 2 && putDictionaryColumn(out, dict)) return;
  // (One entry, as a column of "0"s: every id is 0, no pass needed.)
  let total = 0;
  if (strs.length === 1) total = n * dlen[0]!;
  else for (let i = 0; i < n; i++) total += dlen[ids[i]!]!;
  // The entries' lengths measured once (the dictionary's size, then its column), and whether they are all one
  // length (then so are the values': their measure needs no pass).
  const mEntries = measureSmall(dlen), d0 = dlen[0]!;
  let oneLength = true;
  for (let j = 1; oneLength && j < dlen.length; j++) oneLength = dlen[j] === d0;
  // The dictionary's size against the least the plain column can take (its lengths' block is at least 3 bytes
  // for n >= 2, plus its tag and the block's length): where that alone decides, no length per value is made.
  const below = n >= 2 ? dictionaryBelow(out, dict, 5 + total, mEntries) : null;
  if (below === true) return;
  const len = scratchArray(VALUE_LEN, n);
  for (let i = 0; i < n; i++) len[i] = dlen[ids[i]!]!;
  const sized = dictionaryFirst(out, dict, len, total, below, mEntries, oneLength);
  if (sized === true) return;
  const start = scratchArray(VALUE_START, n), dstart = distinct.start;
  for (let i = 0; i < n; i++) start[i] = dstart[ids[i]!]!;
  putStrings(out, { buf: distinct.buf, start, len }, dict, sized);
}

/** Whether putStringColumn takes putDictionaryColumn's one pass where it may (for tests: false gives the general
 * path, the one to compare with). Not part of the package's interface. */
let fused = true, checkFused = false;
/** `check`: the one pass also compares each of its four measures with measureSmall's pass over the column, and
 * throws where they differ, and takes columns of sorted runs too, which it otherwise leaves to the general path (for
 * tests). */
export function setFusedStrings(on: boolean, check = false): void { fused = on; checkFused = check; }
/** For tests: throws where the one pass's measure `m` of `xs` is not measureSmall's. */
function checkMeasure(what: string, m: Measured, xs: number[]): void {
  const w = measureSmall(xs);
  if (m.best !== w.best || m.size !== w.size || m.min !== w.min || m.width !== w.width || m.zmin !== w.zmin || m.zwidth !== w.zwidth) {
    throw new Error(`one pass measured ${what} ${JSON.stringify(m)}, the pass ${JSON.stringify(w)}`);
  }
}
/** The varint length of x < 2^35 (an id or a run's length: below n). */
const vl = (x: number): number => (x < 128 ? 1 : x < 16384 ? 2 : x < 2097152 ? 3 : x < 268435456 ? 4 : 5);
/** putStringColumn of n >= 2 values with a dictionary of 2 or more entries (`dict`) each under 128 bytes: the three
 * encodings sized exactly, from one pass over the ids that measures the four integer columns they need at once (the
 * values' lengths, the ids, the shared prefixes and the rests: each value's length, prefix and rest follow from its
 * entry and the one before, the prefix of two entries found once per pair where there are at most 256), the smallest then written, ties going
 * to plain, then the dictionary, then the prefixes: the general path's choice (putStrings' rules, which its earlier
 * tests only shortcut), without a pass per measure and the arrays they read. Every length, prefix and rest is below
 * 128 (a varint of one byte: their varint sizes are 1 + n). false, nothing written, where an entry is 128 bytes or
 * more, or where the dictionary surely comes out below the plain column (see below). */
function putDictionaryColumn(out: Writer, dict: Dict): boolean {
  const { buf, start: dstart, len: dlen } = dict.distinct, ids = dict.ids, n = ids.length, k = dlen.length;
  // The entries' lengths: their bytes, and their measure taken in the same loop (measureInt's state for values
  // below 128: a varint and a run's value of one byte each), not by a pass of their own.
  let e0 = dlen[0]!, dbytes = e0, lMin = e0, lMax = e0, eZmin = 0x7fffffff, eZmax = 0, eR = 1, eRun = 1;
  for (let j = 1; j < k; j++) {
    const l = dlen[j]!;
    if (l < lMin) lMin = l;
    if (l > lMax) lMax = l;
    dbytes += l;
    const d = l - e0, z = (d << 1) ^ (d >> 31);
    if (z < eZmin) eZmin = z;
    if (z > eZmax) eZmax = z;
    if (d === 0) eRun++;
    else { eR += (eRun < 128 ? 1 : varLen(eRun)) + 1; eRun = 1; }
    e0 = l;
  }
  if (lMax >= 128) return false;
  // A dictionary surely smaller than the least the plain column takes (its size with the ids' frame of reference,
  // which their measure can only undercut, against a byte a value at least: long columns of few codes, as flights'
  // airports) is left to the general path, whose first test (dictionaryBelow) writes it after a pass over the ids
  // and part of one, measuring neither the lengths nor the prefixes.
  const mEntries = measureFrom(dlen, k, dlen[0]!, 1 + k, lMin, lMax, eZmin, eZmax, eR, eRun, e0), head = 1 + varLen(k) + varLen(mEntries.size) + mEntries.size + varLen(dbytes) + dbytes;
  if (head + 3 + Math.ceil((n * (32 - Math.clz32(k - 1))) / 8) < 5 + n * lMin) return false;
  const dv = viewOf(buf);
  // (The pairs' prefixes are kept only where pairs can repeat often enough to pay for the table's lookups: a column
  // of k entries has at most k * k pairs, and n - 1 neighbours.)
  const cached = k <= 256 && k * k <= n, pair = (PAIR256 ??= new Int32Array(256 * 256)), pairStamp = (PAIR256_STAMP ??= new Int32Array(256 * 256));
  if (++stamp256 > 0x3fffffff) { stamp256 = 1; pairStamp.fill(0); }
  const st = stamp256;
  // Value 0: its length (l), id (0: the first entry), prefix (0) and rest (l). Each column's state is measureInt's
  // (least and greatest, the differences' zigzag least and greatest, run-length size, run, last value; the varint
  // sizes are 1 + n, the ids' 1 + n and one more for each byte past an id's first); the lengths' least and greatest are the
  // entries', the ids' 0 and k - 1 (each entry is some value's).
  let a = ids[0]!, la = dlen[a]!;
  let total = la, restTotal = la;
  let lZmin = 0x7fffffff, lZmax = 0, lR = 1, lRun = 1;
  let iV = 1 + n, iZmin = 0x7fffffff, iZmax = 0, iR = 1, iRun = 1;
  let sMin = 0, sMax = 0, sZmin = 0x7fffffff, sZmax = 0, sR = 1, sRun = 1, sPrev = 0;
  let rMin = la, rMax = la, rZmin = 0x7fffffff, rZmax = 0, rR = 1, rRun = 1, rPrev = la;
  // (rep: the value before repeated the one before it: its prefix was its length and its rest 0, so a repeat of it
  // continues every run and changes nothing else.)
  let rep = false;
  for (let i = 1; i < n; i++) {
    const b = ids[i]!;
    if (b === a && rep) {
      // The rest of the run at once: its length counted by a loop of its own, which keeps none of the measures'
      // state live (the loop below holds about thirty values, most on the stack, and stores them back each turn).
      let j = i + 1;
      while (j < n && ids[j] === a) j++;
      const c = j - i;
      total += c * la;
      if (b >= 128) iV += c * (vl(b) - 1);
      lRun += c; iRun += c; sRun += c; rRun += c;
      sZmin = 0; rZmin = 0; // (a difference of 0: the prefixes' and rests' first one in the run may not have been)
      i = j - 1;
      continue;
    }
    const l = dlen[b]!;
    let p: number;
    if (b === a) { p = l; rep = true; } // a repeat shares all of itself
    else {
      rep = false;
      // (One call of commonPrefix, inlined once.)
      const key = (a << 8) | b;
      if (cached && pairStamp[key] === st) p = pair[key]!;
      else {
        p = commonPrefix(dv, buf, dstart[a]!, dstart[b]!, l < la ? l : la);
        if (cached) { pair[key] = p; pairStamp[key] = st; }
      }
    }
    const r = l - p;
    total += l; restTotal += r;
    // lengths
    let d = l - la, z = (d << 1) ^ (d >> 31);
    if (z < lZmin) lZmin = z;
    if (z > lZmax) lZmax = z;
    if (d === 0) lRun++;
    else { lR += (lRun < 128 ? 2 : varLen(lRun) + 1); lRun = 1; }
    // ids
    if (b >= 128) iV += vl(b) - 1;
    d = b - a; z = (d << 1) ^ (d >> 31);
    if (z < iZmin) iZmin = z;
    if (z > iZmax) iZmax = z;
    if (d === 0) iRun++;
    else { iR += (iRun < 128 ? 1 : varLen(iRun)) + vl(a); iRun = 1; }
    // shared prefixes
    if (p < sMin) sMin = p;
    if (p > sMax) sMax = p;
    d = p - sPrev; z = (d << 1) ^ (d >> 31);
    if (z < sZmin) sZmin = z;
    if (z > sZmax) sZmax = z;
    if (d === 0) sRun++;
    else { sR += (sRun < 128 ? 2 : varLen(sRun) + 1); sRun = 1; }
    sPrev = p;
    // rests
    if (r < rMin) rMin = r;
    if (r > rMax) rMax = r;
    d = r - rPrev; z = (d << 1) ^ (d >> 31);
    if (z < rZmin) rZmin = z;
    if (z > rZmax) rZmax = z;
    if (d === 0) rRun++;
    else { rR += (rRun < 128 ? 2 : varLen(rRun) + 1); rRun = 1; }
    rPrev = r;
    a = b; la = l;
  }
  // (The values' lengths are measured, and made only for the plain column: see the prefixes below.)
  const l0 = dlen[ids[0]!]!;
  const mLen = measureFrom(NO_VALUES, n, l0, 1 + n, lMin, lMax, lZmin, lZmax, lR, lRun, la);
  const plainSize = 1 + varLen(mLen.size) + mLen.size + total;
  const mIds = measureFrom(ids, n, 0, iV, 0, k - 1, iZmin, iZmax, iR, iRun, a);
  const dictSize = head + mIds.size;
  // The prefixes and rests are measured, not stored: the arrays are made (prefixesOfIds) only for the column that
  // writes them, which most do not (two stores a value, with their checks, against a second pass for the few; on
  // budget.json's year columns, 11 of 59).
  let prefixSize = Infinity, mShared: Measured | null = null, mRest: Measured | null = null;
  // (No prefix shared at all: the prefixes' column is the plain one with a block of zeros more, never chosen.)
  if (restTotal !== total) {
    mShared = measureFrom(NO_VALUES, n, 0, 1 + n, sMin, sMax, sZmin, sZmax, sR, sRun, sPrev);
    mRest = measureFrom(NO_VALUES, n, l0, 1 + n, rMin, rMax, rZmin, rZmax, rR, rRun, rPrev);
    prefixSize = 1 + varLen(mShared.size) + mShared.size + varLen(mRest.size) + mRest.size + restTotal;
  }
  if (checkFused) {
    const len = scratchArray(VALUE_LEN, n);
    for (let i = 0; i < n; i++) len[i] = dlen[ids[i]!]!;
    checkMeasure("entries", mEntries, dlen); checkMeasure("lengths", mLen, len); checkMeasure("ids", mIds, ids);
    const shared = scratchArray(SHARED, n), rest = scratchArray(REST, n);
    prefixesOfIds(dict, cached, st, shared, rest);
    checkMeasure("prefixes", measureFrom(shared, n, 0, 1 + n, sMin, sMax, sZmin, sZmax, sR, sRun, sPrev), shared);
    checkMeasure("rests", measureFrom(rest, n, l0, 1 + n, rMin, rMax, rZmin, rZmax, rR, rRun, rPrev), rest);
  }
  if (dictSize < plainSize && dictSize <= prefixSize) { putDict(out, dict, dictSize, dbytes, mIds, mEntries); return true; }
  if (prefixSize < plainSize) {
    const shared = scratchArray(SHARED, n), rest = scratchArray(REST, n);
    prefixesOfIds(dict, cached, st, shared, rest);
    mShared!.values = shared; mRest!.values = rest;
    out.uvar(prefixSize);
    out.u8(0x22);
    putIntsColumn(out, shared, true, mShared!);
    putIntsColumn(out, rest, true, mRest!);
    // Each value's rest: its entry's bytes past the prefix (none for a repeat).
    out.ensure(restTotal);
    const o = out.buf;
    let q = out.len;
    for (let i = 0; i < n; i++) {
      const r = rest[i]!;
      if (r === 0) continue;
      const e = dstart[ids[i]!]! + dlen[ids[i]!]!;
      for (let s = e - r; s < e; s++) o[q++] = buf[s]!;
    }
    out.len = q;
  } else {
    const len = scratchArray(VALUE_LEN, n);
    for (let i = 0; i < n; i++) len[i] = dlen[ids[i]!]!;
    mLen.values = len;
    out.uvar(plainSize);
    out.u8(0x20);
    putIntsColumn(out, len, true, mLen);
    out.ensure(total);
    const o = out.buf;
    let q = out.len;
    for (let i = 0; i < n; i++) {
      const b = ids[i]!, s = dstart[b]!, e = s + dlen[b]!;
      for (let x = s; x < e; x++) o[q++] = buf[x]!;
    }
    out.len = q;
  }
  return true;
}

/** The values putDictionaryColumn's measures of the lengths, prefixes and rests stand for until it makes them for
 * the column it writes (measureFrom reads none). */
const NO_VALUES: readonly number[] = [];
/** putDictionaryColumn's prefixes and rests of the values `dict.ids` stands for, into `shared` and `rest`: a value
 * equal to the one before shares all of itself; another shares with the entry before the prefix its pass found (from
 * the pairs' table when `cached`, whose entries of stamp `st` are this column's, else compared again). */
function prefixesOfIds(dict: Dict, cached: boolean, st: number, shared: number[], rest: number[]): void {
  const { buf, start: dstart, len: dlen } = dict.distinct, ids = dict.ids, n = ids.length, dv = viewOf(buf);
  const pair = PAIR256!, pairStamp = PAIR256_STAMP!;
  let a = ids[0]!, la = dlen[a]!;
  shared[0] = 0; rest[0] = la;
  for (let i = 1; i < n; i++) {
    const b = ids[i]!, l = dlen[b]!;
    let p: number;
    if (b === a) p = l;
    else {
      const key = (a << 8) | b;
      p = cached && pairStamp[key] === st ? pair[key]! : commonPrefix(dv, buf, dstart[a]!, dstart[b]!, l < la ? l : la);
    }
    shared[i] = p; rest[i] = l - p;
    a = b; la = l;
  }
}

/** The string writer's arrays of numbers per value (int_columns.ts scratchArray), one per role: a column uses each
 * role once, and nothing of it outlives the column. */
const IDS = S_IDS, VIEW_START = S_VIEW_START, VIEW_LEN = S_VIEW_LEN, VALUE_START = S_VALUE_START, VALUE_LEN = S_VALUE_LEN, SHARED = S_SHARED, REST = S_REST;

/** What mapIds found: the dictionary (its entries in `strs`, each value's index in `ids`), the same from values that
 * never decrease (SORTED: the ids too), or that it cannot be one. */
const FOUND = 0, GAVE_UP = 1, SORTED = 2;
/** The dictionary of the strings `values`: as soon as there are more distinct strings than `limit`, or mostly
 * distinct ones (the Rust writer's test), GAVE_UP. Short strings are kept in a table slotted by their length and three
 * of their code units (or, in a short column where another string holds that slot, by a hash of all of them:
 * secondSlot), where a slot, once a string of the column holds it, keeps it: a string whose slot is empty is new (had
 * it come before, it would be there), one whose slot holds it is found by one `===` (for internalized strings,
 * JSON.parse's values of up to 10 characters, the usual categories and codes, a pointer compare), and only the others
 * (long or empty strings, and those whose slots other strings hold) are looked up in a Map, made when the first of
 * them comes. (A Map, not a table hashing the code units in JS: it uses the hash a string already holds, as an
 * internalized one always does; BENCHMARKS.md, tsenc5 and tsenc10; a small table's column of categories makes no Map
 * at all, tsenc14.) */
function mapIds(values: string[], limit: number, strs: string[], ids: number[]): number {
  const n = values.length;
  const keys = CACHE_KEYS, cids = CACHE_IDS, stamps = CACHE_STAMPS;
  if (++cacheStamp > 0x3fffffff) { cacheStamp = 1; stamps.fill(0); }
  const stamp = cacheStamp;
  // A sorted start (values that never decrease, as a time or key column's often do): a value that differs from
  // the one before is greater than every value before it, hence new, with no lookup. At the first that is less, the
  // table and the Map take over with the entries found so far.
  let i = 1;
  if (n > 0) { strs.push(values[0]!); ids[0] = 0; }
  for (; i < n; i++) {
    const v = values[i]!, p = values[i - 1]!;
    if (v === p) { ids[i] = strs.length - 1; continue; }
    if (!(p < v)) break;
    const id = strs.length;
    if (id >= limit || mostlyDistinct(i, id, n)) return GAVE_UP;
    strs.push(v); ids[i] = id;
  }
  if (i >= n) return SORTED;
  // The second slots in short columns only: there a Map made, grown and filled is most of the cost of the strings
  // that miss their first slot; in long ones its lookups of repeated strings cost less than the hash in JS (strings
  // not internalized, as a CSV's, hash once in the Map: BENCHMARKS.md, tsenc18).
  const second = n <= SECOND_SLOTS_UP_TO;
  let index: Map<string, number> | null = null;
  for (let k = 0; k < strs.length; k++) {
    const v = strs[k]!, l = v.length;
    if (l > 0 && l <= CACHED_LENGTH) {
      let h = slotOf(v, l);
      if (second && stamps[h] === stamp) h = secondSlot(v, l);
      if (stamps[h] !== stamp) { keys[h] = v; cids[h] = k; stamps[h] = stamp; continue; }
    }
    (index ??= new Map()).set(v, k);
  }
  let last: string | undefined = values[i - 1], lastId = ids[i - 1]!;
  for (; i < n; i++) {
    const v = values[i]!;
    // A run of one value (sorted or grouped data) needs no lookup.
    if (v === last) { ids[i] = lastId; continue; }
    const l = v.length;
    let id: number | undefined;
    if (l > 0 && l <= CACHED_LENGTH) {
      let h = slotOf(v, l);
      // Its slot held by another string: its second slot, from all its code units (strings of one format, dates or
      // ids, differ where the first slot's three units do not look).
      if (second && stamps[h] === stamp && keys[h] !== v) h = secondSlot(v, l);
      if (stamps[h] !== stamp) {
        id = strs.length;
        if (id >= limit || mostlyDistinct(i, id, n)) return GAVE_UP;
        strs.push(v); keys[h] = v; cids[h] = id; stamps[h] = stamp;
      } else if (keys[h] === v) id = cids[h]!;
    }
    if (id === undefined) {
      if (index === null) index = new Map();
      id = index.get(v);
      if (id === undefined) {
        id = strs.length;
        if (id >= limit || mostlyDistinct(i, id, n)) return GAVE_UP;
        strs.push(v); index.set(v, id);
      }
    }
    ids[i] = id;
    last = v; lastId = id;
  }
  return FOUND;
}
/** mapIds' slot for a string of length l (0 < l <= CACHED_LENGTH). */
const slotOf = (v: string, l: number): number =>
  (((v.charCodeAt(0) * 31 + v.charCodeAt(l - 1)) * 31 + v.charCodeAt(l >> 1)) * 7 + l) & (CACHE_SLOTS - 1);
/** mapIds' second slot (in columns of at most SECOND_SLOTS_UP_TO values) for a string whose first slot another
 * string holds: a hash of all its code units. A string is put in its first slot when that is empty, else in its
 * second when that is, else in the Map; slots only fill within a column, so a string whose first slot holds another
 * and whose second is empty is new, and one whose two slots hold others is in the Map if it came before. */
function secondSlot(v: string, l: number): number {
  let h = l;
  for (let k = 0; k < l; k++) h = (Math.imul(h, 31) + v.charCodeAt(k)) | 0;
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  return (h ^ (h >>> 13)) & (CACHE_SLOTS - 1);
}
/** mapIds' table: its slots (a power of two), the longest string it keeps (so that it holds on to at most
 * CACHE_SLOTS short strings between calls), each slot's string, index and column stamp (a slot of another column
 * is empty: no clearing per column). */
const CACHE_SLOTS = 1024, CACHED_LENGTH = 32, SECOND_SLOTS_UP_TO = 512;
const CACHE_KEYS = new Array<string>(CACHE_SLOTS).fill(""), CACHE_IDS = new Int32Array(CACHE_SLOTS), CACHE_STAMPS = new Int32Array(CACHE_SLOTS);
let cacheStamp = 0;

/** What dictionaryFirst measured when it did not decide, for putStrings to go on from. */
interface Sized { total: number; mLen: Measured; dictSize: number; dbytes: number; mIds: Measured; mEntries: Measured }
/** The measure of a dictionary's ids: with one entry they are all 0 (no pass). */
const measureIds = (dict: Dict): Measured => (dict.distinct.len.length === 1 ? measureConst(dict.ids, 0) : measureSmall(dict.ids));

/** putStrings' first test for a dictionary built on the strings, from the entries and each value's index (no view
 * per value): when it is smaller than the plain column and no larger than the least the shared prefixes can
 * take, it is written and true returned (putStrings would write it too); false leaves the choice to putStrings. */
function dictionaryFirst(out: Writer, dict: Dict, len: number[], total: number, ids: Measured | null, mEntries: Measured, oneLength: boolean): true | Sized | undefined {
  const n = len.length, d = dict.distinct.len;
  if (n < 2) return undefined;
  const mLen = oneLength ? measureConst(len, d[0]!) : measureSmall(len), plainSize = 1 + varLen(mLen.size) + mLen.size + total;
  let dbytes = 0;
  for (let i = 0; i < d.length; i++) dbytes += d[i]!;
  const mIds = ids ?? measureIds(dict), k = mEntries.size;
  const dictSize = 1 + varLen(d.length) + varLen(k) + k + varLen(dbytes) + dbytes + mIds.size;
  if (!(dictSize < plainSize && dictSize <= restBytesOfIds(dict) + 9)) return { total, mLen, dictSize, dbytes, mIds, mEntries };
  putDict(out, dict, dictSize, dbytes, mIds, mEntries);
  return true;
}
/** dictionaryFirst's test with `plainLeast` (at most the plain column's size) in place of that size: when the
 * dictionary is smaller than it and no larger than the least the shared prefixes can take, it is written and true
 * returned (what dictionaryFirst would do); otherwise nothing is written, and the ids' measure returned when it
 * was taken (for dictionaryFirst), else null. */
function dictionaryBelow(out: Writer, dict: Dict, plainLeast: number, mEntries: Measured): true | Measured | null {
  const d = dict.distinct.len;
  let dbytes = 0;
  for (let i = 0; i < d.length; i++) dbytes += d[i]!;
  const k = mEntries.size;
  const head = 1 + varLen(d.length) + varLen(k) + k + varLen(dbytes) + dbytes;
  // The ids' block is at least 1 byte: a dictionary whose head alone reaches the bound is left to the full test.
  if (head + 1 >= plainLeast) return null;
  const mIds = measureIds(dict), dictSize = head + mIds.size;
  if (!(dictSize < plainLeast && dictSize <= restBytesOfIds(dict, dictSize - 9) + 9)) return mIds;
  putDict(out, dict, dictSize, dbytes, mIds, mEntries);
  return true;
}
/** restBytes of the values `dict.ids` stands for: a value repeating the one before leaves nothing; another leaves
 * its entry less the prefix it shares with the entry before, found once per pair of entries when there are at
 * most 128 (PAIRS, marked with the column's stamp), else each time. */
function restBytesOfIds(dict: Dict, enough = Infinity): number {
  const { buf, start, len } = dict.distinct, ids = dict.ids, n = ids.length, cached = len.length <= 128;
  if (len.length === 1) return n > 0 ? len[0]! : 0; // one entry: its bytes once, then repeats
  if (cached && ++stamp > 0x3fffffff) { stamp = 1; PAIR_STAMP.fill(0); }
  let a = -1, restTotal = 0;
  for (let i = 0; i < n; i++) {
    const b = ids[i]!;
    if (b === a) continue;
    const l = len[b]!;
    let p = 0;
    if (a >= 0) {
      const key = cached ? (a << 7) | b : 0;
      if (cached && PAIR_STAMP[key] === stamp) p = PAIR[key]!;
      else {
        const s = start[b]!, ps = start[a]!, m = l < len[a]! ? l : len[a]!;
        while (p < m && buf[ps + p] === buf[s + p]) p++;
        if (cached) { PAIR[key] = p; PAIR_STAMP[key] = stamp; }
      }
    }
    restTotal += l - p;
    if (restTotal >= enough) return restTotal;
    a = b;
  }
  return restTotal;
}
const PAIR = new Int32Array(128 * 128), PAIR_STAMP = new Int32Array(128 * 128);
let stamp = 0;
/** putDictionaryColumn's prefixes of pairs of entries (up to 256 entries), as PAIR (made when first needed). */
let PAIR256: Int32Array | null = null, PAIR256_STAMP: Int32Array | null = null, stamp256 = 0;

/** The column of byte strings `values` (length and payload). */
export function putBytesColumn(out: Writer, values: Uint8Array[]): void {
  let total = 0;
  for (const v of values) total += v.length;
  const buf = new Uint8Array(total), start: number[] = [], len: number[] = [];
  let p = 0;
  for (const v of values) { buf.set(v, p); start.push(p); len.push(v.length); p += v.length; }
  putStrings(out, { buf, start, len }, undefined);
}

/** The UTF-8 bytes of each string, as views of one buffer: the concatenation encoded (a chunk at a time) when the
 * strings are well formed (its bytes are then theirs, one after the other), each string's length found from its
 * characters; one TextEncoder call per string otherwise (a lone surrogate at the end of one string and one at the
 * start of the next would make a pair in the concatenation). */
function utf8Views(values: string[]): Views {
  const n = values.length, start = scratchArray(VIEW_START, n), len = scratchArray(VIEW_LEN, n);
  let chars = 0;
  for (let i = 0; i < n; i++) chars += values[i]!.length;
  if (chars <= 4096 && chars < 8 * n) {
    // A short column of short strings (codes, categories, a dictionary's few entries): its bytes copied from the
    // characters while they are ASCII, without the join and the TextEncoder call, whose fixed cost and cost per
    // string are most of the work at this size. Longer strings (names, ids, dates) go to the join below: the
    // encoder's copy is cheaper per character than this loop (BENCHMARKS.md, tsenc18).
    const buf = SCRATCH;
    let p = 0, ascii = true;
    for (let i = 0; ascii && i < n; i++) {
      const v = values[i]!, l = v.length;
      for (let k = 0; k < l; k++) {
        const c = v.charCodeAt(k);
        if (c >= 0x80) { ascii = false; break; }
        buf[p + k] = c;
      }
      start[i] = p; len[i] = l; p += l;
    }
    if (ascii) return { buf, start, len, ascii };
  }
  if (chars <= 1 << 26) {
    // The strings joined a chunk of about CHUNK characters at a time (by `+=`: a rope, flattened by the encoder) and
    // each chunk encoded into one buffer, kept across columns and calls while it is at most KEPT_BYTES: one join of
    // a long column and the encoder's result are each a new large object (BENCHMARKS.md, tsenc14). The buffer is
    // sized for ASCII (a byte a character); at the first chunk that does not fit, the column is not all ASCII and
    // gets a buffer of 3 bytes for each character from there on (the most UTF-8 takes for one UTF-16 unit).
    let buf = bytesFor(chars), w = 0, done = 0;
    const parts = JOIN;
    for (let i = 0; i < n;) {
      // The chunk's strings put in a kept array and joined: one flat string, where `+=` made a rope node a value
      // (20,000 of them for a column of flights-20k's dates) that the encoder then flattened into a copy anyway.
      let k = 0, c = 0;
      while (i < n && c < CHUNK) { const v = values[i++]!; parts[k++] = v; c += v.length; }
      parts.length = k;
      const s = parts.join("");
      let r = utf8e.encodeInto(s, buf.subarray(w));
      if (r.read < s.length) {
        const wider = new Uint8Array(w + 3 * (chars - done));
        wider.set(buf.subarray(0, w));
        buf = wider;
        r = utf8e.encodeInto(s, buf.subarray(w));
      }
      w += r.written; done += s.length;
    }
    parts.length = 0;
    let p = 0;
    if (w === chars) { // all ASCII: a character is a byte
      for (let i = 0; i < n; i++) { const l = values[i]!.length; start[i] = p; len[i] = l; p += l; }
      return { buf, start, len, ascii: true };
    }
    if (values.every(wellFormed)) {
      for (let i = 0; i < n; i++) { const l = utf8Length(values[i]!); start[i] = p; len[i] = l; p += l; }
      return { buf, start, len };
    }
  }
  const parts = values.map((s) => utf8e.encode(s));
  let total = 0;
  for (const b of parts) total += b.length;
  const buf = new Uint8Array(total);
  let p = 0;
  for (let i = 0; i < n; i++) { const b = parts[i]!; buf.set(b, p); start[i] = p; len[i] = b.length; p += b.length; }
  return { buf, start, len };
}
/** utf8Views' buffer for short ASCII columns (their views are read and copied out before the next column's are
 * made: no buffer per column), and a DataView of it for the shared-prefix compare. */
const SCRATCH = new Uint8Array(4096), SCRATCH_DV = new DataView(SCRATCH.buffer);
/** utf8Views' chunk of characters, and the largest buffer of encoded strings kept (as codec.ts's writer). */
const CHUNK = 8192, KEPT_BYTES = 1 << 20;
/** utf8Views' kept array of a chunk's strings (emptied after each column: it holds on to no string between calls). */
const JOIN: string[] = [];
/** utf8Views' buffer for longer columns (used as SCRATCH is), grown up to KEPT_BYTES, and its DataView. */
let kept = new Uint8Array(0), keptDv = new DataView(kept.buffer);
/** A buffer of at least k bytes: the kept one while k is at most KEPT_BYTES, else a new one. */
function bytesFor(k: number): Uint8Array {
  if (k <= kept.length) return kept;
  if (k > KEPT_BYTES) return new Uint8Array(k);
  kept = new Uint8Array(Math.min(KEPT_BYTES, Math.max(k, 2 * kept.length)));
  keptDv = new DataView(kept.buffer);
  return kept;
}
/** A DataView over the bytes of `buf` (the same offsets), for commonPrefix. */
const viewOf = (buf: Uint8Array): DataView =>
  buf === SCRATCH ? SCRATCH_DV : buf === kept ? keptDv : new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
/** The UTF-8 length of a well-formed string. */
function utf8Length(s: string): number {
  let l = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) l += 1;
    else if (c >= 0xd800 && c <= 0xdbff) { l += 2; i++; } // a pair: 2 units, 4 bytes
    else l += 2;
  }
  return l;
}

/** The size of an integer block with its length: `m`'s, or measured from `xs` when there is no `m`. A function of
 * the module, not a closure made in each putStrings call: V8 compiles putStrings' loop on the stack (OSR) during a
 * long column and keeps that code for the calls after, and that code had inlined the first call's closure, so every
 * later call (a new closure) left it there ("wrong call target": one deopt a call, and the rest of the call in the
 * interpreter; BENCHMARKS.md, tsharness31). */
function sizedBlock(m: Measured | null, xs: number[]): number {
  const k = m ? m.size : intsSize(xs);
  return varLen(k) + k;
}
/** Writes the column of byte strings `v` (length and payload) in the smallest of the three string encodings,
 * sized first. `dict`: the dictionary already built on the strings; null: none can be (more distinct values
 * than its limit); undefined: built here on the bytes. */
function putStrings(out: Writer, v: Views, dict: Dict | null | undefined, sized?: Sized): void {
  const { buf, start, len } = v, n = len.length;
  if (dict === null && n >= 2) { putPlainOrPrefixes(out, v); return; }
  let total = 0;
  if (sized) total = sized.total;
  else for (let i = 0; i < n; i++) total += len[i]!;
  // Sizes first (measured, nothing written); only the chosen encoding's integer blocks are written.
  const mLen = sized ? sized.mLen : measureSmall(len);
  const plainSize = 1 + sizedBlock(mLen, len) + total;
  // A dictionary built on the strings, sized first: when it is no larger than the least the shared prefixes
  // can take (their bytes left after the prefixes, plus a byte for the tag and at least 4 for each of the two
  // integer blocks of n >= 2 values), it is the one the full comparison below would choose, and the prefix
  // columns are not built or measured. (`sized`: dictionaryFirst measured all this and made that test.)
  let dictSize = Infinity, dbytes = 0, mIds: Measured | null = null, mEntries: Measured | undefined;
  if (sized) { dictSize = sized.dictSize; dbytes = sized.dbytes; mIds = sized.mIds; mEntries = sized.mEntries; }
  else if (dict) {
    const d = dict.distinct.len;
    for (let i = 0; i < d.length; i++) dbytes += d[i]!;
    mIds = measureIds(dict);
    mEntries = measureSmall(d);
    dictSize = 1 + varLen(d.length) + varLen(mEntries.size) + mEntries.size + varLen(dbytes) + dbytes + mIds.size;
    if (n >= 2 && dictSize < plainSize && dictSize <= restBytes(v) + 9) { putDict(out, dict, dictSize, dbytes, mIds, mEntries); return; }
  }
  // shared prefixes
  const shared = scratchArray(SHARED, n), rest = scratchArray(REST, n), dv = viewOf(buf);
  let ps = 0, pl = 0, restTotal = 0;
  for (let i = 0; i < n; i++) {
    const s = start[i]!, l = len[i]!;
    const p = s === ps && l === pl ? l : commonPrefix(dv, buf, ps, s, l < pl ? l : pl); // (l: a repeated dictionary entry)
    shared[i] = p; rest[i] = l - p;
    restTotal += l - p;
    ps = s; pl = l;
  }
  // No prefix shared at all (restTotal is the total): the rests are the lengths and the prefixes' column is the
  // plain one with a block of zeros more, always larger; it is not measured (Infinity: the same choices below).
  const mShared = restTotal === total ? null : measureSmall(shared), mRest = mShared ? measureSmall(rest) : null;
  const prefixSize = mShared && mRest ? 1 + sizedBlock(mShared, shared) + sizedBlock(mRest, rest) + restTotal : Infinity;
  // dictionary
  if (dict === undefined) {
    dict = bytesDict(v, Math.min(plainSize, prefixSize));
    if (dict) {
      const d = dict.distinct.len;
      for (let i = 0; i < d.length; i++) dbytes += d[i]!;
      mIds = measureIds(dict);
      mEntries = measureSmall(d);
      dictSize = 1 + varLen(d.length) + varLen(mEntries.size) + mEntries.size + varLen(dbytes) + dbytes + mIds.size;
    }
  }
  // (A dictionary whose distinct bytes alone reach the smaller of the others cannot be the smallest.)
  if (dict && dbytes < Math.min(plainSize, prefixSize) && dictSize < plainSize && dictSize <= prefixSize) {
    putDict(out, dict, dictSize, dbytes, mIds, mEntries);
  } else if (prefixSize < plainSize && prefixSize < (dict && dbytes < Math.min(plainSize, prefixSize) ? dictSize : Infinity)) {
    out.uvar(prefixSize);
    out.u8(0x22);
    putIntsColumn(out, shared, true, mShared!);
    putIntsColumn(out, rest, true, mRest!);
    copy(out, buf, start, len, shared);
  } else {
    out.uvar(plainSize);
    out.u8(0x20);
    putIntsColumn(out, len, true, mLen);
    copy(out, buf, start, len, null);
  }
}
/** putStrings of n >= 2 strings no dictionary can hold (more distinct ones than its limit): the shared prefixes
 * when smaller than the plain column, else the plain column. The lengths are not measured when the prefixes come
 * below the least the plain column can take: total + 5 bytes (its tag and a block of n >= 2 values, which is at
 * least 4 bytes: its length and 3, a frame of reference of width 0, a run, or 3 varints), as distinct keys, codes
 * and URLs do. (Measuring the lengths first saves nothing in practice: the plain column is below the least the
 * prefixes take, restTotal + 9, only when the strings share almost nothing and their lengths are all equal.) */
function putPlainOrPrefixes(out: Writer, v: Views): void {
  const { buf, start, len } = v, n = len.length;
  let total = 0;
  for (let i = 0; i < n; i++) total += len[i]!;
  const shared = scratchArray(SHARED, n), rest = scratchArray(REST, n), dv = viewOf(buf);
  let ps = 0, pl = 0, restTotal = 0;
  for (let i = 0; i < n; i++) {
    const s = start[i]!, l = len[i]!;
    const p = commonPrefix(dv, buf, ps, s, l < pl ? l : pl);
    shared[i] = p; rest[i] = l - p;
    restTotal += l - p;
    ps = s; pl = l;
  }
  // No prefix shared at all: the prefixes' column is the plain one with a block of zeros more (the rests are the
  // lengths), larger; neither is measured.
  if (restTotal === total) { const mLen = measureSmall(len); putPlain(out, v, 1 + varLen(mLen.size) + mLen.size + total, mLen); return; }
  const mShared = measureSmall(shared), mRest = measureSmall(rest);
  const prefixSize = 1 + varLen(mShared.size) + mShared.size + varLen(mRest.size) + mRest.size + restTotal;
  if (prefixSize < total + 5) { putPrefixes(out, v, prefixSize, shared, mShared, rest, mRest); return; }
  const mLen = measureSmall(len), plainSize = 1 + varLen(mLen.size) + mLen.size + total;
  if (prefixSize < plainSize) putPrefixes(out, v, prefixSize, shared, mShared, rest, mRest);
  else putPlain(out, v, plainSize, mLen);
}
/** Writes the plain string column (0x20) of `v`, sized `size`, its lengths measured `mLen`. */
function putPlain(out: Writer, v: Views, size: number, mLen: Measured): void {
  out.uvar(size);
  out.u8(0x20);
  putIntsColumn(out, v.len, true, mLen);
  copy(out, v.buf, v.start, v.len, null);
}
/** Writes the shared-prefix string column (0x22) of `v`, sized `size`. */
function putPrefixes(out: Writer, v: Views, size: number, shared: number[], mShared: Measured, rest: number[], mRest: Measured): void {
  out.uvar(size);
  out.u8(0x22);
  putIntsColumn(out, shared, true, mShared);
  putIntsColumn(out, rest, true, mRest);
  copy(out, v.buf, v.start, v.len, shared);
}
/** The bytes the shared-prefix encoding leaves of the strings `v` (each less the prefix it shares with the one
 * before), as putStrings counts them. */
function restBytes(v: Views): number {
  const { buf, start, len } = v, n = len.length, dv = viewOf(buf);
  let ps = 0, pl = 0, restTotal = 0;
  for (let i = 0; i < n; i++) {
    const s = start[i]!, l = len[i]!;
    const p = s === ps && l === pl ? l : commonPrefix(dv, buf, ps, s, l < pl ? l : pl);
    restTotal += l - p;
    ps = s; pl = l;
  }
  return restTotal;
}
/** The length of the prefix that the bytes of `buf` from `a` and from `b` share, at most `m` (both views hold at
 * least `m` bytes; `dv` views `buf`): four bytes a compare (unaligned little-endian reads, the first differing byte
 * being the lowest set bit's), the last up to three one at a time. Sorted times and keys share most of their bytes
 * with the one before: flights' dates (16 bytes, 14.5 shared on average) took 0.62 of the byte loop's time (BENCHMARKS.md, tsenc12). */
function commonPrefix(dv: DataView, buf: Uint8Array, a: number, b: number, m: number): number {
  let p = 0;
  for (; p + 4 <= m; p += 4) {
    const x = dv.getUint32(a + p, true) ^ dv.getUint32(b + p, true);
    if (x !== 0) return p + ((31 - Math.clz32(x & -x)) >> 3);
  }
  while (p < m && buf[a + p] === buf[b + p]) p++;
  return p;
}
/** Writes the dictionary column (0x21) of `dict`, sized `size`, its entries `dbytes` bytes. */
function putDict(out: Writer, dict: Dict, size: number, dbytes: number, mIds: Measured | null, mEntries?: Measured): void {
  const d = dict.distinct;
  out.uvar(size);
  out.u8(0x21);
  out.uvar(d.len.length);
  putIntsColumn(out, d.len, true, mEntries);
  out.uvar(dbytes);
  copy(out, d.buf, d.start, d.len, null);
  putIntsColumn(out, dict.ids, false, mIds);
}
/** The dictionary of byte strings `v` (keyed by their bytes), or null when it cannot be the smallest: more
 * distinct values than its limit (n/2 + 16), or distinct bytes reaching `bound` (it holds at least those). */
function bytesDict(v: Views, bound: number): Dict | null {
  const { buf, start, len } = v, n = len.length, limit = Math.floor(n / 2) + 16;
  const index = new Map<string, number>(), ids: number[] = [];
  const dstart: number[] = [], dlen: number[] = [];
  let dbytes = 0;
  for (let i = 0; i < n; i++) {
    const s = start[i]!, l = len[i]!;
    const k = latin1(buf, s, l);
    let id = index.get(k);
    if (id === undefined) {
      id = dstart.length; index.set(k, id); dstart.push(s); dlen.push(l); dbytes += l;
      if (dstart.length > limit || mostlyDistinct(i, id, n) || dbytes >= bound) return null;
    }
    ids.push(id);
  }
  return { ids, distinct: { buf, start: dstart, len: dlen } };
}
/** A Map key for a byte string (one UTF-16 unit per byte). */
function latin1(b: Uint8Array, p: number, l: number): string {
  let s = "";
  for (let i = 0; i < l; i += 4096) s += String.fromCharCode.apply(null, b.subarray(p + i, p + Math.min(l, i + 4096)) as unknown as number[]);
  return s;
}
/** Appends each view (less its first `skip[i]` bytes): short ones byte by byte (no subarray per value), and
 * views that follow each other in `buf` as one copy. */
function copy(out: Writer, buf: Uint8Array, start: number[], len: number[], skip: number[] | null): void {
  const n = len.length;
  let total = 0;
  for (let i = 0; i < n; i++) total += len[i]! - (skip ? skip[i]! : 0);
  out.ensure(total);
  const o = out.buf;
  let p = out.len;
  for (let i = 0; i < n;) {
    const k = skip ? skip[i]! : 0;
    let s = start[i]! + k, e = start[i]! + len[i]!;
    i++;
    // A run of views each starting where the one before ends (with nothing skipped): one copy.
    while (i < n && start[i] === e && (!skip || skip[i] === 0)) { e += len[i]!; i++; }
    const l = e - s;
    if (l <= 16) { for (; s < e; s++) o[p++] = buf[s]!; }
    else { o.set(buf.subarray(s, e), p); p += l; }
  }
  out.len = p;
}
