#!/usr/bin/env bash
# Fuzzes a decoder with cargo-fuzz (libFuzzer) for a while.
#
#   scripts/fuzz.sh [SECONDS] [TARGET] [LIBFUZZER FLAGS...]    (default 60, decode_message)
#
# e.g. scripts/fuzz.sh 3600 decode_message -fork=1 -ignore_crashes=1 goes on past crashes,
# keeping each in fuzz/artifacts/.
#
# Targets (fuzz/fuzz_targets/):
# - decode_message (seeded with every vector and issue 18's reproducers)
#   decodes each input from a slice and from readers, checks
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
#   back and reads them again, and reads streams of Rec through serde too;
# - file_reader reads each input as an XBF file (SPEC.md §24) from the end and
#   forward, whole, projected and filtered, and checks that both ways agree
#   and that the records written again read back the same.
# Crashes land in fuzz/artifacts/TARGET/.
#
# cargo-fuzz passes nightly-only flags (-Zsanitizer=address and friends);
# RUSTC_BOOTSTRAP=1 lets the stable toolchain accept them, so no nightly
# toolchain is needed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
target="${2:-decode_message}"
shift $(($# < 2 ? $# : 2))

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

# Seed the corpus. The corpus folder is not committed.
corpus=fuzz/corpus/$target
mkdir -p "$corpus"
case "$target" in
decode_message)
    # Every conformance vector (v1, XBF 2 rows and columns, streams; valid and invalid) and issue 18's
    # reproducers, one file each.
    python3 - "$corpus" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
aimed = ["c202110402000210030105ffffffffffffffffff01070209", "c200170e0101000000000000008005", "c2041667c0",
         "c2001200020161010131010506"]
hexes = aimed + [v["hex"] for p in sorted(pathlib.Path("vectors").glob("*.json")) for v in json.loads(p.read_text())]
for i, h in enumerate(hexes):
    (out / f"vector-{i}").write_bytes(bytes.fromhex(h))
print(f"seeded {out} with {len(hexes)} vectors and reproducers")
PY
    ;;
typed_columns | derive_message | stream_reader)
    (cd fuzz && cargo run --quiet --bin seed -- "$target" "../$corpus")
    echo "seeded $corpus with valid inputs of 0 to 200 records"
    ;;
file_reader)
    # The valid file vectors, one file each.
    n=0
    while IFS= read -r hex; do
        n=$((n + 1))
        printf '%s' "$hex" | xxd -r -p >"$corpus/file-$n"
    done < <(python3 -c 'import json; [print(v["hex"]) for v in json.load(open("vectors/files/files.json")) if "error" not in v]')
    echo "seeded $corpus with $n valid file vectors"
    ;;
*)
    echo "unknown target $target (decode_message, typed_columns, derive_message, stream_reader, file_reader)" >&2
    exit 2
    ;;
esac

cd fuzz
RUSTC_BOOTSTRAP=1 cargo fuzz run "$target" -- -max_total_time="$seconds" "$@"
