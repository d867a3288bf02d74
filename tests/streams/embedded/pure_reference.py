"""The engine's log held to the pure reference: the readable `decide`/`evolve` of `controller`.

The engine's differential suites compare `submit_lines` and `submit` with
`reference_submit.ReferenceController`, main's intake, which steps the same fast
`controller.fast.Session`: a fault shared by both (a builder, a compiled step) passes there. This
check owes nothing to the fast path. It reads the engine's log back (`streams.codec.decode`) and
folds it with the pure core: each accepted table event is decided again by
`controller.floor.decide` on the state the reference reached so far, and must be followed in the
log by exactly the events that decision produces (the contributions, hits, awards and Envy of
649a.12 and its siblings); every other record (the configuration, refusals, the edge's arming
events) is folded by `evolve`. The fold must end in the engine's own state.
"""

from __future__ import annotations

from controller.evolve import evolve_many
from controller.floor import decide
from controller.model.events import Event
from controller.model.state import FloorState
from controller.model.table_events import TableEventBase
from streams.codec import decode
from streams.embedded.intake import Outcome
from streams.ports import EventLog


def assert_log_is_the_pure_reference(log: EventLog, state: FloorState) -> set[str]:
    """Fold ``log`` with the pure core, re-deciding each accepted table event; require ``state``
    at the end. The ids of the table events decided again (a caller holds them to its answers)."""
    events: list[Event] = [decode(record.payload) for record in log.read()]
    reference, index, decided = FloorState(), 0, set()
    while index < len(events):
        event = events[index]
        if isinstance(event, TableEventBase):
            produced = decide(reference, event)
            logged = tuple(events[index : index + len(produced)])
            assert logged == produced, _first_difference(index, logged, produced)
            decided.add(event.event_id)
        else:
            produced = (event,)
        reference = evolve_many(reference, produced)
        index += len(produced)
    assert reference == state
    return decided


def assert_accepted_were_decided(decided: set[str], outcomes: list[list[Outcome]]) -> None:
    """Every accepted event but a heartbeat (noted for liveness, never logged) was decided again
    by the pure core, and nothing else was (`tests.streams.embedded.test_batch_differential`
    names its heartbeats ``hb-``)."""
    accepted = {o.event_id for batch in outcomes for o in batch if o.status == "accepted"}
    assert decided == {event_id for event_id in accepted if not event_id.startswith("hb-")}


def _first_difference(index: int, logged: tuple[Event, ...], produced: tuple[Event, ...]) -> str:
    """Where the log leaves the reference: one pair of events, not the whole decision."""
    for offset, (ours, theirs) in enumerate(zip(logged, produced, strict=False)):
        if ours != theirs:
            return f"log position {index + offset + 1}: logged {ours}, the reference {theirs}"
    return f"log position {index + 1}: {len(logged)} events logged, the reference {len(produced)}"
