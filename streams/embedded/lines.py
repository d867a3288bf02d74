"""A batch of JSON lines decided on the door's structs: `decide_batch`'s answers, no dict.

`EmbeddedController.submit` takes parsed items: each is converted to the door's checked struct
(`msgspec.convert` from a dict), then to a frozen `TableEvent`, then decided and encoded. For the
four kinds that are ~96% of a floor's lines (a round opened, a wager, the lock, a decision) this
module decodes the line straight into its struct (`streams.door.fast_core.decode_vouched`, in
C), lets the session decide on the struct as it stands (`controller.fast.hot`'s deciders, as
`streams.door.fast_core.run_lines` does), and writes its log record from the struct
(`streams.codec.writer.TABLE_PLANS`: the frozen event's plan, reading the same fields). No dict,
no frozen event, unless something reads it (a refusal's dead letter parses the line again, as
`submit` would have had it; a listener gets `recorded` events). When the native extension runs,
those four kinds are first read by its decoder (`streams.native.hot_decoder`: the same struct
and the record's payload from one pass over the line, or None for anything unusual, and then
`decode_vouched` reads the line as before).

The checks and their order are `streams.embedded.batch`'s: the submitter's scope, the duplicate
check, the received-time bound, the core's verdict. Every other line (a settlement, a void, a
heartbeat) is decided on the frozen event its struct holds (`decide_checked`, the line parsed
only for a refusal's dead letter); a line the struct decode does not vouch for is parsed by
`parse_json_line` and decided by `decide_item`, exactly as `submit` decides it; a line that is
not one JSON object is dead-lettered in its place with the parser's reason and the line's text.
``tests/streams/embedded/test_lines_differential.py`` holds `submit_lines` to the reference
`submit` over the parsed lines: same answers, records (bytes), state and liveness.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, cast, final

import msgspec

from controller.fast import Session
from controller.model.errors import RuleViolation
from controller.model.events import ContributionRecorded, Event
from controller.model.table_events import (
    DecisionMade,
    RoundOpened,
    TableEventBase,
    WagerPlaced,
    WagersLocked,
)
from streams import native
from streams.codec import encode, record_key
from streams.codec.writer import TABLE_PLANS, Plan
from streams.door.contract_structs import (
    DecisionStruct,
    RoundOpenedStruct,
    RoundSettledStruct,
    RoundStruct,
    WagerPlacedStruct,
    WagersLockedStruct,
)
from streams.door.fast_core import DIRECT, Emitted, decode_vouched, recorded, settled_event
from streams.door.fast_decode import round_event, table_event
from streams.door.hot_lines import HOT_KINDS, hot_heads_decoder
from streams.door.json_lines import parse_json_line
from streams.embedded.batch import (
    Context,
    Decided,
    answer_verdict,
    answered_before,
    decide_checked,
    decide_item,
    fixed_session,
    new_record,
)
from streams.embedded.intake import refuse
from streams.embedded.received import before_second, utc_second, vouched_ahead_reason

Decider = Callable[[Session, Any], tuple[Event, ...] | None]
_WRITE: Final = msgspec.json.Encoder(order="sorted")  # `streams.codec.encode`'s writer
#: The native writer of a vouched hot line's payload (`streams.native`), if this process runs it.
_NATIVE: Final = native.payload_writer()
#: The native writer of a contribution's record, if this process runs it and the class still has
#: the fields it writes (``src/contribution.rs``).
_CONTRIBUTION: Final = native.contribution_writer(ContributionRecorded)
_CONTRIBUTED: Final = ContributionRecorded  # read a record, from a C static (`batch.new_record`)


def _hot() -> dict[type, tuple[Decider, Plan]]:
    """The kinds decided on their struct (`streams.door.fast_core.DIRECT`): the session's
    decider and the record's plan (none if the writer does not know the kind's shape: then
    every line of it takes the parse)."""
    events: dict[type, type] = {
        RoundOpenedStruct: RoundOpened,
        WagerPlacedStruct: WagerPlaced,
        WagersLockedStruct: WagersLocked,
        DecisionStruct: DecisionMade,
    }
    plans = TABLE_PLANS
    return {s: (d, plans[events[s]]) for s, d in DIRECT.items() if events[s] in plans}


_HOT: Final = _hot()


def _decoder() -> native.HotHeads | None:
    """The native decoder of the hot lines (`streams.door.hot_lines`), if this process runs the
    extension and decides all four kinds on their structs."""
    if any(kind not in _HOT for kind in HOT_KINDS):
        return None
    return hot_heads_decoder()


#: ``(struct, payload, event_id, table_id, occurred_at)`` of a hot line the door vouches for,
#: natively (None: ask the door).
_DECODE: Final = _decoder()


def decide_lines(
    lines: list[bytes], names: Sequence[str], logged: dict[str, bytes] | None, ctx: Context
) -> Decided:
    """`decide_batch` of the lines' items (see the module's docstring); a line the reader
    refuses is named in its reason by ``names`` ("line 12" for the reader's "line"), if given."""
    out, seen, asked = Decided(), dict(logged or {}), logged is not None
    hot, fast = _HOT, _DECODE
    batch = (_Reread(b""), utc_second(ctx.latest), fixed_session(ctx))  # `_hot_line`'s
    for index, line in enumerate(lines):
        decoded = None if fast is None else fast(line)
        if decoded is not None:  # a hot line, read natively with its payload and head
            known, payload, event_id, table_id, occurred_at = decoded
            if _refused(out, line, table_id, ctx):
                continue
            heads, kind = (event_id, table_id, occurred_at), hot[type(known)]
            _hot_line(out, line, known, kind, seen, ctx=ctx, asked=asked, payload=payload,
                      heads=heads, batch=batch)  # fmt: skip
            continue
        struct = decode_vouched(line)
        entry = hot.get(type(struct))
        if struct is None:
            name = names[index] if names else ""
            _parsed_line(out, line, seen, ctx, asked=asked, name=name)
        elif entry is None:  # a settlement, a void or a heartbeat: decided on its frozen event
            settled = type(struct) is RoundSettledStruct  # its event built compiled
            command = settled_event(cast(Any, struct)) if settled else table_event(struct)
            decide_checked(out, _Reread(line), command, seen, ctx, asked=asked)
        else:
            head = cast(RoundStruct, struct)
            _door_hot_line(out, line, head, entry, seen, ctx=ctx, asked=asked, batch=batch)
    return out


def _door_hot_line(
    out: Decided,
    line: bytes,
    head: RoundStruct,
    entry: tuple[Decider, Plan],
    seen: dict[str, bytes],
    *,
    ctx: Context,
    asked: bool,
    batch: tuple[_Reread, str, Session | None],
) -> None:
    """`_hot_line` of a hot line the door decoded (no native decoder, or one that left the line
    to the door): the scope checked before the payload is written for nothing."""
    table_id = head.table_id
    if _refused(out, line, table_id, ctx):
        return
    payload = _payload(line, head, entry[1])
    heads = (head.event_id, table_id, head.occurred_at)
    _hot_line(out, line, head, entry, seen, ctx=ctx, asked=asked, payload=payload, heads=heads,
              batch=batch)  # fmt: skip


def items_of(lines: list[bytes]) -> list[object]:
    """What `submit` would be handed for the lines (a line that is no JSON object: its text)."""
    items: list[object] = []
    for line in lines:
        try:
            items.append(parse_json_line(line))
        except RuleViolation:
            items.append(_text(line))
    return items


def _text(line: bytes) -> str:
    return line.decode("utf-8", "replace")


def _parsed_line(
    out: Decided, line: bytes, seen: dict[str, bytes], ctx: Context, *, asked: bool, name: str
) -> None:
    try:
        raw = parse_json_line(line)
    except RuleViolation as exc:  # the reader says "line:"; the caller may say which
        reason = str(exc).replace("line: ", f"{name}: ", 1) if name else str(exc)
        out.add(*refuse(_text(line), reason, ctx.clock), ctx.now)
        return
    decide_item(out, raw, seen, ctx, asked=asked)


@final
class _Reread:
    """``partial(parse_json_line, line)`` for a line decided on its struct: what a refusal's
    dead letter holds, parsed only if one is written. A class of its own because, compiled, it
    costs a fraction of `functools.partial` (~1k instructions an event less:
    bench/PROPOSALS.md); one a settlement line, one a batch for the hot lines (its line set)."""

    __slots__ = ("line",)

    def __init__(self, line: bytes) -> None:
        self.line = line

    def __call__(self) -> object:
        return parse_json_line(self.line)


def _refused(out: Decided, line: bytes, table_id: str, ctx: Context) -> bool:
    """Whether the submitter's scope refuses a hot line's table (`batch.decide_checked`'s first
    check): then it is dead-lettered with the line parsed, before anything else is done for it
    (its payload written, its id de-duplicated, its event decided)."""
    refusal = ctx.scope(table_id) if ctx.scope is not None else ""
    if refusal:
        out.add(*refuse(parse_json_line(line), refusal, ctx.clock), ctx.now)
    return bool(refusal)


def _hot_line(
    out: Decided,
    line: bytes,
    struct: RoundStruct,
    entry: tuple[Decider, Plan],
    seen: dict[str, bytes],
    *,
    ctx: Context,
    asked: bool,
    payload: bytes,
    heads: tuple[str, str, str],
    batch: tuple[_Reread, str, Session | None],
) -> None:
    """`batch.decide_item` of the line's item, on its struct, its scope already allowed
    (`_refused`; a refusal parses the line):
    ``payload`` its record's bytes, ``heads`` its ``event_id``, ``table_id`` and
    ``occurred_at`` (read once, by the native decoder when it ran), ``batch`` the batch's
    `_Reread` (pointed at this line: a refusal calls it at once and keeps only what it gives),
    `utc_second` of its ``ctx.latest`` and its `batch.fixed_session`."""
    decider = entry[0]
    raw, second, fixed = batch
    raw.line = line
    event_id, table_id, occurred_at = heads
    if answered_before(out, raw, seen, ctx, event_id=event_id, table_id=table_id, payload=payload):
        return
    before = before_second(occurred_at, second)  # else asked in full, as `_table_event` asks
    ahead = "" if before else vouched_ahead_reason(occurred_at, ctx.latest)
    session = ctx.session() if fixed is None else fixed
    produced = () if ahead else _decide(session, struct, decider)
    verdict = (ahead, produced)
    ids = (event_id, table_id, payload)
    if answer_verdict(out, raw, seen, ctx, verdict=verdict, asked=asked, ids=ids):
        # `ctx.arm` gives nothing while the session's configuration is the quiet one (deciding
        # a table event replaces neither the session nor its configuration)
        quiet = ctx.quiet is not None and session.config is ctx.quiet
        armings = () if quiet else ctx.arm()
        logged = (*produced, *armings) if armings else produced  # no copy of a tuple for none
        start = 0
        if produced[0] is struct:  # its record from the payload, keyed by its table
            out.records.append(new_record(table_id, payload, event_id, ctx.now))
            start = 1
        _log(out, logged, start, ctx.now)


def _decide(session: Session, struct: RoundStruct, decider: Decider) -> tuple[Emitted, ...]:
    """`Session.step` of the struct's event, decided on the struct (`fast_core.run_lines`)."""
    if session.pending:
        return session.step(round_event(struct))
    events = decider(session, struct)
    if events is not None:
        return events
    return session.reference(round_event(struct))  # refused or unusual: the reference words it


def _payload(line: bytes, struct: RoundStruct, plan: Plan) -> bytes:
    """`encode` of the struct's event: natively from the line when it is built and sure of its
    spelling (`streams.native`, ``src/hot_line.rs``), else its plan's record, or (an escape needed)
    the event's."""
    if _NATIVE is not None:
        written = _NATIVE(line)
        if written is not None:
            return written
    return _struct_payload(struct, plan)


def _struct_payload(struct: RoundStruct, plan: Plan) -> bytes:
    """`encode` of the struct's event: its plan's record, or (an escape needed) the event's."""
    out = _WRITE.encode(plan(struct))
    if out.isascii() and b"\\" not in out and b"\x7f" not in out:
        return out
    return encode(round_event(struct))


def _log(out: Decided, produced: tuple[Emitted, ...], start: int, now: str) -> None:
    """`batch._log` of what a hot line produced, from ``produced[start]`` on (the caller wrote
    the accepted struct's own record, if it is the first): each event's record, then all of
    ``produced`` to the events."""
    for index in range(start, len(produced)):
        event = produced[index]
        if type(event) is _CONTRIBUTED and _CONTRIBUTION is not None:
            written = _CONTRIBUTION(event)
            if written is not None:  # `record_key`: a contribution's meter (a str, if not "")
                key = event.meter_id or record_key(event)
                out.records.append(new_record(key, written, "", now))
                continue
        frozen = recorded(event)
        dedupe = frozen.event_id if isinstance(frozen, TableEventBase) else ""
        out.records.append(new_record(record_key(frozen), encode(frozen), dedupe, now))
    out.events.extend(produced)
