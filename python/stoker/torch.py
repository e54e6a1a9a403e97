"""PyTorch batches on the ranks of a Spark barrier stage, from Stoker's loader in the JVM.

On the driver, :func:`read` (or :func:`ranks` over a ``format("stoker")`` read) gives a DataFrame
with one small handle row per rank. A barrier ``mapInArrow`` / ``mapInPandas`` (or an RDD barrier
``mapPartitions``) over it runs one task per rank, whose function passes its input to
:func:`batches` and iterates PyTorch tensors::

    ranks = stoker.torch.read(spark, path, columns=["pixels", "label"], batchSize=64,
                              worldSize=2, shuffle=True, seed=42, epoch=0, dropLast=True)

    def train(handles):
        with stoker.torch.batches(handles) as loader:
            for batch in loader:              # {"pixels": uint8 [64, 784], "label": int64 [64]}
                ...
        yield pa.RecordBatch.from_pydict({"rank": [loader.rank]})

    ranks.mapInArrow(train, "rank int", barrier=True).collect()

In that task the JVM runs the rank's loader with its slots in a shared-memory file; the tensors
are views of a slot (no copy), valid until the next batch is asked for (``clone()`` what must
outlive the step). Iterating the loader again runs the next epoch in the same task::

    with stoker.torch.batches(handles) as loader:
        for _ in range(3):                    # epochs 0, 1, 2 over the rank's rows
            for batch in loader:
                ...

With ``device="cuda"``, each batch is copied from the slot (page-locked with
``cudaHostRegister``) on a side stream with ``non_blocking=True``, and the slot goes back as soon
as that copy is done, while the GPU still computes on the batch before.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, Iterator, Optional, Sequence, Tuple, Union

import torch

from stoker import _state, _worker
from stoker._channel import SlotChannel, StokerError, parse_handle

__all__ = ["read", "ranks", "batches", "run", "RankBatches", "StokerError"]

STATE_KEY = "stoker_state"
"""The key of the loader's state (``LoaderState`` as text) in :meth:`RankBatches.state_dict`."""

_DTYPES = {
    "uint8": torch.uint8,
    "int32": torch.int32,
    "int64": torch.int64,
    "float32": torch.float32,
    "float64": torch.float64,
}

Normalize = Dict[str, Tuple[Sequence[float], Sequence[float]]]


_CONNECT = ("stoker.torch needs classic Spark (a JVM driver in this process), not Spark Connect: "
            "on Databricks use classic compute in dedicated (single user) access mode")


def _python_ranks(session: Any) -> Any:
    """The JVM's ``PythonRanks``, or a StokerError saying in one line why this session cannot
    reach it: Spark Connect, or no Stoker jars on the session."""
    jvm = getattr(session, "_jvm", None)
    if jvm is None:
        raise StokerError(_CONNECT)
    from py4j.java_gateway import JavaClass

    found = jvm.dev.stoker.spark.python.PythonRanks
    if not isinstance(found, JavaClass):
        line = ".".join(session.version.split(".")[:2])
        raise StokerError(
            "the Stoker jars are not on this Spark session: start it with "
            "stoker.spark.configure_spark(SparkSession.builder) (the jar this package carries), "
            "or SparkSession.builder.config(\"spark.jars.packages\", \"dev.stoker:"
            f"stoker-spark-runtime-{line}_<scala>:<version>\") (spark-submit --packages; on "
            "Databricks, a Maven cluster library), built for this session's Spark "
            + session.version + " (docs/python.md)")
    return found


def _other_line(session: Any, error: Exception) -> Optional[StokerError]:
    """A StokerError when ``error`` says the jars were built for another Spark line or Scala
    version than the session's (a class or method of Spark or Scala missing), else None."""
    text = str(error)
    if not any(sign in text for sign in ("NoClassDefFoundError", "NoSuchMethodError",
                                         "AbstractMethodError", "IncompatibleClassChangeError")):
        return None
    scala = session._jvm.scala.util.Properties.versionNumberString()
    return StokerError(
        f"the Stoker jars on this session were built for another Spark line or Scala version "
        f"than this session's (Spark {session.version}, Scala {scala}): use the runtime jar built "
        f"for it (stoker-spark-runtime-<line>_<scala>: mvn package for Spark 3.5 and Scala 2.12, "
        f"-Pspark-4 for Spark 4.0 and Scala 2.13; docs/python.md)")


def ranks(read: Any) -> Any:
    """The handle rows of a ``spark.read.format("stoker")`` read (at most a ``select`` of its
    columns): a DataFrame of ``worldSize`` partitions, partition r holding rank r's handle."""
    if not hasattr(read, "_jdf"):
        raise StokerError(_CONNECT)
    from pyspark.sql import DataFrame

    session = read.sparkSession
    python_ranks = _python_ranks(session)
    try:
        jdf = python_ranks.of(read._jdf)
    except Exception as e:  # a Py4JJavaError from the JVM
        other = _other_line(session, e)
        if other is not None:
            raise other from e
        raise
    return DataFrame(jdf, session)


def read(spark: Any, path: Union[str, Sequence[str], None],
         columns: Optional[Sequence[str]] = None, **options: Any) -> Any:
    """``spark.read.format("stoker").options(**options).load(path).select(*columns)`` as handle
    rows (see :func:`ranks`). Options are the DataSource's (``batchSize``, ``worldSize``,
    ``shuffle``, ``seed``, ``epoch``, ``dropLast``, ``numWorkers``, ``prefetchFactor``...;
    ``globalBatchSize`` for the same global batches on any number of ranks, ``epochOrder="global"``
    for later epochs planned again over the whole input);
    ``path`` is None for a table read by name (``tableFormat="iceberg", table="db.name"``)."""
    _python_ranks(spark)  # before the read, whose own error would be a page of Java
    if isinstance(options.get("resumeFrom"), dict):  # a RankBatches.state_dict()
        options["resumeFrom"] = _state_of(options["resumeFrom"])
    reader = spark.read.format("stoker").options(
        **{name: _option_text(value) for name, value in options.items()})
    try:
        if path is None:
            frame = reader.load()
        else:
            frame = reader.load(path) if isinstance(path, str) else reader.load(list(path))
    except Exception as e:  # a Py4JJavaError (or Spark's own error) from the JVM
        other = _other_line(spark, e)
        if other is not None:
            raise other from e
        raise
    if columns is not None:
        frame = frame.select(*columns)
    return ranks(frame)


def _state_of(state_dict: Dict[str, Any]) -> str:
    state = state_dict.get(STATE_KEY)
    if not isinstance(state, str):
        raise StokerError(f"a state_dict without {STATE_KEY!r} (expected: what "
                          "RankBatches.state_dict() returned)")
    return state


def _option_text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def batches(handles: Any, device: Union[str, torch.device, None] = None,
            normalize: Optional[Normalize] = None,
            timeout: Optional[float] = None) -> "RankBatches":
    """This rank's batches, from the input of the barrier task's function: an iterator of
    ``pyarrow.RecordBatch`` (mapInArrow), of ``pandas.DataFrame`` (mapInPandas) or of ``Row``
    (RDD mapPartitions), or the handle string itself.

    ``device``: where tensors are delivered (default: the CPU, as views of the slot).
    ``normalize``: ``{column: (mean, std)}`` per channel (the first dimension of the column's
    shape); the column is delivered as float32 ``(x / 255 - mean) / std`` for uint8 columns,
    ``(x - mean) / std`` otherwise, computed on ``device``.
    ``timeout``: seconds to wait for one batch before a StokerError (default: no limit; a dead
    JVM is noticed within a second either way)."""
    _worker.lighten()  # this worker's next tasks start sooner (see stoker._worker)
    return RankBatches(_handle_of(handles), device=device, normalize=normalize, timeout=timeout)


def run(ranks_frame: Any, train: Any, *args: Any, use_gpu: bool = False,
        num_processes: Optional[int] = None, local_mode: bool = False,
        device: Union[str, torch.device, None] = None, normalize: Optional[Normalize] = None,
        timeout: Optional[float] = None, **kwargs: Any) -> Any:
    """Runs ``train(loader, *args, **kwargs)`` once per rank of ``ranks_frame`` (from
    :func:`read` or :func:`ranks`) in one barrier stage, as ``torchrun`` would start it: each
    rank's environment has ``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``, ``LOCAL_WORLD_SIZE``,
    ``MASTER_ADDR`` (rank 0's host) and ``MASTER_PORT`` (a free port there), so that
    ``torch.distributed.init_process_group()`` needs no arguments; with ``use_gpu``,
    ``CUDA_VISIBLE_DEVICES`` is the task's GPUs (``spark.task.resource.gpu.amount``) and the
    loader's tensors go to ``device`` (default ``cuda``). ``loader`` is the rank's
    :class:`RankBatches`. Returns rank 0's return value (pickled back to the driver); a failure
    on any rank fails the stage with it. The environment is restored when ``train`` returns.

    As ``TorchDistributor``'s: ``num_processes``, if given, must be the read's ``worldSize``
    (one process per rank); ``local_mode`` must be False (the ranks are the barrier tasks on the
    executors, never processes on the driver)."""
    import pickle

    import pyarrow as pa

    if local_mode:
        raise StokerError("local_mode=True: Stoker's ranks are the barrier tasks of the read, on "
                          "the executors, not processes on the driver (expected: local_mode=False; "
                          "with master local[n] the tasks run on the driver's machine anyway)")
    world_size = ranks_frame.rdd.getNumPartitions()
    if num_processes is not None and num_processes != world_size:
        raise StokerError(f"num_processes={num_processes}, but the read has worldSize="
                          f"{world_size} ranks (expected: the same; set worldSize on the read)")
    on = device if device is not None else ("cuda" if use_gpu else None)

    def task(handles: Any) -> Iterator[Any]:
        from pyspark import BarrierTaskContext

        context = BarrierTaskContext.get()
        env = _torchrun_env(context, use_gpu)
        saved = {name: os.environ.get(name) for name in env}
        os.environ.update(env)
        try:
            with batches(handles, device=on, normalize=normalize, timeout=timeout) as loader:
                result = train(loader, *args, **kwargs)
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        rank = context.partitionId()
        yield pa.RecordBatch.from_pydict(
            {"rank": [rank], "result": [pickle.dumps(result) if rank == 0 else None]},
            schema=pa.schema([("rank", pa.int32()), ("result", pa.binary())]))

    rows = (ranks_frame.mapInArrow(task, "rank int, result binary", barrier=True)
            .repartition(1)  # a failed barrier stage is retried only before a shuffle
            .collect())
    first = [row["result"] for row in rows if row["rank"] == 0]
    return pickle.loads(first[0]) if first and first[0] is not None else None


def _torchrun_env(context: Any, use_gpu: bool) -> Dict[str, str]:
    """What ``torchrun`` sets for a worker, from the barrier stage's tasks: the ranks' hosts, a
    free port on rank 0's host, which every rank learns through one allGather."""
    import socket

    rank = context.partitionId()
    hosts = [info.address.rsplit(":", 1)[0] for info in context.getTaskInfos()]
    port = ""
    if rank == 0:
        with socket.socket() as probe:
            probe.bind(("", 0))
            port = str(probe.getsockname()[1])
    port = [p for p in context.allGather(port) if p][0]
    same_host = [r for r, host in enumerate(hosts) if host == hosts[rank]]
    env = {"RANK": str(rank), "WORLD_SIZE": str(len(hosts)),
           "LOCAL_RANK": str(same_host.index(rank)), "LOCAL_WORLD_SIZE": str(len(same_host)),
           "MASTER_ADDR": hosts[0], "MASTER_PORT": port}
    if use_gpu:
        gpus = context.resources().get("gpu")
        if gpus is None or not gpus.addresses:
            raise StokerError(
                f"rank {rank}: use_gpu=True, but Spark gave this task no GPU (expected: "
                "spark.task.resource.gpu.amount and spark.executor.resource.gpu.amount set, "
                "and GPUs on the workers)")
        env["CUDA_VISIBLE_DEVICES"] = ",".join(gpus.addresses)
    return env


def _handle_of(handles: Any) -> str:
    if isinstance(handles, (str, bytes)):
        return handles.decode() if isinstance(handles, bytes) else handles
    found = []
    for item in handles:
        found.extend(_handles_in(item))
    if len(found) != 1:
        raise StokerError(
            f"expected one Stoker handle in this task's input, got {len(found)}: pass the "
            "DataFrame from stoker.torch.read/ranks to a barrier mapInArrow/mapInPandas "
            "unchanged (no repartition, union or filter in between)")
    return found[0]


def _handles_in(item: Any) -> Iterable[str]:
    if hasattr(item, "column") and hasattr(item, "schema"):  # pyarrow.RecordBatch
        return item.column(item.schema.get_field_index("stoker")).to_pylist()
    if hasattr(item, "columns") and hasattr(item, "__getitem__") and hasattr(item, "iloc"):
        return list(item["stoker"])  # pandas.DataFrame
    if hasattr(item, "asDict"):  # Row
        return [item["stoker"]]
    raise StokerError(f"cannot find a Stoker handle in a {type(item).__name__}")


class RankBatches:
    """One rank's batches, as a PyTorch ``DataLoader`` gives them: an iterable of dicts of
    tensors keyed by column name, ``len()`` = batches per rank and epoch (the same on every
    rank). Each iteration is the next epoch, on the same rows: the read's ``epoch`` first, then
    ``epoch + 1``... (each rank's rows shuffled again by ``(seed, epoch, rank)``), with the JVM's
    loader, its workers and slots kept from one to the next; ``loader.epoch`` is the one being
    iterated. An epoch must be iterated to its end before the next starts. Use it as a context
    manager, or iterate it to the end: leaving an epoch early (``break``, an exception,
    ``KeyboardInterrupt``) closes it and stops the JVM side too."""

    def __init__(self, handle: str, device: Union[str, torch.device, None] = None,
                 normalize: Optional[Normalize] = None, timeout: Optional[float] = None):
        self.meta = parse_handle(handle)
        self.rank: int = self.meta["rank"]
        self.world_size: int = self.meta["worldSize"]
        self.epoch: int = self.meta["epoch"]
        """The epoch being iterated (before the first iteration: the read's)."""
        self.batch_size: int = self.meta["batchSize"]
        self.dropped_rows: int = self.meta["droppedRows"]
        """Rows of each epoch no rank reads (``dropLast``), over all ranks."""
        self.padded_rows: int = self.meta["paddedRows"]
        self.columns = {c["name"]: c for c in self.meta["columns"]}
        for name in normalize or {}:
            if name not in self.columns:
                raise StokerError(f"normalize: no column '{name}' (columns: "
                                  f"{', '.join(self.columns)})")
        self.device = torch.device(device) if device is not None else None
        self._normalize = normalize or {}
        self._timeout = timeout
        self._channel: Optional[SlotChannel] = SlotChannel(self.meta)
        self._views: Dict[int, Dict[str, torch.Tensor]] = {}
        self._norms: Dict[str, Tuple[torch.Tensor, torch.Tensor, float]] = {}
        self._epochs = 0  # epochs started
        self._iterating = False
        self._epoch_state: Optional[str] = self.meta.get("state")  # at the current epoch's start
        self._delivered = 0  # batches of the current epoch handed out
        self._copy = _DeviceCopy(self._channel, self.device) if self._on_cuda() else None

    def _on_cuda(self) -> bool:
        return self.device is not None and self.device.type == "cuda"

    def __len__(self) -> int:
        return self.meta["batches"]

    def __enter__(self) -> "RankBatches":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __iter__(self) -> Iterator[Dict[str, torch.Tensor]]:
        channel = self._channel
        if channel is None:
            raise StokerError(f"rank {self.rank}: the batches are closed (an epoch left early, "
                              "or close(), ends them)")
        if self._iterating:
            raise StokerError(f"rank {self.rank}: epoch {self.epoch} is still being iterated: "
                              "iterate it to its end before the next")
        first = channel.start_epoch()
        if self._epochs > 0:
            self.epoch += 1
        self._epochs += 1
        self._iterating = True
        self._delivered = 0
        return self._epoch(channel, first)

    def _epoch(self, channel: SlotChannel, first: int) -> Iterator[Dict[str, torch.Tensor]]:
        sequence = first
        wait, release, timeout = channel.wait, channel.release, self._timeout
        copy, normalize = self._copy, self._normalize
        ended = False
        try:
            while True:
                posted = wait(sequence, timeout)
                if posted is None:
                    ended = True
                    if self._epoch_state is not None:
                        self._epoch_state = _state.after(
                            self._epoch_state, len(self), len(self),
                            self.meta.get("orderFollowsEpoch", False))
                    self._delivered = 0
                    return
                batch = self._batch(posted[0], posted[1])
                if copy is not None:
                    batch = copy.to_device(batch, sequence)
                self._delivered += 1
                yield self._normalized(batch) if normalize else batch
                if self._channel is not channel:
                    return  # closed during the step: the iteration ends there
                release(sequence)
                sequence += 1
        finally:
            self._iterating = False
            if not ended:
                self.close()

    def _batch(self, offset: int, rows: int) -> Dict[str, torch.Tensor]:
        views = self._views.get(offset)
        if views is None:
            views = {}
            buffer = self._channel.buffer
            for name, column in self.columns.items():
                dtype = _DTYPES[column["dtype"]]
                count = self.batch_size * column["rowBytes"] // torch.tensor([], dtype=dtype)\
                    .element_size()
                flat = torch.frombuffer(buffer, dtype=dtype, count=count,
                                        offset=offset + column["offset"])
                views[name] = flat.view(self.batch_size, *column["shape"])
            self._views[offset] = views
        if rows == self.batch_size:
            return dict(views)
        return {name: view[:rows] for name, view in views.items()}

    def _normalized(self, batch: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        for name, (mean, std) in self._normalize.items():
            x = batch[name]
            if name not in self._norms:
                channels = len(mean)
                shape = (channels,) + (1,) * (x.dim() - 2) if channels > 1 else (1,)
                self._norms[name] = (
                    torch.tensor(mean, dtype=torch.float32, device=x.device).view(shape),
                    torch.tensor(std, dtype=torch.float32, device=x.device).view(shape),
                    1.0 / 255 if x.dtype == torch.uint8 else 1.0)
            m, s, scale = self._norms[name]
            y = x.to(torch.float32)
            if scale != 1.0:
                y.mul_(scale)
            batch[name] = y.sub_(m).div_(s)
        return batch

    def state_dict(self) -> Dict[str, Any]:
        """Where the ranks are, as PyTorch's stateful loaders say it: ``{"stoker_state": text,
        "epoch": e, "batches": k}``, the text being the JVM's ``LoaderState`` after the ``k``
        batches of epoch ``e`` handed out so far (every rank has the same; after an epoch's
        last batch, the start of the next). Save it with the model (``torch.save``); to go on,
        a new read resumes from it on any number of ranks:
        ``stoker.torch.read(..., resumeFrom=state_dict)``."""
        if self._epoch_state is None:
            raise StokerError("state_dict: the Stoker jars on the cluster do not send the read's "
                              "state; use the jars of the same release as this package")
        return {STATE_KEY: _state.after(self._epoch_state, len(self), self._delivered,
                                        self.meta.get("orderFollowsEpoch", False)),
                "epoch": self.epoch, "batches": self._delivered}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Accepts the state this loader's read resumed from (the read is planned on the
        driver: pass the state to ``stoker.torch.read(..., resumeFrom=state_dict)`` there);
        any other state is refused, saying so."""
        state = _state_of(state_dict)
        start = self.meta.get("state")
        if self._epochs == 0 and start is not None and _state.decode(start) == \
                _state.decode(state).resumed_on(self.world_size):
            return
        raise StokerError(
            f"rank {self.rank}: load_state_dict: this loader's read did not resume from that "
            "state (expected: the read made with stoker.torch.read(..., resumeFrom=state_dict) "
            "on the driver; the ranks' rows are planned there, not in a task)")

    def close(self) -> None:
        """Stops this rank's batches: the JVM side stops its loader. Safe twice."""
        channel, self._channel = self._channel, None
        self._views = {}
        if self._copy is not None:
            self._copy.close()
        if channel is not None:
            channel.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


class _DeviceCopy:
    """Copies a slot's tensors to a CUDA device on a side stream, the slot's memory registered as
    page-locked so that the copy is asynchronous; the slot is released once its copy is done."""

    def __init__(self, channel: SlotChannel, device: torch.device):
        self._channel = channel
        self._device = device
        self._stream = torch.cuda.Stream(device=device)
        whole = torch.frombuffer(channel.buffer, dtype=torch.uint8)
        self._host = whole
        self._registered = False
        result = torch.cuda.cudart().cudaHostRegister(whole.data_ptr(), whole.numel(), 0)
        self._registered = int(result) == 0 if not isinstance(result, tuple) else \
            int(result[0]) == 0

    def to_device(self, batch: Dict[str, torch.Tensor], sequence: int) -> Dict[str, torch.Tensor]:
        current = torch.cuda.current_stream(self._device)
        with torch.cuda.stream(self._stream):
            out = {name: t.to(self._device, non_blocking=True) for name, t in batch.items()}
            done = torch.cuda.Event()
            done.record(self._stream)
        current.wait_event(done)
        for t in out.values():
            t.record_stream(current)
        done.synchronize()  # the host slot may be reused once its copy is done
        self._channel.release(sequence)
        return out

    def close(self) -> None:
        if self._registered:
            self._registered = False
            torch.cuda.cudart().cudaHostUnregister(self._host.data_ptr())
        self._host = None
