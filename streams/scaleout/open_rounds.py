"""The round processor as the worker runs it: a table's record held open across a batch, its
wagers and decisions decided on the embedded engine's mutable round.

`RoundProcessor.process` is the readable reference, one frozen `TableRecord` in and one out per
input. Most inputs are wagers and decisions that change only the current round, so the worker's
lane (`OpenRoundProcessor.process_open`) opens the table's record (`streams.scaleout.open_table`:
the session's `controller.fast.records.Table`) and has the session's compiled deciders
(`controller.fast.hot`, through `streams.door.fast_core.DIRECT`, as the embedded engine decides
its hot lines) decide those on the native decoder's struct, no frozen event built per input
(issue 13, branch ``k13-s24``); everything else, and anything a decider is not sure of, is
`process` on the sealed record. `streams.scaleout.batch.decide` seals what is still open when
the batch is decided, so the loop, the changelog and restores only ever see `TableRecord`s. The
differential harness (``tests/streams/scaleout/test_open_table.py``,
``test_procs_differential.py``) holds the two byte-equal.
"""

from __future__ import annotations

from typing import Any, Final, cast

from controller.config.floor import FloorConfig
from controller.fast.hot import Decider, _head, decide_decision, decide_open, decide_wager
from controller.fast.lane import Entry, claims_of
from controller.fast.records import KNOWN_SHAPES
from controller.fast.session import Session
from controller.model.errors import RuleViolation
from controller.model.state import FloorState
from controller.model.table_events import (
    DecisionMade,
    RoundOpened,
    RoundSettled,
    TableEvent,
    WagerPlaced,
    WagersLocked,
)
from controller.rules.table import TableStep
from streams.adapters.kafka.topics import TopicNames
from streams.codec import encode
from streams.door.contract_structs import DecisionStruct, WagerPlacedStruct
from streams.door.fast_core import DIRECT
from streams.native import HotDecode
from streams.scaleout import table_read
from streams.scaleout.heard import new_heard
from streams.scaleout.open_table import OpenTable, event_of, opened, read_open, sealed
from streams.scaleout.records import Processed, SourcePos, output, processed
from streams.scaleout.rounds import RoundProcessor, digest_of
from streams.scaleout.table_record import TableRecord


def _deciders() -> dict[type, Decider]:
    """The kinds grown into an open table, with the session's decider of each: a wager's or a
    decision's struct (`fast_core.DIRECT`) or frozen event (`hot`, without the extension). None
    if the session's records do not know the events' fields (`records.KNOWN_SHAPES`)."""
    if not KNOWN_SHAPES:
        return {}
    found: dict[type, Decider] = {WagerPlaced: decide_wager, DecisionMade: decide_decision}
    for kind in (WagerPlacedStruct, DecisionStruct):
        decider = DIRECT.get(kind)
        if decider is not None:
            found[kind] = decider
    return found


_DECIDERS: Final = _deciders()
#: The kinds decided on the open table besides wagers and decisions (`_kept`), as frozen events.
_KEPT: Final = frozenset((WagersLocked, RoundSettled, RoundOpened)) if KNOWN_SHAPES else frozenset()


def grew(table: OpenTable, event_id: str, pos: SourcePos, payload: bytes) -> None:
    """What `OpenRoundProcessor._grown` does to the open table of a wager or decision its
    decider accepted (its digest and position taken, its log record kept), for the native walk
    of the worker's grown inputs (`streams.scaleout.grow`): one compiled call."""
    table.took(event_id, pos, digest_of(payload))
    table.logs(event_id, payload)


class OpenRoundProcessor(RoundProcessor):
    """`RoundProcessor` with the worker's lane, `process_open`."""

    def __init__(
        self, config: FloorConfig, names: TopicNames, hot: HotDecode | None = table_read.HOT
    ) -> None:
        super().__init__(config, names, hot)
        #: the open tables' session: the floor's configuration and no state (`_grown` puts the
        #: table it decides on into its ``tables``)
        self._session = Session(FloorState(config=config))

    def grow_parts(self) -> tuple[Session, dict[type, Decider], str, str] | None:
        """What the native walk of this lane's grown inputs needs (`streams.scaleout.grow`):
        the session, the deciders by struct class, the events and liveness topics; None if
        this processor reads its lines with another decoder than `table_read.HOT`'s (the walk
        decodes as that one does)."""
        if self._hot is None or self._hot is not table_read.HOT:
            return None
        return self._session, _DECIDERS, self._events, self._liveness

    def process_open(
        self, record: TableRecord | OpenTable | None, key: str | None, raw: bytes, pos: SourcePos
    ) -> Processed[TableRecord | OpenTable]:
        """`process`, the worker's way (`streams.scaleout.open_table`): a wager or decision the
        session's decider accepts grows the table's open record in place and returns it (opened
        from ``record`` if it is frozen); anything else is `process` on the sealed record. The
        caller seals what is open when its batch is decided (`streams.scaleout.batch.decide`)."""
        if record is not None and record.partition == pos.partition and pos.offset <= record.offset:
            return Processed("redelivered", None)
        try:
            item, payload = self._read(raw, key)
        except RuleViolation as exc:
            shut = sealed(record)
            refused = self._reject(shut, key=key, raw=raw, reason=str(exc), pos=pos, event=None)
            return cast("Processed[TableRecord | OpenTable]", refused)
        if record is not None:
            decider = _DECIDERS.get(type(item))
            if decider is not None:
                done = self._grown(record, item, payload, pos, decider)
                if done is not None:
                    return done
        event = event_of(item)
        if record is not None and type(event) in _KEPT:
            done = self._kept(record, cast(TableEvent, event), payload, pos)
            if done is not None:
                return done
        frozen = self._event(sealed(record), key, raw, pos, (event, payload))
        return cast("Processed[TableRecord | OpenTable]", frozen)  # read-only: a record is one

    def _read(self, raw: bytes, key: str | None) -> tuple[Any, bytes | None]:
        """`_parse`, a hot line's struct left as it is (`open_table.read_open`)."""
        item, payload = read_open(raw, self._hot)
        if key != item.table_id:
            self._wrong_key(key, item.table_id)
        return item, payload

    def _grown(
        self,
        record: TableRecord | OpenTable,
        item: Any,
        payload: bytes | None,
        pos: SourcePos,
        decider: Decider,
    ) -> Processed[TableRecord | OpenTable] | None:
        """A wager or decision (``item``: its struct or frozen event) the session's ``decider``
        accepted into the open table (None: not surely, nothing changed, or it cannot open):
        `_accept`'s outputs for an event with no steps. An id known already (`earlier`) is left
        to `_event`, which tells a duplicate from a reused id."""
        event_id: str = item.event_id
        table = self._opened(record, event_id)
        if table is None:
            return None
        session, table_id = self._session, table.table_id
        if decider(session, item) is None:
            return None  # `hot`: an answer of None changed nothing
        encoded = encode(cast(TableEvent, item)) if payload is None else payload
        grew(table, event_id, pos, encoded)
        outputs = (
            output(self._events, table_id, encoded, event_id),
            new_heard(self._liveness, table_id, "event", event_id, pos),
        )
        return processed("accepted", table, outputs)

    def _kept(
        self,
        record: TableRecord | OpenTable,
        event: TableEvent,
        payload: bytes | None,
        pos: SourcePos,
    ) -> Processed[TableRecord | OpenTable] | None:
        """A lock, settlement or opening decided and applied on the open table, as `_event`
        then `_accept` would on its sealed record (None: not surely accepted, nothing changed,
        or it cannot open; `_event` then decides): a lock's claims (`lane.claims_of` over the
        round's `settled_wagers`), a settlement's steps (`FastSettle.open_steps`, the session's
        `sure_steps` on the mutable round), an opening by the session's `hot.decide_open`. So a
        round's wagers and decisions are never frozen unless the batch ends with the round in
        the table (`OpenTable.seal`). An id known already is left to `_event`."""
        event_id = event.event_id
        table = self._opened(record, event_id)
        if table is None:
            return None
        mutable, kind = table.table, type(event)
        if kind is RoundOpened:
            if decide_open(self._session, cast(RoundOpened, event)) is None:
                return None
            table.opens()
            steps: tuple[TableStep, ...] = ()
        else:
            found = self._open_steps(event)
            if found is None:
                return None
            steps = found
        encoded = encode(event) if payload is None else payload
        contributed: list[tuple[str, Entry]] = []
        outputs = self._outputs(event, steps, pos, encoded, contributed)
        current = mutable.round
        if kind is not RoundOpened and current is not None:  # `next_table`, in place
            current.phase = "locked" if kind is WagersLocked else "settled"
            current.event_ids.add(event_id)
            current.contributions.extend(entry for _, entry in contributed)
            mutable.last_seq = event.seq
        table.took(event_id, pos, digest_of(encoded))
        return processed("accepted", table, tuple(outputs))

    def _opened(self, record: TableRecord | OpenTable, event_id: str) -> OpenTable | None:
        """The table's record opened for an input (from ``record`` if it is frozen) and put
        where the session's deciders read it; None for an id known already (`earlier`: left to
        `_event`, which tells a duplicate from a reused id) or a record that cannot open."""
        if record.earlier(event_id) is not None:
            return None
        table = record if type(record) is OpenTable else opened(cast(TableRecord, record))
        if table is not None:
            self._session.tables[table.table_id] = table.table  # what `hot._head_of` reads
        return table

    def _open_steps(self, event: TableEvent) -> tuple[TableStep, ...] | None:
        """A lock's claims or a settlement's steps decided on the open table the session holds,
        None if not sure: the session's own checks first (`hot._head`: a known table, its
        current round named, a newer seq, an id not seen in the round), then a lock's open
        phase (`lane.lock_claims`' checks, on the mutable round)."""
        head = _head(self._session, event)
        if head is None:
            return None
        facts, _table, current = head
        if type(event) is RoundSettled:
            return self._settle.open_steps(facts, current, event)
        if current.phase != "open":
            return None
        lock = cast(WagersLocked, event)
        return claims_of(self._config, facts.definition, lock, current.settled_wagers())
