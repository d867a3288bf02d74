"""Bearer tokens for the HTTP API: who may call it, in which role, stored only as SHA-256 hashes.

Why hashes: the tokens file sits beside the database on the controller host and ends up in
backups; a copy of it must not let anyone post table events or correct a meter. A token is 32
random bytes (`secrets.token_urlsafe`), so a plain SHA-256 is enough (no password stretching is
needed for a secret that was never guessable). It is printed once by ``jackpot token add`` and
never stored in plain text. The file::

    {"tokens": [{"name": "tcp-1-device", "role": "table_device", "sha256": "<64 hex digits>"}]}

Roles (`streams.http_app` decides which routes each may call):

- ``table_device``: POST /v1/events only (a table's event feed);
- ``read_only``: GET meters, hits, awards, log and rejections (signage, reports, auditors);
- ``supervisor``: everything, including corrections and validating and paying hits.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal, cast, get_args

from controller.errors import ConfigError

Role = Literal["table_device", "supervisor", "read_only"]
ROLES: Final[tuple[Role, ...]] = get_args(Role)
_HEX64: Final = re.compile(r"[0-9a-f]{64}\Z")
_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}\Z")


@dataclass(frozen=True, slots=True)
class Principal:
    """An authenticated caller: the token's name is the ``by`` of what it does."""

    name: str
    role: Role


@dataclass(frozen=True, slots=True)
class _Entry:
    name: str
    role: Role
    digest: bytes


def token_digest(token: str) -> str:
    """The SHA-256 of a token as the file stores it (lower-case hex)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class TokenStore:
    """The known tokens, by hash. Immutable once loaded; reload the file to pick up new tokens."""

    def __init__(self, entries: list[tuple[str, Role, str]]) -> None:
        self._entries = tuple(
            _Entry(name, role, bytes.fromhex(digest)) for name, role, digest in entries
        )

    @classmethod
    def load(cls, path: str | Path) -> TokenStore:
        """Read a tokens file; ConfigError naming the entry and field if anything is off."""
        return cls(_parse(Path(path)))

    def names(self) -> list[str]:
        """The token names, in file order (never the hashes)."""
        return [entry.name for entry in self._entries]

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
        return Principal(found.name, found.role) if found is not None else None


def add_token(path: str | Path, name: str, role: str, *, replace: bool = False) -> str:
    """Create a token for ``name`` in ``role``, store its hash in ``path`` and return the token.

    The file is created if missing (mode 0600) and rewritten atomically, so a crash never leaves
    half a file. An existing name is refused unless ``replace`` (which revokes its old token).
    """
    target = Path(path)
    source = str(target)
    if not _NAME.match(name):
        raise ConfigError(source, "name", "1 to 64 characters from A-Z a-z 0-9 . _ @ -")
    if role not in ROLES:
        raise ConfigError(source, "role", f"one of {', '.join(ROLES)}, not {role!r}")
    entries = _parse(target) if target.exists() else []
    if any(entry[0] == name for entry in entries) and not replace:
        raise ConfigError(source, name, "a new name (this one has a token; --replace revokes it)")
    token = secrets.token_urlsafe(32)
    kept = [entry for entry in entries if entry[0] != name]
    kept.append((name, role, token_digest(token)))
    _write(target, kept)
    return token


def _parse(path: Path) -> list[tuple[str, Role, str]]:
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
    entries: list[tuple[str, Role, str]] = []
    for index, item in enumerate(items):
        entries.append(_entry(source, f"tokens[{index}]", item))
    names = [entry[0] for entry in entries]
    if len(set(names)) != len(names):
        raise ConfigError(source, "tokens", "each name at most once")
    return entries


def _entry(source: str, where: str, item: object) -> tuple[str, Role, str]:
    if not isinstance(item, dict) or set(item) != {"name", "role", "sha256"}:
        raise ConfigError(source, where, "an object with exactly name, role and sha256")
    name, role, digest = item["name"], item["role"], item["sha256"]
    if not isinstance(name, str) or not _NAME.match(name):
        raise ConfigError(source, f"{where}.name", "1 to 64 characters from A-Z a-z 0-9 . _ @ -")
    if role not in ROLES:
        raise ConfigError(source, f"{where}.role", f"one of {', '.join(ROLES)}")
    if not isinstance(digest, str) or not _HEX64.match(digest):
        raise ConfigError(source, f"{where}.sha256", "64 lower-case hex digits (never the token)")
    return name, cast(Role, role), digest


def _write(path: Path, entries: list[tuple[str, Role, str]]) -> None:
    document = {"tokens": [{"name": n, "role": r, "sha256": d} for n, r, d in entries]}
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
