#!/usr/bin/env bash
# Fetches the vega-datasets files the benchmarks use, from the npm registry
# only, at a pinned version whose tarball's SHA-256 is checked before use.
# Output: target/data/vega-datasets/ (gitignored). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=3.2.1
SHA256=6f72fda460a9863fae5fcb32f85bcd49e1761fdea6dc6cf9f4962472881cc5a3
FILES="sp500-2000.csv flights-2k.json flights-20k.json flights-200k.json flights-3m.parquet earthquakes.json movies.json football.json jobs.json political-contributions.json income.json gapminder.json github.csv airports.csv unemployment-across-industries.json"
# Held out: lists of records of the same kinds that no benchmark above was tuned on, used only to check that
# the speed bars hold on data we did not look at (python/bench/bench.py --held-out, ts/bench/bench.mjs --held-out).
HELD_OUT="cars.json penguins.json countries.json budgets.json normal-2d.json birdstrikes.csv seattle-weather.csv windvectors.csv us-employment.csv"
# A second held-out set, chosen once the first had been profiled and tuned on (bench.py --held-out-2).
HELD_OUT_2="zipcodes.csv species.csv weather.csv seattle-weather-hourly-normals.csv flights-airport.csv disasters.csv stocks.csv platformer-terrain.json budget.json population.json"
FILES="$FILES $HELD_OUT $HELD_OUT_2"
DEST=target/data/vega-datasets
TARBALL=target/data/vega-datasets-$VERSION.tgz
mkdir -p "$DEST"

have_all() { for f in $FILES; do [ -s "$DEST/$f" ] || return 1; done; }
if have_all && [ -f "$DEST/.sha256" ] && [ "$(cat "$DEST/.sha256")" = "$SHA256" ]; then
    echo "vega-datasets@$VERSION already in $DEST"; exit 0
fi

if [ ! -f "$TARBALL" ] || ! echo "$SHA256  $TARBALL" | sha256sum -c --status; then
    rm -f "$TARBALL"
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "vega-datasets@$VERSION" >/dev/null)
    mv "$tmp"/vega-datasets-$VERSION.tgz "$TARBALL"
    rm -rf "$tmp"
fi
if ! echo "$SHA256  $TARBALL" | sha256sum -c --status; then
    echo "checksum mismatch for $TARBALL (want $SHA256)" >&2; rm -f "$TARBALL"; exit 1
fi
members=""
for f in $FILES; do members="$members package/data/$f"; done
tar -xzf "$TARBALL" -C "$DEST" --strip-components=2 $members
echo "$SHA256" > "$DEST/.sha256"
echo "vega-datasets@$VERSION verified ($SHA256) and extracted to $DEST"
