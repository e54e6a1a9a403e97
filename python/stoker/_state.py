"""A rank loader's state as the JVM writes it (``dev.stoker.loader.state.LoaderState``): the
state after some batches of an epoch, counted on from the state at the read's start, so that a
Python rank can say where it is after any batch without asking the JVM.

The text is ``stoker1:`` then URL-safe base64 (unpadded) of raw-deflated bytes: a format byte,
the fields big-endian as Java's ``DataOutputStream`` writes them (seed, flags, epoch, the order's
epoch, batch size, window rows, the segments, the input's fingerprint) and a CRC32 of them. The
fingerprint is carried over as bytes, unread.
"""

from __future__ import annotations

import base64
import struct
import zlib
from dataclasses import dataclass, replace
from typing import List, Tuple

PREFIX = "stoker1:"
FORMAT_VERSION = 1


class BadState(ValueError):
    """A text that is not a state this package reads."""


@dataclass(frozen=True)
class State:
    seed: int
    flags: int
    epoch: int
    order_epoch: int
    batch_size: int
    window_rows: int
    segments: Tuple[Tuple[int, int], ...]  # (world size, rows consumed per rank)
    fingerprint: bytes  # the input's entries, as written

    def plus_batches(self, batches: int) -> "State":
        world, rows = self.segments[-1]
        return replace(self, segments=self.segments[:-1]
                       + ((world, rows + batches * self.batch_size),))

    def resumed_on(self, world_size: int) -> "State":
        """As ``LoaderState.resumedOn``: a new segment on ``world_size`` ranks (in place of the
        last one where nothing of it was consumed)."""
        kept = self.segments if self.segments[-1][1] > 0 else self.segments[:-1]
        return replace(self, segments=kept + ((world_size, 0),))

    def next_epoch(self, order_follows_epoch: bool = False) -> "State":
        """The start of the next epoch: over the same rows (the order's epoch kept), or with
        ``order_follows_epoch`` (``epochOrder=global``) planned in its own order."""
        world = self.segments[-1][0]
        order = self.epoch + 1 if order_follows_epoch else self.order_epoch
        return replace(self, epoch=self.epoch + 1, order_epoch=order, segments=((world, 0),))


def decode(text: str) -> State:
    if not isinstance(text, str) or not text.strip().startswith(PREFIX):
        raise BadState(f"state: {str(text)[:24]!r} (expected: a string starting with "
                       f"{PREFIX!r}, as LoaderState.toString() prints it)")
    body = text.strip()[len(PREFIX):]
    try:
        raw = zlib.decompress(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)), -15)
    except (ValueError, zlib.error) as e:
        raise BadState(f"state is corrupted: it does not decode ({e})") from e
    if len(raw) < 5 or struct.unpack(">i", raw[-4:])[0] != _crc(raw[:-4]):
        raise BadState("state is corrupted: its CRC32 does not match its bytes")
    payload = raw[:-4]
    if payload[0] != FORMAT_VERSION:
        raise BadState(f"state format version {payload[0]} (expected: {FORMAT_VERSION})")
    seed, flags, epoch, order_epoch, batch_size, window_rows, count = \
        struct.unpack_from(">qBiiiii", payload, 1)
    at = 1 + struct.calcsize(">qBiiiii")
    segments: List[Tuple[int, int]] = []
    for _ in range(count):
        segments.append(struct.unpack_from(">iq", payload, at))
        at += 12
    return State(seed, flags, epoch, order_epoch, batch_size, window_rows, tuple(segments),
                 payload[at:])


def encode(state: State) -> str:
    payload = bytearray([FORMAT_VERSION])
    payload += struct.pack(">qBiiiii", state.seed, state.flags, state.epoch, state.order_epoch,
                           state.batch_size, state.window_rows, len(state.segments))
    for world, rows in state.segments:
        payload += struct.pack(">iq", world, rows)
    payload += state.fingerprint
    raw = bytes(payload) + struct.pack(">i", _crc(bytes(payload)))
    # as java.util.zip.Deflater(BEST_COMPRESSION, nowrap) deflates
    deflater = zlib.compressobj(9, zlib.DEFLATED, -15, 8, zlib.Z_DEFAULT_STRATEGY)
    packed = deflater.compress(raw) + deflater.flush()
    return PREFIX + base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")


def after(start: str, batches_per_rank: int, batches: int,
          order_follows_epoch: bool = False) -> str:
    """The state after ``batches`` batches on every rank of an epoch that starts at ``start``
    and yields ``batches_per_rank``; after its last, the start of the next epoch, over the same
    rows or (``order_follows_epoch``) in that epoch's own order."""
    if not 0 <= batches <= batches_per_rank:
        raise ValueError(f"batches: {batches} (expected: 0 <= batches <= {batches_per_rank})")
    state = decode(start)
    if batches == batches_per_rank:
        return encode(state.next_epoch(order_follows_epoch))
    return encode(state.plus_batches(batches))


def _crc(data: bytes) -> int:
    value = zlib.crc32(data) & 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value
