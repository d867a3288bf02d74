"""A table's state record held open (mutable) across the events of one decided batch.

The round processor's reference (`RoundProcessor.process`) evolves a frozen `TableRecord` per
event: a wager rebuilt the table, its round (the wagers' tuple and the event ids' frozenset
copied whole) and the record (64 recent ids' tuple sliced and copied): ~13.5k instructions of
the ~150k a table event costs the worker (`next_table` 8.0k, `TableRecord.after` 5.5k; docs/
kafka.md "Speed"). Yet only the batch's last record of a table is ever stored or read
(`streams.scaleout.batch.decide` seals them at its end, `streams.scaleout.table_bytes` encodes
one per table and batch). So the worker's lane (`OpenRoundProcessor.process_open`) opens a table's
record at its first accepted wager or decision of a batch: lists and a set it appends to, and
seals it into the frozen record once, when anything else needs the table (a lock, a settlement,
a refusal, a duplicate) or the batch's decide ends.

Opening copies the record's tuples: the record it came from (the committed state, or a record
of this batch) is never changed, so an aborted or dropped batch leaves the state as it was
(its pending records are dropped; the recent ids' dict is handed over as `TableRecord.after`
hands it, and the record that gave it builds it again if asked). A sealed record is field for
field the one the reference's chain of frozen records gives (``tests/streams/scaleout/
test_open_table.py``).
"""

from __future__ import annotations

from typing import Final

from controller.fast.lane import Entry
from controller.model.state import RoundState, TableState
from controller.model.table_events import DecisionMade, WagerPlaced
from streams.scaleout.records import SourcePos, fast_builder
from streams.scaleout.table_record import RECENT_IDS, TableRecord, new_record

#: `controller.fast.lane`'s positional makers of the two states, as `next_table` builds them
_ROUND: Final = fast_builder(
    RoundState,
    ("round_id", "game", "phase", "wagers", "decisions", "contributions", "event_ids"),
)
_TABLE: Final = fast_builder(TableState, ("table_id", "last_seq", "round"))


class OpenTable:
    """A table's record open in a batch: the round's growing parts mutable, the rest as read.
    It is its own round (`round` is itself) so `controller.fast.lane`'s checks read it as a
    `TableState` (its `TableView`)."""

    __slots__ = (
        "contributions", "decisions", "event_ids", "game", "ids", "last_seq", "offset", "owed",
        "partition", "phase", "recent", "round_id", "table_id", "wagers",
    )  # fmt: skip

    def __init__(self, record: TableRecord, current_ids: dict[str, str]) -> None:
        """``record`` opened (its round must be there); ``current_ids``: its dict of ids, now
        this table's (the caller took it with `TableRecord._handed`)."""
        table = record.table
        current = table.round
        assert current is not None  # `opened` opens only a table with a round
        self.table_id, self.last_seq = table.table_id, table.last_seq
        self.round_id, self.game, self.phase = current.round_id, current.game, current.phase
        self.wagers: list[WagerPlaced] = list(current.wagers)
        self.decisions: list[DecisionMade] = list(current.decisions)
        self.contributions: tuple[Entry, ...] = current.contributions
        self.event_ids: set[str] = set(current.event_ids)
        self.partition, self.offset = record.partition, record.offset
        self.recent: list[tuple[str, str]] = list(record.recent)
        self.ids = current_ids
        self.owed = record.owed

    @property
    def round(self) -> OpenTable:
        """The current round (`controller.fast.lane.RoundView`): this table itself."""
        return self

    def earlier(self, event_id: str) -> str | None:
        """`TableRecord.earlier`: the digest of an accepted event with this id, "" if only its
        id is known to the round, else None."""
        digest = self.ids.get(event_id)
        if digest is not None:
            return digest
        return "" if event_id in self.event_ids else None

    def took(self, event: WagerPlaced | DecisionMade, pos: SourcePos, digest: str) -> None:
        """`next_table` of an accepted wager or decision, then `TableRecord.after` (its id not
        among the ids: `earlier` said None). One method for both: a call less an event."""
        if isinstance(event, WagerPlaced):
            self.wagers.append(event)
        else:
            self.decisions.append(event)
        event_id = event.event_id
        self.event_ids.add(event_id)
        self.last_seq, self.partition, self.offset = event.seq, pos.partition, pos.offset
        recent, ids = self.recent, self.ids
        recent.append((event_id, digest))
        ids[event_id] = digest
        if len(recent) > RECENT_IDS:  # the oldest forgotten, as `after` slices it off
            del ids[recent.pop(0)[0]]

    def owing(self, owed: tuple[tuple[str, int, int], ...]) -> OpenTable:
        """`TableRecord.owing`, in place (`streams.scaleout.local_apply`)."""
        self.owed = owed
        return self

    def seal(self) -> TableRecord:
        """The frozen record the reference would hold now; this table is done with (its dict
        of ids goes to the record)."""
        current = _ROUND(
            self.round_id, self.game, self.phase, tuple(self.wagers), tuple(self.decisions),
            self.contributions, frozenset(self.event_ids),
        )  # fmt: skip
        table = _TABLE(self.table_id, self.last_seq, current)
        ids, self.ids = self.ids, {}
        return new_record(table, self.partition, self.offset, tuple(self.recent), ids, self.owed)


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
