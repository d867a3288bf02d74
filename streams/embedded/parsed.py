"""The lines of a batch that `streams.embedded.lines` cannot decide on a struct: what `submit`
would have been handed for them (`items_of`, the reference the differential tests and a retry
decide), and a line the door's struct decode does not vouch for (`parsed_line`: parsed by
`parse_json_line` and decided by `decide_item`, or dead-lettered with the reader's reason).
Rare lines, so kept out of the compiled `lines` (interpreted here)."""

from __future__ import annotations

from controller.model.errors import RuleViolation
from streams.door.json_lines import parse_json_line
from streams.embedded.batch import Context, Decided, decide_item
from streams.embedded.intake import refuse


def items_of(lines: list[bytes]) -> list[object]:
    """What `submit` would be handed for the lines (a line that is no JSON object: its text)."""
    items: list[object] = []
    for line in lines:
        try:
            items.append(parse_json_line(line))
        except RuleViolation:
            items.append(text_of(line))
    return items


def text_of(line: bytes) -> str:
    """A line's text as a dead letter holds it."""
    return line.decode("utf-8", "replace")


def parsed_line(
    out: Decided, line: bytes, seen: dict[str, bytes], ctx: Context, *, asked: bool, name: str
) -> None:
    """`decide_item` of the line as `parse_json_line` reads it; a line it refuses is
    dead-lettered with its reason, the reader's "line:" said as ``name`` if given."""
    try:
        raw = parse_json_line(line)
    except RuleViolation as exc:  # the reader says "line:"; the caller may say which
        reason = str(exc).replace("line: ", f"{name}: ", 1) if name else str(exc)
        out.add(*refuse(text_of(line), reason, ctx.clock), ctx.now)
        return
    decide_item(out, raw, seen, ctx, asked=asked)
