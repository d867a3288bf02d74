"""Hypothesis strategies for a worker's changelog as read back: the last value per (partition,
key), values None for tombstones (`streams.scaleout.migrate.Latest`)."""

from __future__ import annotations

from hypothesis import strategies as st

from streams.scaleout.store import progress_key

PARTITIONS = 6
#: Table and meter ids as the changelogs key them (never a NUL first: that is a reserved key).
_IDS = st.text("abcdefgh-/0123456789", min_size=1, max_size=12).map(str.encode)
_VALUES = st.one_of(st.none(), st.binary(max_size=24))


def changelog_records(tag: bytes = b"") -> st.SearchStrategy[dict[tuple[int, bytes], bytes | None]]:
    """A changelog's records: ids under ``tag`` (b"": a changelog of its own) and progress marks
    for some partitions (each in its own partition, as the workers write them)."""
    partition = st.integers(0, PARTITIONS - 1)
    records = st.dictionaries(st.tuples(partition, _IDS.map(lambda i: tag + i)), _VALUES)
    marks = st.dictionaries(
        partition.map(lambda p: (p, progress_key(p, tag))), st.binary(min_size=1, max_size=8)
    )
    return st.builds(lambda r, m: {**r, **m}, records, marks)
