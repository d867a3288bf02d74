"""Operator commands: configuration, corrections and the life of a hit. Each names who and why.

Table events are the other kind of input (`controller.model.table_events`). Authentication happens
at the
edge; the core records the ``by`` it is given and enforces the order of a hit's life.

``idempotency_key`` and ``request_digest`` are the caller's ``Idempotency-Key`` and a digest of
the request it came with; the core copies both into the event it records (accepted or refused),
so the edge can recognise a retry from the log alone, after a restart too.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class ActivateConfig:
    """Bring a floor configuration (TOML text) into force."""

    command_id: str
    source: str
    text: str
    by: str
    occurred_at: str
    replaces: int = 0
    """The version of the pending (scheduled) change this one replaces: a pending change is
    replaced only by naming it, never silently."""
    idempotency_key: str = ""
    request_digest: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class CorrectMeter:
    """An authorised, reasoned correction of a meter or its reserve, in sub-units (may be
    negative)."""

    command_id: str
    meter_id: str
    amount_delta_sub: int
    reserve_delta_sub: int
    by: str
    reason: str
    occurred_at: str
    second_by: str = ""
    """The second supervisor of a correction above the configured cap (dual control)."""
    idempotency_key: str = ""
    request_digest: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ValidateHit:
    """A floorperson or above validates a recognised hit (649a.11(c)(5)(iii))."""

    command_id: str
    hit_id: str
    by: str
    occurred_at: str
    idempotency_key: str = ""
    request_digest: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class PayHit:
    """A validated hit is paid with documentation (649a.11(c)(5)(iv))."""

    command_id: str
    hit_id: str
    by: str
    occurred_at: str
    idempotency_key: str = ""
    request_digest: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class TransferMeter:
    """Move a meter's whole pool (amount, reserve, overflow) to another meter and retire it: a game
    leaves the floor (PA 44 Pa.B. 599; Indiana 68 IAC 2-6-33). Dual control: ``by`` and
    ``approved_by`` are two different supervisors; the edge authenticates both."""

    command_id: str
    meter_id: str
    to_meter_id: str
    by: str
    approved_by: str
    reason: str
    occurred_at: str
    idempotency_key: str = ""
    request_digest: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ArmMystery:
    """Fix a mystery level's next trigger. The edge draws ``trigger_cents`` uniformly in
    [reset, must_hit_by) and ``salt`` from the operating system's secure source, and seals both
    (``sealed``) under its key; the core stays pure and records only the commitment and the seal."""

    command_id: str
    meter_id: str
    trigger_cents: int
    salt: str
    sealed: str
    occurred_at: str
    by: str = "system"
    idempotency_key: str = ""
    """Empty: the engine issues it itself, never an HTTP caller (kept beside the other operator
    commands' fields so every `OperatorCommand` is handled alike)."""
    request_digest: str = ""


OperatorCommand = ActivateConfig | CorrectMeter | ValidateHit | PayHit | TransferMeter | ArmMystery
