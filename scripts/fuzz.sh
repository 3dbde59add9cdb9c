#!/usr/bin/env bash
# Fuzzes the v1 decoder with cargo-fuzz (libFuzzer) for a while.
#
#   scripts/fuzz.sh [SECONDS]    (default 60)
#
# The target, fuzz/fuzz_targets/decode_message.rs, decodes each input from a
# slice and from readers, checks that the decoders agree and that a valid
# message re-encodes to the same bytes. Crashes land in fuzz/artifacts/.
#
# cargo-fuzz passes nightly-only flags (-Zsanitizer=address and friends);
# RUSTC_BOOTSTRAP=1 lets the stable toolchain accept them, so no nightly
# toolchain is needed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

# Seed the corpus with the valid conformance vectors (one vector a line in
# vectors/v1.json). The corpus folder is not committed.
corpus=fuzz/corpus/decode_message
mkdir -p "$corpus"
n=0
while IFS= read -r hex; do
    n=$((n + 1))
    # printf turns each pair of hex digits, written \xHH, into its byte.
    printf "$(printf '%s' "$hex" | sed 's/../\\x&/g')" >"$corpus/v1-$n"
done < <(grep -v -e '"error"' -e '"version"' vectors/v1.json | grep -o '"hex": *"[0-9a-f]*"' | sed 's/.*"\([0-9a-f]*\)"$/\1/')
echo "seeded $corpus with $n valid v1 vectors"

cd fuzz
RUSTC_BOOTSTRAP=1 cargo fuzz run decode_message -- -max_total_time="$seconds"
