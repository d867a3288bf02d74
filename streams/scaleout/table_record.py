"""The round lane's state record: a table's state stamped with its last input, the ids it
accepted recently (duplicate detection, `streams.scaleout.rounds`) and the claims it still owes
(`streams.scaleout.local_apply`), with its changelog codec.

Split from `streams.scaleout.rounds` (the processor) so each stays a readable size; the
processor's module still names the codec (``rounds.table_record_to_bytes``), as the benches and
the differential harness take a lane's processor and codec from one module.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Final

from controller.model.state import TableState
from controller.snapshot import table_from_dict
from streams.scaleout.records import SourcePos, fast_builder
from streams.scaleout.table_bytes import table_bytes

RECENT_IDS = 64


@dataclass(frozen=True, slots=True)
class TableRecord:
    """A table's state as the round processor stores it, stamped with its last input."""

    table: TableState
    partition: int
    offset: int
    recent: tuple[tuple[str, str], ...] = ()  # (event_id, content digest), oldest first
    #: ``dict(recent)``, built when first needed and then handed on from record to record
    #: (`after`, `stamped`): a scan of 64 pairs per input, then a copy of the dict per input,
    #: were visible shares of the processor's time. A cache of a field, held by one record at a
    #: time: the record that hands it on forgets it (and builds it again from ``recent`` should
    #: it be asked again: a batch dropped and decided again from the stored records), so a dict
    #: one record changes is never another's.
    ids: dict[str, str] | None = field(default=None, compare=False, repr=False)
    #: (meter, table seq, step index) of the table's last claim per meter written to the
    #: meter-claims topic and maybe not applied yet: a later claim on that meter is applied in
    #: the round lane's own batch only once the meter's mark for the table reaches it
    #: (`streams.scaleout.local_apply`), else the meter lane would skip the earlier one.
    owed: tuple[tuple[str, int, int], ...] = ()

    def stamped(self, pos: SourcePos) -> TableRecord:
        return _record(
            self.table, pos.partition, pos.offset, self.recent, self._handed(), self.owed
        )

    def owing(self, owed: tuple[tuple[str, int, int], ...]) -> TableRecord:
        """This record with ``owed`` (`streams.scaleout.local_apply`), its dict of ids handed on."""
        return _record(self.table, self.partition, self.offset, self.recent, self._handed(), owed)

    def earlier(self, event_id: str) -> str | None:
        """The digest of the accepted event with this id ("" if only its id is known), or None."""
        ids = self.ids  # handed from record to record: `_ids` only when it is not held
        # the newest pair of an id wins, as in a scan back
        digest = (self._ids() if ids is None else ids).get(event_id)
        if digest is not None:
            return digest
        current = self.table.round
        return "" if current is not None and event_id in current.event_ids else None

    def _ids(self) -> dict[str, str]:
        ids = self.ids
        if ids is None:  # a record read back from its bytes, or one that handed its dict on
            ids = dict(self.recent)
            object.__setattr__(self, "ids", ids)  # a cache of a field: the record is unchanged
        return ids

    def _handed(self) -> dict[str, str] | None:
        """This record's dict of ids, now the caller's: this record forgets it."""
        ids = self.ids
        if ids is not None:
            object.__setattr__(self, "ids", None)
        return ids

    def hand_ids(self) -> dict[str, str] | None:
        """This record's dict of ids, now the caller's (`streams.scaleout.open_table`), as
        `after` hands it on; None, the record keeping it, if its pairs name an id twice (then
        `after` leaves the dict to be built again: never, as this code writes records)."""
        ids = self._ids()
        if len(ids) != len(self.recent) or len(ids) > RECENT_IDS:
            return None
        return self._handed()

    def after(self, table: TableState, pos: SourcePos, event_id: str, digest: str) -> TableRecord:
        """The next record: ``table`` and the accepted event's id with its digest, the oldest
        forgotten past `RECENT_IDS`. ``event_id`` is not among the ids (`earlier` said None)."""
        old, pair = self.recent, (event_id, digest)
        # ``(*old, pair)[-RECENT_IDS:]`` with one tuple fewer (no list, then no slice of it)
        if len(old) < RECENT_IDS:
            recent = old + (pair,)  # noqa: RUF005 - see above
        else:
            recent = old[len(old) - RECENT_IDS + 1 :] + (pair,)  # noqa: RUF005 - see above
        ids = self._ids()
        if len(ids) == len(old) <= RECENT_IDS:  # one pair per id (always, as this code writes)
            self._handed()
            ids[event_id] = digest
            if len(old) == RECENT_IDS:
                del ids[old[0][0]]
            return _record(table, pos.partition, pos.offset, recent, ids, self.owed)
        return _record(table, pos.partition, pos.offset, recent, None, self.owed)


_record: Final = fast_builder(
    TableRecord, ("table", "partition", "offset", "recent", "ids", "owed")
)
#: ``TableRecord(table, partition, offset, recent, ids, owed)``, positionally (`open_table`'s)
new_record: Final = _record


def table_record_to_bytes(record: TableRecord) -> bytes:
    """The JSON stored in the ``rounds`` table (`streams.scaleout.table_bytes.reference_bytes`:
    the core's table snapshot dict inside), each wager and decision encoded once per table
    (`streams.scaleout.table_bytes.table_bytes`)."""
    return table_bytes(record)


def table_record_from_bytes(payload: bytes) -> TableRecord:
    """The record a stored value holds."""
    raw = json.loads(payload)
    return TableRecord(
        table=table_from_dict(raw["table"]),
        partition=int(raw["partition"]),
        offset=int(raw["offset"]),
        recent=tuple((str(i), str(d)) for i, d in raw["recent"]),
        owed=tuple((str(m), int(seq), int(index)) for m, seq, index in raw.get("owed", ())),
    )
