"""The round lane's grown inputs walked natively: `walker` makes the extension's `GrowWalk`
(``streams/native/src/grow_walk.rs``) for an `OpenRoundProcessor`, which
`streams.scaleout.batch.decide` calls on each run of records of a partition (`Lane.walk`).

Most of a floor's table events are wagers and decisions that grow a table's record held open
in the batch (`streams.scaleout.open_rounds`, ``_grown``). For each, the loop and
`process_open` made ~20 calls from compiled code (the message's six methods, the key's text,
the source position, `_read`, `_grown`, `_opened`, `earlier`, the digest, `took`, `logs`, two
outputs, a `Processed`, the lists' appends), ~35k instructions an input of which the decoder,
the decider and the digest are ~15k. The walk makes the same decisions in one native call a run
of records, handing back to the loop at the first record that is anything else (the module
docstring of ``grow_walk.rs`` lists the checks), so the loop's outputs, outcomes, records and
progress are the ones it would have made itself (``tests/streams/scaleout/test_grow_walk.py``:
`decide` with and without the walk, byte for byte, on disturbed floors).
"""

from __future__ import annotations

from typing import Any, get_args

from msgspec import UNSET

from streams import native
from streams.door.contract_structs import CARD_TEXTS, OWN_UNSAID, TARGET_TEXTS, Action, Game
from streams.door.fast_core import FAST_LINE_LIMIT
from streams.door.hot_lines import HOT_KINDS
from streams.scaleout.heard import new_heard
from streams.scaleout.open_rounds import OpenRoundProcessor, grew
from streams.scaleout.open_table import OpenTable
from streams.scaleout.records import output, source_pos
from streams.scaleout.store import Walk


def walker(processor: OpenRoundProcessor) -> Walk | None:
    """The native walk of ``processor``'s grown inputs, or None: the extension is not running,
    the door's structs are not the decoder's (`native.HOT_FIELDS`), or the processor decodes
    with another decoder (`OpenRoundProcessor.grow_parts`). The walk decodes with a decoder of
    its own made as `streams.door.hot_lines` makes the processor's (`table_read.HOT`)."""
    module = native.load()
    parts = processor.grow_parts()
    shapes = tuple(tuple(sorted(getattr(cls, "__struct_fields__", ()))) for cls in HOT_KINDS)
    if module is None or parts is None or shapes != native.HOT_FIELDS:
        return None
    session, deciders, events, liveness = parts
    literals = (get_args(Game), get_args(Action), TARGET_TEXTS, CARD_TEXTS)
    decoder = module.HotDecoder(list(HOT_KINDS), literals, UNSET, OWN_UNSAID, FAST_LINE_LIMIT)
    by_kind = [deciders.get(kind) for kind in HOT_KINDS]
    if not any(by_kind):
        return None
    builders: tuple[Any, ...] = (grew, source_pos, output, new_heard)
    made = module.GrowWalk(decoder, by_kind, OpenTable, session, builders, (events, liveness))
    walk: Walk = made.walk
    return walk
