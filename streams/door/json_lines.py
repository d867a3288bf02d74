"""One line of JSON, read the same way every language would: the first step of both doors.

Before any schema is consulted, a line must be at most `MAX_LINE_BYTES` of UTF-8, nest at most
`MAX_DEPTH` levels (checked before the recursive parser runs), repeat no key in one object, and
hold no NaN/Infinity, no integer Python will not convert and no lone surrogate: other languages'
parsers disagree on each of those, and a device author must get the same verdict from us as from
their own parser. Every refusal raises `controller.model.errors.InvalidEvent` with a one-line
reason, the
dead-letter reason an operator reads. `streams.door.validation` then checks the contract.
"""

from __future__ import annotations

import json
import re
import reprlib
from typing import Final

from controller.model.errors import InvalidEvent

MAX_LINE_BYTES: Final = 64 * 1024
MAX_DEPTH: Final = 32
_STRUCTURAL: Final = re.compile(r'[\[\]{}"\\]')

#: How a refusal quotes a value: short, so a hostile megabyte never fills a dead-letter reason.
SHOW = reprlib.Repr()
SHOW.maxstring = 60
SHOW.maxother = 60
SHOW.maxlevel = 2
SHOW.maxlist = SHOW.maxdict = 4


def parse_json_line(line: bytes | str) -> object:
    """Parse one line of JSON holding one table event object; `InvalidEvent` if it is not one.

    Cheap guards run before the parser: at most `MAX_LINE_BYTES` of UTF-8 and at most `MAX_DEPTH`
    levels of nesting (the parser recurses). NaN/Infinity and a key repeated in one object are
    refused too: other languages' parsers disagree on them.
    """
    if len(line) > MAX_LINE_BYTES:
        _refuse_size(len(line))
    text = _decode(line)
    if len(text) > MAX_LINE_BYTES // 4:
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > MAX_LINE_BYTES:
            _refuse_size(size)
    value = strict_loads(text, "line", MAX_DEPTH)
    if not isinstance(value, dict):
        msg = f"line: expected a JSON object, got {json_type(value)}"
        raise InvalidEvent(msg)
    return value


def strict_loads(text: str, where: str, max_depth: int) -> object:
    """JSON that every language reads the same way, or `InvalidEvent` naming ``where``.

    Refused: nesting deeper than ``max_depth`` (checked before the recursive parser runs), a key
    repeated in one object, NaN/Infinity, integers Python will not convert, lone surrogates.
    Both doors use it: the HTTP body and the JSONL/Kafka line.
    """
    if nesting_exceeds(text, max_depth):
        msg = f"{where}: JSON nested deeper than {max_depth} levels; an event is at most 3 deep"
        raise InvalidEvent(msg)

    def unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
        result: dict[str, object] = {}
        for key, value in pairs:
            if key in result:
                msg = f"{where}: key {SHOW.repr(key)} appears more than once in one object"
                raise InvalidEvent(msg)
            result[key] = value
        return result

    def refuse_constant(name: str) -> object:
        msg = f'{where}: {name} is not JSON; amounts are strings like "1.00"'
        raise InvalidEvent(msg)

    try:
        value: object = json.loads(
            text, object_pairs_hook=unique_keys, parse_constant=refuse_constant
        )
    except json.JSONDecodeError as exc:
        # exc's own text says "line 1 column 5": a line's reader counts lines, not the parser
        msg = f"{where}: malformed JSON: {exc.msg} at character {exc.pos + 1}"
        raise InvalidEvent(msg) from exc
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        msg = f"{where}: a number JSON cannot carry here ({str(exc)[:80]})"
        raise InvalidEvent(msg) from exc
    refuse_lone_surrogates(text, value, where)
    return value


_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89a-fA-F]")


def refuse_lone_surrogates(text: str, value: object, where: str) -> None:
    """Refuse text that holds a lone surrogate (a JSON escape like \\ud800 naming no character):
    it cannot be stored as UTF-8, and other languages' parsers read it differently. Only text
    with such an escape (or handed in as a str) is walked, so ordinary events cost nothing."""
    if _SURROGATE_ESCAPE.search(text) is None and _encodes(text):
        return
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str) and not _encodes(item):
            msg = f"{where}: {SHOW.repr(item)} holds a lone surrogate, which is no character"
            raise InvalidEvent(msg)
        if isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _refuse_size(size: int) -> None:
    msg = f"line: {size} bytes is over the limit of {MAX_LINE_BYTES} bytes (64 KiB) per event"
    raise InvalidEvent(msg)


def _decode(line: bytes | str) -> str:
    if isinstance(line, str):
        return line
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as exc:
        msg = f"line: not UTF-8 (byte {exc.start}); events are UTF-8 JSON"
        raise InvalidEvent(msg) from exc


def nesting_exceeds(text: str, limit: int) -> bool:
    """Whether brackets outside strings nest deeper than `limit`; visits only structural chars."""
    depth = 0
    in_string = False
    escaped_at = -1
    for match in _STRUCTURAL.finditer(text):
        char, at = match.group(), match.start()
        if at == escaped_at:
            continue
        if in_string:
            if char == "\\":
                escaped_at = at + 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def json_type(value: object) -> str:
    """A JSON value's kind as a refusal names it ("an integer", "null")."""
    names: tuple[tuple[type, str], ...] = (
        (bool, "a boolean"),
        (int, "an integer"),
        (float, "a number"),
        (str, "a string"),
        (list, "an array"),
        (dict, "an object"),
        (type(None), "null"),
    )
    return next((name for kind, name in names if isinstance(value, kind)), type(value).__name__)
