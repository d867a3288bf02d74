"""The engine's compact snapshot (version 2): the frozen state written and read by msgspec.

Version 1 (`controller.snapshot.state_to_dict`) stores each round's wagers and decisions as contract
dicts and the configuration as its TOML text, so a restart re-checks every stored event
(`from_contract`) and re-parses the configuration: seconds at 10,000 tables. A snapshot is a
cache the store's checksum already guards, so version 2 stores the state's own fields and
msgspec builds the frozen dataclasses back directly, the parsed configuration included; what
stays checked is the configuration text against its digest. A configuration msgspec cannot
write (a field type it does not know) is stored as None and parsed from its text on load.
Version 1 snapshots still load.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from fractions import Fraction
from typing import Any

import msgspec
from immutables import Map

from controller.config.floor import FloorConfig, load_floor_config
from controller.model.events import ConfigActivated, ConfigChangeScheduled
from controller.model.state import FloorState, HitState, MeterState, TableState
from controller.snapshot import state_from_dict, state_to_dict

VERSION = 2
# Both versions start with their version (the writers put it first), however the JSON is spaced.
_VERSION_2 = re.compile(rb'\s*\{\s*"snapshot_version"\s*:\s*2\s*[,}]')


class _Meter(msgspec.Struct, kw_only=True):
    """`MeterState` with its open rounds as a plain dict."""

    meter_id: str
    amount_sub: int
    reserve_sub: int
    seeded_sub: int
    contributed_sub: int
    contributions: int
    paid_sub: int
    corrected_sub: int
    hits: int
    seq: int
    overflow_sub: int
    transferred_sub: int
    retired: bool
    mystery_commitment: str
    mystery_sealed: str
    mystery_trigger_cents: int
    mystery_salt: str
    open_rounds: dict[str, tuple[str, int, int]]


class _Snapshot(msgspec.Struct, kw_only=True):
    snapshot_version: int
    config_event: ConfigActivated | None
    config_version: int
    config: FloorConfig | None
    pending_config: ConfigChangeScheduled | None
    tables: dict[str, TableState]
    meters: list[_Meter]
    hits: list[HitState]


class _Loaded(msgspec.Struct, kw_only=True):
    """`_Snapshot` as read: each table kept as its raw JSON, decoded when first needed."""

    snapshot_version: int
    config_event: ConfigActivated | None
    config_version: int
    config: FloorConfig | None
    pending_config: ConfigChangeScheduled | None
    tables: dict[str, msgspec.Raw]
    meters: list[_Meter]
    hits: list[HitState]


def _encode_hook(value: object) -> object:
    if isinstance(value, Fraction):
        return str(value)
    msg = f"cannot store a {type(value).__name__}"
    raise NotImplementedError(msg)


def _decode_hook(kind: type, value: Any) -> object:
    if kind is Fraction and isinstance(value, str):
        return Fraction(value)
    msg = f"cannot read a {kind.__name__}"
    raise NotImplementedError(msg)


_ENCODER = msgspec.json.Encoder(enc_hook=_encode_hook)
_DECODER = msgspec.json.Decoder(_Loaded, dec_hook=_decode_hook)
_TABLE = msgspec.json.Decoder(TableState)


def decode_table(raw: bytes | msgspec.Raw) -> TableState:
    """One table of a version 2 snapshot."""
    return _TABLE.decode(raw)


def _shapes_known() -> bool:
    """Whether version 2 writes every field of the state: another part of the rules may add
    fields to the meters or the floor; until this module learns them, snapshots stay version 1
    (`controller.snapshot`, which writes every field), never a version 2 that drops one."""
    meter_fields = {f.name for f in dataclasses.fields(MeterState)} - {"open_rounds"}
    floor_fields = {f.name for f in dataclasses.fields(FloorState)}
    return meter_fields == set(_Meter.__struct_fields__) - {"open_rounds"} and floor_fields == {
        "config",
        "config_version",
        "config_event",
        "pending_config",
        "tables",
        "meters",
        "hits",
    }


_SHAPES_KNOWN = _shapes_known()
_METER_FIELDS = tuple(name for name in _Meter.__struct_fields__ if name != "open_rounds")


def encode_snapshot(state: FloorState) -> bytes:
    """The state as a version 2 snapshot (version 1 if the state has fields it does not know)."""
    if not _SHAPES_KNOWN:
        return json.dumps(state_to_dict(state), separators=(",", ":")).encode()
    meters = [
        _Meter(
            **{name: getattr(m, name) for name in _METER_FIELDS},
            open_rounds=dict(m.open_rounds.items()),
        )
        for m in state.meters.values()
    ]
    for meter in meters:  # an armed mystery trigger stays sealed, as in the log and version 1
        meter.mystery_trigger_cents, meter.mystery_salt = -1, ""
    snapshot = _Snapshot(
        snapshot_version=VERSION,
        config_event=state.config_event,
        config_version=state.config_version,
        config=state.config,
        pending_config=state.pending_config,
        tables=dict(state.tables.items()),
        meters=meters,
        hits=list(state.hits.values()),
    )
    try:
        return _ENCODER.encode(snapshot)
    except (NotImplementedError, TypeError):  # a configuration field msgspec cannot write
        return _ENCODER.encode(msgspec.structs.replace(snapshot, config=None))


def decode_snapshot(blob: bytes) -> FloorState:
    """The state a snapshot (version 2, or 1) describes; ValueError if it does not hold."""
    state, tables = load_snapshot(blob)
    try:
        decoded = {table_id: decode_table(raw) for table_id, raw in tables.items()}
    except msgspec.DecodeError as exc:
        msg = f"the snapshot does not decode: {exc}"
        raise ValueError(msg) from exc
    return _with_tables(state, decoded)


def _with_tables(state: FloorState, tables: dict[str, TableState]) -> FloorState:
    mutation = state.tables.mutate()
    for table_id, table in tables.items():
        mutation[table_id] = table
    return FloorState(
        config=state.config,
        config_version=state.config_version,
        config_event=state.config_event,
        pending_config=state.pending_config,
        tables=mutation.finish(),
        meters=state.meters,
        hits=state.hits,
    )


def load_snapshot(blob: bytes) -> tuple[FloorState, dict[str, msgspec.Raw]]:
    """The state a snapshot describes without its version 2 tables, and those tables still as
    raw JSON by table id (decoded on first use: `controller.fast.Session` takes them so), so a
    restart is back in service once the configuration and the meters are. ValueError if the
    snapshot does not hold."""
    if not _VERSION_2.match(blob):
        return state_from_dict(json.loads(blob)), {}
    try:
        raw = _DECODER.decode(blob)
    except msgspec.DecodeError as exc:
        msg = f"the snapshot does not decode: {exc}"
        raise ValueError(msg) from exc
    event, config = raw.config_event, raw.config
    if event is not None:
        if hashlib.sha256(event.text.encode()).hexdigest() != event.digest:
            msg = "the snapshot's configuration text does not match its digest"
            raise ValueError(msg)
        if config is None:
            config = load_floor_config(event.text, event.source)
    elif config is not None:
        msg = "the snapshot holds a configuration but not the event that activated it"
        raise ValueError(msg)
    meters = {
        m.meter_id: MeterState(
            **{name: getattr(m, name) for name in _METER_FIELDS},
            open_rounds=Map(m.open_rounds),
        )
        for m in raw.meters
    }
    state = FloorState(
        config=config,
        config_version=raw.config_version,
        config_event=event,
        pending_config=raw.pending_config,
        meters=Map(meters),
        hits=Map({h.hit_id: h for h in raw.hits}),
    )
    return state, raw.tables
