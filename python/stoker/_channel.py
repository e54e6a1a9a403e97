"""The Python side of a rank's shared-memory file: its control block and its slots.

The layout mirrors ``dev.stoker.spark.python.SlotChannel`` (version 1). The JVM posts one batch at
a time (slot offset, rows, index) by raising the posted count; Python reads it and, when the step
is done, raises the released count. Every word has one writer; words are 8-byte or 4-byte
aligned, read and written whole.
"""

from __future__ import annotations

import json
import mmap
import os
import time
from typing import Any, Dict, Optional

import numpy as np

MAGIC = 0x5950_5245_4B4F_5453  # "STOKERPY" as little-endian bytes
VERSION = 1
CONTROL_BYTES = 4096

# int64 words (index = byte offset / 8)
_MAGIC, _POSTED, _RELEASED, _SLOT, _JVM_PID, _PY_PID = 0, 3, 4, 5, 7, 8
# int32 words (index = byte offset / 4)
_VERSION, _JVM_STATE, _PY_STATE, _ERROR_LENGTH, _ROWS, _INDEX = 2, 3, 4, 5, 12, 13
_ERROR_AT = 128

RUNNING, ENDED, FAILED, STOPPED = 1, 2, 3, 4
PY_ATTACHED, PY_CLOSED = 1, 2

_LIVENESS_SECONDS = 1.0
# Looks at the posted count before yielding, and before sleeping (a yield takes about a
# microsecond when nothing else wants the processor): a sleep wakes tens of microseconds late.
_SPINS, _YIELDS = 100, 5000


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
                return int(longs[_SLOT]), int(ints[_ROWS]), int(ints[_INDEX])
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
            if spins < _SPINS:
                continue
            if spins < _YIELDS:
                os.sched_yield()  # a posted batch is usually close
                continue
            now = time.monotonic()
            if now >= next_check:
                next_check = now + _LIVENESS_SECONDS
                self._check_jvm()
                if timeout is not None and now - start > timeout:
                    raise StokerError(f"rank {self.meta['rank']}: no batch {sequence} within "
                                      f"{timeout} s (timeout)")
            time.sleep(pause)
            pause = min(pause * 2, 0.001)

    def release(self, sequence: int) -> None:
        """Python is done with batch ``sequence``: its slot may hold another batch."""
        if sequence + 1 > self.released:
            self.released = sequence + 1
            self._longs[_RELEASED] = self.released

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
        self._longs = self._ints = None
        try:
            self._map.close()
        except BufferError:
            pass  # tensors still view the memory: it is unmapped once they are gone
