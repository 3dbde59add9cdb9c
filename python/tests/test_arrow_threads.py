"""xbf.arrow reads on several decoding threads: the same batches, in file
order, as one thread gives, for every split of the file, with filters and
batch sizes; a damaged block ends the stream with its error after the
blocks before it."""

import pytest

pa = pytest.importorskip("pyarrow")

import xbf  # noqa: E402
import xbf.arrow as xa  # noqa: E402


def table(n=5000):
    return pa.table(
        {
            "delay": pa.array([None if i % 97 == 0 else (i * 37) % 700 - 50 for i in range(n)], type=pa.int64()),
            "origin": pa.array([["SFO", "LAX", "JFK"][i % 3] for i in range(n)]),
        }
    )


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "t.xbf"
    xa.write_table(table(), p, block_rows=300)
    return p


@pytest.mark.parametrize("threads", [2, 3, 8])
def test_threads_give_the_batches_of_one_thread_in_order(path, threads):
    for kw in ({}, {"columns": ["delay"]}, {"filters": [("delay", ">", 500)]}, {"batch_size": 128}):
        one = list(xa.open(path, threads=1, **kw))
        many = list(xa.open(path, threads=threads, **kw))
        assert [b.num_rows for b in many] == [b.num_rows for b in one]
        assert pa.Table.from_batches(many).equals(pa.Table.from_batches(one))
    assert xa.read_table(path).equals(table())
    for blocks in ((0, 17), (3, 4), (5, 11), (16, 17)):
        got = xa.open(path, threads=threads, _blocks=blocks).read_all()
        assert got.equals(table().slice(blocks[0] * 300, (blocks[1] - blocks[0]) * 300))


def test_a_damaged_block_ends_the_stream_after_the_blocks_before_it(path, tmp_path):
    data = bytearray(path.read_bytes())
    sizes = xa._native.arrow_blocks(str(path))
    assert len(sizes) == 17
    # Flip a byte in the middle of the file: the block holding it fails its checksum.
    data[len(data) // 2] ^= 0xFF
    bad = tmp_path / "bad.xbf"
    bad.write_bytes(bytes(data))
    for threads in (1, 2, 4):
        reader = pa.RecordBatchReader.from_stream(xa.open(bad, threads=threads))
        rows = 0
        with pytest.raises(Exception) as e:
            for b in reader:
                rows += b.num_rows
        assert "BadChecksum" in str(e.value) or "checksum" in str(e.value).lower()
        assert 0 < rows < 5000 and rows % 300 == 0


def test_a_reader_dropped_early_stops_its_threads(path):
    for _ in range(20):
        it = iter(xa.open(path, threads=4))
        assert next(it).num_rows == 300
        del it
    assert xbf  # the module still works after
