"""stoker.torch against a stand-in for the JVM side (stoker.gpu_check.FakeJvm), without Spark:
the protocol of the control block, the tensors as views of the slots, and every way a rank ends."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from stoker import StokerError, _channel as ch  # noqa: E402
from stoker import torch as st  # noqa: E402
from stoker.gpu_check import SHAPE, FakeJvm  # noqa: E402


@pytest.fixture
def jvm(tmp_path):
    fake = FakeJvm(str(tmp_path), batch_size=4, batches=6, slots=2)
    yield fake
    assert os.listdir(tmp_path) == [], "the slot file is left behind"


def slot(jvm, k):
    start = ch.CONTROL_BYTES + (k % jvm.slots) * jvm.slot_bytes
    return np.frombuffer(jvm._map, np.uint8, jvm.batch_size * int(np.prod(SHAPE)), start)


def test_batches_are_views_of_the_slots_in_order_and_the_file_goes_at_once(jvm, tmp_path):
    jvm.start()
    with st.batches(json.dumps(jvm.meta())) as loader:
        assert os.listdir(tmp_path) == [], "unlinked once mapped"
        assert len(loader) == 6
        seen = []
        for k, batch in enumerate(loader):
            image = batch["image"]
            assert image.shape == (4,) + SHAPE and image.dtype == torch.uint8
            assert np.array_equal(image.numpy().reshape(-1), slot(jvm, k))
            assert int(jvm._longs[ch._RELEASED]) == k, "released only when the next is asked for"
            seen.append(image.data_ptr())
    assert len(set(seen)) == 2, "one view per slot, made once"
    assert int(jvm._ints[ch._PY_STATE]) == ch.PY_CLOSED


def test_leaving_early_tells_the_jvm(jvm):
    jvm.start()
    for _ in st.batches(json.dumps(jvm.meta())):
        break
    assert int(jvm._ints[ch._PY_STATE]) == ch.PY_CLOSED
    jvm._thread.join(10)
    assert not jvm._thread.is_alive()


KEPT_PAST_CLOSE = """
import gc, json, sys
from stoker import torch as st
from stoker.gpu_check import FakeJvm
jvm = FakeJvm(sys.argv[1], batch_size=4, batches=6, slots=2)
jvm.start()
first = next(iter(st.batches(json.dumps(jvm.meta()))))  # the loader is closed at once
gc.collect()
print("sum", int(first["image"].sum()), flush=True)
jvm._thread.join(10)
"""


def test_a_tensor_kept_past_its_loaders_close_stays_readable(tmp_path):
    # in a process of its own: were the memory unmapped under the tensor, it would crash
    done = subprocess.run([sys.executable, "-c", KEPT_PAST_CLOSE, str(tmp_path)],
                          capture_output=True, text=True, timeout=120,
                          cwd=os.path.join(os.path.dirname(__file__), ".."))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("sum ")


def test_closing_during_a_step_ends_the_iteration(jvm):
    jvm.start()
    loader = st.batches(json.dumps(jvm.meta()))
    steps = 0
    for steps, _ in enumerate(loader, 1):
        if steps == 2:
            loader.close()
    assert steps == 2
    assert int(jvm._ints[ch._PY_STATE]) == ch.PY_CLOSED
    jvm._thread.join(10)
    assert not jvm._thread.is_alive()


def test_a_failed_jvm_raises_its_reason(jvm):
    message = "rank 0: java.io.IOException: file part-0.parquet column 'image' row 7: damaged"
    jvm._map[ch._ERROR_AT:ch._ERROR_AT + len(message)] = message.encode()
    jvm._ints[ch._ERROR_LENGTH] = len(message)
    jvm._ints[ch._JVM_STATE] = ch.FAILED
    with pytest.raises(StokerError, match="row 7: damaged"):
        list(st.batches(json.dumps(jvm.meta())))


def test_a_stopped_task_and_a_dead_jvm_end_the_wait(jvm, tmp_path):
    jvm._ints[ch._JVM_STATE] = ch.STOPPED
    with pytest.raises(StokerError, match="the JVM side stopped"):
        list(st.batches(json.dumps(jvm.meta())))

    other = FakeJvm(str(tmp_path), batch_size=4, batches=2)
    dead = subprocess.Popen(["true"])
    dead.wait()
    other._longs[ch._JVM_PID] = dead.pid
    with pytest.raises(StokerError, match=f"the executor JVM \\(pid {dead.pid}\\) is gone"):
        list(st.batches(json.dumps(other.meta())))


def test_a_timeout_names_the_batch(jvm):
    with pytest.raises(StokerError, match=r"no batch 0 within 0.2 s \(timeout\)"):
        list(st.batches(json.dumps(jvm.meta()), timeout=0.2))


def test_normalize_gives_float32_per_channel(jvm):
    jvm.start()
    mean, std = [0.5, 0.4, 0.3], [0.2, 0.25, 0.3]
    with st.batches(json.dumps(jvm.meta()), normalize={"image": (mean, std)}) as loader:
        batch = next(iter(loader))
        raw = torch.from_numpy(slot(jvm, 0).reshape((4,) + SHAPE).astype(np.float32))
        expected = (raw / 255 - torch.tensor(mean).view(3, 1, 1)) / torch.tensor(std).view(3, 1, 1)
        assert batch["image"].dtype == torch.float32
        assert torch.allclose(batch["image"], expected, atol=1e-6)


def test_bad_handles_are_refused_with_the_remedy(jvm):
    with pytest.raises(StokerError, match="normalize: no column 'pixels'"):
        st.batches(json.dumps(jvm.meta()), normalize={"pixels": ([0.5], [0.5])})
    meta = dict(jvm.meta(), version=99)
    with pytest.raises(StokerError, match="handle version 99 .expected: 5.; install the stoker"):
        st.batches(json.dumps(meta))
    meta = dict(jvm.meta(), path=jvm.path + "-gone")
    with pytest.raises(StokerError, match="is gone: its task ended"):
        st.batches(json.dumps(meta))
    os.unlink(jvm.path)


def test_posted_ahead_batches_are_read_from_their_ring_entries(tmp_path):
    fake = FakeJvm(str(tmp_path), batch_size=4, batches=40, slots=3)
    fake.start()
    fake._thread.join(0.5)  # the stand-in posts three ahead before anything is released
    assert int(fake._longs[ch._POSTED]) == 3
    with st.batches(json.dumps(fake.meta())) as loader:
        for k, batch in enumerate(loader):
            assert np.array_equal(batch["image"].numpy().reshape(-1), slot(fake, k)), k
            assert int(fake._longs[ch._POSTED]) - k <= 3, "never more posted than slots"
    assert k == 39


def test_each_iteration_is_the_next_epoch_through_the_same_file(tmp_path):
    fake = FakeJvm(str(tmp_path), batch_size=4, batches=5, slots=2, epochs=3)
    fake.start()
    with st.batches(json.dumps(fake.meta())) as loader:
        epochs = []
        for e in range(3):
            seen = []
            for batch in loader:
                seen.append(int(fake._longs[ch._RELEASED]))
            epochs.append(loader.epoch)
            assert len(seen) == 5
            assert seen == list(range(5 * e, 5 * e + 5)), "numbered on across the epochs"
            assert int(fake._ints[ch._ASKED]) == (e + 1 if e else 0), "asked when started"
        assert epochs == [0, 1, 2]
    fake._thread.join(10)
    assert not fake._thread.is_alive()
    assert os.listdir(tmp_path) == []


def test_an_epoch_is_iterated_to_its_end_before_the_next(tmp_path):
    fake = FakeJvm(str(tmp_path), batch_size=4, batches=5, slots=2, epochs=2)
    fake.start()
    loader = st.batches(json.dumps(fake.meta()))
    running = iter(loader)
    next(running)
    with pytest.raises(StokerError, match="epoch 0 is still being iterated"):
        iter(loader)
    running.close()  # what leaving the loop early does once the iterator is dropped
    with pytest.raises(StokerError, match="the batches are closed"):
        iter(loader)
    assert int(fake._ints[ch._PY_STATE]) == ch.PY_CLOSED
    fake._thread.join(10)
    assert not fake._thread.is_alive()
