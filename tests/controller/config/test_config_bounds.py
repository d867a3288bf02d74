"""Issue 15, finding 3: whatever text a supervisor sends as a configuration, the parser answers
with the configuration or a `ConfigError` naming the key, never another exception, and quickly
(every number is checked by shape before it is read)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.config.floor import load_floor_config
from controller.model.errors import ConfigError

TEXT = (Path(__file__).resolve().parents[3] / "examples" / "pa-three-card-poker.toml").read_text()
LINES = TEXT.splitlines()
#: Values a hostile or careless configuration might hold (TOML literals).
VALUES = st.one_of(
    st.sampled_from(['"1e5000"', '"1e6000000"', '"-1"', '"NaN"', "inf", "nan", "1e308", '""']),
    st.integers(-(10**30), 10**30).map(str),
    st.text(st.characters(min_codepoint=32, max_codepoint=0x2FFF), max_size=30).map(
        lambda t: '"' + t.replace("\\", "").replace('"', "") + '"'
    ),
    st.decimals(allow_nan=False, allow_infinity=False, places=8).map(lambda d: f'"{d}"'),
)


@settings(max_examples=300, deadline=None)
@given(line=st.sampled_from([i for i, line in enumerate(LINES) if " = " in line]), value=VALUES)
def test_any_value_anywhere_is_a_configuration_or_a_config_error(line: int, value: str) -> None:
    key = LINES[line].split(" = ", 1)[0]
    text = "\n".join([*LINES[:line], f"{key} = {value}", *LINES[line + 1 :]])
    try:
        load_floor_config(text, "fuzz.toml")
    except ConfigError as exc:
        message = str(exc)
    else:
        return
    assert message.startswith("fuzz.toml: ")


@given(depth=st.integers(1_000, 60_000), opener=st.sampled_from(["[", "{a = "]))
@settings(max_examples=5, deadline=None)
def test_deep_nesting_is_a_config_error(depth: int, opener: str) -> None:
    closer = "]" if opener == "[" else "}"
    text = f"x = {opener * depth}1{closer * depth}"
    with pytest.raises(ConfigError, match=r"deep\.toml"):
        load_floor_config(text, "deep.toml")
