"""Proven equal: a contribution's record written natively (``streams/native/src/
contribution.rs``) against `streams.codec.reference_encode` (`json`, the log's definition).

Any values: plain ones (written natively: a writer that gave up on everything would fail) and
any text (quotes, backslashes, controls, non-ASCII, lone surrogates), integers beyond 64 bits,
a bool or a subclass where an int or a str is declared (the native writer must then give None,
and the engine writes the record in Python). Both writers: `contribution` (by `getattr`) and the
engine's, ``ContributionWriter(cls).fast()`` (through the class's slots, objects of exactly
``cls``).
"""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.model.events import ContributionRecorded
from streams import native
from streams.codec import encode, reference_encode
from streams.embedded import lines

BUILT = native.current_build()
pytestmark = pytest.mark.skipif(BUILT is None, reason="no current native build (make fast)")
#: The engine's writer (`native.contribution_writer`), from this build whatever `ENV` says.
FAST = None if BUILT is None else BUILT.ContributionWriter(ContributionRecorded).fast()
PLAIN = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters='"\\'))
ANY_TEXT = st.text(st.characters(blacklist_categories=()))  # surrogates and controls included
I64 = st.integers(-(2**63), 2**63 - 1)
BIG = st.integers(-(2**80), 2**80)
STR_FIELDS = ("meter_id", "table_id", "round_id", "wager", "on", "occurred_at", "divert_to")
INT_FIELDS = ("seat", "wager_cents", "primary_sub", "reserve_sub", "meter_seq", "overflow_sub",
              "diverted_sub")  # fmt: skip


def _contributions(
    text: st.SearchStrategy[str], number: st.SearchStrategy[int]
) -> st.SearchStrategy[ContributionRecorded]:
    return st.builds(
        ContributionRecorded,
        **dict.fromkeys(STR_FIELDS, text),
        **dict.fromkeys(INT_FIELDS, number),
    )


def test_the_fields_written_are_the_class_s() -> None:
    assert sorted((*STR_FIELDS, *INT_FIELDS)) == sorted(native.CONTRIBUTION_FIELDS)
    names = tuple(f.name for f in dataclasses.fields(ContributionRecorded))
    assert names == native.CONTRIBUTION_FIELDS


@settings(max_examples=400, deadline=None)
@given(_contributions(PLAIN, I64))
def test_a_plain_contribution_is_written_natively_with_the_reference_bytes(
    event: ContributionRecorded,
) -> None:
    assert BUILT is not None
    assert FAST is not None
    assert BUILT.contribution(event) == reference_encode(event) == encode(event)
    assert FAST(event) == reference_encode(event)


@settings(max_examples=400, deadline=None)
@given(_contributions(st.one_of(PLAIN, ANY_TEXT), st.one_of(I64, BIG)))
def test_any_contribution_is_the_reference_s_or_left_to_python(event: ContributionRecorded) -> None:
    assert BUILT is not None
    assert FAST is not None
    written = BUILT.contribution(event)
    assert written is None or written == reference_encode(event)
    assert FAST(event) == written


_PLAIN = ContributionRecorded(
    meter_id="m-1", table_id="t-1", round_id="r-1", seat=3, wager="ante", on="own",
    wager_cents=500, primary_sub=-12_345, reserve_sub=0, meter_seq=2**63 - 1,
    occurred_at="2026-11-29T12:00:01.533Z", overflow_sub=-(2**63),
)  # fmt: skip


class _Text(str):
    __slots__ = ()


@pytest.mark.parametrize(
    ("field", "value"),
    [("seat", True), ("meter_seq", 2**63), ("wager_cents", 1.0), ("meter_id", _Text("m")),
     ("table_id", 'a"b'), ("round_id", "a\\b"), ("on", "\x7f"), ("wager", "é"),
     ("divert_to", None)],
)  # fmt: skip
def test_what_the_native_writer_cannot_copy_it_leaves_to_python(field: str, value: object) -> None:
    assert BUILT is not None
    plain = ContributionRecorded(
        meter_id="m-1", table_id="t-1", round_id="r-1", seat=3, wager="ante", on="own",
        wager_cents=500, primary_sub=12_345, reserve_sub=222, meter_seq=17,
        occurred_at="2026-11-29T12:00:01.533Z", overflow_sub=0,
    )  # fmt: skip
    assert FAST is not None
    assert BUILT.contribution(plain) == reference_encode(plain) == FAST(plain)
    changed = dataclasses.replace(plain, **{field: value})  # type: ignore[arg-type]
    assert BUILT.contribution(changed) is None
    assert FAST(changed) is None


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class _Subclass(ContributionRecorded):
    extra: int = 0


def test_the_engine_s_writer_reads_only_its_own_class() -> None:
    """Another class (a subclass, an object with the same attributes, an unset slot) is left to
    Python: its slots are not the ones the writer found."""
    assert BUILT is not None
    assert FAST is not None
    fields = {f.name: getattr(_PLAIN, f.name) for f in dataclasses.fields(ContributionRecorded)}
    assert FAST(_PLAIN) == reference_encode(_PLAIN)
    assert FAST(_Subclass(**fields)) is None
    assert FAST(SimpleNamespace(**fields)) is None
    assert FAST(object.__new__(ContributionRecorded)) is None
    assert FAST(None) is None


def test_the_engine_writes_contributions_natively_exactly_when_it_runs_the_extension() -> None:
    assert (lines._CONTRIBUTION is not None) is (native.load() is not None)
