"""A table's state record held open (mutable) across the events of one decided batch, on the
embedded engine's mutable round (`controller.fast.records`).

The round processor's reference (`RoundProcessor.process`) evolves a frozen `TableRecord` per
event: a wager rebuilt the table, its round (the wagers' tuple and the event ids' frozenset
copied whole) and the record (64 recent ids' tuple sliced and copied). Yet only the batch's last
record of a table is ever stored or read (`streams.scaleout.batch.decide` seals them at its end,
`streams.scaleout.table_bytes` encodes one per table and batch). So the worker's lane
(`OpenRoundProcessor.process_open`) opens a table's record at its first wager or decision of a
batch into the embedded engine's records (`controller.fast.records.Table` and its `Round`, with
the round's indexes), which the session's compiled deciders (`controller.fast.hot`, as
`streams.embedded` runs them) decide on and grow: a wager or decision is kept as the native
decoder's struct and frozen (`Round.freeze`) once, when anything else needs the table (a lock, a
settlement, a refusal, a duplicate) or the batch's decide ends (issue 13, branch ``k13-s24``).

Opening copies the record's round (`Table.thaw`): the record it came from (the committed state,
or a record of this batch) is never changed, so an aborted or dropped batch leaves the state as
it was (its pending records are dropped; the recent ids' dict is handed over as
`TableRecord.after` hands it, and the record that gave it builds it again if asked). A sealed
record is field for field the one the reference's chain of frozen records gives (``tests/
streams/scaleout/test_open_table.py``, ``test_procs_differential.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, cast

from controller.fast.records import Table
from controller.model.table_events import DecisionMade, WagerPlaced
from streams import native
from streams.scaleout.records import SourcePos
from streams.scaleout.table_bytes import prime
from streams.scaleout.table_read import BUILDS, read_event
from streams.scaleout.table_record import RECENT_IDS, TableRecord, new_record

#: `table_read.BUILDS`, read by `event_of`
_BUILDS: Final = cast("dict[type, Callable[[Any], Any]]", BUILDS)


def read_open(raw: bytes, hot: native.HotDecode | None) -> tuple[Any, bytes | None]:
    """`table_read.read`, a hot line's struct given as it is with its log record (the round lane
    decides a wager or decision on it: `streams.scaleout.open_rounds`); `event_of` makes its
    event. Here, not in `table_read`, because this module is compiled: called interpreted, its
    frame cost ~1.2k instructions an input (issue 13, branch ``k13-s26``)."""
    decoded = None if hot is None else hot(raw)
    if decoded is None:
        return read_event(raw), None
    return decoded


def event_of(item: Any) -> Any:
    """The frozen event of a struct `read_open` gave (``item`` itself if it is an event), here
    because this module is compiled: called interpreted, its frame cost ~1k instructions a
    struct, once for every sealed wager and decision and every input that is not grown (issue
    13, branch ``k13-s26``)."""
    build = _BUILDS.get(type(item))
    return item if build is None else build(item)


class OpenTable:
    """A table's record open in a batch: its table and round the session's mutable records
    (`table`), its ids and position growing in place, the rest as read."""

    __slots__ = ("ids", "offset", "owed", "partition", "payloads", "recent", "table", "table_id")

    def __init__(self, record: TableRecord, current_ids: dict[str, str]) -> None:
        """``record`` opened (its round must be there); ``current_ids``: its dict of ids, now
        this table's (the caller took it with `TableRecord.hand_ids`)."""
        self.table = Table.thaw(record.table)
        self.table_id = record.table.table_id
        self.partition, self.offset = record.partition, record.offset
        self.recent: list[tuple[str, str]] = list(record.recent)
        self.ids = current_ids
        self.owed = record.owed
        #: the log record of each wager and decision grown here, by event id (`logs`): the
        #: changelog's fragments are cut from them at `seal` (`table_bytes.prime`)
        self.payloads: dict[str, bytes] = {}

    def earlier(self, event_id: str) -> str | None:
        """`TableRecord.earlier`: the digest of an accepted event with this id, "" if only its
        id is known to the round, else None."""
        digest = self.ids.get(event_id)
        if digest is not None:
            return digest
        current = self.table.round
        return "" if current is not None and event_id in current.indexed().event_ids else None

    def took(self, event_id: str, pos: SourcePos, digest: str) -> None:
        """`TableRecord.after` of a wager or decision the session's decider accepted into
        `table` (its round and ``last_seq`` moved there; its id not among the ids: `earlier`
        said None)."""
        self.partition, self.offset = pos.partition, pos.offset
        recent, ids = self.recent, self.ids
        recent.append((event_id, digest))
        ids[event_id] = digest
        if len(recent) > RECENT_IDS:  # the oldest forgotten, as `after` slices it off
            del ids[recent.pop(0)[0]]

    def logs(self, event_id: str, payload: bytes) -> None:
        """Keep a wager's or decision's log record (``payload``: `streams.codec.encode`'s
        bytes) for the changelog's record written at the batch's end (`seal`)."""
        self.payloads[event_id] = payload

    def opens(self) -> None:
        """A new round took the table's (`open_rounds._kept`): the old round's records go."""
        self.payloads.clear()

    def owing(self, owed: tuple[tuple[str, int, int], ...]) -> OpenTable:
        """`TableRecord.owing`, in place (`streams.scaleout.local_apply`)."""
        self.owed = owed
        return self

    def seal(self) -> TableRecord:
        """The frozen record the reference would hold now (`Table.freeze`: each wager and
        decision kept as a struct frozen here); this table is done with (its dict of ids goes to
        the record)."""
        ids, self.ids = self.ids, {}
        current = self.table.round
        if current is not None:  # each struct's event built as `table_read` builds it
            wagers, decisions = current.wagers, current.decisions
            current.wagers = [w if type(w) is WagerPlaced else event_of(w) for w in wagers]
            current.decisions = [d if type(d) is DecisionMade else event_of(d) for d in decisions]
        state = self.table.freeze()
        if state.round is not None and self.payloads:  # its fragments from the log records
            prime(self.table_id, state.round, self.payloads)
        return new_record(state, self.partition, self.offset, tuple(self.recent), ids, self.owed)


def opened(record: TableRecord) -> OpenTable | None:
    """``record`` open, or None if it cannot be: no current round, or its ids not one pair per
    id (`TableRecord.after` then leaves the dict to be built again: the reference's way)."""
    if record.table.round is None:
        return None
    ids = record.hand_ids()
    return None if ids is None else OpenTable(record, ids)


def sealed(record: TableRecord | OpenTable | None) -> TableRecord | None:
    """The frozen record of what a batch holds for a key."""
    if isinstance(record, OpenTable):
        return record.seal()
    return record
