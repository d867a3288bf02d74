"""The names a floor configuration gives players to read, and how a TOML error is told.

Signs show what a player calls a wager ("Five Card Bonus"), not a meter id: ``name`` on a
progressive or a meter and ``venue`` at the top of the file are optional display text, checked
here so a sign never shows an empty, overlong or control-character label.
"""

from __future__ import annotations

from controller.config.parts import ConfigReader

DISPLAY_NAME_MAX = 60


def display_name(reader: ConfigReader, key: str) -> str:
    """An optional name shown to players: 1 to 60 printable characters, "" when absent."""
    if not reader.has(key):
        return ""
    text = reader.string(key)
    if len(text) > DISPLAY_NAME_MAX or not text.isprintable():
        raise reader.error(key, f"a name of 1 to {DISPLAY_NAME_MAX} printable characters")
    return text


def toml_error(text: str) -> tuple[str, str]:
    """tomllib's "Invalid value (at line 3, column 5)" as ("line 3, column 5", "invalid value"),
    so the message reads file, place, problem (the path once, no nested brackets)."""
    head, _, tail = text.rpartition(" (at ")
    if not head or not tail.endswith(")"):
        return "(file)", text
    where = tail.removesuffix(")").replace("end of document", "the end of the file")
    return where, head[:1].lower() + head[1:]
