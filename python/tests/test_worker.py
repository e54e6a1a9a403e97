"""stoker._worker: a reused PySpark worker's archives read again only when changed, its heap
frozen once, and nothing of either outside a Spark task."""

import importlib
import os
import subprocess
import sys
import zipfile
import zipimport

import pytest

from stoker import _worker


def _zip(path, modules):
    with zipfile.ZipFile(path, "w") as archive:
        for name in modules:
            archive.writestr(f"{name}.py", f"NAME = {name!r}\n")


@pytest.mark.skipif(not _worker._REREADS_AT_ONCE, reason="this Python re-reads lazily already")
def test_an_archive_is_read_again_only_once_it_changed(tmp_path, monkeypatch):
    archive = str(tmp_path / "mods.zip")
    _zip(archive, ["stoker_test_first"])
    monkeypatch.syspath_prepend(archive)
    importlib.import_module("stoker_test_first")
    reads = []
    original = zipimport._read_directory
    monkeypatch.setattr(zipimport, "_read_directory",
                        lambda path: reads.append(path) or original(path))
    importlib.invalidate_caches()
    assert archive in reads, "without the change, every invalidation reads the archive"

    assert _worker.reread_only_changed() >= 1
    assert _worker.reread_only_changed() == 0, "changed once only"
    reads.clear()
    importlib.invalidate_caches()
    assert archive not in reads

    _zip(archive, ["stoker_test_first", "stoker_test_second"])  # another size
    importlib.invalidate_caches()
    assert reads.count(archive) == 1
    assert importlib.import_module("stoker_test_second").NAME == "stoker_test_second"
    for name in ("stoker_test_first", "stoker_test_second"):
        sys.modules.pop(name, None)


def test_nothing_changes_outside_a_spark_task():
    code = ("import gc, sys; from stoker import _worker; _worker.lighten(); "
            "print(gc.get_freeze_count(), sum(isinstance(f.__dict__.get('invalidate_caches'), "
            "_worker._RereadIfChanged) for f in sys.path_importer_cache.values() "
            "if f is not None and hasattr(f, '__dict__')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["0", "0"]


def test_in_a_task_the_heap_is_frozen_once_and_the_switch_turns_it_off():
    code = ("import gc; from stoker import _worker; _worker._in_task = lambda: True; "
            "_worker.lighten(); first = gc.get_freeze_count(); _worker.lighten(); "
            "print(first > 0, gc.get_freeze_count() == first)")
    run = lambda env: subprocess.run([sys.executable, "-c", code], capture_output=True,
                                     text=True, check=True, env=env).stdout.split()
    assert run(dict(os.environ)) == ["True", "True"]
    assert run(dict(os.environ, STOKER_LIGHTEN_WORKER="0")) == ["False", "True"]


def test_a_reused_spark_worker_keeps_both_between_tasks(spark):
    def probe(_):
        import gc
        import sys
        import zipimport

        from stoker import _worker

        _worker.lighten()
        archives = [f for f in sys.path_importer_cache.values()
                    if isinstance(f, zipimport.zipimporter)]
        yield (gc.get_freeze_count() > 0, len(archives),
               sum(isinstance(f.__dict__.get("invalidate_caches"), _worker._RereadIfChanged)
                   for f in archives))

    first = spark.sparkContext.parallelize([0], 1).mapPartitions(probe).collect()[0]
    second = spark.sparkContext.parallelize([0], 1).mapPartitions(probe).collect()[0]
    for frozen, archives, changed in (first, second):
        assert frozen
        if _worker._REREADS_AT_ONCE:
            assert archives > 0 and changed == archives


def test_a_failure_to_lighten_is_a_warning_and_the_task_goes_on(monkeypatch):
    monkeypatch.setattr(_worker, "_in_task", lambda: True)

    def broken():
        raise OSError("no stat here")

    monkeypatch.setattr(_worker, "reread_only_changed", broken)
    with pytest.warns(RuntimeWarning, match="could not lighten this PySpark worker.*no stat here"):
        _worker.lighten()
