"""Proven equal: a record or answer made by the extension's `Builder` (``streams/native/src/
slots.rs``) against the class's own constructor, for any values.

Field for field, ``==``, ``hash``, ``repr`` and the type; the engine's two constructors
(`streams.embedded.batch.new_record`, `new_answer`) are the native ones (`Builder.fast`, the
fast-call builtin) whenever this process runs the extension; the builder, called either way,
refuses a wrong count of values as a call would, and is handed no class
`controller.fast.build.slot_defaults` does not vouch for.
"""

from __future__ import annotations

import dataclasses
import gc
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.fast import contribution
from controller.fast.build import slot_defaults
from controller.model.events import ContributionRecorded
from streams import native
from streams.codec import encode
from streams.embedded import batch
from streams.embedded.intake import Outcome
from streams.ports import LogRecord

BUILT = native.current_build()
pytestmark = pytest.mark.skipif(BUILT is None, reason="no current native build (make fast)")
RECORD = ("key", "payload", "dedupe_id", "received_at")
ANSWER = ("event_id", "status", "reason")
ANY = st.one_of(st.text(), st.binary(), st.integers(), st.none(), st.booleans())


def native_builder(cls: type, given_: tuple[str, ...]) -> Any:
    """The native `Builder` of ``cls`` for ``given_``, the other fields at their defaults."""
    defaults = slot_defaults(cls, given_)
    assert defaults is not None
    assert BUILT is not None
    return BUILT.Builder(cls, list(given_), list(defaults.items()))


def same_object(made: object, expected: object) -> None:
    """``made`` is ``expected``'s equal in every way a reader can tell (also used by
    `test_slots_in_place`)."""
    assert type(made) is type(expected)
    assert dataclasses.astuple(made) == dataclasses.astuple(expected)  # type: ignore[call-overload]
    assert made == expected
    assert hash(made) == hash(expected)
    assert repr(made) == repr(expected)


@given(st.tuples(ANY, ANY, ANY, ANY))
def test_a_log_record_is_the_constructors(values: tuple[object, ...]) -> None:
    expected = LogRecord(*values)  # type: ignore[arg-type]
    built = native_builder(LogRecord, RECORD)
    same_object(built(*values), expected)
    same_object(built.fast()(*values), expected)


@given(st.tuples(ANY, ANY, ANY))
def test_an_answer_is_the_constructors_with_its_defaults(values: tuple[object, ...]) -> None:
    expected = Outcome(*values)  # type: ignore[arg-type]
    built = native_builder(Outcome, ANSWER)
    same_object(built(*values), expected)
    same_object(built.fast()(*values), expected)


def test_the_engine_uses_the_native_builders_when_it_runs_the_extension() -> None:
    native_runs = native.load() is not None
    for made in (batch.new_record, batch.new_answer):
        bound = getattr(made, "__self__", None)
        assert (type(bound).__name__ == "Builder") is native_runs
    same_object(batch.new_record("T", b"{}", "e", "now"), LogRecord("T", b"{}", "e", "now"))
    same_object(batch.new_answer("e", "accepted", ""), Outcome("e", "accepted", ""))


@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize("count", [0, 2, 5])
def test_a_wrong_count_of_values_is_refused(fast: bool, count: int) -> None:
    built = native_builder(LogRecord, RECORD)
    call = built.fast() if fast else built
    with pytest.raises(TypeError, match=f"takes 4 positional arguments but {count} were given"):
        call(*["x"] * count)
    with pytest.raises(TypeError):
        call(key="T", payload=b"{}", dedupe_id="", received_at="now")


def test_a_class_with_a_post_init_is_not_vouched_for() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        value: int

        def __post_init__(self) -> None:
            pass

    assert slot_defaults(Checked, ("value",)) is None


TEXT = st.text(max_size=12)
SUB = st.one_of(st.integers(min_value=0, max_value=10**15), st.integers(), st.booleans())
CONTRIBUTION = st.tuples(
    TEXT, TEXT, TEXT, st.integers(1, 9), TEXT, TEXT, SUB, SUB, SUB, SUB, TEXT, SUB
)


@given(CONTRIBUTION)
def test_the_locks_contribution_is_the_constructors(values: tuple[object, ...]) -> None:
    """The builder the engine installs for the lock (`contribution.BUILD`, the native one when
    this process runs the extension) makes the constructor's event: its declared defaults
    (``diverted_sub``, ``divert_to``) included, the same encoded bytes."""
    expected = ContributionRecorded(**dict(zip(contribution.GIVEN, values, strict=True)))  # type: ignore[arg-type]
    installed = contribution.BUILD[0]
    native_runs = native.load() is not None
    assert (type(getattr(installed, "__self__", None)).__name__ == "Builder") is native_runs
    assert native_runs or installed is contribution.contribution
    for build in (installed, native_builder(ContributionRecorded, contribution.GIVEN)):
        made = build(*values)
        same_object(made, expected)
        assert encode(made) == encode(expected)


def test_install_none_restores_the_compiled_contribution() -> None:
    installed = contribution.BUILD[0]
    try:
        contribution.install(None)
        assert contribution.BUILD[0] is contribution.contribution
    finally:
        contribution.install(installed)


#: Values that refer to others (hashable, so the records compare and hash as the constructor's).
NESTED = st.one_of(st.tuples(st.integers()), st.tuples(), st.frozensets(st.text(), max_size=2))


@given(st.tuples(ANY, ANY, ANY, ANY), st.data())
def test_only_a_record_of_atomic_values_is_left_untracked(
    values: tuple[object, ...], data: st.DataObject
) -> None:
    """A record of strings, bytes, ints, bools and None cannot be in a cycle: the builder
    leaves it untracked by the collector, as CPython leaves such a tuple; one other value
    anywhere (a tuple, a frozenset) and it is tracked, as the constructor's is. Either
    way it is the constructor's record."""
    built = native_builder(LogRecord, RECORD)
    for build in (built, built.fast()):
        made = build(*values)
        same_object(made, LogRecord(*values))  # type: ignore[arg-type]
        assert not gc.is_tracked(made)
        at = data.draw(st.integers(0, len(values) - 1))
        mixed = (*values[:at], data.draw(NESTED), *values[at + 1 :])
        held = build(*mixed)
        same_object(held, LogRecord(*mixed))  # type: ignore[arg-type]
        assert gc.is_tracked(held)


def test_a_builder_with_a_container_default_leaves_its_objects_tracked() -> None:
    """A default that is not atomic (here a list) keeps every object the builder makes
    tracked, whatever the given values; the engine's answers (atomic defaults) are not."""
    assert BUILT is not None
    built = BUILT.Builder(Outcome, ["event_id", "status"], [("reason", [])])
    assert gc.is_tracked(built.fast()("e", "accepted"))
    assert not gc.is_tracked(native_builder(Outcome, ("event_id", "status"))("e", "accepted"))
    if native.load() is not None:  # the engine's own constructors
        assert not gc.is_tracked(batch.new_answer("e", "accepted", ""))
        assert not gc.is_tracked(batch.new_record("k", b"{}", "", "now"))
