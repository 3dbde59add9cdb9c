#!/usr/bin/env bash
# Runs every benchmark of the repository and regenerates BENCHMARKS.md:
#   1. Rust: the HTTP evaluation and every dataset against every peer
#      (bench/, release build, with the heavy peers Avro and Arrow), raw
#      results in bench/results/*.json;
#   2. Python: python/bench/bench.py -> python/bench/results.json, RESULTS.md;
#   3. TypeScript: ts/bench/bench.mjs -> ts/bench/results.json, RESULTS.md;
#   4. BENCHMARKS.md and bench/charts/*.svg from the saved raw results alone
#      (`xbf-bench report`, which includes the Python and TypeScript
#      RESULTS.md verbatim).
# A Python or TypeScript step that fails is reported and skipped; the report
# is still written from whatever results are there. Takes a long while on
# 2 cores (the Rust run alone is tens of minutes); not part of the tests.
set -euo pipefail
cd "$(dirname "$0")/.."

BENCH=(cargo run --release --locked --manifest-path bench/Cargo.toml --features heavy --)
failed=()

# The FlatBuffers and Cap'n Proto peers need their schema compilers (Debian
# packages); without them bench/build.rs leaves those two peers out.
if ! command -v flatc >/dev/null || ! command -v capnp >/dev/null; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update && $SUDO apt-get install -y flatbuffers-compiler capnproto \
        || echo "!! flatbuffers-compiler / capnproto did not install: FlatBuffers and Cap'n Proto are left out" >&2
fi

echo "== 1/4 Rust: data, HTTP evaluation, every dataset (bench/results/*.json)"
"${BENCH[@]}" all

echo "== 2/4 Python: python/bench/bench.py"
py_step() {
    if [ ! -x target/python-venv/bin/python ]; then
        "${PYTHON:-python3}" -m venv target/python-venv
    fi
    target/python-venv/bin/python -m pip install --quiet --disable-pip-version-check ./python -r python/bench/requirements.txt
    target/python-venv/bin/python python/bench/bench.py --json python/bench/results.json --markdown python/bench/RESULTS.md
}
if ! grep -q -- "--markdown" python/bench/bench.py; then
    echo "!! python/bench/bench.py has no --json/--markdown options yet: Python step skipped" >&2
    failed+=(python)
elif ! py_step; then
    echo "!! the Python benchmark failed: its section keeps the previous python/bench/RESULTS.md, if any" >&2
    failed+=(python)
fi

echo "== 3/4 TypeScript: ts/bench/bench.mjs"
ts_step() {
    npm ci --prefix ts --no-audit --no-fund
    npm run --prefix ts build
    node ts/bench/bench.mjs --json ts/bench/results.json --markdown ts/bench/RESULTS.md
}
if ! grep -q -- "--markdown" ts/bench/bench.mjs; then
    echo "!! ts/bench/bench.mjs has no --json/--markdown options yet: TypeScript step skipped" >&2
    failed+=(typescript)
elif ! ts_step; then
    echo "!! the TypeScript benchmark failed: its section keeps the previous ts/bench/RESULTS.md, if any" >&2
    failed+=(typescript)
fi

echo "== 3b/4 Go: scripts/go-bench.sh (go/bench/RESULTS.md)"
if ! command -v go >/dev/null; then
    echo "!! no go toolchain: Go step skipped, its section keeps the previous go/bench/RESULTS.md, if any" >&2
    failed+=(go)
elif ! scripts/go-bench.sh; then
    echo "!! the Go benchmark failed: its section keeps the previous go/bench/RESULTS.md, if any" >&2
    failed+=(go)
fi

echo "== 4/4 BENCHMARKS.md from the raw results"
"${BENCH[@]}" report

if [ ${#failed[@]} -gt 0 ]; then
    echo "benchmarks.sh: done, but these steps did not run: ${failed[*]}" >&2
    exit 1
fi
echo "benchmarks.sh: done"
