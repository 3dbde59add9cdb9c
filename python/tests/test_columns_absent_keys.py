"""Columnar records of more than five keys whose optional fields vary: each record copies the dict of
the keys its pattern of absent fields leaves (up to eight patterns, then the dict of every key with the
absent ones deleted; past 64 keys always the latter). Every route gives what rows give: the same keys,
in the same order, with the same values."""

from __future__ import annotations

import itertools
from typing import Any, Dict, List

import xbf


def columnar(v: Any) -> bytes:
    data = xbf.dumps(v, columnar=True)
    assert data[:2] == b"\xc2\x02", "not written in columns"
    return data


def same_as_rows(rows: List[Dict[str, Any]]) -> None:
    got = xbf.loads(columnar(rows))
    assert got == xbf.loads(xbf.dumps(rows, columnar=False)) == rows
    # Dict equality ignores order; the keys' order is the records' own.
    assert [list(r) for r in got] == [list(r) for r in rows]


def record(i: int, absent: int, keys: int) -> Dict[str, Any]:
    r: Dict[str, Any] = {}
    for k in range(keys):
        if k % 2 and absent >> (k // 2) & 1:
            continue
        r[f"k{k}"] = [i, float(i), str(i), i % 2 == 0, [i], {"x": i}][k % 6]
    return r


def test_countries_like_patterns_keep_order_and_values() -> None:
    # A field absent from all but the first record, and two absent together in a tenth of them.
    rows = [{"_comment": "c", "year": 1955, "fertility": 7.4, "country": "A"}]
    for i in range(60):
        r: Dict[str, Any] = {"year": 1955 + i, "fertility": i / 3, "life": 40.0 + i}
        if i % 10 != 3:
            r["p_fert"], r["n_fert"] = i / 7, -0.0 if i % 4 else float("nan")
        r["country"] = f"c{i % 4}"
        rows.append(r)
    got = xbf.loads(columnar(rows))
    assert [list(r) for r in got] == [list(r) for r in rows]
    assert repr(got) == repr(rows)  # NaN and -0.0 as written


def test_few_patterns_copy_their_own_dicts() -> None:
    same_as_rows([record(i, i % 3, 9) for i in range(50)])


def test_more_patterns_than_kept_fall_back_to_deleting() -> None:
    # 16 optional keys: up to 256 patterns, far past the eight kept.
    same_as_rows([record(i, (i * 37) % 256, 32) for i in range(300)])


def test_structs_past_64_keys_delete_absent_fields() -> None:
    same_as_rows([record(i, (i * 13) % 1024 << 24, 70) for i in range(80)])


def test_every_pattern_of_a_few_fields() -> None:
    rows = [record(i, absent, 8) for i, absent in enumerate(itertools.chain.from_iterable([range(16)] * 3))]
    same_as_rows(rows)


def test_nested_records_with_absent_fields_in_lists() -> None:
    rows = [{"id": i, "a": 1, "b": 2, "c": 3, "d": 4, "items": [record(j, (i + j) % 4, 12) for j in range(i % 4)]}
            for i in range(40)]
    same_as_rows(rows)
