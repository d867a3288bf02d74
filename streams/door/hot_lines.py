"""The native decoder of the door's four hot kinds, made in one place.

A round opened, a wager, the lock and a decision are most of a floor's traffic. When the native
extension runs (`streams.native.hot_decoder`, ``src/hot_decode.rs``), one pass over such a line in
Rust answers the door's contract struct and the event's log record, or None for anything unusual
(then the door decodes the line as before). The decoder must answer as the door does, so it is
given the door's own structs, literal spellings, unset markers and line limit; both engines that
read hot lines (`streams.embedded.lines`, `streams.scaleout.table_read`) make theirs here, each its
own instance, so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, get_args

from msgspec import UNSET

from streams import native
from streams.door.contract_structs import (
    CARD_TEXTS,
    OWN_UNSAID,
    TARGET_TEXTS,
    Action,
    DecisionStruct,
    Game,
    RoundOpenedStruct,
    WagerPlacedStruct,
    WagersLockedStruct,
)
from streams.door.fast_core import FAST_LINE_LIMIT

#: The kinds the native decoder answers, in the order it is given them.
HOT_KINDS: Final = (RoundOpenedStruct, WagerPlacedStruct, WagersLockedStruct, DecisionStruct)
#: The contract's games, actions, wager targets and cards, in the order the decoder takes them.
_LITERALS: Final = (get_args(Game), get_args(Action), TARGET_TEXTS, CARD_TEXTS)


def hot_decoder() -> native.HotDecode | None:
    """A new native decoder of the hot lines, or None if this process does not run the extension
    (then every line goes the door's way)."""
    return native.hot_decoder(HOT_KINDS, _LITERALS, (UNSET, OWN_UNSAID), FAST_LINE_LIMIT)


def hot_heads_decoder() -> native.HotHeads | None:
    """`hot_decoder`'s decoder answering the struct's ``event_id``, ``table_id`` and
    ``occurred_at`` as well (`streams.embedded.lines` reads them of every hot line)."""
    return native.hot_heads_decoder(HOT_KINDS, _LITERALS, (UNSET, OWN_UNSAID), FAST_LINE_LIMIT)


def hot_walker(
    deciders: tuple[Callable[..., Any], ...],
    builders: tuple[Callable[..., Any], Callable[..., Any]],
) -> native.HotWalker | None:
    """`native.hot_walker` over this module's decoder (`streams.embedded.lines` walks a batch's
    hot lines with it): ``deciders`` one a kind of `HOT_KINDS`, in its order."""
    return native.hot_walker(HOT_KINDS, _LITERALS, (UNSET, OWN_UNSAID), FAST_LINE_LIMIT,
                             deciders, builders)  # fmt: skip
