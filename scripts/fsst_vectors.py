#!/usr/bin/env python3
"""Writes the FSST (encoding 23, SPEC 22.2.4) vectors of vectors/files/files.json.

The valid file is the Rust writer's (`xbf from-csv`) for 120 place names of
earthquakes.json in blocks of 60, each block's column in FSST; the damaged ones
change bytes of block 0's FSST column and make every CRC-32C right again (the
block's, the column's in the footer and the footer's), so that the reader meets
the fault in the column. Their offsets and paths are then filled in by
scripts/vector_errors.py. Build the CLI first (cargo build -p xbf-cli).

    scripts/fsst_vectors.py        # replaces the FSST vectors of files.json
"""
import csv
import json
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
XBF = ROOT / "target" / "debug" / "xbf"
FILES = ROOT / "vectors" / "files" / "files.json"
PREFIX = "FSST"


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def varint(b, i):
    """The varint at b[i]: (value, index after it)."""
    v, shift = 0, 0
    while True:
        v |= (b[i] & 0x7F) << shift
        shift += 7
        i += 1
        if b[i - 1] < 0x80:
            return v, i


def places():
    d = json.loads((ROOT / "target/data/vega-datasets/earthquakes.json").read_text(encoding="utf-8"))
    return [f["properties"]["place"] for f in d["features"]][:120]


def write_file(values):
    with tempfile.TemporaryDirectory() as t:
        src, out = Path(t) / "places.csv", Path(t) / "places.xbf"
        with open(src, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["place"])
            w.writerows([v] for v in values)
        subprocess.run([str(XBF), "from-csv", str(src), "--block-rows", "60", "-o", str(out)], check=True)
        return bytearray(out.read_bytes())


class Column:
    """Block 0's one column, parsed: where its parts are in the file."""

    def __init__(self, b):
        self.block_len_at = 15  # after `c2 0e` and the metadata of struct Row { place: string }
        body_len, self.body = varint(b, self.block_len_at)
        self.body_end = self.body + body_len
        _, col_len_at = varint(b, self.body)  # the record count
        col_len, self.enc = varint(b, col_len_at)
        self.col_start, self.col_end = col_len_at, self.enc + col_len
        assert b[self.enc] == 0x23, "block 0's column is not FSST"
        self.s = b[self.enc + 1]
        self.widths = self.enc + 2
        sym = self.widths + self.s
        lens_len, lens = varint(b, sym + sum(b[self.widths:sym]))
        self.codes = lens + lens_len
        # Where each code (not an escaped byte) starts.
        self.code_at, i = [], self.codes
        while i < self.col_end:
            self.code_at.append(i)
            i += 2 if b[i] == 0xFF else 1

    def fix_crcs(self, b, before):
        """Block 0's CRC, its column's CRC in the footer (found by its old value) and the footer's."""
        old = crc32c(before[self.col_start:self.col_end]).to_bytes(4, "little")
        b[self.body_end:self.body_end + 4] = crc32c(b[self.body:self.body_end]).to_bytes(4, "little")
        footer_len = int.from_bytes(b[-8:-4], "little")
        start = len(b) - 12 - footer_len
        at = b.index(old, start)
        b[at:at + 4] = crc32c(b[self.col_start:self.col_end]).to_bytes(4, "little")
        b[-12:-8] = crc32c(b[start:start + footer_len]).to_bytes(4, "little")


def main():
    values = places()
    good = write_file(values)
    col = Column(good)
    ty = {"struct": "Row", "fields": [["place", "string"]]}
    base = {"version": 2, "file": True, "type": ty}
    out = [dict(name=f"{PREFIX}: 120 place names in two blocks of 60, each an FSST column (23) with its own table",
                **base, records=[{"place": v} for v in values], blocks=[60, 60], hex=good.hex())]

    def damaged(name, change, error, records=None):
        b = bytearray(good)
        change(b)
        col.fix_crcs(b, good)
        out.append(dict(name=f"{PREFIX}: {name} (CRCs right)", **base, records=records or [], hex=b.hex(),
                        error=error, end_error=error))

    def set_byte(at, v):
        def change(b):
            b[at] = v
        return change

    damaged("a symbol 9 bytes wide", set_byte(col.widths, 9), "invalid-column")
    plain = [i for i in col.code_at if good[i] != 0xFF]
    damaged("a code past the symbols", set_byte(plain[5], col.s), "invalid-column")
    narrow = [i for i in plain if good[col.widths + good[i]] > 1]
    one = next(k for k in range(col.s) if good[col.widths + k] == 1)
    damaged("codes that make fewer bytes than the lengths", set_byte(narrow[0], one), "invalid-column")
    wide = max(range(col.s), key=lambda k: good[col.widths + k])
    damaged("codes that make more bytes than the lengths", set_byte(plain[-1], wide), "invalid-column")
    assert col.code_at[-1] == col.col_end - 1, "block 0's codes end in an escaped byte"
    damaged("an escape as the column's last byte", set_byte(col.col_end - 1, 0xFF), "truncated")

    vectors = [v for v in json.loads(FILES.read_text(encoding="utf-8")) if not v["name"].startswith(PREFIX)]
    FILES.write_text(json.dumps(vectors + out, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(out)} FSST vectors written")


if __name__ == "__main__":
    main()
