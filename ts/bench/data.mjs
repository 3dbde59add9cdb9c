// The benchmark scripts' data: vega-datasets files (scripts/fetch-data.sh) read the same way by every script, so
// that their figures are of the same values.
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root. */
export const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** Where scripts/fetch-data.sh puts vega-datasets (VEGA_DATA overrides). */
export const vega = process.env.VEGA_DATA ?? join(repo, "target/data/vega-datasets");

// bench.mjs --held-out: nine vega-datasets files no one here tuned on (scripts/fetch-data.sh's HELD_OUT, the same
// files as python/bench/bench.py --held-out), to check that the bars hold on data no one looked at.
export const HELD_OUT = ["cars.json", "penguins.json", "countries.json", "budgets.json", "normal-2d.json", "birdstrikes.csv", "seattle-weather.csv", "windvectors.csv", "us-employment.csv"];
// bench.mjs --held-out-2: a second set, chosen at 330d590 once the first had been profiled and tuned on, and measured
// before anyone profiled it (scripts/fetch-data.sh's HELD_OUT_2, python/bench/bench.py --held-out-2). Do not tune on it.
export const HELD_OUT_2 = ["zipcodes.csv", "species.csv", "weather.csv", "seattle-weather-hourly-normals.csv", "flights-airport.csv", "disasters.csv", "stocks.csv", "platformer-terrain.json", "budget.json", "population.json"];

/** A CSV file's rows as records: a cell that reads as a number becomes that number, an empty one stays "". */
export function csvRecords(text) {
  const [head, ...lines] = text.trim().split(/\r?\n/);
  const keys = head.split(",");
  return lines.map((l) => Object.fromEntries(l.split(",").map((c, i) => [keys[i], c !== "" && !Number.isNaN(Number(c)) ? Number(c) : c])));
}

/** A vega-datasets file by name (.csv through csvRecords, else JSON); a name ending in sp500-2019.csv is the CLI's
 * embedded stock rows; an absolute path is read as it is (e.g. an invented table such as python/bench/wide_table.py's
 * rows written as JSON). */
export function loadFile(file) {
  const path = file.endsWith("sp500-2019.csv") ? join(repo, "crates/xbf-cli/data/sp500-2019.csv") : isAbsolute(file) ? file : join(vega, file);
  const text = readFileSync(path, "utf8");
  return file.endsWith(".csv") ? csvRecords(text) : JSON.parse(text);
}
