// Minified (esbuild --bundle --minify, ESM, browser) and gzip -9 sizes of this package's entry points and of
// msgpackr, @msgpack/msgpack and cbor-x, as the README lists them. npm run build && node bench/sizes.mjs
import { buildSync } from "esbuild";
import { gzipSync } from "node:zlib";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
const here = dirname(fileURLToPath(import.meta.url));
const cases = [
  ["xbf (everything)", "import * as m from '../dist/index.js'; globalThis.m = m;"],
  ["xbf encode + decode", "import { encode, decode } from '../dist/index.js'; globalThis.m = [encode, decode];"],
  ["xbf/decode (everything)", "import * as m from '../dist/decode_only.js'; globalThis.m = m;"],
  ["xbf/decode: decode", "import { decode } from '../dist/decode_only.js'; globalThis.m = decode;"],
  ["xbf/decode: FileReader, FileStreamReader", "import { FileReader, FileStreamReader } from '../dist/decode_only.js'; globalThis.m = [FileReader, FileStreamReader];"],
  ["msgpackr (everything)", "import * as m from 'msgpackr'; globalThis.m = m;"],
  ["msgpackr/unpack: unpack, Unpackr", "import { unpack, Unpackr } from 'msgpackr/unpack'; globalThis.m = [unpack, Unpackr];"],
  ["@msgpack/msgpack (everything)", "import * as m from '@msgpack/msgpack'; globalThis.m = m;"],
  ["@msgpack/msgpack: decode", "import { decode } from '@msgpack/msgpack'; globalThis.m = decode;"],
  ["cbor-x (everything)", "import * as m from 'cbor-x'; globalThis.m = m;"],
];
console.log("| entry | minified bytes | minified + gzip -9 |\n| --- | ---: | ---: |");
for (const [name, contents] of cases) {
  const r = buildSync({ stdin: { contents, resolveDir: here, loader: "js" }, bundle: true, minify: true, format: "esm", platform: "browser", write: false, logLevel: "silent" });
  const code = r.outputFiles[0].contents;
  console.log(`| ${name} | ${code.length.toLocaleString("en")} | ${gzipSync(code, { level: 9 }).length.toLocaleString("en")} |`);
}
