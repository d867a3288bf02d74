"""How `streams.adapters.sqlite` packs records into rows, and how a row is read back (issue 14).

A row holds one *head* record and, in its ``tail`` column, the records without a dedupe id that
were appended right after it in the same call (the records the engine derives from that input:
contributions, awards, reversals). One row an input instead of 1.41 is what makes the engine's
durable ingest cheaper: SQLite's cost is mostly per row (its B-tree insert, its record header),
not per byte.

Positions do not change: the head keeps its position (the INTEGER PRIMARY KEY), its tail records
take the next ones (``position + 1 .. position + k``) and the next row starts after them, so the
key simply skips them. Every read expands a row into the very records, at the very positions, an
unpacked log holds. The row's ``chain`` is the chain hash of its *last* record (the head's when
there is no tail): each record is still linked one by one (`streams.adapters.chain.link`, the
dedupe id of a tail record being ""), so a packed log's chain hash at a row's end is the one an
unpacked log stores there, and a changed, dropped, added or reordered tail record breaks it.

Encoding of ``tail``: MessagePack, one array of ``[key, received_at, payload]`` arrays (str, str,
bin) in position order; its length is the row's number of tail records. No tail: the integer 0
(NULL in rows written before issue 14). Not NULL, because `sqlite3` binds an int as it is but
looks for an adapter for a None (~0.3 µs a row, which every row of an append-only log would pay);
for the same reason a tail is bound as a bytearray (read back as bytes, the same blob).

A row's tail is chained and packed in one call once the row is complete (`link_tail`): natively
when the extension runs (``streams/native/src/tail.rs``: the framing and the MessagePack in Rust,
the hashes still `hashlib.sha256`'s), else by `_link_tail`; ``tests/streams/native/test_tail.py``
holds the two equal.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Any

import msgspec

from controller.model.errors import LogTampered
from streams import native
from streams.adapters.chain import link
from streams.ports import LogRecord, StoredRecord

Tail = list[tuple[str, str, bytes]]
"""A row's tail records as ``(key, received_at, payload)``, in position order."""

_ENCODER = msgspec.msgpack.Encoder()
ENCODE_TAIL = _ENCODER.encode
_DECODER = msgspec.msgpack.Decoder(Tail)


def pack_rows(
    batch: Sequence[LogRecord], position: int, last: bytes, *, pack: bool = True
) -> tuple[list[list[Any]], bytes]:
    """The rows for ``batch`` after ``position`` and the chain hash after it: a record with
    a dedupe id (or the batch's first) starts a row; one without joins the row before as
    its tail (`streams.adapters.sqlite_rows`), unless ``pack`` is False. A row's tail is
    chained and packed in one call when its row is complete (`link_tail`)."""
    rows: list[list[Any]] = []
    row: list[Any] = []
    tail: Tail = []
    for record in batch:
        position += 1
        dedupe, key, received = record.dedupe_id, record.key, record.received_at
        if dedupe or not pack or not rows:
            if tail:
                last = _close(row, tail, last)
                tail = []
            last = link(last, position, (key, dedupe, received), record.payload)
            row = [position, key, record.payload, dedupe or None, received, last, 0]
            rows.append(row)
        else:
            tail.append((key, received, record.payload))
    if tail:
        last = _close(row, tail, last)
    return rows, last


def _close(row: list[Any], tail: Tail, previous: bytes) -> bytes:
    """Chain ``row``'s ``tail`` on from ``previous`` (the hash after its head), store the hash
    after it and the tail's blob in the row, and give that hash."""
    last, blob = link_tail(previous, row[0], tail)
    row[5], row[6] = last, blob
    return last


def _link_tail(previous: bytes, head: int, tail: Tail) -> tuple[bytes, bytearray]:
    """The chain hash after the tail records of the row at ``head`` (at ``head + 1 ..``, each
    linked with an empty dedupe id) and the tail's blob (`ENCODE_TAIL`'s bytes), as a
    bytearray: `sqlite3` binds a bytearray as it is but looks for an adapter for a bytes
    (~3k instructions a row under cachegrind, bench/PROPOSALS.md)."""
    for offset, (key, received, payload) in enumerate(tail, start=1):
        previous = link(previous, head + offset, (key, "", received), payload)
    blob = bytearray()
    _ENCODER.encode_into(tail, blob)
    return previous, blob


def _native_link_tail() -> Callable[[bytes, int, Tail], tuple[bytes, bytearray]]:
    """`_link_tail` natively when this process runs the extension (``src/tail.rs``: the same
    hashes by the same `hashlib.sha256`, the framing and the MessagePack written in Rust, ~5k
    instructions a tail record less), else `_link_tail`."""
    native_link = native.tail_linker()
    if native_link is None:
        return _link_tail
    return partial(native_link, hashlib.sha256)


#: How `pack_rows` chains and packs a row's tail (`_native_link_tail`).
link_tail = _native_link_tail()


def tail_of(position: int, blob: bytes | int | None) -> Tail:
    """The tail records of the row at ``position`` ([] for none); LogTampered if the column does
    not hold a tail (written by hand: the product only writes 0 or what `ENCODE_TAIL` makes)."""
    if not blob:
        return []
    try:
        if not isinstance(blob, bytes):
            raise msgspec.DecodeError(f"a {type(blob).__name__}, not a blob")
        return _DECODER.decode(blob)
    except msgspec.MsgspecError as exc:
        raise LogTampered(position, f"the records packed after it cannot be read ({exc})") from exc


def expand(
    row: tuple[int, str, bytes, str, bytes | int | None], after: int
) -> Iterator[StoredRecord]:
    """The records of one row ``(position, key, payload, received_at, tail)`` after ``after``."""
    position, key, payload, received, blob = row
    if position > after:
        yield StoredRecord(position, key, bytes(payload), received)
    if blob:
        for offset, (tail_key, tail_received, tail_payload) in enumerate(tail_of(position, blob)):
            at = position + 1 + offset
            if at > after:
                yield StoredRecord(at, tail_key, tail_payload, tail_received)


def link_row(
    previous: bytes,
    row: tuple[int, str, str | None, str, bytes],
    tail: Tail,
    until: int | None = None,
) -> bytes:
    """The chain hash after the row ``(position, key, dedupe_id, received_at, payload)`` and its
    ``tail`` (or after its record at position ``until`` only), from the hash before the row."""
    position, key, dedupe, received, payload = row
    last = link(previous, position, (key, dedupe or "", received), bytes(payload))
    for offset, (tail_key, tail_received, tail_payload) in enumerate(tail, start=1):
        if until is not None and position + offset > until:
            break
        last = link(last, position + offset, (tail_key, "", tail_received), tail_payload)
    return last
