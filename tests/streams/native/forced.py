"""A maker of something native run against the current build whatever ``JACKPOT_NATIVE`` says.

The proofs of the native decoders must test the build even when the environment turns the
extension off for the rest of the suite (``JACKPOT_NATIVE=0`` runs every other test on the
Python path); `made_with` lends the build to `streams.native` for one call and puts the
module's own choice back after it, so no other test sees the loan.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import TypeVar

from streams import native

T = TypeVar("T")


def made_with(build: ModuleType | None, maker: Callable[[], T | None]) -> T:
    """``maker()`` while `streams.native` answers with ``build``; it must make something."""
    assert build is not None
    state = dict(native._STATE)
    native._STATE.update(mode=native.Mode(native=True, reason="test"), module=build)
    try:
        made = maker()
    finally:
        native._STATE.clear()
        native._STATE.update(state)
    assert made is not None
    return made
