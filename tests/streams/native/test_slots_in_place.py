"""The `Builder`'s slots written in place (``streams/native/src/slots.rs``, `slot_words`).

A builder whose every field is a slot finds, once, where each slot lies in an object of its
class and then writes a new object's slots there (a reference taken each), not through the
slots' descriptors. Proven here: the engine's builders take that way; objects so made are the
constructor's (field for field, ``==``, ``hash``, ``repr``, inherited slots too) and hold
exactly one reference to each value, freed with the object; a class with a field that is not a
slot keeps the descriptors' way and is still its constructor's object.
"""

from __future__ import annotations

import dataclasses
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.fast import contribution
from controller.model.events import ContributionRecorded
from streams import native
from streams.embedded import batch
from streams.embedded.intake import Outcome
from streams.ports import LogRecord
from tests.streams.native.test_slots import native_builder, same_object

BUILT = native.current_build()
pytestmark = pytest.mark.skipif(BUILT is None, reason="no current native build (make fast)")
ANY = st.one_of(st.text(), st.binary(), st.integers(), st.none(), st.booleans())


@dataclasses.dataclass(frozen=True, slots=True)
class _Base:
    first: object
    second: object = None


@dataclasses.dataclass(frozen=True, slots=True)
class _Derived(_Base):
    third: object = None
    fourth: object = "d"


@dataclasses.dataclass(frozen=True)
class _Unslotted:
    first: object
    second: object = None


def test_the_engines_builders_write_in_place() -> None:
    assert native_builder(LogRecord, ("key", "payload", "dedupe_id", "received_at")).in_place
    assert native_builder(Outcome, ("event_id", "status", "reason")).in_place
    assert native_builder(ContributionRecorded, contribution.GIVEN).in_place
    if native.load() is not None:  # the engine's own constructors
        assert batch.new_record.__self__.in_place  # type: ignore[attr-defined]
        assert batch.new_answer.__self__.in_place  # type: ignore[attr-defined]


@given(st.tuples(ANY, ANY, ANY))
def test_inherited_slots_are_found_and_filled(values: tuple[object, ...]) -> None:
    """Slots of two classes (the base's and the subclass's), given and defaulted, in an order
    that is not the classes' own."""
    built = native_builder(_Derived, ("third", "first", "second"))
    assert built.in_place
    third, first, second = values
    for build in (built, built.fast()):
        same_object(build(*values), _Derived(first, second, third))


def test_a_class_with_a_field_that_is_not_a_slot_keeps_the_descriptors() -> None:
    assert BUILT is not None
    built = BUILT.Builder(_Unslotted, ["first", "second"], [])
    assert not built.in_place
    same_object(built("a", 2), _Unslotted("a", 2))


def test_each_value_is_held_once_and_let_go_with_the_object() -> None:
    """One reference a slot, taken when the object is made and dropped when it is freed (a
    value missing one is freed under the object; one too many never is)."""
    built = native_builder(_Derived, ("first", "second", "third", "fourth"))
    values = [object() for _ in range(4)]
    before = [sys.getrefcount(value) for value in values]
    for build in (built, built.fast()):
        made = build(*values)
        assert [sys.getrefcount(value) for value in values] == [count + 1 for count in before]
        del made
        assert [sys.getrefcount(value) for value in values] == before
