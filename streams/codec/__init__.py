"""The one codec of the logs: how an event is written to and read from any log, by both engines.

The embedded engine's SQLite log, the Kafka engine's topics, every reader (replay, reconcile,
dump, the signage projector, the live pages) meet here and nowhere else: an event's bytes are
`encode`'s, a record is read back by `decode`, its ordering key is `record_key`, and a log is
folded by `fold_log`. A retry is compared with the stored payload byte for byte, so both engines
must write the same bytes: that is why there is one package, not one per engine. Its modules:
`log_decode` reads records fast to the same events as `decode`; `records` reads a replay's hot
records into structs the session applies without building events (`fold_into` uses it).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Protocol

try:  # the fast JSON reader; the base install reads with json alone
    import msgspec

    from streams.codec import records
    from streams.codec.log_decode import fast_decode
    from streams.codec.writer import PLANS
except ModuleNotFoundError:  # pragma: no cover - exercised by the wheel check without extras
    msgspec = None  # type: ignore[assignment]
    fast_decode = None  # type: ignore[assignment]
    records = None  # type: ignore[assignment]
    PLANS = {}

from controller.codec import event_from_dict, event_to_dict
from controller.fast import Session
from controller.fast.records import KNOWN_SHAPES
from controller.floor import evolve_many
from controller.model.errors import InvalidEvent
from controller.model.events import Event
from controller.model.state import FloorState
from streams.ports import EventLog, StoredRecord

#: The header (Kafka) or column (SQLite) holding a record's deterministic dedupe id.
DEDUPE_HEADER = "dedupe_id"
#: How much of a refused input's raw bytes a dead letter keeps.
MAX_RAW_KEPT = 65_536
FOLD_CHUNK = 1_000


@dataclass(frozen=True, slots=True)
class Output:
    """One record to produce: topic, key, value and its deterministic dedupe id. A
    ``latest_wins`` record (for a compacted topic whose readers want only each key's newest, such
    as liveness) may be dropped when a later one of the same topic and key follows in the batch."""

    topic: str
    key: str
    value: bytes
    dedupe_id: str
    latest_wins: bool = False


def reused_id_reason(event_id: str) -> str:
    """Why an event is refused whose id was accepted before for other content (both engines)."""
    return (
        f"event_id {event_id!r} was already accepted for a different event; "
        "a retry must repeat the event exactly, a new event needs a new id"
    )


# One encoder for every record: `json.dumps` with options builds a new one per call. The bytes
# are exactly `json.dumps(..., separators=(",", ":"), sort_keys=True)`'s (ASCII, \u escapes): a
# retry of an event logged before is compared with its stored payload byte for byte.
_ENCODER = json.JSONEncoder(separators=(",", ":"), sort_keys=True)
# msgspec writes the same compact, key-sorted JSON several times faster. Its bytes are taken only
# when every byte is printable ASCII (no escape, no DEL, nothing above): there the two encoders
# cannot differ (they differ only in escapes: msgspec writes UTF-8 and DEL where json writes \u).
# Anything else is written by `_ENCODER` (``tests/streams/codec/test_encode.py`` proves it).
_FAST_ENCODER = None if msgspec is None else msgspec.json.Encoder(order="sorted")


def encode(event: Event) -> bytes:
    """An event as the log stores it: compact, key-sorted JSON (`reference_encode`'s bytes).
    Its dict comes from the class's plan (`streams.codec.writer`) when msgspec writes it; a record
    that needs an escape is written by `json` from `event_to_dict`, the readable dict."""
    plan = PLANS.get(type(event))
    if plan is not None:
        fast = _plain_ascii_bytes(plan(event))
        if fast is not None:
            return fast
        return reference_encode(event)
    plain = event_to_dict(event)
    return _plain_ascii_bytes(plain) or _ENCODER.encode(plain).encode()


def _plain_ascii_bytes(plain: object) -> bytes | None:
    """msgspec's bytes for ``plain`` (a dict, or a record struct of `streams.codec.writer`)
    when they are printable ASCII throughout, else None."""
    if _FAST_ENCODER is None:
        return None
    try:
        out = _FAST_ENCODER.encode(plain)
    except (ValueError, TypeError, OverflowError):  # a lone surrogate (a refused input's id may
        return None  # hold one): json escapes it; anything else msgspec refuses, json says why
    if out.isascii() and b"\\" not in out and b"\x7f" not in out:
        return out
    return None


def reference_encode(event: Event) -> bytes:
    """`encode` by `json` alone: the definition of the log's bytes."""
    return _ENCODER.encode(event_to_dict(event)).encode()


def decode(payload: bytes) -> Event:
    """The event a log payload holds. msgspec parses the JSON (untyped: 4x `json.loads` for the
    parse alone, a small share of a record's replay); `event_from_dict` checks every field, as
    it did after `json.loads`. A payload msgspec refuses is read by `json.loads` as before: the
    encoder writes any string as \\u escapes, a lone surrogate too (a refused input's id may hold
    one), and msgspec does not read that escape back."""
    if msgspec is None:
        raw = json.loads(payload)
    else:
        try:
            raw = msgspec.json.decode(payload)
        except msgspec.DecodeError:
            raw = json.loads(payload)
    if not isinstance(raw, dict):
        msg = f"a log record holds a JSON {type(raw).__name__}, not an event object"
        raise InvalidEvent(msg)
    return event_from_dict(raw)


def record_key(event: Event) -> str:
    """The ordering key: the meter for meter events, the table for table events, else "floor"."""
    meter_id = getattr(event, "meter_id", None)
    table_id = getattr(event, "table_id", None)
    return str(meter_id or table_id or "floor")


def fold_log(
    log: EventLog, state: FloorState | None = None, after: int = 0
) -> tuple[FloorState, int]:
    """State from the log alone (a clean replay, no snapshot) and the position it reflects, on
    the core's fast path (`controller.fast.Session`, proven equal to `evolve`)."""
    session = Session(state)
    position = fold_into(session, log, after)
    return session.state(), position


class RecordSource(Protocol):
    """What a fold reads of a log (`EventLog.read`)."""

    def read(self, after: int = 0) -> Iterable[StoredRecord]:
        """Records after ``after``, in order."""
        ...


def fold_into(session: Session, log: RecordSource, after: int = 0) -> int:
    """Apply the log's records after ``after`` to ``session``; the position it then reflects.
    The hot records go straight into the session's records (`streams.codec.records`), the
    rest through `decode` and `Session.apply`."""
    read = decode if fast_decode is None else partial(fast_decode, reference=decode)
    if records is not None and records.SHAPES_MATCH and KNOWN_SHAPES:
        return _fold_records(session, log, after, read)
    position, apply = after, session.apply
    for record in log.read(after=after):
        apply(read(record.payload))
        position = record.position
    return position


def _fold_records(
    session: Session, log: RecordSource, after: int, read: Callable[[bytes], Event]
) -> int:
    apply, record = session.apply, None
    read_record, appliers, refused = records.read_record, records.APPLIERS, msgspec.DecodeError
    for record in log.read(after=after):
        payload = record.payload
        try:
            struct = read_record(payload)
        except refused:  # not a hot record, or not one this reader vouches for: `decode`'s
            apply(read(payload))
        else:
            appliers[type(struct)](session, struct)
    return after if record is None else record.position


def fold_log_by_reference(
    log: EventLog, state: FloorState | None = None, after: int = 0
) -> tuple[FloorState, int]:
    """`fold_log` by the readable reference: `evolve_many` over chunks of decoded records."""
    current, position = state or FloorState(), after
    records = log.read(after=after)
    while chunk := list(itertools.islice(records, FOLD_CHUNK)):
        current = evolve_many(current, [decode(record.payload) for record in chunk])
        position = chunk[-1].position
    return current, position
