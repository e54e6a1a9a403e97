"""The PyTorch side of `stoker bench --workload tokens`.

What most users would write to train on tokenized documents stored as Parquet: a torch
IterableDataset that reads the files with PyArrow (pyarrow.parquet, iter_batches), concatenates the
documents and cuts them into rows of --length tokens with NumPy, as format("stoker")'s pack does:
position_ids restarting at 0 at every document (going on where a document continues into the next
row), document_ids counting the documents within the row (0 for the one a row starts in). Rows are
batched by a torch DataLoader (batch --batch-size, drop_last); each worker packs its own share of
the row groups and drops its own tail (shorter than a row).

--ranks processes (the ranks, as torchrun would start them) each take their share of the files
(file i goes to rank i % ranks); every rank's epoch starts at once (the parent tells them when),
once per --workers value. The parent prints one JSON line per epoch:
{"workers": W, "tokens": T, "seconds": S, "first_batch_s": F}
T: the tokens of all ranks' batches; S: from the first rank's start to the last rank's end;
F: the slowest rank's time from its start to its first batch. Python's start and imports are not
timed (each rank reads one document before its first epoch: PyArrow imports pandas the first time
it makes NumPy arrays); the DataLoader's workers start within the epoch.

Usage: python3 torch_tokens.py --dir DIR --length 2048 --batch-size 8 --ranks 2 --workers 0,1,2
DIR holds the documents' *.parquet files (one list<int32> column, `tokens`).
"""

import argparse
import glob
import json
import os
import random
import subprocess
import sys
import time

import numpy as np
import pyarrow.parquet as pq
import torch
from torch.utils.data import DataLoader, IterableDataset, get_worker_info

# Documents per Arrow batch read: about 1.6 million tokens at the bench's median of 200.
READ_BATCH = 4096


def pack(lengths: np.ndarray, tokens: np.ndarray, first_document: int, carry, length: int):
    """Appends documents (their lengths, their tokens end to end) to the carry of earlier ones.

    carry is (ids, positions, documents) of the tokens not yet in a row, documents counted over the
    whole stream. Returns the full rows [R, length] of input_ids, position_ids, document_ids (the
    document's index within its row) and the new carry.
    """
    starts = np.cumsum(lengths) - lengths
    positions = (np.arange(len(tokens)) - np.repeat(starts, lengths)).astype(np.int32)
    documents = np.repeat(np.arange(first_document, first_document + len(lengths)), lengths)
    ids = np.concatenate([carry[0], tokens])
    positions = np.concatenate([carry[1], positions])
    documents = np.concatenate([carry[2], documents])
    rows = len(ids) // length
    cut = rows * length
    row_documents = documents[:cut].reshape(rows, length)
    packed = (
        ids[:cut].reshape(rows, length),
        positions[:cut].reshape(rows, length),
        (row_documents - row_documents[:, :1]).astype(np.int32),
    )
    return packed, (ids[cut:], positions[cut:], documents[cut:])


class PackedDocuments(IterableDataset):
    """The rank's files' documents packed into rows; each worker takes every n-th row group."""

    def __init__(self, files, length: int, seed: int) -> None:
        self.files = files
        self.length = length
        self.seed = seed
        self.groups = [(f, g) for f in files for g in range(pq.ParquetFile(f).num_row_groups)]

    def __iter__(self):
        info = get_worker_info()
        worker, workers = (info.id, info.num_workers) if info is not None else (0, 1)
        groups = list(self.groups)
        random.Random(self.seed).shuffle(groups)
        empty = np.zeros(0, dtype=np.int32)
        carry = (empty, empty, np.zeros(0, dtype=np.int64))
        document = 0
        for path, group in groups[worker::workers]:
            for batch in pq.ParquetFile(path).iter_batches(
                batch_size=READ_BATCH, row_groups=[group], columns=["tokens"]
            ):
                column = batch.column(0)
                lengths = column.value_lengths().to_numpy()
                tokens = column.flatten().to_numpy()
                (ids, positions, documents), carry = pack(
                    lengths, tokens, document, carry, self.length
                )
                document += len(lengths)
                for r in range(ids.shape[0]):
                    yield {
                        "input_ids": torch.from_numpy(ids[r]),
                        "position_ids": torch.from_numpy(positions[r]),
                        "document_ids": torch.from_numpy(documents[r]),
                    }


def rank_files(folder: str, rank: int, ranks: int):
    files = sorted(glob.glob(os.path.join(folder, "*.parquet")))
    if len(files) < ranks:
        raise SystemExit("torch_tokens.py: %d files in %s for %d ranks" % (len(files), folder, ranks))
    return files[rank::ranks]


def warm_up(path: str) -> None:
    """Reads and converts one document, so that the imports this does (PyArrow imports pandas the
    first time it makes NumPy arrays, seconds on a small machine) happen before the first epoch;
    the DataLoader's workers, forked from the rank, inherit them."""
    batch = next(pq.ParquetFile(path).iter_batches(batch_size=1, columns=["tokens"]))
    batch.column(0).value_lengths().to_numpy()
    batch.column(0).flatten().to_numpy()


def rank_main(args) -> None:
    """One rank: per --workers value, waits for the parent's go, runs an epoch, reports it."""
    files = rank_files(args.dir, args.rank, args.ranks)
    warm_up(files[0])
    for workers in [int(w) for w in args.workers.split(",")]:
        dataset = PackedDocuments(files, args.length, args.seed)
        loader = DataLoader(
            dataset, batch_size=args.batch_size, drop_last=True, num_workers=workers
        )
        print("ready", flush=True)
        if sys.stdin.readline().strip() != "go":
            return
        started = time.monotonic()
        first = None
        tokens = 0
        touched = 0
        for batch in loader:
            if first is None:
                first = time.monotonic()
            ids = batch["input_ids"]
            if ids.shape[1] != args.length:
                raise SystemExit("torch_tokens.py: rows of %d tokens" % ids.shape[1])
            tokens += ids.numel()
            touched += int(ids[0, 0]) + int(batch["position_ids"][-1, -1])
            touched += int(batch["document_ids"][-1, -1])
        ended = time.monotonic()
        report = {"workers": workers, "tokens": tokens, "started": started, "ended": ended}
        report["first"] = first if first is not None else ended
        print(json.dumps(report), flush=True)


def parent_main(args) -> None:
    """Starts the ranks, starts each epoch on all of them at once, sums up their reports."""
    command = [sys.executable, os.path.abspath(__file__)] + sys.argv[1:]
    ranks = [
        subprocess.Popen(
            command + ["--rank", str(r)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for r in range(args.ranks)
    ]
    try:
        for workers in [int(w) for w in args.workers.split(",")]:
            for p in ranks:
                line = p.stdout.readline().strip()
                if line != "ready":
                    raise SystemExit("torch_tokens.py: a rank said %r (exit %s)" % (line, p.poll()))
            for p in ranks:
                p.stdin.write("go\n")
                p.stdin.flush()
            reports = []
            for p in ranks:
                line = p.stdout.readline()
                if not line:
                    raise SystemExit("torch_tokens.py: a rank ended (exit %s)" % p.wait())
                reports.append(json.loads(line))
            started = min(r["started"] for r in reports)
            print(
                json.dumps(
                    {
                        "workers": workers,
                        "tokens": sum(r["tokens"] for r in reports),
                        "seconds": max(r["ended"] for r in reports) - started,
                        "first_batch_s": max(r["first"] - r["started"] for r in reports),
                    }
                ),
                flush=True,
            )
        for p in ranks:
            p.stdin.close()
            if p.wait() != 0:
                raise SystemExit("torch_tokens.py: a rank exited with %d" % p.returncode)
    finally:
        for p in ranks:
            if p.poll() is None:
                p.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True)
    parser.add_argument("--length", type=int, default=2048)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--workers", default="0,1,2")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rank", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rank is None:
        parent_main(args)
    else:
        rank_main(args)


if __name__ == "__main__":
    try:
        main()
    except ImportError as e:  # pragma: no cover - reported to the bench
        print("torch_tokens.py: %s (needs torch, numpy and pyarrow)" % e, file=sys.stderr)
        sys.exit(3)
