"""Takes two costs off the start of every later task of a reused PySpark worker.

A reused PySpark worker (``spark.python.worker.reuse``, the default) spends, between two tasks,
processor time that belongs to neither, and a rank pays it before its first batch, once per
read. Measured on a Spark 3.5 worker with PyTorch loaded: about 0.12 s, then 0.07 s, of a core
per task. :func:`lighten` removes both, once per process:

- PySpark calls ``importlib.invalidate_caches()`` as each task starts. On Python 3.10 and 3.11
  that makes the importer of every zip archive on ``sys.path`` read the archive's whole
  directory again, in pure Python (CPython issue gh-103200, fixed in 3.12): the Spark core jar
  (over 5,000 entries, no Python module), ``pyspark.zip`` and py4j's. Each such importer is made
  to read its archive again only when the file changed (its size or modification time), which is
  what the invalidation is for.
- PySpark's daemon runs a full ``gc.collect()`` after each task, which walks every object of the
  process, PyTorch's and NumPy's included. The objects alive once a first collection is done
  (modules, mostly) are moved out of the collector's reach with ``gc.freeze()``; later tasks'
  objects are collected as before, and frozen objects are still freed when no reference to them
  is left.

Both happen only in a Spark task's process (a PySpark worker), never in a driver.
``STOKER_LIGHTEN_WORKER=0`` in the workers' environment turns both off.
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import warnings
import zipimport
from typing import Optional, Tuple

ENVIRONMENT = "STOKER_LIGHTEN_WORKER"
# the versions whose zipimporter.invalidate_caches() re-reads the directory at once
_REREADS_AT_ONCE = (3, 10) <= sys.version_info[:2] < (3, 12)

_lock = threading.Lock()
_frozen = False


def lighten() -> None:
    """In a Spark task, both changes above: the importers' at every call (new ones may have come),
    the freeze once per process. Elsewhere, nothing."""
    if os.environ.get(ENVIRONMENT, "1") == "0" or not _in_task():
        return
    global _frozen
    try:
        reread_only_changed()
        with _lock:
            if not _frozen:
                _frozen = True
                gc.collect()
                gc.freeze()
    except Exception as failure:  # only ever a saving: the task goes on without it
        warnings.warn(f"stoker: could not lighten this PySpark worker ({failure!r}); its next "
                      f"tasks start as PySpark starts them (set {ENVIRONMENT}=0 to skip this)",
                      RuntimeWarning, stacklevel=2)


def _in_task() -> bool:
    try:
        from pyspark import TaskContext
    except ImportError:
        return False
    return TaskContext.get() is not None


def reread_only_changed() -> int:
    """Makes the zip importers now in ``sys.path_importer_cache`` re-read their archive on
    invalidation only when its file changed. Importers changed already are left as they are;
    nothing changes on Python versions not affected. Returns how many importers it changed."""
    if not _REREADS_AT_ONCE:
        return 0
    changed = 0
    for finder in list(sys.path_importer_cache.values()):
        if isinstance(finder, zipimport.zipimporter) and \
                not isinstance(finder.__dict__.get("invalidate_caches"), _RereadIfChanged):
            finder.invalidate_caches = _RereadIfChanged(finder)
            changed += 1
    return changed


def _stamp(path: str) -> Optional[Tuple[int, int]]:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_size, status.st_mtime_ns


class _RereadIfChanged:
    """An importer's ``invalidate_caches``: the original's work, only when the archive changed
    since the directory the importer holds was read (at this task's start at the latest)."""

    def __init__(self, importer: zipimport.zipimporter):
        self._importer = importer
        self._read = _stamp(importer.archive)

    def __call__(self) -> None:
        now = _stamp(self._importer.archive)
        if now is not None and now == self._read:
            return
        self._read = now
        type(self._importer).invalidate_caches(self._importer)
