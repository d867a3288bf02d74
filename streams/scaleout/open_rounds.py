"""The round processor as the worker runs it: a table's record held open across a batch.

`RoundProcessor.process` is the readable reference, one frozen `TableRecord` in and one out per
input. Most inputs are wagers and decisions that change only the current round, so the worker's
lane (`OpenRoundProcessor.process_open`) grows an open, mutable record in place for those
(`streams.scaleout.open_table`) and hands everything else to `process` on the sealed record;
`streams.scaleout.batch.decide` seals what is still open when the batch is decided, so the loop,
the changelog and restores only ever see `TableRecord`s. The differential harness
(``tests/streams/scaleout/test_open_table.py``) holds the two byte-equal.
"""

from __future__ import annotations

from typing import cast

from controller.fast.lane import decision_accepted, wager_accepted
from controller.fast.views import TableView
from controller.model.errors import RuleViolation
from controller.model.table_events import DecisionMade, WagerPlaced
from streams.codec import encode
from streams.scaleout.heard import new_heard
from streams.scaleout.open_table import OpenTable, opened, sealed
from streams.scaleout.records import Processed, SourcePos, output, processed
from streams.scaleout.rounds import DIGEST, RoundProcessor
from streams.scaleout.table_record import TableRecord


class OpenRoundProcessor(RoundProcessor):
    """`RoundProcessor` with the worker's lane, `process_open`."""

    def process_open(
        self, record: TableRecord | OpenTable | None, key: str | None, raw: bytes, pos: SourcePos
    ) -> Processed[TableRecord | OpenTable]:
        """`process`, the worker's way (`streams.scaleout.open_table`): an accepted wager or
        decision the fast lane is sure of grows the table's open record in place and returns
        it (opened from ``record`` if it is frozen); anything else is `process` on the sealed
        record. The caller seals what is open when its batch is decided
        (`streams.scaleout.batch.decide`)."""
        if record is not None and record.partition == pos.partition and pos.offset <= record.offset:
            return Processed("redelivered", None)
        try:
            event, payload = self._parse(raw, key)
        except RuleViolation as exc:
            shut = sealed(record)
            refused = self._reject(shut, key=key, raw=raw, reason=str(exc), pos=pos, event=None)
            return cast("Processed[TableRecord | OpenTable]", refused)
        if record is not None and isinstance(event, (WagerPlaced, DecisionMade)):
            done = self._grown(record, event, payload, pos)
            if done is not None:
                return done
        frozen = self._event(sealed(record), key, raw, pos, (event, payload))
        return cast("Processed[TableRecord | OpenTable]", frozen)  # read-only: a record is one

    def _grown(
        self,
        record: TableRecord | OpenTable,
        event: WagerPlaced | DecisionMade,
        payload: bytes | None,
        pos: SourcePos,
    ) -> Processed[TableRecord | OpenTable] | None:
        """A wager or decision accepted into the open table (None: not surely, or it cannot
        open): `_accept`'s outputs for an event with no steps. An id known already (`earlier`)
        is left to `_event`, which tells a duplicate from a reused id."""
        event_id, config = event.event_id, self._config
        if record.earlier(event_id) is not None:
            return None
        view: TableView = record.table if isinstance(record, TableRecord) else record
        if isinstance(event, WagerPlaced):
            if not wager_accepted(config, view, event):  # `controller.fast.lane`
                return None
        elif not decision_accepted(config, view, event):
            return None
        table = record if isinstance(record, OpenTable) else opened(record)
        if table is None:
            return None
        encoded = encode(event) if payload is None else payload
        hashed = DIGEST.copy()  # as `_event` digests it
        hashed.update(encoded)
        table.took(event, pos, hashed.hexdigest())
        table_id = event.table_id
        outputs = (
            output(self._events, table_id, encoded, event_id),
            new_heard(self._liveness, table_id, "event", event_id, pos),
        )
        return processed("accepted", table, outputs)
