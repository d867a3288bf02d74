"""The fast path: a single-writer `Session` equal to the reference `decide`/`evolve`."""

from controller.fast.session import Session

__all__ = ["Session"]
