"""The round lane's state record as its changelog stores it, written without encoding again what
the table's previous record already held (`streams.scaleout.table_record.table_record_to_bytes`).

A table's record goes into every transaction whose batch touched the table, and at 2,000
events/s a batch holds ~25 events over ~6 tables: the worker wrote a record per table and batch,
each ~6 KB, most of it the current round's wagers (~15 contract dicts, `to_contract` per wager
and per record) and the 64 recent ids. Measured on the latency row's rate (issue 13, branch
``k13-s17``): ~38 µs a record, ~300 µs a batch, the main thread's largest fixed cost per batch.

Here a wager's or a decision's contract dict is encoded once: each table keeps the encoded
fragments (`msgspec.Raw`) of the last round it wrote, with the tuple they came from, and a record
whose round's tuple starts with those very objects (a round only grows by appending) encodes only
the ones after them. Everything else is encoded as before, the tuples directly (msgspec writes a
tuple as the array `list(...)` gave). The bytes are `streams.scaleout.records.dumps`'s whenever
msgspec's output is printable ASCII without escapes, where the reference cannot differ (JSON is
written value by value, so a document of clean fragments is the reference's document); anything
else is written the reference way (`reference_bytes`).
``tests/streams/scaleout/test_table_bytes.py`` holds both to the reference.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final

from msgspec import Raw

from controller.model.state import RoundState
from controller.model.table_events import TableEvent, to_contract
from controller.snapshot import table_to_dict
from streams.scaleout.records import FAST_WRITER, dumps

if TYPE_CHECKING:  # that module imports this one
    from streams.scaleout.table_record import TableRecord

#: Tables whose fragments are kept; past this many the cache starts again (a worker owns a few
#: hundred tables: only one that moved between workers many times would come near).
MAX_TABLES: Final = 4096
#: (table id, "wagers" | "decisions") -> (the events, their encoded contract dicts)
Fragments = dict[tuple[str, str], tuple[Sequence[TableEvent], list[Raw]]]
_CACHE: Final[Fragments] = {}


def fragments(
    cache: Fragments,
    key: tuple[str, str],
    events: Sequence[TableEvent],
    payloads: Mapping[str, bytes] | None = None,
) -> list[Raw]:
    """The encoded contract dicts of ``events``: those of the same event objects the table's
    last record held taken from ``cache``, the rest encoded (and kept for the next record); an
    event whose log record ``payloads`` holds (by event id) has its dict cut from it
    (`contract_bytes`) instead of encoded."""
    held = cache.get(key)
    if held is not None:
        old, raws = held
        if old is events:
            return raws
        if len(old) <= len(events) and all(map(operator.is_, old, events)):
            raws = raws + _encoded(events[len(old) :], payloads)
            cache[key] = (events, raws)
            return raws
    elif len(cache) >= MAX_TABLES:
        cache.clear()
    raws = _encoded(events, payloads)
    cache[key] = (events, raws)
    return raws


def _encoded(events: Sequence[TableEvent], payloads: Mapping[str, bytes] | None) -> list[Raw]:
    if payloads is None:
        return [Raw(FAST_WRITER.encode(to_contract(e))) for e in events]
    return [_cut_or_encoded(e, payloads.get(e.event_id)) for e in events]


def _cut_or_encoded(event: TableEvent, payload: bytes | None) -> Raw:
    cut = None if payload is None else contract_bytes(payload)
    return Raw(FAST_WRITER.encode(to_contract(event)) if cut is None else cut)


#: What a table event's log record holds besides its contract dict (`controller.codec.
#: event_to_dict`: ``to_contract`` and the version), at its sorted place: never first nor last
#: (``event_id`` sorts before it, ``type`` after), so always after a comma and before one.
_VERSION: Final = b',"schema_version":1'


def contract_bytes(payload: bytes) -> bytes | None:
    """A wager's or decision's contract dict as `fragments` encodes it, cut from its log record
    (`streams.codec.encode`'s bytes, as the native decoder gives them: sorted compact JSON of
    the contract dict and ``"schema_version":1``); None if the record does not hold the version
    once where it belongs (then `fragments` encodes the event). JSON strings escape their
    quotes, so the version's bytes cannot come from inside a value."""
    at = payload.find(_VERSION)
    end = at + len(_VERSION)
    if at < 0 or payload[end : end + 1] != b"," or payload.find(_VERSION, end) >= 0:
        return None
    return payload[:at] + payload[end:]


def prime(
    table_id: str, current: RoundState, payloads: Mapping[str, bytes], cache: Fragments = _CACHE
) -> None:
    """The fragments of ``current``'s wagers and decisions put into ``cache`` for the record
    about to be written (`table_bytes` then encodes none of them), each new one cut from its log
    record in ``payloads`` (by event id: the round lane's open table keeps them,
    `streams.scaleout.open_table`) when it is there, else encoded as `fragments` does."""
    fragments(cache, (table_id, "wagers"), current.wagers, payloads)
    fragments(cache, (table_id, "decisions"), current.decisions, payloads)


def table_bytes(record: TableRecord, cache: Fragments = _CACHE) -> bytes:
    """``record``'s changelog value: `reference_bytes`'s bytes (module docstring)."""
    try:
        out = FAST_WRITER.encode(_body(record, cache))
    except (TypeError, ValueError, OverflowError):  # a lone surrogate, a type msgspec lacks
        return reference_bytes(record)
    if out.isascii() and b"\\" not in out and b"\x7f" not in out:
        return out
    return reference_bytes(record)


def _body(record: TableRecord, cache: Fragments) -> dict[str, object]:
    """`reference_bytes`'s document, its wagers and decisions as kept fragments."""
    table = record.table
    current = table.round
    body: dict[str, object] = {
        "table": {
            "table_id": table.table_id,
            "last_seq": table.last_seq,
            "round": None
            if current is None
            else {
                "round_id": current.round_id,
                "game": current.game,
                "phase": current.phase,
                "wagers": fragments(cache, (table.table_id, "wagers"), current.wagers),
                "decisions": fragments(cache, (table.table_id, "decisions"), current.decisions),
                "contributions": current.contributions,
                "event_ids": sorted(current.event_ids),
            },
        },
        "partition": record.partition,
        "offset": record.offset,
        "recent": record.recent,
    }
    if record.owed:
        body["owed"] = record.owed
    return body


def reference_bytes(record: TableRecord) -> bytes:
    """The definition of a table record's changelog value (the core's table snapshot dict
    inside; ``owed`` only when some claim is owed, so a record without one reads as before)."""
    body = {
        "table": table_to_dict(record.table),
        "partition": record.partition,
        "offset": record.offset,
        "recent": [list(pair) for pair in record.recent],
    }
    if record.owed:
        body["owed"] = [list(owed) for owed in record.owed]
    return dumps(body)
