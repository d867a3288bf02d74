"""The floor configuration: progressive definitions, meters, tables and settlement policies.

Progressive paytables are data, not code, because a certificate holder selects paytables in its
Rules
Submission (649a.12(e)(1): "one of the following paytables selected by the certificate holder"). The
configuration is TOML text; parsing it is pure (``tomllib.loads``), so the core can re-read a
configuration that the event log carries. A wrong configuration is refused with a `ConfigError` that
names the file, the key and what was expected. Structure (see
``examples/pa-three-card-poker.toml``)::

    [policy]                              settlement choices the rule texts leave open
    [progressives.<id>]                   a paytable: hand, seed/reseed "for 1", rates, pays, envy
    [meters.<id>]                         a meter: which progressive it runs, optional ceiling and
                                          overflow ("carry" or "divert:<meter_id>")
    [tables.<id>]                         game, seats, wager unit, and wager -> meter links
    [communication]                       optional: table_silence_limit_seconds (default 30)
    [controls]                            optional: correction_cap, dual_control_from
    venue = "..."; name = "..."           optional names players read on signs (`display`)

Bounded (issue 15): the text at most `MAX_CONFIG_TEXT` characters and nested at most as deep as
the parser can go, every number checked by shape before it is read, every amount within the
event contract's money bounds, and a level's primary plus reserve rate at most 100% of the wager.
"""

from __future__ import annotations

import tomllib

from controller.config.checks import check_link_targets, check_links
from controller.config.defs import FloorConfig, MeterDef, Policy, ProgressiveDef, TableDef
from controller.config.display import display_name, toml_error
from controller.config.parts import (
    Award,
    Communication,
    ConfigReader,
    Controls,
    parse_award,
    parse_communication,
    parse_controls,
)
from controller.config.sections import read_meters, read_policy, read_progressive, read_table
from controller.model.errors import ConfigError

__all__ = [
    "Award",
    "Communication",
    "Controls",
    "FloorConfig",
    "MeterDef",
    "Policy",
    "ProgressiveDef",
    "TableDef",
    "forget_logged_configs",
    "load_floor_config",
    "logged_config",
    "parse_award",
]

#: 8 MiB: a floor of 10,000 tables and 1,000 meters is about 2.9 MB of TOML (`bench/scale.py`).
MAX_CONFIG_TEXT = 8 * 1_048_576


#: Parsed configurations by digest. Parsing is pure, so a memo changes no result; it only keeps a
#: replay, a restart or a reconciliation from parsing the same logged text once per activation.
_PARSED: dict[str, tuple[str, str, FloorConfig]] = {}
_PARSED_KEPT = 16


def logged_config(digest: str, text: str, source: str) -> FloorConfig:
    """The configuration a logged event holds (its text, its digest): parsed once per digest.

    The log keeps the text for audit; the parsed form is looked up by the digest, and the text is
    compared too, so a record whose digest does not match its text is never served another's."""
    hit = _PARSED.get(digest)
    if hit is not None and hit[0] == text and hit[1] == source:
        return hit[2]
    config = load_floor_config(text, source)
    if len(_PARSED) >= _PARSED_KEPT:
        _PARSED.pop(next(iter(_PARSED)))
    _PARSED[digest] = (text, source, config)
    return config


def forget_logged_configs() -> None:
    """Empty the memo of `logged_config`, as a fresh process has it (benchmarks of a restart)."""
    _PARSED.clear()


def load_floor_config(text: str, source: str) -> FloorConfig:
    """Parse and check a floor configuration; raise ConfigError naming ``source`` and the key."""
    if len(text) > MAX_CONFIG_TEXT:
        raise ConfigError(source, "(file)", f"at most {MAX_CONFIG_TEXT} characters of TOML")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where, what = toml_error(str(exc))
        raise ConfigError(source, where, f"not valid TOML: {what}") from exc
    except RecursionError as exc:  # arrays or inline tables nested thousands deep
        raise ConfigError(source, "(file)", "TOML nested less deeply") from exc
    root = ConfigReader(source, "", data)
    known = {
        *("policy", "progressives", "meters", "tables", "communication", "controls"),
        *("version", "title", "venue"),
    }
    root.only_keys(known)
    policy = read_policy(root.table("policy", required=False))
    progressives = {
        pid: read_progressive(root.table("progressives").table(pid), pid)
        for pid in root.table("progressives").names()
    }
    table_sections = root.table("tables")
    tables = {tid: read_table(table_sections.table(tid), tid) for tid in table_sections.names()}
    check_link_targets(root.table("tables"), tables, set(root.table("meters").names()))
    meters = read_meters(root.table("meters"), progressives, tables)
    check_links(root.table("tables"), tables, meters)
    return FloorConfig(
        source=source,
        policy=policy,
        progressives=progressives,
        meters=meters,
        tables=tables,
        communication=parse_communication(root.table("communication", required=False)),
        controls=parse_controls(root.table("controls", required=False)),
        venue=display_name(root, "venue"),
    )
