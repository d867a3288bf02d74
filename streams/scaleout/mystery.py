"""Must-hit-by ("mystery") levels on the Kafka engine: the draw, the seal and the unseal at the
meter processor, the edge (GLI-12 mystery progressives; N.J.A.C. 13:69E-1.39B; `controller.mystery`
holds the pure rules, `streams.embedded.mystery` the secure draw and the seal both engines use).

- **Arming**: when a mystery meter is seeded, and at the first operation after a hit that is not
  from the hit's own table event (the embedded engine arms "before the next input", so the rest of
  the winning lock cannot win again), the processor draws a trigger uniformly in whole cents in
  [reset, must_hit_by) with `secrets` (the OS's secure source), seals it with the salt under the
  mystery key, and lets the core check and record it (`controller.mystery.arm`). `MysteryArmed`
  (commitment and seal only) goes to the events topic in the batch's transaction.
- **Sealed in the changelog**: the meter's changelog record is the core's snapshot dict, which
  keeps the commitment and the seal and blanks the trigger (`controller.snapshot.meter_to_dict`);
  a reader of any topic sees ciphertext only. A worker that takes the partition over (a restart,
  a SIGKILL, a rebalance) unseals it with the same key before the meter's next operation, checked
  against the commitment, so the hit after a restart reveals the trigger committed before it.
- **The draw is never seen unless committed**: an aborted batch's arming is invisible; the batch is
  decided again after the restore and draws afresh (nobody saw the first draw).
"""

from __future__ import annotations

from immutables import Map

from controller.config.floor import FloorConfig
from controller.model.errors import ConfigError, RuleViolation
from controller.model.events import MysteryArmed
from controller.model.state import FloorState, MeterState, fast_replace
from controller.mystery import arm, commitment_of, evolve_mystery
from streams.embedded.mystery import draw, unseal


class MysteryEdge:
    """Draws, seals and unseals the triggers of one floor's mystery levels with one key."""

    def __init__(self, config: FloorConfig, key: bytes) -> None:
        self._config, self._key = config, key

    def known(self, meter: MeterState) -> MeterState:
        """``meter`` knowing its armed trigger (unsealed from the changelog's seal if need be).

        A key that cannot open the seal is a deployment error (every worker of a prefix needs the
        same ``--mystery-key``): `ConfigError`, which stops the worker rather than guess."""
        if not meter.mystery_commitment or meter.mystery_trigger_cents >= 0:
            return meter
        try:
            trigger, salt = unseal(self._key, meter.mystery_commitment, meter.mystery_sealed)
        except RuleViolation as exc:
            raise ConfigError(
                "--mystery-key",
                f"meters.{meter.meter_id}",
                f"the key that sealed its armed trigger ({exc})",
            ) from exc
        if commitment_of(trigger, salt) != meter.mystery_commitment:
            raise ConfigError(
                "--mystery-key", f"meters.{meter.meter_id}", "a seal matching its commitment"
            )
        return fast_replace(meter, mystery_trigger_cents=trigger, mystery_salt=salt)

    def arm(self, meter: MeterState, occurred_at: str) -> tuple[MeterState, MysteryArmed]:
        """A fresh trigger drawn for ``meter``, recorded by the core; the meter knows it."""
        command = draw(
            self._config.meters[meter.meter_id],
            self._key,
            occurred_at=occurred_at,
            command_id=f"arm:{meter.meter_id}@{meter.seq}",
        )
        state = FloorState(config=self._config, meters=Map({meter.meter_id: meter}))
        armed = arm(state, command)  # the core's checks: range, salt, not armed already
        meter = evolve_mystery(meter, armed)
        known = fast_replace(
            meter, mystery_trigger_cents=command.trigger_cents, mystery_salt=command.salt
        )
        return known, armed
