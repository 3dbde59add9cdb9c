#!/usr/bin/env bash
# Installs what the tests need and runs every test of every language in the
# repository. The README's Quick start names this script; .ci/run runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage prints the seconds since the start, so that the 20-minute budget (README) can be watched stage by stage,
# and the CPU seconds (user+sys) of every command the script has finished so far (a background job below counts
# from when it ends): unlike wall time, they compare across runs on a loaded machine (the kernel's cutime+cstime of
# this shell, in clock ticks; "?" where /proc is missing).
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%d", ($16 + $17) / hz }' "/proc/$$/stat" 2>/dev/null || echo "?"; }
stage() { echo "== $* [${SECONDS}s, CPU $(cpu_seconds)s]"; }

# Every cargo command below: no incremental compilation (a clean CI build never reuses its caches, which cost
# time to write) and debug info of the dev profile reduced to line tables (backtraces keep files and lines; full
# variable info only makes the test binaries slower to compile and link). Neither changes what a test checks.
export CARGO_INCREMENTAL=0
export CARGO_PROFILE_DEV_DEBUG=line-tables-only

# CI has 2 cores. Installing the test dependencies (PyPI, npm, the Go proxy, rustup, the data set) mostly waits
# on the network and the disk, and Miri's interpreter runs on one core: those jobs run in the background while
# the compilers keep the cores busy. Each job writes its own log under target/test-logs/; `await NAME` waits for
# it, prints its log at that point of the output (so each stage still reads in order), and a job that failed
# fails the script there. Jobs still running when the script stops (a failed stage) are ended with it.
LOGS=target/test-logs
mkdir -p "$LOGS"
declare -A JOBS=()
background() {
    local name=$1; shift
    # The log ends with the job's own wall and CPU seconds (bash's `time`), as its CPU counts in no single stage.
    ( TIMEFORMAT="($name: %0R s, CPU %0U+%0S s)"; time "$@" ) >"$LOGS/$name.log" 2>&1 &
    JOBS[$name]=$!
}
await() {
    local name=$1 status=0
    wait "${JOBS[$name]}" || status=$?
    unset "JOBS[$name]"
    cat "$LOGS/$name.log"
    if [ "$status" -ne 0 ]; then echo "FAILED: $name (exit status $status; log above, also in $LOGS/$name.log)" >&2; exit "$status"; fi
}
# A job is a subshell (for its timing) around the command: both are ended.
trap 'for pid in "${JOBS[@]}"; do pkill -P "$pid" 2>/dev/null; kill "$pid" 2>/dev/null; done; true' EXIT

# The downloads every later stage needs, started now (see above); each is awaited by the stage that uses it.
PY="${PYTHON:-python3}"
python_deps() {
    "$PY" -m venv target/python-venv
    target/python-venv/bin/python -m pip install --quiet --disable-pip-version-check -r python/requirements-test.txt
}
background python-deps python_deps
background npm-ci npm ci --prefix ts --no-audit --no-fund
background go-modules sh -c '(cd go && go mod download) && (cd go/bench && go mod download)'
background data scripts/fetch-data.sh

# Miri is a component of a nightly toolchain, which comes from Rust's own distribution server, not from a
# package registry: the machine's nightly if it has one (components of its own date), else the newest. Where
# neither can be had, Miri is skipped with a notice; the same tests run natively in `cargo test`, and a
# failure under Miri still fails this script. Its own toolchain and target directory share nothing with the
# stages below, and its interpreter runs on one core: it runs in the background from here (its stage below
# awaits it and shows its output).
miri() {
    if rustup component add --toolchain nightly miri rust-src 2>/dev/null \
        || rustup toolchain install nightly --profile minimal --component miri,rust-src --no-self-update; then
        cargo +nightly miri test --quiet --locked -p xbf --lib --target-dir target/miri utf8::
    else
        echo "NOTICE: no nightly toolchain with Miri could be installed here; utf8.rs's tests ran natively only."
    fi
}
background miri miri

stage "Rust: formatting (rustfmt.toml) and clippy, warnings as errors"
cargo fmt --all --check
# The crates outside the workspace (each its own): the Python extension, the benchmarks, the fuzz targets.
for m in python bench bench/files fuzz; do cargo fmt --manifest-path "$m/Cargo.toml" --check; done
cargo clippy --workspace --all-targets --all-features --locked -- -D warnings
# The core's modules are layers (crates/xbf/src/lib.rs): no import cycle between them.
python3 scripts/module-cycles.py

stage "Rust: unit, property, hostile-input and CLI tests"
cargo test --workspace --all-features --locked
# The core alone (no serde): it builds, with no warnings.
RUSTFLAGS="-D warnings" cargo check --quiet --locked -p xbf --no-default-features --target-dir target/no-default

stage "Miri: the crate's one module with unsafe code (crates/xbf/src/utf8.rs), its tests under the interpreter (run in the background since the start)"
await miri

stage "Conformance vectors, through the Rust implementation"
cargo run --quiet --locked -p xbf-cli -- vectors check vectors/*.json
# Every invalid vector's offset and path are the Rust reader's (scripts/vector_errors.py wrote them).
python3 scripts/vector_errors.py --check
# XBF files (SPEC.md §24): Rust, TypeScript and Go read them (Go through xbfcheck below; TypeScript in
# ts/test/file.test.mjs), so they sit apart from the message vectors every package reads.
cargo run --quiet --locked -p xbf-cli -- vectors check vectors/files/*.json

stage "Python: the xbf package (build with maturin, pytest + hypothesis, every vector file; xbf.arrow with pyarrow, Polars, DuckDB, pandas and PySpark in local[2])"
# PySpark (python/tests/test_spark.py) needs a Java runtime: Debian's, where none is installed.
if ! command -v java >/dev/null; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update && $SUDO apt-get install -y openjdk-17-jre-headless
fi
await python-deps
# The extension is built with the `ci` profile of python/Cargo.toml (the release build's optimisations at a lower
# level, no LTO: a fraction of its compile time), and its Rust unit tests below with the same profile in the same
# target directory, so the dependencies (arrow, pyo3, zstd...) are compiled once for both. `pip install ./python`
# without MATURIN_PEP517_ARGS (users, wheels) is the full release build.
PYTHON_TARGET="$PWD/python/target"
CARGO_TARGET_DIR="$PYTHON_TARGET" MATURIN_PEP517_ARGS="--profile ci" \
    target/python-venv/bin/python -m pip install --quiet --disable-pip-version-check ./python
# The linter (ruff.toml: the package, its tests and scripts/), pinned in requirements-test.txt.
target/python-venv/bin/ruff check .
# The extension's Rust (outside the workspace, so not in the clippy run above): warnings as errors, among them an
# `unsafe` block without its SAFETY comment.
CARGO_TARGET_DIR="$PYTHON_TARGET" cargo clippy --quiet --locked --manifest-path python/Cargo.toml --all-targets -- -D warnings
# pytest runs on one core (but for PySpark's local[2]): the benchmarks' workspace compiles on the other meanwhile
# (awaited by the next stage), and clippy checks the crates outside the workspace that nothing above linted: the
# benchmarks (default features, as built), the file benchmarks and the fuzz targets.
bench_build() {
    cargo build --quiet --locked --manifest-path bench/Cargo.toml
    for m in bench bench/files fuzz; do cargo clippy --quiet --locked --manifest-path "$m/Cargo.toml" --all-targets -- -D warnings; done
}
background bench-build bench_build
target/python-venv/bin/python -m pytest python/tests -q -p no:cacheprovider
CARGO_TARGET_DIR="$PYTHON_TARGET" cargo test --quiet --locked --profile ci --manifest-path python/Cargo.toml

stage "Benchmarks: clippy on bench/, bench/files and fuzz/ (run in the background), smoke run on tiny inputs (bench/, its own workspace); every format's round trip checked"
await bench-build
cargo run --quiet --locked --manifest-path bench/Cargo.toml -- smoke

stage "TypeScript: the ts/ package (npm ci, tsc build, node --test: vectors, properties, cross-language, inspector in headless Chromium)"
# The CLI the Rust tests ran (workspace features): already built, where `-p xbf-cli` alone would compile the core
# again with other features.
cargo build --quiet --locked --workspace --all-features --bin xbf
await npm-ci
# tsc in strict mode (ts/tsconfig.json: strict, noUncheckedIndexedAccess): a type error fails the build.
npm run --prefix ts build
(cd ts && XBF_CLI="$PWD/../target/debug/xbf" node --test test/*.test.mjs)

stage "Differential fuzzer: the Rust, Python, TypeScript and Go decoders on the same mutated vectors and random values"
# About a minute; a fixed seed keeps the test command deterministic (another seed, or more cases, is a longer
# run: scripts/difffuzz.py --cases 500000). It fails on any disagreement SPEC 21.4 does not allow. Go joins
# through its batch reader, given the same budget as the others.
await go-modules
(cd go && go build -o ../target/go-xbfcheck ./cmd/xbfcheck)
target/python-venv/bin/python scripts/difffuzz.py --cases 60000 --seed "${DIFFFUZZ_SEED:-18}" \
    --extra "go=target/go-xbfcheck batch -max-decoded-bytes 4194304"

# The browser test uses Debian's chromium (playwright-core never downloads a browser).
if ! command -v chromium >/dev/null; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update && $SUDO apt-get install -y chromium
fi
(cd ts && CHROMIUM="$(command -v chromium)" node --test test/e2e/*.test.mjs)

stage "Go: the go/ module (gofmt, go vet, go test with the cross-language checks, every vector file through xbfcheck)"
cargo build --quiet --locked --workspace --all-features --bin xbf
(cd go && test -z "$(gofmt -l .)" || { gofmt -l .; echo "gofmt: the files above are not formatted" >&2; exit 1; })
(cd go && go vet ./... && XBF_CLI="$PWD/../target/debug/xbf" go test ./... && go run ./cmd/xbfcheck ../vectors/*.json ../vectors/files/*.json)
# The benchmark module (its own go.mod): it builds and every codec round-trips the benchmark's datasets
# (vega-datasets 3.2.1, fetched from the npm registry at a pinned checksum; without them the tests would skip).
await data
(cd go/bench && go vet ./... && go test -run 'TestRoundTrips|TestDatasetsHaveNulls' ./...)

stage "Rust: the writer's bytes on the benchmarks' 16 real files, as crates/xbf/examples/encode_columns-hashes.txt holds them"
# SPEC §22.2 lets a writer choose any encoding; the Rust writer's choices (which the TypeScript writer's match) are
# pinned here on data no one here wrote, so a change to them is seen and made on purpose (then the file is
# updated in the same commit, and §22.2 where it describes the choice). The example was built by `cargo test` above.
cargo run --quiet --locked -p xbf --all-features --example encode_columns | awk '{ print $1, $2, $5 }' \
    | diff crates/xbf/examples/encode_columns-hashes.txt -
echo "== all tests passed in ${SECONDS}s, CPU $(cpu_seconds)s"
