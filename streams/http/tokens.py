"""Bearer tokens for the HTTP API: who may call it, in which role, stored only as SHA-256 hashes.

Why hashes: the tokens file sits beside the database on the controller host and ends up in
backups; a copy of it must not let anyone post table events or correct a meter. A token is 32
random bytes (`secrets.token_urlsafe`), so a plain SHA-256 is enough (no password stretching is
needed for a secret that was never guessable). It is printed once by ``jackpot token add`` and
never stored in plain text. The file::

    {"tokens": [
      {"name": "tcp-1-device", "role": "table_device", "sha256": "<64 hex digits>",
       "tables": ["TCP-01", "TCP-02"]},
      {"name": "floor-sup-ann", "role": "supervisor", "sha256": "<64 hex digits>"}
    ]}

Roles (`streams.http.app` decides which routes each may call):

- ``table_device``: POST /v1/events only (a table's event feed);
- ``read_only``: GET meters, hits, awards, log and rejections (signage, reports, auditors);
- ``supervisor``: everything, including corrections and validating and paying hits.

``tables`` binds a ``table_device`` token to the tables it serves (the recommended practice:
``jackpot token add --tables``). Why: without it a device token may post for any table, so a
stolen or misconfigured one could post wagers at another table, or keep a dead table looking alive
(and its progressives in play) with heartbeats. Each posted item for a table outside the list is
refused on its own and dead-lettered (`Principal.refusal`); the rest of the batch goes on. An
entry without ``tables`` is unbound (any table), so files written before it load as they did;
``jackpot serve`` names the unbound device tokens at start. The list is written sorted and without
repeats, must not be empty (that would read as "no table" but mean nothing) and holds table ids as
the contract spells them (``schemas/table-event.v1.json``). Only ``table_device`` tokens may be
bound: a supervisor's reach is the whole floor by design, and a bound one would look safer than it
is, so the file or the ``add`` is refused instead.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal, cast, get_args

from controller.model.errors import ConfigError

Role = Literal["table_device", "supervisor", "read_only"]
ROLES: Final[tuple[Role, ...]] = get_args(Role)
_HEX64: Final = re.compile(r"[0-9a-f]{64}\Z")
_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}\Z")
_TABLE_ID: Final = re.compile(r"[A-Za-z0-9._-]{1,64}\Z")  # the contract's table_id pattern
_KEYS: Final = frozenset({"name", "role", "sha256"})


@dataclass(frozen=True, slots=True)
class Principal:
    """An authenticated caller: the token's name is the ``by`` of what it does. ``tables`` is
    what a bound device token may post for; None means not bound (any table)."""

    name: str
    role: Role
    tables: frozenset[str] | None = None

    def refusal(self, table_id: str) -> str:
        """Why this caller may not post an item for ``table_id``, or "" if it may."""
        if self.tables is None or table_id in self.tables:
            return ""
        listed = ", ".join(sorted(self.tables))
        noun = "table" if len(self.tables) == 1 else "tables"
        return f"token {self.name!r} may post for {noun} {listed} only, not {table_id!r}"


@dataclass(frozen=True, slots=True)
class TokenEntry:
    """One entry of the tokens file: the hash (never the token) and, if bound, its tables."""

    name: str
    role: Role
    sha256: str
    tables: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class _Entry:
    principal: Principal
    digest: bytes


def token_digest(token: str) -> str:
    """The SHA-256 of a token as the file stores it (lower-case hex)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class TokenStore:
    """The known tokens, by hash. Immutable once loaded; reload the file to pick up new tokens."""

    def __init__(self, entries: Iterable[TokenEntry | tuple[str, Role, str]]) -> None:
        built = [e if isinstance(e, TokenEntry) else TokenEntry(*e) for e in entries]
        for entry in built:  # the file and `add_token` check this too, naming the file
            _check_bound("(token store)", entry.name, entry.role, bound=entry.tables is not None)
        self._entries = tuple(
            _Entry(
                Principal(e.name, e.role, None if e.tables is None else frozenset(e.tables)),
                bytes.fromhex(e.sha256),
            )
            for e in built
        )

    @classmethod
    def load(cls, path: str | Path) -> TokenStore:
        """Read a tokens file; ConfigError naming the entry and field if anything is off."""
        return cls(_parse(Path(path)))

    def names(self) -> list[str]:
        """The token names, in file order (never the hashes)."""
        return [entry.principal.name for entry in self._entries]

    def unbound_devices(self) -> list[str]:
        """The names of the table_device tokens that may post for any table (not bound)."""
        return [
            e.principal.name
            for e in self._entries
            if e.principal.role == "table_device" and e.principal.tables is None
        ]

    def authenticate(self, token: str) -> Principal | None:
        """The caller a presented token belongs to, or None.

        Every entry is compared with `hmac.compare_digest`, and the loop does not stop at a match,
        so the time taken does not say which entry (or how much of a hash) matched.
        """
        presented = hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()
        found: _Entry | None = None
        for entry in self._entries:
            if hmac.compare_digest(presented, entry.digest):
                found = entry
        return found.principal if found is not None else None


def new_token() -> str:
    """32 random bytes, URL-safe base64, never starting with ``-``: such a token would read as an
    option on a command line (``jackpot simulate --token -x…`` fails), one time in 64."""
    while (token := secrets.token_urlsafe(32)).startswith("-"):
        pass
    return token


def add_token(
    path: str | Path,
    name: str,
    role: str,
    *,
    replace: bool = False,
    tables: Iterable[str] | None = None,
) -> str:
    """Create a token for ``name`` in ``role``, store its hash in ``path`` and return the token.

    The file is created if missing (mode 0600) and rewritten atomically, so a crash never leaves
    half a file. An existing name is refused unless ``replace`` (which revokes its old token).
    ``tables`` binds a table_device token to those tables (any other role is refused).
    """
    target = Path(path)
    source = str(target)
    if not _NAME.match(name):
        raise ConfigError(source, "name", "1 to 64 characters from A-Z a-z 0-9 . _ @ -")
    if role not in ROLES:
        raise ConfigError(source, "role", f"one of {', '.join(ROLES)}, not {role!r}")
    if isinstance(tables, str):  # one table id, not its characters
        tables = [tables]
    _check_bound(source, "tables", role, bound=tables is not None)
    bound = None if tables is None else _table_list(source, "tables", list(tables))
    entries = _parse(target) if target.exists() else []
    if any(entry.name == name for entry in entries) and not replace:
        raise ConfigError(source, name, "a new name (this one has a token; --replace revokes it)")
    token = new_token()
    kept = [entry for entry in entries if entry.name != name]
    kept.append(TokenEntry(name, role, token_digest(token), bound))
    _write(target, kept)
    return token


def _check_bound(source: str, where: str, role: Role, *, bound: bool) -> None:
    """Only a device token is bound: a supervisor's or reader's reach is the whole floor."""
    if bound and role != "table_device":
        expected = f"no tables for a {role} token (only a table_device token is bound to tables)"
        raise ConfigError(source, where, expected)


def _table_list(source: str, where: str, value: object) -> tuple[str, ...]:
    """A non-empty list of table ids as the contract spells them, sorted and without repeats."""
    expected = "a non-empty array of table ids (1 to 64 characters from A-Z a-z 0-9 . _ -)"
    if not isinstance(value, list) or not value:
        raise ConfigError(source, where, expected)
    for index, item in enumerate(value):
        if not isinstance(item, str) or not _TABLE_ID.match(item):
            raise ConfigError(source, f"{where}[{index}]", f"{expected}, not {item!r}")
    return tuple(sorted(set(cast(list[str], value))))


def _parse(path: Path) -> list[TokenEntry]:
    source = str(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(source, "(file)", "a tokens file; create one: jackpot token add") from exc
    except (OSError, ValueError) as exc:
        raise ConfigError(source, "(file)", f'JSON like {{"tokens": [...]}} ({exc})') from exc
    items = document.get("tokens") if isinstance(document, dict) else None
    if not isinstance(items, list):
        raise ConfigError(source, "tokens", "an array of {name, role, sha256} objects")
    entries = [_entry(source, f"tokens[{index}]", item) for index, item in enumerate(items)]
    names = [entry.name for entry in entries]
    if len(set(names)) != len(names):
        raise ConfigError(source, "tokens", "each name at most once")
    return entries


def _entry(source: str, where: str, item: object) -> TokenEntry:
    if not isinstance(item, dict) or set(item) - {"tables"} != _KEYS:
        expected = "an object with exactly name, role and sha256 (and tables, if bound)"
        raise ConfigError(source, where, expected)
    name, role, digest = item["name"], item["role"], item["sha256"]
    if not isinstance(name, str) or not _NAME.match(name):
        raise ConfigError(source, f"{where}.name", "1 to 64 characters from A-Z a-z 0-9 . _ @ -")
    if role not in ROLES:
        raise ConfigError(source, f"{where}.role", f"one of {', '.join(ROLES)}")
    if not isinstance(digest, str) or not _HEX64.match(digest):
        raise ConfigError(source, f"{where}.sha256", "64 lower-case hex digits (never the token)")
    tables = None
    if "tables" in item:
        _check_bound(source, f"{where}.tables", cast(Role, role), bound=True)
        tables = _table_list(source, f"{where}.tables", item["tables"])
    return TokenEntry(name, cast(Role, role), digest, tables)


def _write(path: Path, entries: list[TokenEntry]) -> None:
    document = {"tokens": [_as_json(entry) for entry in entries]}
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".tokens-", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as sink:
            json.dump(document, sink, indent=2)
            sink.write("\n")
            sink.flush()
            os.fsync(sink.fileno())
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _as_json(entry: TokenEntry) -> dict[str, object]:
    """An entry as the file holds it; ``tables`` only when bound, so unbound ones read as before."""
    out: dict[str, object] = {"name": entry.name, "role": entry.role, "sha256": entry.sha256}
    if entry.tables is not None:
        out["tables"] = list(entry.tables)
    return out
