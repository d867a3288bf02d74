"""The native hot path (Rust, this folder's crate), loaded only while it is still the code here.

bench/PROPOSALS.md ("The engine goal needs a native hot path") shows that Python plus mypyc
cannot bring the embedded engine to 1/2 of append-only; issue 14 then allows a Rust extension,
with the interpreted path kept. `scripts/build_fast.py` (``make fast``) builds the crate with
cargo into `BUILD` (never beside the sources) and stamps it with the sha256 of each of its
`inputs` (its manifest, its lock file, its Rust sources), as the mypyc build is stamped
(`streams.compiled`). `load` decides once a process: the extension is used only if the stamp
matches every input now; else (``JACKPOT_NATIVE=0``, not built, stale) the callers keep their
Python path, and a build that exists but cannot be used says so in one warning line. `mode`
says which ran (``jackpot --version``, the bench's facts).

What it does so far, for `streams.embedded.lines`: `payload` (the log record's bytes of a
vouched hot line; see ``src/hot_line.rs``) and `contribution` (a `ContributionRecorded`'s record;
``src/contribution.rs``), `tail_linker` (a log row's tail chained and packed, for the SQLite
log; ``src/tail.rs``), `slot_builder` (the engine's log records and answers made
without their ``__init__``; ``src/slots.rs``) and `hot_decoder` (the door's hot lines decoded
into their structs and payloads; ``src/hot_decode.rs``).

Only the stdlib and `streams.compiled` (stdlib only) here: nothing of the rules.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, fields
from importlib.machinery import ExtensionFileLoader
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from types import ModuleType
from typing import Any, Final

from streams.compiled import ROOT, sha256

CRATE: Final = Path(__file__).resolve().parent
BUILD: Final = ROOT / "build" / "native"
STAMP: Final = BUILD / "stamp.json"
#: The extension's module name (its ``PyInit_``); the stable ABI, one binary for 3.11 and later.
NAME: Final = "jackpot_native"
BINARY: Final = BUILD / f"{NAME}.abi3.so"
ENV: Final = "JACKPOT_NATIVE"
_LOG = logging.getLogger("jackpot.native")


@dataclass(frozen=True)
class Mode:
    """Whether this process runs the native hot path, and why."""

    native: bool
    reason: str

    def __str__(self) -> str:
        return f"native: {'yes' if self.native else 'no'} ({self.reason})"


def inputs(crate: Path = CRATE, root: Path = ROOT) -> list[str]:
    """The files the build depends on, relative to ``root``, sorted."""
    files = [crate / "Cargo.toml", crate / "Cargo.lock", *sorted((crate / "src").rglob("*.rs"))]
    return sorted(str(path.relative_to(root)) for path in files)


def read_stamp(stamp: Path = STAMP) -> dict[str, Any] | None:
    """The last build's stamp, or None if there is none or it cannot be read."""
    try:
        loaded = json.loads(stamp.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return loaded if isinstance(loaded, dict) else None


def stale(stamp: dict[str, Any], crate: Path = CRATE, root: Path = ROOT) -> list[str]:
    """The inputs (relative paths) added, removed or changed since the build; empty if current."""
    hashes: dict[str, str] = stamp.get("sha256", {})
    now = inputs(crate, root)
    changed = sorted(set(now) ^ set(hashes))
    edited = [name for name in now if name in hashes and sha256(root / name) != hashes[name]]
    return changed + edited


def decide(stamp: dict[str, Any] | None, setting: str | None) -> Mode:
    """Native or not, for the whole process: ``stamp`` is the build's, ``setting`` `ENV`'s."""
    if setting == "0":
        return Mode(native=False, reason=f"{ENV}=0")
    if stamp is None:
        return Mode(native=False, reason="not built: make fast (needs cargo)")
    changed = stale(stamp)
    if changed:
        more = f" and {len(changed) - 1} more" if len(changed) > 1 else ""
        return _refuse(f"stale: {changed[0]}{more} changed since the build; run make fast")
    if not BINARY.exists():
        return _refuse(f"incomplete build: no {BINARY.name}; run make fast")
    return Mode(native=True, reason=f"cargo build {stamp.get('built_at', '?')}")


def _refuse(reason: str) -> Mode:
    _LOG.warning("jackpot: the native hot path is not used (%s): running the Python path", reason)
    return Mode(native=False, reason=reason)


_STATE: dict[str, Any] = {}


def load() -> ModuleType | None:
    """The extension if this process runs it (decided on the first call), else None."""
    if "mode" not in _STATE:
        mode = decide(read_stamp(), os.environ.get(ENV))
        loaded = _import() if mode.native else None
        if mode.native and loaded is None:
            mode = _refuse("the build could not be loaded; run make fast")
        _STATE.update(mode=mode, module=loaded)
    module: ModuleType | None = _STATE["module"]
    return module


def _import() -> ModuleType | None:
    spec = spec_from_file_location(NAME, BINARY, loader=ExtensionFileLoader(NAME, str(BINARY)))
    if spec is None or spec.loader is None:
        return None
    module = module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ImportError:
        return None
    return module


def current_build() -> ModuleType | None:
    """The extension if a current build exists, whatever `ENV` says (the tests compare it with
    the Python path in any run); None if there is none or it is stale."""
    stamp = read_stamp()
    if stamp is None or stale(stamp) or not BINARY.exists():
        return None
    return _import()


def mode() -> Mode:
    """Which path this process runs (deciding it if nothing has yet)."""
    load()
    found: Mode = _STATE["mode"]
    return found


#: ``link_tail(sha256, previous, head, tail)``: ``(chain hash, blob)`` (``src/tail.rs``).
TailLinker = Callable[
    [Callable[[bytes], Any], bytes, int, list[tuple[str, str, bytes]]], tuple[bytes, bytearray]
]


def tail_linker() -> TailLinker | None:
    """The extension's `link_tail` (``src/tail.rs``: a log row's tail chained and packed, for
    `streams.adapters.sqlite_rows`) if this process runs it, else None."""
    module = load()
    linker: TailLinker | None = None if module is None else module.link_tail
    return linker


def payload_writer() -> Callable[[bytes], bytes | None] | None:
    """The extension's `payload` (``src/hot_line.rs``) if this process runs it, else None."""
    module = load()
    writer: Callable[[bytes], bytes | None] | None = None if module is None else module.payload
    return writer


#: The fields of `ContributionRecorded` that ``src/contribution.rs`` writes, in the class's order.
CONTRIBUTION_FIELDS: Final = (
    "meter_id", "table_id", "round_id", "seat", "wager", "on", "wager_cents", "primary_sub",
    "reserve_sub", "meter_seq", "occurred_at", "overflow_sub", "diverted_sub", "divert_to",
)  # fmt: skip


def contribution_writer(cls: type) -> Callable[[object], bytes | None] | None:
    """The extension's `contribution` for objects of exactly ``cls`` (``ContributionWriter``:
    read through the class's slots; anything else gives None) if this process runs it and
    ``cls`` (the `ContributionRecorded` class, handed in: nothing of the rules is imported here)
    has exactly the fields it writes, else None."""
    module = load()
    if module is None or tuple(f.name for f in fields(cls)) != CONTRIBUTION_FIELDS:
        return None
    writer: Callable[[object], bytes | None] = module.ContributionWriter(cls).fast()
    return writer


def slot_builder(
    cls: type, given: tuple[str, ...], defaults: dict[str, Any]
) -> Callable[..., Any] | None:
    """The extension's `Builder` (``src/slots.rs``) of ``cls`` if this process runs it, else
    None: ``build(*values)`` sets the ``given`` fields, then ``defaults``, on ``object.__new__``
    of ``cls``. Only for a class `controller.fast.build.slot_defaults` vouches for (the caller's
    check) and that ``object.__new__`` would make (not abstract)."""
    module = load()
    if module is None or getattr(cls, "__abstractmethods__", None):
        return None
    made: Callable[..., Any] = module.Builder(cls, list(given), list(defaults.items())).fast()
    return made


#: The fields of the door's structs of a round opened, a wager, the lock and a decision that
#: ``src/hot_decode.rs`` fills (each sorted; the tag ``type`` is none), in its order of the kinds.
HOT_FIELDS: Final = (
    ("event_id", "game", "occurred_at", "round_id", "schema_version", "seq", "table_id"),
    ("amount", "event_id", "occurred_at", "on", "round_id", "schema_version", "seat", "seq",
     "table_id", "wager"),
    ("event_id", "occurred_at", "round_id", "schema_version", "seq", "table_id"),
    ("action", "amount", "discarded", "event_id", "occurred_at", "round_id", "schema_version",
     "seat", "seq", "table_id"),
)  # fmt: skip
#: What a hot decoder gives for a line: ``(struct, payload)``, or None.
HotDecode = Callable[[bytes], tuple[Any, bytes] | None]
#: What `hot_heads_decoder`'s decoder gives: ``(struct, payload, event_id, table_id,
#: occurred_at)``, the last three the very objects the struct holds, or None.
HotHeads = Callable[[bytes], tuple[Any, bytes, str, str, str] | None]


def hot_heads_decoder(
    classes: tuple[type, type, type, type],
    literals: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]],
    defaults: tuple[object, str],
    limit: int,
) -> HotHeads | None:
    """`hot_decoder`'s decoder answering the struct's head as well (``fast_heads``)."""
    decoder = _hot(classes, literals, defaults, limit)
    heads: HotHeads | None = None if decoder is None else decoder.fast_heads()
    return heads


#: What `hot_walker`'s walk gives: ``(index, decoded, decided, produced)`` (``src/hot_walk.rs``).
HotWalked = tuple[int, tuple[Any, bytes, str, str, str] | None, bool, Any]
#: ``walk(lines, start, session, seen, (outcomes, records, events, heard), second, now, quiet)``.
HotWalker = Callable[
    [list[bytes], int, Any, dict[str, bytes], tuple[list[Any], ...], str, str, object], HotWalked
]


def hot_walker(  # noqa: PLR0917 - `hot_decoder`'s, and what the walk calls
    classes: tuple[type, type, type, type],
    literals: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]],
    defaults: tuple[object, str],
    limit: int,
    deciders: tuple[Callable[..., Any], ...],
    builders: tuple[Callable[..., Any], Callable[..., Any]],
) -> HotWalker | None:
    """The extension's `HotWalk` (``src/hot_walk.rs``: a batch's common hot lines decoded,
    decided by ``deciders`` (one a kind, in ``classes``' order) and answered and recorded by
    ``builders`` (the answer's and the record's), in one call) over a new `hot_decoder`'s
    decoder, if this process runs the extension, else None."""
    decoder = _hot(classes, literals, defaults, limit)
    module = load()
    if decoder is None or module is None:
        return None
    answer, record = builders
    walker: HotWalker = module.HotWalk(decoder, list(deciders), answer, record).walk
    return walker


def hot_decoder(
    classes: tuple[type, type, type, type],
    literals: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]],
    defaults: tuple[object, str],
    limit: int,
) -> HotDecode | None:
    """The extension's `HotDecoder` (``src/hot_decode.rs``) if this process runs it and each of
    ``classes`` (the door's structs, handed in: nothing of the rules is imported here) has
    exactly the fields it fills, else None. ``literals``: the contract's games, actions, wager
    targets and cards; ``defaults``: `msgspec.UNSET` and `OWN_UNSAID`; ``limit``: the door's
    fast limit in bytes."""
    decoder = _hot(classes, literals, defaults, limit)
    decode: HotDecode | None = None if decoder is None else decoder.fast()
    return decode


def _hot(
    classes: tuple[type, type, type, type],
    literals: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]],
    defaults: tuple[object, str],
    limit: int,
) -> Any:
    """A new `HotDecoder` if this process runs the extension and the classes have exactly the
    fields it fills, else None."""
    module = load()
    shapes = tuple(tuple(sorted(getattr(cls, "__struct_fields__", ()))) for cls in classes)
    if module is None or shapes != HOT_FIELDS:
        return None
    unset, own_unsaid = defaults
    return module.HotDecoder(list(classes), literals, unset, own_unsaid, limit)
