"""``python -m stoker.gpu_check``: the Python side's path to the GPU, measured without Spark.

A stand-in for the executor JVM (a thread of this process) posts batches of uint8 images
``[batch, 3, 64, 64]`` on a slot file exactly as ``dev.stoker.spark.python.SlotChannel`` does;
``stoker.torch.batches(..., device="cuda:N")`` takes them (slots page-locked with
``cudaHostRegister``, copied with ``non_blocking=True`` on a side stream, each slot released once
its copy is done) and a calibrated GPU step (``torch.cuda._sleep``) consumes them. Against it: the
same batches copied from pageable memory with a plain ``.to(device)``. Prints one line per fact::

    stoker_python h2d_gbps=<copy only> samples_per_s=<with the step> busy=<GPU busy fraction>
    stoker_python pageable_h2d_gbps=<the same copies from pageable memory>
    stoker_python skipped=<reason>            (no PyTorch with CUDA; exits 0)

Without CUDA, ``--device cpu`` runs the same path on the CPU (the tests use it).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time

import numpy as np

from stoker import _channel as ch

SHAPE = (3, 64, 64)


class FakeJvm:
    """Writes a slot file and posts ``batches`` batches on it, as the JVM does: in order, as many
    ahead as it has slots, batch k into slot k % slots once batch k - slots is released; then,
    each time Python asks for one, another epoch of as many, up to ``epochs``."""

    def __init__(self, directory: str, batch_size: int, batches: int, slots: int = 4,
                 epochs: int = 1):
        self.batch_size, self.batches, self.slots, self.epochs = batch_size, batches, slots, epochs
        self.slot_bytes = (batch_size * int(np.prod(SHAPE)) + 63) // 64 * 64
        fd, self.path = tempfile.mkstemp(prefix="stoker-shm-check-", dir=directory)
        size = ch.CONTROL_BYTES + slots * self.slot_bytes
        os.ftruncate(fd, size)
        import mmap
        self._map = mmap.mmap(fd, size)
        os.close(fd)
        self._longs = np.frombuffer(self._map, dtype="<i8", count=ch.CONTROL_BYTES // 8)
        self._ints = np.frombuffer(self._map, dtype="<i4", count=ch.CONTROL_BYTES // 4)
        data = np.frombuffer(self._map, dtype=np.uint8, offset=ch.CONTROL_BYTES)
        data[:] = np.random.default_rng(0).integers(0, 255, data.size, dtype=np.uint8)
        self._longs[ch._JVM_PID] = os.getpid()
        self._ints[ch._VERSION] = ch.VERSION
        self._ints[ch._RING] = 256
        self._ints[ch._AHEAD] = slots
        self._ints[ch._JVM_STATE] = ch.RUNNING
        self._longs[ch._MAGIC] = ch.MAGIC
        self._thread = threading.Thread(target=self._run, daemon=True)

    def meta(self) -> dict:
        return {"version": ch.VERSION, "path": self.path, "rank": 0, "worldSize": 1,
                "epoch": 0, "batchSize": self.batch_size, "batches": self.batches,
                "rowsPerRank": self.batches * self.batch_size, "droppedRows": 0,
                "paddedRows": 0, "columns": [{"name": "image", "dtype": "uint8",
                                              "shape": list(SHAPE), "offset": 0,
                                              "rowBytes": int(np.prod(SHAPE))}]}

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        longs, ints = self._longs, self._ints
        for epoch in range(self.epochs):
            while epoch > 0 and int(ints[ch._ASKED]) < epoch + 1:
                if int(ints[ch._PY_STATE]) == ch.PY_CLOSED:
                    return
                time.sleep(0)
            for k in range(epoch * self.batches, (epoch + 1) * self.batches):
                while int(longs[ch._RELEASED]) <= k - self.slots:
                    if int(ints[ch._PY_STATE]) == ch.PY_CLOSED:
                        return
                    time.sleep(0)
                at = ch._RING_AT + 16 * (k % 256)
                longs[at // 8] = ch.CONTROL_BYTES + (k % self.slots) * self.slot_bytes
                ints[at // 4 + 2] = self.batch_size
                ints[at // 4 + 3] = k - epoch * self.batches
                longs[ch._POSTED] = k + 1
            longs[ch._EPOCH_END] = (epoch + 1) * self.batches
            ints[ch._EPOCHS_ENDED] = epoch + 1


def calibrate_sleep(step_ms: float) -> int:
    """Cycles of ``torch.cuda._sleep`` that take ``step_ms`` on this GPU, measured once its clocks
    have risen from idle (a cold GPU runs the first sleeps at a fraction of its clock)."""
    import torch

    probe = 1_000_000
    for _ in range(20):
        torch.cuda._sleep(probe)
    torch.cuda.synchronize()
    start, end = timed_step(probe * 10)
    end.synchronize()
    return max(1, int(probe * 10 * step_ms / start.elapsed_time(end)))


def timed_step(cycles: int):
    """Runs a GPU step of ``cycles`` between two timing events; returns them."""
    import torch

    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    torch.cuda._sleep(cycles)
    end.record()
    return start, end


def measure(device: str, batch_size: int, batches: int, step_ms: float) -> dict:
    import torch

    import stoker.torch as st

    on_cuda = device.startswith("cuda")
    sleep_cycles = calibrate_sleep(step_ms) if on_cuda and step_ms > 0 else 0
    directory = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
    results = {}
    for with_step in (False, True):
        jvm = FakeJvm(directory, batch_size, batches)
        jvm.start()
        if on_cuda:
            torch.cuda.synchronize()
        began = time.perf_counter()
        steps = []
        with st.batches(json.dumps(jvm.meta()),
                        device=device if on_cuda else None) as loader:
            for batch in loader:
                x = batch["image"]
                if with_step and on_cuda:
                    steps.append(timed_step(sleep_cycles))
                elif not on_cuda:
                    x.sum()
        if on_cuda:
            torch.cuda.synchronize()
        took = time.perf_counter() - began
        # The GPU's busy time is what its own clock measured of each step, not the step asked for.
        busy = sum(start.elapsed_time(end) for start, end in steps) / 1000
        nbytes = batches * batch_size * int(np.prod(SHAPE))
        if with_step:
            results["samples_per_s"] = batches * batch_size / took
            results["busy"] = busy / took if on_cuda else 0.0
        else:
            results["h2d_gbps"] = nbytes / took / 1e9
    if on_cuda:
        host = torch.randint(0, 255, (batch_size,) + SHAPE, dtype=torch.uint8)
        torch.cuda.synchronize()
        began = time.perf_counter()
        for _ in range(batches):
            host.to(device)
        torch.cuda.synchronize()
        results["pageable_h2d_gbps"] = batches * host.numel() / (time.perf_counter() - began) / 1e9
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m stoker.gpu_check", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cuda:0", help="cuda:N, or cpu")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--batches", type=int, default=500)
    parser.add_argument("--step-ms", type=float, default=2.0)
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("stoker_python skipped=no_torch", flush=True)
        return 0
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("stoker_python skipped=no_cuda", flush=True)
        return 0
    results = measure(args.device, args.batch_size, args.batches, args.step_ms)
    print("stoker_python device=%s batch_size=%d batches=%d %s" % (
        args.device, args.batch_size, args.batches,
        " ".join(f"{k}={v:.3f}" for k, v in results.items() if k != "pageable_h2d_gbps")),
        flush=True)
    if "pageable_h2d_gbps" in results:
        print(f"stoker_python pageable_h2d_gbps={results['pageable_h2d_gbps']:.3f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
