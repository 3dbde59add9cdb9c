#!/usr/bin/env bash
# Installs what the tests need and runs every test of every language in the
# repository. The README's Quick start names this script; .ci/run runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== Rust: unit, property, hostile-input and CLI tests"
cargo test --workspace --locked

echo "== Conformance vectors, through the Rust implementation"
cargo run --quiet --locked -p xbf-cli -- vectors check vectors/*.json
