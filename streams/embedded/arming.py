"""Arming the embedded engine's mystery levels: a trigger drawn at the edge, or unsealed again.

The core stays pure (`controller.mystery`): the secure draw happens here and reaches it as an
`ArmMystery` command, and after a restart the sealed trigger of every armed level is opened with
the engine's key (`streams.embedded.mystery`). Both are refused with the reason when the key is
missing, before anything is logged: a level that cannot hit is never armed.
"""

from __future__ import annotations

from controller.floor import decide, evolve_many
from controller.model.errors import RuleViolation
from controller.model.events import Event, EventRejected
from controller.model.state import FloorState
from controller.mystery import sealed_unknown, unarmed, with_trigger
from streams.embedded.mystery import draw, unseal


def unsealed(state: FloorState, key: bytes | None) -> FloorState:
    """The state knowing every armed mystery trigger again (after a restart), with the key."""
    for meter_id, commitment, sealed in sealed_unknown(state):
        if key is None:
            msg = (
                f"mystery level {meter_id!r} is armed: the engine needs its sealing key "
                "(serve --mystery-key FILE)"
            )
            raise RuleViolation(msg)
        trigger, salt = unseal(key, commitment, sealed)
        state = with_trigger(state, meter_id, trigger, salt)
    return state


def armed(state: FloorState, key: bytes | None, now: str) -> tuple[FloorState, tuple[Event, ...]]:
    """Arm every mystery level waiting for a trigger (at activation, after each hit): the state
    after the armings and the events that record them."""
    if state.config is None or not unarmed(state):
        return state, ()
    if key is None:  # refused before anything is logged: never a level that cannot hit
        msg = "the floor has a mystery level: the engine needs a sealing key (--mystery-key)"
        raise RuleViolation(msg)
    events: list[Event] = []
    for meter_id in unarmed(state):
        command = draw(
            state.config.meters[meter_id],
            key,
            occurred_at=now,
            command_id=f"arm-{meter_id}-{state.meters[meter_id].seq}",
        )
        produced = decide(state, command)
        if isinstance(produced[0], EventRejected):  # a bug, never a reason to stop ingest
            continue
        state = evolve_many(state, produced)
        state = with_trigger(state, meter_id, command.trigger_cents, command.salt)
        events.extend(produced)
    return state, tuple(events)
