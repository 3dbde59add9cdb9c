// The Rust writer's bytes for the tests that compare this writer's columns with them: the xbf CLI (XBF_CLI, else
// target/debug or target/release), a test's `skip` reason where there is none, and the assertion that records in
// columns are its bytes.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { decode, encode } from "../dist/index.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
export const xbf = [process.env.XBF_CLI, join(root, "target/debug/xbf"), join(root, "target/release/xbf")].find((p) => p && existsSync(p));
export const skip = xbf ? false : "no xbf CLI (XBF_CLI, target/debug/xbf): the Rust writer's bytes are not available";
let dir;

/** The Rust writer's columns of the JSON value `v` (the CLI's from-json). */
export function rustColumns(v) {
  dir ??= mkdtempSync(join(tmpdir(), "xbf-ts-rust-writer-"));
  const inFile = join(dir, "in.json"), outFile = join(dir, "out.xbf");
  writeFileSync(inFile, JSON.stringify(v));
  execFileSync(xbf, ["from-json", inFile, "--layout", "columns", "-o", outFile]);
  return Buffer.from(readFileSync(outFile));
}

/** Asserts that the records `v` in columns are the Rust writer's bytes and read back. */
export function sameAsRust(v, what) {
  const ours = encode(v, { layout: "columns" });
  assert.ok(rustColumns(v).equals(Buffer.from(ours)), what);
  assert.deepStrictEqual(decode(ours), v, what);
}
