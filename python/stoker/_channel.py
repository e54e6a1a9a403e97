"""The Python side of a rank's shared-memory file: its control block and its slots.

The layout mirrors ``dev.stoker.spark.python.SlotChannel`` (version 4). The JVM posts batches in
order into a ring of entries (slot offset, rows, index), as many ahead as its loader has slots,
by raising the posted count; Python reads batch k's entry and, when the step is done, raises the
released count. Epochs follow each other in the same file, their batches numbered on: the JVM
says where each ended, and starts the next when Python asks for it. Every word has one writer; words are 8-byte or 4-byte aligned, read and written
whole. A side that finds nothing to do writes in its waiting word the count it waits for (half of
the batches the JVM posts ahead) and sleeps on the doorbell, a Unix-domain socket beside the file;
the other side sends it one byte once its count reaches that. So the two wake each other once per
few batches, not once per batch.
"""

from __future__ import annotations

import json
import mmap
import os
import socket
import sys
import threading
import time
from typing import Any, Dict, Optional


MAGIC = 0x5950_5245_4B4F_5453  # "STOKERPY" as little-endian bytes
VERSION = 5
CONTROL_BYTES = 8192

# int64 words (index = byte offset / 8)
_MAGIC, _POSTED, _RELEASED, _JVM_PID, _PY_PID, _EPOCH_END = 0, 3, 4, 7, 8, 10
# Python's time waiting and stepping, batches and rows taken
_PY_WAIT_NS, _PY_STEP_NS, _PY_TAKEN, _PY_ROWS = 12, 13, 14, 15
# int32 words (index = byte offset / 4)
_VERSION, _JVM_STATE, _PY_STATE, _ERROR_LENGTH, _RING, _JVM_WAITING, _PY_WAITING, _AHEAD = \
    2, 3, 4, 5, 10, 11, 12, 13
_ASKED, _JVM_WAITING_EPOCH, _EPOCHS_ENDED = 18, 19, 22
_ERROR_AT = 128
_RING_AT = 4096  # batch k's entry: 16 bytes at _RING_AT + 16 (k % ring)

RUNNING, FAILED, STOPPED = 1, 3, 4
PY_ATTACHED, PY_CLOSED = 1, 2

_LIVENESS_SECONDS = 1.0
# A wait looks at the posted count a few times, then yields the processor for up to
# _YIELD_SECONDS (a batch is usually posted within that, and a yield hands the processor to
# whichever thread needs it), and only then sleeps: on the doorbell, or without one for growing
# pauses. A sleep and its wake-up cost both sides a system call and, on a virtual machine, tens
# of microseconds, and the JVM's ring lands in the thread that fills. Alternated in one script,
# one rank, the JVM's own read within the stage over this side's: 0.94 with 0.5 ms, 0.89 with
# 1 ms, 0.78 with 0.05 ms; two ranks on two cores, one epoch: 0.61 with 0.5 ms, 0.50 with
# 0.05 ms. An epoch's first batch waits for a shuffle window: that wait yields only briefly.
_SPINS = 8
_YIELD_SECONDS = 0.0005
_FIRST_YIELD_SECONDS = 0.00005
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
        # memoryviews of the words read and written faster than NumPy's scalars, in the
        # machine's order: little-endian, which the JVM side checks too
        # Tensors are made over this view, never over the map itself: each holds the view, and
        # the view holds the map's buffer, so the map cannot be unmapped under a tensor (torch
        # keeps no buffer of its own) and goes once the last tensor and the channel let go.
        self._view = memoryview(self._map)
        control = self._view[:CONTROL_BYTES]
        self._longs = control.cast("q")
        self._ints = control.cast("i")
        control.release()
        if sys.byteorder != "little" or self._longs[_MAGIC] != MAGIC or \
                self._ints[_VERSION] != VERSION:
            self._release_words()
            self._view = None
            self._map.close()
            raise StokerError(f"{path} is not a Stoker slot file of layout {VERSION}")
        self._jvm_pid = self._longs[_JVM_PID]
        self._longs[_PY_PID] = os.getpid()
        self._ints[_PY_STATE] = PY_ATTACHED
        self.released = self._longs[_RELEASED]
        self._wait_ns, self._step_ns, self._returned, self._rows = 0, 0, 0, 0
        self._ring = self._ints[_RING]
        self._batches = int(meta["batches"])
        self._epoch_index = -1  # epochs of this file started by Python, less one
        self._epoch_first = 0  # the number of the running epoch's first batch
        self._bell = _connect(meta.get("bell"))

    @property
    def buffer(self) -> memoryview:
        """The whole file, for tensors: they keep it mapped while any of them lives."""
        return self._view

    def start_epoch(self) -> int:
        """Starts the file's next epoch (the JVM runs the first unasked; each next one once
        asked, every batch before it released): the number of its first batch."""
        index = self._epoch_index + 1
        first = 0
        if index > 0:
            if self._ints[_EPOCHS_ENDED] < index:
                raise StokerError(f"rank {self.meta['rank']}: epoch {index - 1} of this stage "
                                  "has not ended (iterate it to its end first)")
            first = self._longs[_EPOCH_END]
        self._epoch_index, self._epoch_first = index, first
        if index > 0:
            self._ints[_ASKED] = index + 1
            if self._bell is not None:
                with _FENCE:
                    pass
                awaited = self._ints[_JVM_WAITING_EPOCH]
                if awaited and index + 1 >= awaited:
                    self._ring_jvm()
        return first

    def wait(self, sequence: int, timeout: Optional[float] = None) -> Optional[tuple]:
        """Batch ``sequence`` as ``(slot offset, rows, index)`` once posted; ``None`` at the
        running epoch's end. Raises StokerError when the JVM side failed, stopped or died, or after
        ``timeout`` seconds."""
        asked = time.perf_counter_ns()
        if self._returned:  # the time since the last batch came: the step on it
            self._step_ns += asked - self._returned
        if self._longs[_POSTED] > sequence:  # the JVM posts ahead: usually there already
            entry = self._entry(sequence)
        else:
            entry = self._await(sequence, timeout)
            self._wait_ns += time.perf_counter_ns() - asked
        # an epoch's end: the time until the next epoch's first batch is asked for is no step
        self._returned = 0 if entry is None else time.perf_counter_ns()
        # for the Stoker page: the JVM reads them with the rank's other figures
        self._longs[_PY_WAIT_NS] = self._wait_ns
        self._longs[_PY_STEP_NS] = self._step_ns
        if entry is not None:
            self._rows += entry[1]
            self._longs[_PY_ROWS] = self._rows
            self._longs[_PY_TAKEN] = sequence + 1
        return entry

    def _await(self, sequence: int, timeout: Optional[float]) -> Optional[tuple]:
        longs, ints = self._longs, self._ints
        start = time.perf_counter()
        # the epoch's first batch waits for a shuffle window read: no use yielding for long
        yield_until = start + (_YIELD_SECONDS if sequence > self._epoch_first
                               else _FIRST_YIELD_SECONDS)
        next_check = start + _LIVENESS_SECONDS
        pause = 0.00002
        spins = 0
        while True:
            if longs[_POSTED] > sequence:
                return self._entry(sequence)
            if ints[_EPOCHS_ENDED] > self._epoch_index:  # its end is written before this
                if longs[_POSTED] > sequence:
                    continue
                return None
            state = ints[_JVM_STATE]
            if state != RUNNING:
                if longs[_POSTED] > sequence:
                    continue
                if state == FAILED:
                    raise StokerError(self.error())
                raise StokerError(f"rank {self.meta['rank']}: the JVM side stopped (its Spark "
                                  "task ended) before the epoch's end")
            spins += 1
            if spins < _SPINS:
                continue
            now = time.perf_counter()
            if now < yield_until:
                os.sched_yield()
                continue
            if now >= next_check:
                next_check = now + _LIVENESS_SECONDS
                self._check_jvm()
                if timeout is not None and now - start > timeout:
                    raise StokerError(f"rank {self.meta['rank']}: no batch {sequence} within "
                                      f"{timeout} s (timeout)")
            if self._bell is not None:
                self._sleep_on_bell(sequence)
            else:
                time.sleep(pause)
                pause = min(pause * 2, _MAX_PAUSE)

    def _sleep_on_bell(self, sequence: int) -> None:
        """Says Python sleeps until a few batches from ``sequence`` on are posted (half of those
        the JVM posts ahead, or up to the epoch's end), looks once more, and sleeps on the bell
        until a ring or ``_BELL_WAIT_SECONDS``. The JVM's end closes the socket: from then on
        Python polls."""
        ints = self._ints
        left = self._epoch_first + self._batches - sequence
        awaited = sequence + max(1, min(ints[_AHEAD] // 2, left))
        ints[_PY_WAITING] = awaited
        try:
            with _FENCE:
                pass
            if self._longs[_POSTED] >= awaited or ints[_JVM_STATE] != RUNNING or \
                    ints[_EPOCHS_ENDED] > self._epoch_index:
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
        at = _RING_AT // 8 + 2 * (sequence % self._ring)  # its slot offset's int64 word
        ints = self._ints
        return self._longs[at], ints[2 * at + 2], ints[2 * at + 3]

    def release(self, sequence: int) -> None:
        """Python is done with batch ``sequence``: its slot may hold another batch."""
        if sequence >= self.released:
            self.released = sequence + 1
            self._longs[_RELEASED] = self.released
            if self._bell is not None:
                self._wake_jvm()

    def _wake_jvm(self) -> None:
        with _FENCE:
            pass
        awaited = self._ints[_JVM_WAITING]
        if awaited and self.released >= awaited:
            self._ring_jvm()

    def _ring_jvm(self) -> None:
        try:
            self._bell.send(b"\1", socket.MSG_DONTWAIT)
        except BlockingIOError:
            pass  # the socket holds rings the JVM has not read: it wakes anyway
        except OSError:
            self._drop_bell()

    def error(self) -> str:
        length = self._ints[_ERROR_LENGTH]
        return bytes(self._map[_ERROR_AT:_ERROR_AT + length]).decode("utf-8", "replace")

    def _check_jvm(self) -> None:
        try:
            os.kill(self._jvm_pid, 0)
        except ProcessLookupError:
            raise StokerError(f"rank {self.meta['rank']}: the executor JVM (pid "
                              f"{self._jvm_pid}) is gone") from None
        except PermissionError:
            pass

    def _release_words(self) -> None:
        longs, ints, self._longs, self._ints = self._longs, self._ints, None, None
        longs.release()
        ints.release()

    def close(self) -> None:
        """Tells the JVM this side is done; the mapping goes when no tensor over it is left."""
        if self._ints is not None:
            self._ints[_PY_STATE] = PY_CLOSED
            self._drop_bell()  # the JVM sees the socket close at once, if it sleeps on it
            self._release_words()
        self._view = None  # the tensors made over it keep it, and so the map, while they live
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
