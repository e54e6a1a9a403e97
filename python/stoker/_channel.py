"""The Python side of a rank's shared-memory file: its control block and its slots.

The layout mirrors ``dev.stoker.spark.python.SlotChannel`` (version 2). The JVM posts batches in
order into a ring of entries (slot offset, rows, index), as many ahead as its loader has slots,
by raising the posted count; Python reads batch k's entry and, when the step is done, raises the
released count. Every word has one writer; words are 8-byte or 4-byte aligned, read and written
whole. A side that finds nothing to do says so in its waiting word and sleeps on the doorbell, a
Unix-domain socket beside the file; the other side sends it one byte when it posts or releases.
"""

from __future__ import annotations

import json
import mmap
import os
import socket
import threading
import time
from typing import Any, Dict, Optional

import numpy as np

MAGIC = 0x5950_5245_4B4F_5453  # "STOKERPY" as little-endian bytes
VERSION = 2
CONTROL_BYTES = 8192

# int64 words (index = byte offset / 8)
_MAGIC, _POSTED, _RELEASED, _JVM_PID, _PY_PID = 0, 3, 4, 7, 8
# int32 words (index = byte offset / 4)
_VERSION, _JVM_STATE, _PY_STATE, _ERROR_LENGTH, _RING, _JVM_WAITING, _PY_WAITING = \
    2, 3, 4, 5, 10, 11, 12
_ERROR_AT = 128
_RING_AT = 4096  # batch k's entry: 16 bytes at _RING_AT + 16 (k % ring)

RUNNING, ENDED, FAILED, STOPPED = 1, 2, 3, 4
PY_ATTACHED, PY_CLOSED = 1, 2

_LIVENESS_SECONDS = 1.0
# Looks at the posted count a few times, yields briefly, then sleeps for growing pauses: the JVM
# posts ahead, so a late look finds several batches waiting, and a longer spin would take the
# processor from the threads that fill them.
_SPINS, _YIELDS = 100, 200
# With a doorbell: looks this many times only, then sleeps on it (a sleep and a ring cost less
# processor than the spin they replace, and the processor is what the JVM fills with).
_BELL_SPINS = 8
_MAX_PAUSE = 0.0002
_BELL_WAIT_SECONDS = 0.002  # longest sleep on the bell before looking again, whatever happened
# A lock taken and let go is a full memory fence (a locked instruction): it orders the waiting
# word written before the counter read, so that a post or a release is never missed.
_FENCE = threading.Lock()


class StokerError(RuntimeError):
    """A rank's loader failed, stopped, or its JVM is gone; the message says which and why."""


def parse_handle(handle: Any) -> Dict[str, Any]:
    """The handle's JSON (a ``str``) as a dict, checking its version."""
    meta = json.loads(handle)
    if meta.get("version") != VERSION:
        raise StokerError(
            f"handle version {meta.get('version')} (expected: {VERSION}); install the stoker "
            "Python package of the same release as the Stoker jars on the cluster")
    return meta


class SlotChannel:
    """One rank's file, mapped. Unlinks the file at once: from then on no file is left behind,
    whichever process ends first or how."""

    def __init__(self, meta: Dict[str, Any]):
        path = meta["path"]
        try:
            fd = os.open(path, os.O_RDWR)
        except FileNotFoundError:
            raise StokerError(
                f"rank {meta.get('rank')}: {path} is gone: its task ended, or the handle was "
                "read outside the barrier task that made it (use stoker.torch.batches inside "
                "the mapInArrow/mapInPandas/mapPartitions function)") from None
        try:
            size = os.fstat(fd).st_size
            self._map = mmap.mmap(fd, size)
        finally:
            os.close(fd)
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        self.meta = meta
        self.size = size
        self._longs = np.frombuffer(self._map, dtype="<i8", count=CONTROL_BYTES // 8)
        self._ints = np.frombuffer(self._map, dtype="<i4", count=CONTROL_BYTES // 4)
        if int(self._longs[_MAGIC]) != MAGIC or int(self._ints[_VERSION]) != VERSION:
            raise StokerError(f"{path} is not a Stoker slot file of layout {VERSION}")
        self._jvm_pid = int(self._longs[_JVM_PID])
        self._longs[_PY_PID] = os.getpid()
        self._ints[_PY_STATE] = PY_ATTACHED
        self.released = int(self._longs[_RELEASED])
        self._ring = int(self._ints[_RING])
        self._bell = _connect(meta.get("bell"))

    @property
    def buffer(self) -> mmap.mmap:
        return self._map

    def wait(self, sequence: int, timeout: Optional[float] = None) -> Optional[tuple]:
        """Batch ``sequence`` as ``(slot offset, rows, index)`` once posted; ``None`` at the
        epoch's end. Raises StokerError when the JVM side failed, stopped or died, or after
        ``timeout`` seconds."""
        longs, ints = self._longs, self._ints
        start = time.monotonic()
        next_check = start + _LIVENESS_SECONDS
        pause = 0.00002
        spins = 0
        while True:
            if int(longs[_POSTED]) > sequence:
                return self._entry(sequence)
            state = int(ints[_JVM_STATE])
            if state != RUNNING:
                if int(longs[_POSTED]) > sequence:
                    continue
                if state == ENDED:
                    return None
                if state == FAILED:
                    raise StokerError(self.error())
                raise StokerError(f"rank {self.meta['rank']}: the JVM side stopped (its Spark "
                                  "task ended) before the epoch's end")
            spins += 1
            if self._bell is not None:
                if spins < _BELL_SPINS:
                    continue
                self._sleep_on_bell(sequence)
            elif spins < _SPINS:
                continue
            elif spins < _YIELDS:
                os.sched_yield()  # a posted batch is usually close
                continue
            now = time.monotonic()
            if now >= next_check:
                next_check = now + _LIVENESS_SECONDS
                self._check_jvm()
                if timeout is not None and now - start > timeout:
                    raise StokerError(f"rank {self.meta['rank']}: no batch {sequence} within "
                                      f"{timeout} s (timeout)")
            if self._bell is None:
                time.sleep(pause)
                pause = min(pause * 2, _MAX_PAUSE)

    def _sleep_on_bell(self, sequence: int) -> None:
        """Says Python sleeps, looks once more, and sleeps on the bell until a ring or
        ``_BELL_WAIT_SECONDS``. The JVM's end closes the socket: from then on Python polls."""
        ints = self._ints
        ints[_PY_WAITING] = 1
        try:
            with _FENCE:
                pass
            if int(self._longs[_POSTED]) > sequence or int(ints[_JVM_STATE]) != RUNNING:
                return
            try:
                if not self._bell.recv(64):  # the JVM's end closed: its task ends, or it died
                    self._drop_bell()
                    self._check_jvm()
            except socket.timeout:
                pass
            except OSError:
                self._drop_bell()
        finally:
            ints[_PY_WAITING] = 0

    def _drop_bell(self) -> None:
        bell, self._bell = self._bell, None
        if bell is not None:
            bell.close()

    def _entry(self, sequence: int) -> tuple:
        at = _RING_AT + 16 * (sequence % self._ring)
        return int(self._longs[at // 8]), int(self._ints[at // 4 + 2]), int(self._ints[at // 4 + 3])

    def release(self, sequence: int) -> None:
        """Python is done with batch ``sequence``: its slot may hold another batch."""
        if sequence + 1 > self.released:
            self.released = sequence + 1
            self._longs[_RELEASED] = self.released
            self._wake_jvm()

    def _wake_jvm(self) -> None:
        if self._bell is None:
            return
        with _FENCE:
            pass
        if int(self._ints[_JVM_WAITING]):
            try:
                self._bell.send(b"\1", socket.MSG_DONTWAIT)
            except BlockingIOError:
                pass  # the socket holds rings the JVM has not read: it wakes anyway
            except OSError:
                self._drop_bell()

    def error(self) -> str:
        length = int(self._ints[_ERROR_LENGTH])
        return bytes(self._map[_ERROR_AT:_ERROR_AT + length]).decode("utf-8", "replace")

    def _check_jvm(self) -> None:
        try:
            os.kill(self._jvm_pid, 0)
        except ProcessLookupError:
            raise StokerError(f"rank {self.meta['rank']}: the executor JVM (pid "
                              f"{self._jvm_pid}) is gone") from None
        except PermissionError:
            pass

    def close(self) -> None:
        """Tells the JVM this side is done; the mapping goes when no tensor over it is left."""
        if self._ints is not None:
            self._ints[_PY_STATE] = PY_CLOSED
            self._drop_bell()  # the JVM sees the socket close at once, if it sleeps on it
        self._longs = self._ints = None
        try:
            self._map.close()
        except BufferError:
            pass  # tensors still view the memory: it is unmapped once they are gone


def _connect(path: Optional[str]) -> Optional[socket.socket]:
    """Python's end of the doorbell at ``path``, which is then unlinked; None where there is no
    bell (the JVM could not make one) or it cannot be reached: the sides then poll."""
    if not path:
        return None
    bell = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        bell.connect(path)
    except OSError:
        bell.close()
        return None
    try:
        os.unlink(path)
    except OSError:
        pass
    bell.settimeout(_BELL_WAIT_SECONDS)
    return bell
