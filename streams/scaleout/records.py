"""What the scale-out engine's processors write, as plain records: outputs with deterministic ids
(the meter operations they carry between the lanes are `streams.scaleout.meter_ops`).

Every output carries a ``dedupe_id`` header that is a pure function of its input, so a redelivered
input re-emits byte-identical records with the same ids and any reader keeps the first:

=======================  =========================================================================
record                   dedupe_id
=======================  =========================================================================
accepted table event     its ``event_id``
step ``i`` of an event   ``{event_id}#{i}`` (a meter claim, a fixed or envy award)
meter event              ``{meter_id}@{meter_seq}`` (the meter's own operation number)
progressive award        its ``hit_id`` on the awards topic
rejection, dead letter   ``rejected@{topic}:{partition}:{offset}`` (the input's place in the log)
=======================  =========================================================================
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final, Generic, TypeVar

import msgspec

from controller.fast import lane
from controller.fast.build import builder, slot_defaults
from controller.model.events import ContributionRecorded, Event
from streams import native
from streams.codec import MAX_RAW_KEPT, Output, encode
from streams.scaleout.award_record import Award, award_body

#: `streams.adapters.kafka.topics.TopicNames.awards` is ``{prefix}.awards``.
AWARDS_SUFFIX = ".awards"
R = TypeVar("R")
T = TypeVar("T")
FAST_WRITER: Final = msgspec.json.Encoder(order="sorted")  # `dumps` and `meter_ops`
_REFERENCE = json.JSONEncoder(separators=(",", ":"), sort_keys=True)
#: The extension's writer of a contribution's record, as the embedded engine writes it
#: (``src/contribution.rs``: `streams.codec.encode`'s bytes, or None for anything unusual), if
#: this process runs it and the class still has the fields it writes.
_CONTRIBUTION: Final = native.contribution_writer(ContributionRecorded)


@dataclass(frozen=True, slots=True)
class SourcePos:
    """Where an input record sits in the log, and its timestamp (ms since the epoch)."""

    topic: str
    partition: int
    offset: int
    timestamp_ms: int = 0

    @property
    def label(self) -> str:
        return f"{self.topic}:{self.partition}:{self.offset}"

    def occurred_at(self) -> str:
        """The record's timestamp as RFC 3339: a clock reading fixed in the log, so it is the
        same on every redelivery."""
        moment = datetime.fromtimestamp(self.timestamp_ms / 1000, UTC)
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def coalesced(outputs: list[Output]) -> list[Output]:
    """``outputs`` without each latest-wins record a later one of its topic and key supersedes:
    a batch of 500 events from 8 tables writes 8 liveness records, not 500 (measured: one per
    event cost the worker a visible share of its throughput on a 2-core host)."""
    last: dict[tuple[str, str], int] = {}
    for index, out in enumerate(outputs):
        if out.latest_wins:
            last[(out.topic, out.key)] = index
    if not last:
        return outputs
    return [
        out
        for index, out in enumerate(outputs)
        if not out.latest_wins or last[(out.topic, out.key)] == index
    ]


@dataclass(frozen=True, slots=True)
class Processed(Generic[R]):
    """What one input did: an outcome (a metrics label), the key's state record after it (None:
    leave the stored record as it is) and the records to produce, in order."""

    outcome: str
    record: R | None
    outputs: tuple[Output, ...] = ()


def fast_builder(cls: type[T], given: tuple[str, ...]) -> Callable[..., T]:
    """`controller.fast.build.builder`'s constructor, natively when this process runs the
    extension (`streams.native.slot_builder`, as the embedded engine builds its records): the
    same object, ~150 ns a record less than the written one (a table event builds 6-10)."""
    defaults = slot_defaults(cls, given)
    made = None if defaults is None else native.slot_builder(cls, given, defaults)
    return builder(cls, given) if made is None else made


def slot_setter(
    cls: type[T], given: tuple[str, ...], defaults: dict[str, object], init: Callable[..., T]
) -> Callable[..., T]:
    """``init`` (a constructor that only sets slots: the ``given`` ones from its arguments, in
    this order, and ``defaults``), natively when this process runs the extension. For the lazy
    outputs (`streams.scaleout.heard`, `streams.scaleout.claim_output`), whose own slots a
    dataclass builder does not know; ``tests/streams/scaleout/test_claim_output.py`` builds
    each both ways."""
    made = native.slot_builder(cls, given, defaults)
    return init if made is None else made


lane.install(fast_builder)  # the round and meter lanes' records (`controller.fast.lane`), natively

#: Positional constructors of the records made once or more per input (`fast_builder`: each
#: slot set directly, where a frozen dataclass's ``__init__`` looks up ``object.__setattr__`` per
#: field, ~1 µs for five fields): the same objects, field for field.
source_pos: Final = fast_builder(SourcePos, ("topic", "partition", "offset", "timestamp_ms"))
processed: Final = fast_builder(Processed, ("outcome", "record", "outputs"))
output: Final = fast_builder(Output, ("topic", "key", "value", "dedupe_id"))


def safe_key(value: str) -> str:
    """A record key from text no door has vouched for: at most 64 characters (a table id's
    limit), and encodable. A lone surrogate or a megabyte-long table id would make the record
    unproducible: at ingest the run would crash, in a worker the batch would fail and the worker
    crash on the same record after every restart."""
    return value[:64].encode("utf-8", "replace").decode("utf-8")


def dead_letter(topic: str, key: str, raw: bytes, reason: str, pos: SourcePos) -> Output:
    """The dead-letter record: the raw input as received (as text, at most 64 KiB), the reason and
    where it came from."""
    body = {
        "reason": reason,
        "raw": raw[:MAX_RAW_KEPT].decode("utf-8", "replace"),
        "source": pos.label,
        "occurred_at": pos.occurred_at(),
    }
    return Output(topic, key, dumps(body), f"rejected@{pos.label}")


def event_output(topic: str, key: str, event: Event, dedupe_id: str) -> Output:
    """An event as the log stores it (`streams.codec.encode`, its bytes); on the awards topic,
    the outward award record (`streams.scaleout.award_record`: the contract's dollar strings, not
    the log's integer units). Both processors write awards through here, so the topic decides
    the spelling in one place."""
    if type(event) is ContributionRecorded and _CONTRIBUTION is not None:
        written = _CONTRIBUTION(event)  # most of the meter lane's records, natively
        if written is not None:
            return output(topic, key, written, dedupe_id)
    if topic.endswith(AWARDS_SUFFIX) and isinstance(event, Award):
        return Output(topic, key, dumps(award_body(event, dedupe_id)), dedupe_id)
    return output(topic, key, encode(event), dedupe_id)


def dumps(value: object) -> bytes:
    """Compact, key-sorted JSON (one value, one byte string): `reference_dumps`'s bytes, written
    by msgspec (several times faster: the worker writes one or more of these per input) when
    they are printable ASCII throughout, where the two encoders cannot differ (they differ only
    in escapes); anything else by json (``tests/streams/scaleout/test_fast_records.py``). The
    values are ints, strings, bools, None, lists and dicts: no float, whose spelling differs."""
    try:
        out = FAST_WRITER.encode(value)
    except (TypeError, ValueError, OverflowError):  # a lone surrogate, a type msgspec lacks
        return reference_dumps(value)
    if out.isascii() and b"\\" not in out and b"\x7f" not in out:
        return out
    return reference_dumps(value)


def reference_dumps(value: object) -> bytes:
    """The definition of `dumps`'s bytes: json's compact, key-sorted, ASCII-escaped form."""
    return _REFERENCE.encode(value).encode()
