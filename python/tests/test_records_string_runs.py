"""dumps of records whose string columns are gathered in runs (python/src/records/column.rs, `str_run`): exact
compact-ASCII strs of up to 32 bytes are copied a batch's run at a time; any other value ends the run and is taken
one at a time (non-ASCII strs, longer ones, str subclasses, strs that are not compact, other kinds), after which the
run goes on. Every case must give the bytes of the general path, which a schema forces."""
from hypothesis import given, settings, strategies as st
from test_records_batches import same_as_general

import xbf


class S(str):
    """A str subclass: not an exact str, so not read as one (the general path takes the list)."""


def fresh(s):
    """A str equal to `s` but a new object (not the one literal every record shares)."""
    return "".join(list(s)) if len(s) > 1 else s


# Strings by the way they are read: compact ASCII of every length class around 32 bytes (each copy's pieces),
# longer ones, non-ASCII (1-, 2- and 4-byte kinds), the empty string.
ASCII = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=127), max_size=40)
STRINGS = st.one_of(
    ASCII,
    st.sampled_from(["", "a", "ab", "abc", "abcd", "x" * 7, "x" * 8, "x" * 15, "x" * 16, "x" * 17, "y" * 31,
                     "y" * 32, "y" * 33, "z" * 64, "é", "aé" * 10, "€" * 11, "\U0001f600" * 9]),
    st.text(max_size=40),
)


@st.composite
def string_columns(draw):
    n = draw(st.integers(0, 300))
    keys = draw(st.lists(st.sampled_from(["a", "b", "c", "k" * 20]), min_size=1, max_size=3, unique=True))
    columns = {}
    for k in keys:
        # Mostly strings, here and there another kind (the column then writes its kinds).
        other = draw(st.sampled_from([None, 1, 1.5, True]))
        p_other = draw(st.sampled_from([0, 0, 0.02, 0.3]))
        vals = []
        for _ in range(n):
            vals.append(other if draw(st.floats(0, 1)) < p_other else fresh(draw(STRINGS)))
        columns[k] = vals
    return [{k: columns[k][i] for k in keys} for i in range(n)]


@settings(max_examples=150, deadline=None)
@given(string_columns())
def test_string_runs_take_the_general_paths_bytes(rows):
    same_as_general(rows)


def test_every_length_around_the_copy_pieces():
    # Runs of one length, then lengths one after another, across batches of 64 records.
    for length in range(0, 70):
        same_as_general([{"s": fresh("q" * length + str(i % 10))[:length], "i": i} for i in range(150)])
    same_as_general([{"s": "".join(chr(97 + (i + j) % 26) for j in range(i % 41))} for i in range(400)])


def test_values_that_end_a_run():
    n = 200
    for edge in (0, 1, 31, 63, 64, 65, 128, 199):
        for odd in ["é", "y" * 33, "z" * 100, "\U0001f600", "", None, 5, 2.5, False]:
            rows = [{"s": odd if i == edge else f"v{i}", "t": "x" * (i % 35)} for i in range(n)]
            same_as_general(rows)
            # Every third value odd: many short runs.
            same_as_general([{"s": odd if i % 3 == 0 else f"w{i % 7}"} for i in range(n)])


def test_str_subclasses_and_non_compact_strs():
    # A str subclass's instance is not an exact str (and not compact): the general path, as before.
    for edge in (0, 5, 64, 70):
        rows = [{"s": S("sub") if i == edge else f"v{i}"} for i in range(100)]
        same_as_general(rows)
        assert xbf.loads(xbf.dumps(rows)) == [{"s": str(r["s"])} for r in rows]


def test_long_strings_among_short_ones():
    # A string over 32 bytes ends its run (and is taken alone): at every place of the first runs, after empty,
    # short and 32-byte strings (whose copies read whole words past their ends), back to back, among None.
    for length in (33, 34, 63, 64, 65, 95, 96, 97, 128, 129, 200, 1000):
        for at in range(0, 70):
            for short in ("", "ab", "x" * 32):
                rows = [{"s": fresh("L" * length) if i in (at, at + 1) else short} for i in range(140)]
                same_as_general(rows)
        same_as_general([{"s": None if i % 5 == 0 else fresh("M" * (length + i % 3)) if i % 4 == 0 else "s"}
                         for i in range(300)])
    same_as_general([{"s": fresh(chr(97 + i % 26) * (32 * (i % 3) + 1))} for i in range(400)])
