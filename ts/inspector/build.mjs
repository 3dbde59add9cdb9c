// Builds inspector.html: index.html with app.mjs and everything it imports (model.mjs, ../dist/*.js)
// inlined as one script, so the page opens from file:// with nothing to install or serve.
// A tiny bundler for this code's own ES modules: each module becomes a function scope whose exports
// are an object; `import {a, b as c} from "./x.js"` becomes `const {a, b: c} = module_x`. It handles
// only what tsc and these files write (named imports and exports, no cycles, no default exports).
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const entry = resolve(here, "app.mjs");
const order = [];
const seen = new Map();

const IMPORT = /^\s*import\s*\{([^}]*)\}\s*from\s*"([^"]+)";?[ \t]*$/gm;
const REEXPORT = /^\s*export\s*\{([^}]*)\}\s*from\s*"([^"]+)";?[ \t]*$/gm;

function visit(file) {
  if (seen.has(file)) {
    if (seen.get(file) === "visiting") throw new Error(`import cycle through ${file}`);
    return;
  }
  seen.set(file, "visiting");
  const src = readFileSync(file, "utf8");
  for (const re of [IMPORT, REEXPORT]) for (const m of src.matchAll(re)) visit(resolve(dirname(file), m[2]));
  if (/^\s*import\s+(?!\{)/m.test(src.replace(/^\s*import\s*\{[^}]*\}\s*from.*$/gm, ""))) throw new Error(`${file}: an import form this bundler does not handle`);
  if (/^\s*export\s+default/m.test(src)) throw new Error(`${file}: export default is not handled`);
  seen.set(file, "done");
  order.push(file);
}
visit(entry);

const id = (file) => "m_" + relative(here, file).replace(/[^A-Za-z0-9]/g, "_");
const names = (list) => list.split(",").map((s) => s.trim()).filter(Boolean).map((s) => {
  const [a, b] = s.split(/\s+as\s+/);
  return b ? `${a}: ${b}` : a;
});

let out = "";
for (const file of order) {
  let src = readFileSync(file, "utf8").replace(/^\/\/# sourceMappingURL=.*$/m, "");
  const exports = file === entry ? [] : Object.keys(await import(pathToFileURL(file).href));
  src = src.replace(IMPORT, (_, list, from) => `const { ${names(list).join(", ")} } = ${id(resolve(dirname(file), from))};`);
  src = src.replace(REEXPORT, (_, list, from) => `const { ${names(list).join(", ")} } = ${id(resolve(dirname(file), from))};`);
  src = src.replace(/^export\s*\{[^}]*\};?[ \t]*$/gm, "");
  src = src.replace(/^export\s+(?=(async\s+)?function|class|const|let|var)/gm, "");
  if (/^\s*export\b/m.test(src)) throw new Error(`${file}: an export form this bundler does not handle`);
  out += `// ---- ${relative(here, file)}\nconst ${id(file)} = (() => {\n${src}\nreturn { ${exports.join(", ")} };\n})();\n`;
}

const html = readFileSync(resolve(here, "index.html"), "utf8");
const tag = '<script type="module" src="app.mjs"></script>';
if (!html.includes(tag)) throw new Error("index.html has no app.mjs script tag");
const script = `<script type="module">\n${out.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--")}</script>`;
const target = resolve(here, "inspector.html");
writeFileSync(target, html.replace(tag, () => script));
console.log(`${relative(process.cwd(), target)}: ${(script.length / 1024).toFixed(0)} KiB of script from ${order.length} modules`);
