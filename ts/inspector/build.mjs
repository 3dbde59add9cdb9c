// Builds inspector.html: index.html with app.mjs and everything it imports (model.mjs, ../dist/*.js)
// bundled by esbuild into one inline script, so the page opens from file:// with nothing to install
// or serve. Run `npm run build` first: the page takes the package from dist/.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const result = await build({
  entryPoints: [resolve(here, "app.mjs")],
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  write: false,
  legalComments: "none",
  logLevel: "warning",
});
const code = result.outputFiles[0].text;

const html = readFileSync(resolve(here, "index.html"), "utf8");
const tag = '<script type="module" src="app.mjs"></script>';
if (!html.includes(tag)) throw new Error("index.html has no app.mjs script tag");
// Inline, the script must not close its own tag or open an HTML comment.
const script = `<script type="module">\n${code.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--")}</script>`;
const target = resolve(here, "inspector.html");
writeFileSync(target, html.replace(tag, () => script));
console.log(`${relative(process.cwd(), target)}: ${(script.length / 1024).toFixed(0)} KiB of script`);
