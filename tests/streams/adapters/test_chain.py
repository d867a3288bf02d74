"""The snapshot tag's format is fixed by the snapshots already stored: HMAC-SHA256 under the key
over the position (decimal ASCII), the chain hash and the snapshot's bytes, each preceded by its
length as 8 bytes big-endian. Computed here from that description, apart from the adapter."""

from __future__ import annotations

import hashlib
import hmac

from hypothesis import given
from hypothesis import strategies as st

from streams.adapters.chain import snapshot_tag, tag_holds


def _described(secret: bytes, position: int, chain: bytes, blob: bytes) -> str:
    message = b""
    for part in (str(position).encode("ascii"), chain, blob):
        message += len(part).to_bytes(8, "big") + part
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


@given(
    secret=st.binary(min_size=32, max_size=64),
    position=st.integers(min_value=0, max_value=10**12),
    chain=st.binary(min_size=32, max_size=32),
    blob=st.binary(max_size=2_000),
)
def test_the_tag_is_the_described_hmac(
    secret: bytes, position: int, chain: bytes, blob: bytes
) -> None:
    tag = _described(secret, position, chain, blob)
    assert snapshot_tag(secret, position, chain, blob) == tag
    assert tag_holds(secret, position, chain, blob, tag)
    assert not tag_holds(secret, position + 1, chain, blob, tag)
    assert not tag_holds(secret, position, chain, blob + b" ", tag)


def test_a_large_snapshot_is_tagged_alike() -> None:
    blob = bytes(range(256)) * 40_000  # 10 MB: fed in parts, never joined
    assert snapshot_tag(bytes(32), 7, bytes(32), blob) == _described(bytes(32), 7, bytes(32), blob)
