"""Floor state as a plain dict and back, for snapshots (a restart replays only the log's tail).

The per-table and per-meter codecs are public: the Kafka processors keep exactly these dicts in
their state stores.

A snapshot is a cache, never a source of truth: the engine checks its checksum and, if it fails or
does not decode, rebuilds from the log. The configuration is kept as the `ConfigActivated` event it
came from, so it is re-parsed exactly as a replay would.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

from immutables import Map

from controller.codec import event_from_dict, event_to_dict
from controller.config.floor import logged_config
from controller.model.events import ConfigActivated, ConfigChangeScheduled
from controller.model.state import FloorState, HitState, MeterState, RoundState, TableState
from controller.model.table_events import DecisionMade, WagerPlaced, from_contract, to_contract

SNAPSHOT_VERSION = 1


def state_to_dict(state: FloorState) -> dict[str, Any]:
    """Everything needed to resume deciding exactly where the log left off."""
    return {
        "snapshot_version": SNAPSHOT_VERSION,
        "config_event": event_to_dict(state.config_event) if state.config_event else None,
        "pending_config": event_to_dict(state.pending_config) if state.pending_config else None,
        "tables": [table_to_dict(t) for t in state.tables.values()],
        "meters": [meter_to_dict(m) for m in state.meters.values()],
        "hits": [dataclasses.asdict(h) for h in state.hits.values()],
    }


def table_to_dict(table: TableState) -> dict[str, Any]:
    current = table.round
    return {
        "table_id": table.table_id,
        "last_seq": table.last_seq,
        "round": None
        if current is None
        else {
            "round_id": current.round_id,
            "game": current.game,
            "phase": current.phase,
            "wagers": [to_contract(w) for w in current.wagers],
            "decisions": [to_contract(d) for d in current.decisions],
            "contributions": [list(c) for c in current.contributions],
            "event_ids": sorted(current.event_ids),
        },
    }


def state_from_dict(raw: dict[str, Any]) -> FloorState:
    """The state a snapshot describes; KeyError/TypeError/ValueError if it is malformed."""
    if raw.get("snapshot_version") != SNAPSHOT_VERSION:
        msg = f"snapshot version {raw.get('snapshot_version')!r} is not {SNAPSHOT_VERSION}"
        raise ValueError(msg)
    state = FloorState()
    config_raw = raw["config_event"]
    if config_raw is not None:
        event = event_from_dict(config_raw)
        assert isinstance(event, ConfigActivated)
        if hashlib.sha256(event.text.encode()).hexdigest() != event.digest:
            msg = "the snapshot's configuration text does not match its digest"
            raise ValueError(msg)
        config = logged_config(event.digest, event.text, event.source)
        state = FloorState(config=config, config_version=event.version, config_event=event)
    pending_raw = raw.get("pending_config")
    if pending_raw is not None:
        pending = event_from_dict(pending_raw)
        assert isinstance(pending, ConfigChangeScheduled)
        state = dataclasses.replace(state, pending_config=pending)
    tables = Map({t["table_id"]: table_from_dict(t) for t in raw["tables"]})
    meters = Map({m["meter_id"]: meter_from_dict(m) for m in raw["meters"]})
    hits = Map({h["hit_id"]: HitState(**h) for h in raw["hits"]})
    return dataclasses.replace(state, tables=tables, meters=meters, hits=hits)


def table_from_dict(raw: dict[str, Any]) -> TableState:
    current = raw["round"]
    round_state = None
    if current is not None:
        wagers = tuple(from_contract(w) for w in current["wagers"])
        decisions = tuple(from_contract(d) for d in current["decisions"])
        round_state = RoundState(
            round_id=current["round_id"],
            game=current["game"],
            phase=current["phase"],
            wagers=tuple(w for w in wagers if isinstance(w, WagerPlaced)),
            decisions=tuple(d for d in decisions if isinstance(d, DecisionMade)),
            contributions=tuple((c[0], c[1], c[2]) for c in current["contributions"]),
            event_ids=frozenset(current["event_ids"]),
        )
    return TableState(table_id=raw["table_id"], last_seq=raw["last_seq"], round=round_state)


def meter_to_dict(meter: MeterState) -> dict[str, Any]:
    """A meter's state as a plain dict (integers, and the open rounds as lists)."""
    out = {f.name: getattr(meter, f.name) for f in dataclasses.fields(meter)}
    out["open_rounds"] = {table: list(entry) for table, entry in meter.open_rounds.items()}
    # An armed mystery trigger stays sealed in a snapshot, as in the log (`controller.mystery`).
    out["mystery_trigger_cents"], out["mystery_salt"] = -1, ""
    return out


def meter_from_dict(raw: dict[str, Any]) -> MeterState:
    """The meter state a dict describes."""
    fields = dict(raw)
    rounds = fields.pop("open_rounds", {})
    entries = {table: (str(e[0]), int(e[1]), int(e[2])) for table, e in rounds.items()}
    return MeterState(**fields, open_rounds=Map(entries))
