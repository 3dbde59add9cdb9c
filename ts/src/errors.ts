/** Stable error kind names shared by every XBF implementation (SPEC 8.1, 17.1). */
export type ErrorKind =
  | "truncated" | "trailing-bytes" | "unknown-discriminant" | "invalid-utf8" | "invalid-bool"
  | "duplicate-field" | "too-deep" | "too-large" | "invalid-varint" | "unknown-variant"
  | "duplicate-key" | "unknown-schema" | "bad-checksum" | "unsupported" | "invalid-column"
  | "type-mismatch" | "io" | "invalid-options";

/**
 * An XBF error: a stable `kind`, the byte `offset` (undefined for encoder errors),
 * the `path` (e.g. `Point.last`, `[3]`, `#2.first`) and a free-form `detail`.
 * `message` is the Rust Display form: `at byte 44, in Point.last: truncated: ...`.
 */
export class XbfError extends Error {
  readonly kind: ErrorKind;
  offset: number | undefined;
  readonly detail: string;
  /** Path segments, outermost first, already formatted (`Point`, `.last`, `[3]`, `[]`, `#2`). */
  segments: string[] = [];

  constructor(kind: ErrorKind, offset: number | undefined, detail = "") {
    super("");
    this.name = "XbfError";
    this.kind = kind;
    this.offset = offset;
    this.detail = detail;
    this.refresh();
  }

  get path(): string {
    return this.segments.join("");
  }

  /** Adds the segment that encloses the current path (while unwinding). */
  within(seg: string): this {
    this.segments.unshift(seg);
    this.refresh();
    return this;
  }

  shifted(base: number): this {
    if (this.offset !== undefined) this.offset += base;
    this.refresh();
    return this;
  }

  private refresh(): void {
    let s = "";
    const p = this.path;
    if (this.offset !== undefined) {
      s = `at byte ${this.offset}`;
      if (p) s += `, in ${p}`;
      s += ": ";
    } else if (p) {
      s = `in ${p}: `;
    }
    s += this.kind;
    if (this.detail) s += `: ${this.detail}`;
    this.message = s;
  }
}

export const seg = {
  root: (name: string) => name,
  field: (name: string) => "." + name,
  index: (i: number) => `[${i}]`,
  element: "[]",
  position: (i: number) => `.${i}`,
  record: (i: number) => `#${i}`,
};

/** Runs `f`, adding `segment` to the path of an XbfError it throws. */
export function within<T>(segment: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof XbfError) e.within(segment);
    throw e;
  }
}

export function mismatch(detail: string): XbfError {
  return new XbfError("type-mismatch", undefined, detail);
}
