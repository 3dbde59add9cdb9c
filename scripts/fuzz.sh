#!/usr/bin/env bash
# Fuzzes a decoder with cargo-fuzz (libFuzzer) for a while.
#
#   scripts/fuzz.sh [SECONDS] [TARGET]    (default 60, decode_message)
#
# Targets (fuzz/fuzz_targets/):
# - decode_message decodes each input from a slice and from readers, checks
#   that the decoders agree and that a valid message re-encodes to the same
#   bytes;
# - typed_columns reads each input as the columns of a message of a fixed
#   record type, straight into serde types and the long way (Value, rows,
#   typed rows), and checks that both accept the same inputs, with the same
#   values;
# - derive_message decodes each input as a whole message of Vec<Rec> (rows
#   or columns, any header) with the derived reader (#[derive(Xbf)]) and
#   the serde reader, and checks that they agree (and, on rows, that their
#   errors have the same kind, offset and path);
# - stream_reader reads each input as a record stream from a slice and
#   from a dribbling reader (same records, same error), writes the records
#   back and reads them again, and reads streams of Rec through serde too.
# Crashes land in fuzz/artifacts/TARGET/.
#
# cargo-fuzz passes nightly-only flags (-Zsanitizer=address and friends);
# RUSTC_BOOTSTRAP=1 lets the stable toolchain accept them, so no nightly
# toolchain is needed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
target="${2:-decode_message}"

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

# Seed the corpus. The corpus folder is not committed.
corpus=fuzz/corpus/$target
mkdir -p "$corpus"
case "$target" in
decode_message)
    # The valid conformance vectors, one a line in vectors/v1.json.
    n=0
    while IFS= read -r hex; do
        n=$((n + 1))
        # printf turns each pair of hex digits, written \xHH, into its byte.
        printf "$(printf '%s' "$hex" | sed 's/../\\x&/g')" >"$corpus/v1-$n"
    done < <(grep -v -e '"error"' -e '"version"' vectors/v1.json | grep -o '"hex": *"[0-9a-f]*"' | sed 's/.*"\([0-9a-f]*\)"$/\1/')
    echo "seeded $corpus with $n valid v1 vectors"
    ;;
typed_columns | derive_message | stream_reader)
    (cd fuzz && cargo run --quiet --bin seed -- "$target" "../$corpus")
    echo "seeded $corpus with valid inputs of 0 to 200 records"
    ;;
*)
    echo "unknown target $target (decode_message, typed_columns, derive_message, stream_reader)" >&2
    exit 2
    ;;
esac

cd fuzz
RUSTC_BOOTSTRAP=1 cargo fuzz run "$target" -- -max_total_time="$seconds"
