"""What `streams.embedded.lines` decides with, made once at its import: the hot kinds' deciders
and plans, the native decoder of their lines and the native walk of a batch's common hot lines.
Kept out of the compiled `lines` (run once, interpreted here)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.fast.hot import Decider
from controller.model.table_events import DecisionMade, RoundOpened, WagerPlaced, WagersLocked
from streams import native
from streams.codec.writer import TABLE_PLANS, Plan
from streams.door.contract_structs import (
    DecisionStruct,
    RoundOpenedStruct,
    WagerPlacedStruct,
    WagersLockedStruct,
)
from streams.door.hot_lines import HOT_KINDS, hot_heads_decoder, hot_walker

Hot = dict[type, tuple[Decider, Plan]]


def hot_kinds(direct: dict[type, Decider]) -> Hot:
    """The kinds decided on their struct (``direct``: `streams.door.fast_core.DIRECT`): the
    session's decider and the record's plan (none if the writer does not know the kind's shape:
    then every line of it takes the parse)."""
    events: dict[type, type] = {
        RoundOpenedStruct: RoundOpened,
        WagerPlacedStruct: WagerPlaced,
        WagersLockedStruct: WagersLocked,
        DecisionStruct: DecisionMade,
    }
    plans = TABLE_PLANS
    return {s: (d, plans[events[s]]) for s, d in direct.items() if events[s] in plans}


def decoder(hot: Hot) -> native.HotHeads | None:
    """The native decoder of the hot lines (`streams.door.hot_lines`), if this process runs the
    extension and ``hot`` decides all four kinds on their structs."""
    if any(kind not in hot for kind in HOT_KINDS):
        return None
    return hot_heads_decoder()


def walker(
    hot: Hot, decoded: bool, builders: tuple[Callable[..., Any], Callable[..., Any]]
) -> native.HotWalker | None:
    """The native walk of a batch's common hot lines (`streams.native.hot_walker`, over a
    decoder of its own), deciding with ``hot``'s deciders and answering and recording with
    ``builders`` (`batch.new_answer`, `batch.new_record`), if this process runs the extension
    and decodes the hot lines natively (``decoded``), else None."""
    if not decoded:
        return None
    return hot_walker(tuple(hot[kind][0] for kind in HOT_KINDS), builders)
