"""Round trips of generated values, records, big ints, dataclasses, dates; hostile input."""
import dataclasses
import datetime
import io
import math

import pytest
from hypothesis import given, settings, strategies as st

import xbf
from vectorform import same

UTC = datetime.timezone.utc

ints = st.integers(min_value=-(2**255), max_value=2**256 - 1)
scalars = (st.none() | st.booleans() | ints | st.floats(allow_nan=False) | st.text() | st.binary()
           | st.dates() | st.datetimes(timezones=st.just(UTC)))
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5)
    | st.dictionaries(st.text(max_size=5), inner, max_size=5)
    | st.tuples(inner, inner),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(values)
def test_values_round_trip(v):
    assert same(xbf.loads(xbf.dumps(v)), v)


record = st.dictionaries(st.sampled_from(["id", "name", "score", "tags", "when"]),
                         st.none() | st.integers(-10**30, 10**30) | st.text(max_size=8) | st.floats(allow_nan=False)
                         | st.lists(st.integers(0, 9), max_size=3), max_size=5)


@settings(max_examples=300, deadline=None)
@given(st.lists(record, max_size=8))
def test_records_round_trip_with_key_order(rows):
    assert same(xbf.loads(xbf.dumps(rows)), rows)


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=64))
def test_random_bytes_never_crash(data):
    try:
        xbf.loads(data)
    except xbf.DecodeError as e:
        assert e.kind and str(e)


@settings(max_examples=200, deadline=None)
@given(values)
def test_truncations_are_decode_errors(v):
    data = xbf.dumps(v)
    for cut in range(len(data)):
        with pytest.raises(xbf.DecodeError):
            xbf.loads(data[:cut])


@settings(max_examples=200, deadline=None)
@given(values, st.data())
def test_flipped_bytes_never_crash(v, data):
    b = bytearray(xbf.dumps(v))
    i = data.draw(st.integers(0, len(b) - 1))
    b[i] ^= data.draw(st.integers(1, 255))
    try:
        xbf.loads(bytes(b))
    except xbf.DecodeError:
        pass


def test_records_with_optional_and_missing_keys():
    rows = [{"a": 1, "b": "x"}, {"a": 2}, {"b": None, "c": True}, {}]
    schema, back = xbf.loads(xbf.dumps(rows), with_schema=True)
    assert back == rows and [list(r) for r in back] == [list(r) for r in rows]
    assert str(schema).startswith('vec<struct Object { a: enum "json.optional"')
    swapped = [{"a": 1, "b": 2}, {"b": 3, "a": 4}]
    schema, back = xbf.loads(xbf.dumps(swapped), with_schema=True)
    assert str(schema) == "vec<any>" and [list(r) for r in back] == [["a", "b"], ["b", "a"]]


def test_int_widths_and_limits():
    for xs, ty in [([1, 2**64 - 1], "vec<u64>"), ([-1, 2**63 - 1], "vec<i64>"), ([-1, 2**63], "vec<i128>"),
                   ([2**128], "vec<u256>"), ([-(2**255)], "vec<i256>"), ([-1, 2**256 - 1], "vec<any>")]:
        schema, back = xbf.loads(xbf.dumps(xs), with_schema=True)
        assert str(schema) == ty and back == xs
    with pytest.raises(OverflowError, match="256 bits"):
        xbf.dumps([1, 2**256])
    with pytest.raises(OverflowError):
        xbf.dumps(300, schema=xbf.Schema("u8"))
    assert xbf.dumps(1024, schema=xbf.Schema("u16"), version=1) == bytes([2, 0, 4])


@dataclasses.dataclass
class Point:
    first: int
    last: int


def test_dataclasses_become_named_structs():
    schema, back = xbf.loads(xbf.dumps([Point(42, -5), Point(1, 2)]), with_schema=True)
    # The declared types (int: i64), not the values' (first would be u64).
    assert str(schema) == "vec<struct Point { first: i64, last: i64 }>"
    assert back == [{"first": 42, "last": -5}, {"first": 1, "last": 2}]
    v1 = xbf.dumps(Point(42, -5), schema=xbf.Schema({"struct": "Point", "fields": [["first", "i8"], ["last", "i8"]]}),
                   version=1)
    assert v1.hex() == "120500000000000000506f696e740200050000000000000066697273740704000000000000006c617374072afb"


def test_dates_and_timestamps():
    d = datetime.date(2019, 1, 2)
    aware = datetime.datetime(2019, 1, 2, 3, 4, 5, 6, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))
    naive = datetime.datetime(2019, 1, 2, 3, 4, 5, 6)
    back = xbf.loads(xbf.dumps([d]))
    assert back == [d]
    assert xbf.loads(xbf.dumps(aware)) == aware and xbf.loads(xbf.dumps(aware)).tzinfo == UTC
    assert xbf.loads(xbf.dumps(naive)) == naive.replace(tzinfo=UTC)


def test_maps_bytes_tuples_and_enums():
    assert xbf.loads(xbf.dumps({1: "a", 2: "b"})) == {1: "a", 2: "b"}
    assert xbf.loads(xbf.dumps(bytearray(b"ab"))) == b"ab"
    assert xbf.loads(xbf.dumps(memoryview(b"ab"))) == b"ab"
    assert xbf.loads(xbf.dumps((1, "a"))) == (1, "a")
    shape = xbf.Schema({"enum": "Shape", "variants": [["Empty", "unit"], ["Circle", "f64"]]})
    data = xbf.dumps([xbf.Variant("Circle", 1.5), xbf.Variant("Empty")], schema=xbf.Schema({"vec": shape.to_python()}))
    assert xbf.loads(data) == [xbf.Variant("Circle", 1.5), xbf.Variant("Empty", None)]


def test_errors_carry_kind_offset_path():
    data = xbf.dumps({"first": 42, "last": -5}, schema=xbf.Schema(
        {"struct": "Point", "fields": [["first", "i8"], ["last", "i8"]]}))
    with pytest.raises(xbf.DecodeError) as info:
        xbf.loads(data[:-1])
    e = info.value
    assert isinstance(e, ValueError)
    assert (e.kind, e.offset, e.path) == ("truncated", len(data) - 1, "Point.last")
    assert str(e) == f"at byte {len(data) - 1}, in Point.last: truncated: needs 1 bytes, 0 remain"
    with pytest.raises(TypeError, match="object"):
        xbf.dumps({"a": object()})
    with pytest.raises(ValueError, match="columnar"):
        xbf.dumps([1], columnar=True, version=1)


def test_streams_write_and_read_lazily(tmp_path):
    rows = [{"id": i, "name": f"n{i}", "score": i / 3} for i in range(5000)]
    path = tmp_path / "rows.xbfs"
    with open(path, "wb") as f, xbf.StreamWriter(f, checksums=True, block_bytes=4096) as w:
        for r in rows:
            w.write(r)
    it = xbf.iter_stream(path)
    assert next(it) == rows[0]
    assert [rows[0]] + list(it) == rows
    damaged = bytearray(path.read_bytes())
    damaged[len(damaged) // 2] ^= 0xFF
    got = []
    with pytest.raises(xbf.DecodeError) as info:
        for r in xbf.iter_stream(bytes(damaged)):
            got.append(r)
    assert info.value.kind == "bad-checksum" and got == rows[:len(got)]


def test_file_helpers():
    buf = io.BytesIO()
    xbf.dump({"a": [1.5, math.inf]}, buf)
    buf.seek(0)
    assert xbf.load(buf) == {"a": [1.5, math.inf]}


# ------------------------------------------------------------------ columns

def is_columnar(data):
    return data[0] == 0xC2 and bool(data[1] & 0x02)


def test_columnar_records_with_nulls_missing_keys_big_ints_and_dates():
    day = datetime.date(2024, 2, 29)
    when = datetime.datetime(2024, 2, 29, 12, 30, 15, 250, tzinfo=UTC)
    rows = []
    for i in range(300):
        r = {"id": i, "big": 2**100 + i if i % 3 else -(2**70), "price": i / 4, "tag": None if i % 5 == 0 else f"t{i % 7}",
             "day": day + datetime.timedelta(days=i), "when": when + datetime.timedelta(seconds=i), "none": None,
             "mixed": [1, "a", None, 2.5, True][i % 5], "tags": [str(j) for j in range(i % 4)]}
        if i % 2:
            del r["price"]
        rows.append(r)
    for columnar in (True, None):
        data = xbf.dumps(rows, columnar=columnar)
        assert is_columnar(data)
        assert same(xbf.loads(data), rows)
        assert [list(r) for r in xbf.loads(data)] == [list(r) for r in rows]  # key order
    rows_data = xbf.dumps(rows, columnar=False)
    assert not is_columnar(rows_data) and same(xbf.loads(rows_data), rows)
    assert len(xbf.dumps(rows)) < len(rows_data)
    assert xbf.loads(xbf.dumps(rows, columnar=True), with_schema=True)[0] == xbf.loads(rows_data, with_schema=True)[0]


def test_auto_layout_keeps_small_values_in_rows():
    for v in ([1, 2, 3], {"a": 1}, "x", [{"a": 1}] * 15, []):
        data = xbf.dumps(v)
        assert not is_columnar(data) and data == xbf.dumps(v, columnar=False)
        assert same(xbf.loads(xbf.dumps(v, columnar=True)), v)
    # Columns only when smaller: 16 random floats gain nothing.
    import random
    rnd = random.Random(1)
    floats = [rnd.random() for _ in range(16)]
    assert len(xbf.dumps(floats)) == min(len(xbf.dumps(floats, columnar=c)) for c in (True, False))


def test_columnar_with_schema_and_compression():
    schema = xbf.Schema({"vec": {"struct": "P", "fields": [["x", "i16"], ["y", "fixed-u32"]]}})
    rows = [{"x": -i, "y": i * 1000} for i in range(100)]
    data = xbf.dumps(rows, schema=schema, columnar=True)
    assert is_columnar(data) and xbf.loads(data, with_schema=True) == (schema, rows)
    packed = xbf.dumps([{"s": "the same long string value %d" % (i % 3)} for i in range(2000)], columnar=True, compress=19)
    assert is_columnar(packed) and len(packed) < 200
    assert xbf.loads(packed) == [{"s": "the same long string value %d" % (i % 3)} for i in range(2000)]
    with pytest.raises(ValueError):
        xbf.dumps(rows, columnar=False, compress=3)
    with pytest.raises(TypeError):
        xbf.dumps([{"a": 1}, {"a": object()}], columnar=True)


json_record = st.dictionaries(
    st.sampled_from(["id", "name", "score", "ok", "tags", "note"]),
    st.none() | st.integers(-2**63, 2**64 - 1) | st.text(max_size=12) | st.floats(allow_nan=False) | st.booleans()
    | st.lists(st.integers(0, 2**40), max_size=3) | st.lists(st.text(max_size=3), max_size=2),
    max_size=6)


@settings(max_examples=300, deadline=None)
@given(st.lists(json_record, min_size=0, max_size=40), st.sampled_from([None, 3]))
def test_columns_from_objects_match_the_core_writer(rows, compress):
    """dumps builds columns straight from the objects: the same bytes as rows read back by the core and laid out by it."""
    direct = xbf.dumps(rows, columnar=True, compress=compress)
    assert direct == xbf._native._columns_via_rows(rows, None, compress)
    assert same(xbf.loads(direct), rows)
    # The default: columns only when strictly smaller than rows (whose size the direct path computes),
    # and tried only from 16 repeated items on.
    auto, flat = xbf.dumps(rows, compress=compress), xbf.dumps(rows, columnar=False)
    assert auto == flat or (auto == direct and len(direct) < len(flat))
    if len(rows) >= 16:
        assert len(auto) == min(len(direct), len(flat))


def test_columns_from_objects_fall_back_on_what_they_do_not_take():
    class MyInt(int):
        pass

    class MyStr(str):
        pass

    cases = [[{"a": MyInt(i), "b": MyStr("x")} for i in range(20)],            # subclasses
             [{"a": i, "b": (i, "t")} for i in range(20)],                       # tuples
             [{"a": i, "when": datetime.date(2024, 1, 1 + i)} for i in range(20)],  # dates
             [{"a": i, "big": 2**70 + i} for i in range(20)],                    # 128-bit ints
             [{"a": i, "m": {i: "x"}} for i in range(20)],                        # maps
             [{"a": i} if i % 3 else {"a": i, "b": 1.5} for i in range(20)]]         # optional keys
    for rows in cases:
        assert xbf.dumps(rows, columnar=True) == xbf._native._columns_via_rows(rows, None, None)
        assert xbf.loads(xbf.dumps(rows)) == rows
    schema = xbf.Schema({"vec": {"struct": "P", "fields": [["x", "i16"], ["y", "u64"]]}})
    rows = [{"x": -i, "y": i} for i in range(30)]
    assert xbf.dumps(rows, schema=schema, columnar=True) == xbf._native._columns_via_rows(rows, schema, None)
    with pytest.raises(OverflowError):
        xbf.dumps([{"x": 1, "y": -1}] * 20, schema=schema, columnar=True)
    with pytest.raises(TypeError, match="keys the struct lacks"):
        xbf.dumps([{"x": 1, "y": 1, "z": 0}] * 20, schema=schema, columnar=True)


flat_value = (st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.floats() | st.just(-0.0)
              | st.sampled_from(["a", "bb", "", "é", "a long repeated string"]) | st.text(max_size=6))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(flat_value, flat_value, flat_value), min_size=0, max_size=60),
       st.sampled_from([None, 3]), st.booleans())
def test_flat_records_take_one_pass_to_the_same_bytes(values, compress, same_kind):
    """Lists of flat records (the same keys in the same order, scalar values) are typed and gathered in
    one pass: the same bytes as the core's writer on the rows, and the same choice of layout."""
    if same_kind:  # typed columns rather than any: ints, floats, strings, some None
        values = [(a if not isinstance(a, (str, float)) else None, float(i), "s%d" % (i % 5))
                  for i, (a, _, _) in enumerate(values)]
        values = [(a if isinstance(a, int) and not isinstance(a, bool) else None, b, c) for a, b, c in values]
    rows = [{"x": a, "y": b, "z": c} for a, b, c in values]
    direct = xbf.dumps(rows, columnar=True, compress=compress)
    assert direct == xbf._native._columns_via_rows(rows, None, compress)
    assert same(xbf.loads(direct), rows)
    auto, flat = xbf.dumps(rows, compress=compress), xbf.dumps(rows, columnar=False)
    assert auto == flat or (auto == direct and len(direct) < len(flat))
    if len(rows) >= 16:
        assert len(auto) == min(len(direct), len(flat))


def test_flat_records_of_real_data_and_edges_match_the_core_writer():
    import json
    import pathlib
    data = pathlib.Path(__file__).resolve().parents[2] / "target/data/vega-datasets"
    cases = [json.loads((data / name).read_text()) for name in ("movies.json", "flights-2k.json", "flights-20k.json")
             if (data / name).exists()]
    cases += [
        [{"a": None, "b": None}] * 40,                                   # None everywhere: unit columns
        [{"a": float("nan"), "b": -0.0, "c": float("-inf")}] * 20,
        [{"a": 2**64 - 1, "b": -2**63}] * 10 + [{"a": 0, "b": 2**63 - 1}] * 10,
        [{"a": 2**63, "b": -1}] * 20,                                    # u64 and i64 together: i128, rows then columns
        [{"a": 1, "b": 2}] * 20 + [{"b": 2, "a": 1}] * 20,               # another key order
        [{"a": i % 2 == 0, "b": [1.5, None, "x", 3, -4][i % 5]} for i in range(50)],  # bools, any
        [{}] * 20,
    ]
    for rows in cases:
        for compress in (None, 3):
            direct = xbf.dumps(rows, columnar=True, compress=compress)
            assert direct == xbf._native._columns_via_rows(rows, None, compress)
        assert same(xbf.loads(xbf.dumps(rows)), rows)
    # What the one pass does not take gives the general path's error.
    for rows, error in [([{"a": "x", "b": "\ud800"}] * 20, UnicodeEncodeError),
                        ([{"\udc80": 1}] * 20, UnicodeEncodeError),
                        ([{"a": 1}] * 19 + [{"a": object()}], TypeError),
                        ([{"a": 2**300}] * 20, OverflowError)]:
        for columnar in (None, True):
            with pytest.raises(error):
                xbf.dumps(rows, columnar=columnar)


def test_records_of_other_key_orders_in_columns_are_deterministic():
    """Records whose keys come in two orders are `any` items of two struct types. The core once indexed
    the types of an `any` column by a hash that disagreed with their equality: now and then it merged the
    two types and wrote (or panicked on) one's values under the other's field order."""
    rows = [{"a": 1, "b": "x"}] * 20 + [{"b": "y", "a": 2}] * 20
    for compress in (None, 3):
        first = xbf.dumps(rows, columnar=True, compress=compress)
        for _ in range(200):
            assert xbf.dumps(rows, columnar=True, compress=compress) == first
        assert first == xbf._native._columns_via_rows(rows, None, compress)
        assert xbf.loads(first) == rows


def test_none_only_and_any_columns_round_trip():
    rows = [{"a": i, "none": None, "any": [i, "s", None, 1.5, -2, 2**80, b"b", [1], {"k": 1}][i % 9]} for i in range(5000)]
    for columnar in (False, True, None):
        assert same(xbf.loads(xbf.dumps(rows, columnar=columnar)), rows)
    schema, _ = xbf.loads(xbf.dumps(rows), with_schema=True)
    assert "none: unit" in str(schema) and "any: any" in str(schema)
    typed = xbf.loads(xbf.dumps([1, "a"]), typed_any=True)
    assert typed == [xbf.Typed("u64", 1), xbf.Typed("string", "a")]


@settings(max_examples=200, deadline=None)
@given(values)
def test_values_round_trip_in_columns(v):
    data = xbf.dumps(v, columnar=True)
    assert is_columnar(data)
    assert same(xbf.loads(data), v)


@settings(max_examples=200, deadline=None)
@given(st.lists(record, min_size=0, max_size=40))
def test_records_round_trip_in_columns(rows):
    assert same(xbf.loads(xbf.dumps(rows, columnar=True)), rows)
    assert same(xbf.loads(xbf.dumps(rows)), rows)


@settings(max_examples=200, deadline=None)
@given(st.lists(record, min_size=1, max_size=30), st.data())
def test_damaged_columns_never_crash(rows, data):
    b = bytearray(xbf.dumps(rows, columnar=True))
    for cut in data.draw(st.lists(st.integers(0, len(b) - 1), max_size=5)):
        with pytest.raises(xbf.DecodeError):
            xbf.loads(bytes(b[:cut]))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(b) - 1))
        b[i] ^= data.draw(st.integers(1, 255))
    try:
        xbf.loads(bytes(b))
    except xbf.DecodeError as e:
        assert e.kind


def test_a_null_column_in_many_records_decodes():
    # Each record's unit field counts against the zero-size allowance, which
    # grows with the bytes read: 70,000 rows are bounded by their own bytes.
    rows = [{"a": i % 100, "b": None} for i in range(70_000)]
    for columnar in (False, True):
        assert xbf.loads(xbf.dumps(rows, columnar=columnar)) == rows


def test_nested_options_keep_every_level():
    # Found by scripts/difffuzz.py: Some(Some(None)) read back as Some(None), one level lost.
    t = {"option": {"option": {"option": "u8"}}}
    schema = xbf.Schema(t)
    for value, wire in [(None, "00"), (xbf.Some(None), "0100"), (xbf.Some(xbf.Some(None)), "010100"), (7, "01010107")]:
        data = xbf.dumps(value, schema=schema, columnar=False)
        assert data.hex().endswith(wire), (value, data.hex())
        back = xbf.loads(data)
        assert back == value and type(back) is type(value), (value, back)


def test_columns_of_every_scalar_read_whole():
    # loads reads columns of flat records a column at a time: every scalar
    # type it takes there, and options of them, come back as the rows give them.
    import datetime as dt
    scalars = ["bool", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "fixed-i32", "fixed-u64",
               "f32", "f64", "string", "date", "timestamp", "unit"]
    fields = [[f"f{i}", t] for i, t in enumerate(scalars)]
    fields += [[f"o{i}", {"option": t}] for i, t in enumerate(scalars) if t != "unit"]
    schema = xbf.Schema({"vec": {"struct": "R", "fields": fields}})
    utc = dt.timezone.utc
    values = {"bool": lambda i: i % 3 == 0, "u8": lambda i: 255 - i, "u16": lambda i: 65535 - i,
              "u32": lambda i: 2**32 - 1 - i, "u64": lambda i: 2**64 - 1 - i * 7, "i8": lambda i: -128 + i,
              "i16": lambda i: -i * 99, "i32": lambda i: -2**31 + i, "i64": lambda i: -2**63 + i * 3,
              "fixed-i32": lambda i: i - 20, "fixed-u64": lambda i: i * 2**40, "f32": lambda i: i / 4,
              "f64": lambda i: i / 3 - 7, "string": lambda i: "é€😀"[i % 3] * i, "unit": lambda i: None,
              "date": lambda i: dt.date(1969, 12, 1) + dt.timedelta(days=i * 11),
              "timestamp": lambda i: dt.datetime(1969, 12, 31, 23, 59, tzinfo=utc) + dt.timedelta(seconds=i * 61)}
    rows = []
    for i in range(40):
        r = {f"f{j}": values[t](i) for j, t in enumerate(scalars)}
        r.update({f"o{j}": values[t](i) if i % 4 else None for j, t in enumerate(scalars) if t != "unit"})
        rows.append(r)
    cols = xbf.dumps(rows, schema=schema, columnar=True)
    assert is_columnar(cols)
    assert xbf.loads(cols) == xbf.loads(xbf.dumps(rows, schema=schema, columnar=False)) == rows
    assert [list(r) for r in xbf.loads(cols)] == [list(r) for r in rows]
    for cut in range(0, len(cols), 7):
        with pytest.raises(xbf.DecodeError):
            xbf.loads(cols[:cut])
