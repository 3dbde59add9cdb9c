import type { Float } from "./nan.js";
const utf8 = new TextEncoder();

/** Byte writer with LEB128 varints (SPEC 11). */
export class Writer {
  buf = new Uint8Array(256);
  len = 0;
  private dv = new DataView(this.buf.buffer);

  ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.len + n) cap *= 2;
    const nb = new Uint8Array(cap);
    nb.set(this.buf.subarray(0, this.len));
    this.buf = nb;
    this.dv = new DataView(nb.buffer);
  }
  u8(b: number): void {
    this.ensure(1);
    this.buf[this.len++] = b;
  }
  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }
  /** Unsigned varint of a non-negative number or bigint. */
  uvar(x: number | bigint): void {
    if (typeof x === "bigint" && x <= 9007199254740991n) x = Number(x);
    if (typeof x === "number" && x <= 9007199254740991) {
      this.ensure(8);
      // Above 2^31 by division (no floating-point remainder, which V8 calls out for); below it by bit operations.
      while (x > 0x7fffffff) {
        const h = Math.floor(x / 128);
        this.buf[this.len++] = (x - h * 128) | 128;
        x = h;
      }
      while (x >= 128) {
        this.buf[this.len++] = (x & 127) | 128;
        x >>>= 7;
      }
      this.buf[this.len++] = x;
      return;
    }
    let v = BigInt(x);
    this.ensure(37);
    while (v >= 128n) {
      this.buf[this.len++] = Number(v & 127n) | 128;
      v >>= 7n;
    }
    this.buf[this.len++] = Number(v);
  }
  /** Little-endian fixed-width integer of `n` bytes (two's complement for negatives). */
  fixed(x: number | bigint, n: number): void {
    this.ensure(n);
    if (typeof x === "number" && n <= 4) {
      let v = x < 0 ? x + 2 ** (8 * n) : x;
      for (let i = 0; i < n; i++) {
        this.buf[this.len++] = v & 255;
        v = Math.floor(v / 256);
      }
      return;
    }
    let v = BigInt.asUintN(8 * n, BigInt(x));
    for (let i = 0; i < n; i++) {
      this.buf[this.len++] = Number(v & 255n);
      v >>= 8n;
    }
  }
  /** A string's UTF-8 length as a varint, then its bytes: short ASCII strings copied by hand. */
  string(s: string): void {
    const n = s.length;
    if (n < 128) {
      this.ensure(n + 1);
      const buf = this.buf;
      let p = this.len + 1, i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[p++] = c;
      }
      if (i === n) { buf[this.len] = n; this.len = p; return; }
    }
    const b = utf8.encode(s);
    this.uvar(b.length);
    this.bytes(b);
  }
  f32(x: Float): void {
    this.ensure(4);
    if (typeof x === "number") this.dv.setFloat32(this.len, x, true);
    else this.dv.setUint32(this.len, Number(x.bits), true);
    this.len += 4;
  }
  f64(x: Float): void {
    this.ensure(8);
    if (typeof x === "number") this.dv.setFloat64(this.len, x, true);
    else this.dv.setBigUint64(this.len, x.bits, true);
    this.len += 8;
  }
  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

export function zigzag(n: bigint, bits: number): bigint {
  return BigInt.asUintN(bits, (n << 1n) ^ (n >> BigInt(bits - 1)));
}
export function unzigzag(u: bigint): bigint {
  return (u >> 1n) ^ -(u & 1n);
}
export function zigzagNum(n: number): number {
  return n >= 0 ? 2 * n : -2 * n - 1;
}
export function unzigzagNum(u: number): number {
  const h = Math.floor(u / 2); // not u % 2: a double's remainder is a call in V8
  return u === 2 * h ? h : -h - 1;
}
