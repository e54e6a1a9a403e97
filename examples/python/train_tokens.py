"""Packed token rows through stoker.torch: a small causal transformer trained on fortunes, 2 ranks.

The corpus is Debian's `fortunes` package (apt-get install fortunes): the files under
/usr/share/games/fortunes, one fortune per block between lines holding only `%` (the `.dat` index
files and the `.u8` links beside them are skipped). All its collections are read except `art` and
`ascii-art`, which are drawings made of characters (runs of spaces and punctuation that teach a
language model nothing about text), and `translate-me`, a dozen fortunes that are not in English:
about 14,700 fortunes of English prose, verse, quotations and jokes, 2.4 MB, 0.64 M tokens.

The example writes the fortunes as Parquet (`text` string, one fortune per row), tokenizes them
once with Stoker's SQL function `stoker_tokenize(text, 'r50k_base')` (GPT-2's byte-pair encoding,
JTokkit in the JVM) into a table of `tokens` array<int>, and reads that with `stoker.torch.read` and
`pack`: every rank gets rows of exactly `--length` tokens cut from one stream of the shuffled
fortunes, each fortune followed by `eodToken` 50256, as `input_ids`, `position_ids` (restarting at 0
at every fortune), `document_ids` and `labels` (the next token of the same fortune, -100 at its
end), int32 [batch, length]. (`pack` reads token ids, not text: the ranks' equal spans are counted
from the Parquet footers, which count a list's values but not the tokens of a string.)

Each rank trains a small causal transformer (2 pre-norm layers, d_model 128, 4 heads, tied input
and output embeddings over the 50,257 ids, sinusoidal embeddings of `position_ids`) whose attention
never crosses a fortune: token i sees token j when j <= i and both are in the same document of the
row. The loss is the cross entropy on `labels` (ignore_index -100); the gradients are averaged
across the ranks with torch.distributed (gloo). Rank 0 prints each step's loss (the mean over the
ranks), tokens per second (all ranks), and the share of padding in the batches.

    spark-submit --jars spark-connector/target/stoker-spark-connector-<version>.jar,\
loader-core/target/stoker-loader-core-<version>.jar,loader-core/target/lib/jtokkit-1.1.0.jar \
        examples/python/train_tokens.py [--data /tmp/stoker-fortunes] [--steps 200] [--ranks 2] \
        [--plot docs/tokens-loss.png]

or run it with `python` where PySpark and PyTorch are installed: it starts a local[--ranks] Spark
with the jars this checkout built (or those of STOKER_JARS, comma-separated). `--plot` draws the
loss curve with matplotlib; `--json` writes the figures and each rank's losses.
"""

import argparse
import glob
import json
import os
import re
import sys
import time

FORTUNES = "/usr/share/games/fortunes"
SKIPPED = ("art", "ascii-art", "translate-me")
EOD = 50256  # r50k_base's <|endoftext|>
VOCAB = 50257


def fortunes(directory: str = FORTUNES, limit: int = 0):
    """The fortunes of every collection in `directory` but SKIPPED, as strings, in file order."""
    found = []
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if name.endswith((".dat", ".u8")) or name in SKIPPED or not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        found.extend(block.strip("\n") for block in re.split(r"^%\n", text, flags=re.M)
                     if block.strip())
    if not found:
        raise SystemExit(f"no fortunes under {directory}: apt-get install fortunes")
    return found[:limit] if limit else found


def session(ranks: int):
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("stoker-train-tokens")
    if "SPARK_HOME" not in os.environ and not os.environ.get("PYSPARK_SUBMIT_ARGS"):
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        jars = os.environ.get("STOKER_JARS") or ",".join(
            [sorted(p for p in glob.glob(f"{root}/{m}/target/stoker-{m}-*.jar")
                    if not p.endswith(("-sources.jar", "-tests.jar", "-spark.jar")))[0]
             for m in ("loader-core", "spark-connector")]
            # the tokenizer (JTokkit), copied beside loader-core's jar by mvn package
            + sorted(glob.glob(f"{root}/loader-core/target/lib/*.jar")))
        builder = (builder.master(f"local[{ranks}]").config("spark.jars", jars)
                   .config("spark.ui.enabled", "false")
                   .config("spark.ui.showConsoleProgress", "false"))
        # the local workers run this interpreter, which has PyArrow and stoker, not a "python3"
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    return builder.getOrCreate()


def write_tokens(spark, data: str, limit: int) -> str:
    """`data`/text (one fortune per row) and `data`/tokens (their r50k_base ids), unless there."""
    from pyspark.sql.types import ArrayType, IntegerType

    text, tokens = os.path.join(data, "text"), os.path.join(data, "tokens")
    if not glob.glob(os.path.join(text, "*.parquet")):
        spark.createDataFrame([(t,) for t in fortunes(limit=limit)], "text string") \
            .repartition(4).write.mode("overwrite").parquet(text)
    if not glob.glob(os.path.join(tokens, "*.parquet")):
        spark.udf.registerJavaFunction("stoker_tokenize", "dev.stoker.spark.Tokenize",
                                       ArrayType(IntegerType()))
        spark.read.parquet(text).selectExpr("stoker_tokenize(text, 'r50k_base') AS tokens") \
            .write.mode("overwrite").parquet(tokens)
    return tokens


def described(frame) -> str:
    """The read's description, as the plan shows it: the tokens it packs and the tail it drops."""
    plan = frame._jdf.queryExecution().executedPlan().toString()
    found = re.search(r"\[pack[^\]]*\]", plan)
    return found.group(0) if found else ""


def train_function(ranks: int, steps: int, epochs: int, lr: float, seed: int):
    """The function each rank runs in its barrier task, over its handle."""

    def train(handles):
        import math
        import socket

        import pyarrow as pa
        import torch
        import torch.distributed as dist
        import torch.nn.functional as F
        from pyspark import BarrierTaskContext

        import stoker.torch as st

        class CausalLM(torch.nn.Module):
            """Pre-norm transformer layers over tied embeddings, positions from position_ids."""

            def __init__(self, vocab, width, heads, layers):
                super().__init__()
                self.heads = heads
                self.embed = torch.nn.Embedding(vocab, width)
                torch.nn.init.normal_(self.embed.weight, std=0.02)
                self.layers = torch.nn.ModuleList(
                    torch.nn.TransformerEncoderLayer(width, heads, 4 * width, dropout=0.0,
                                                     activation="gelu", batch_first=True,
                                                     norm_first=True)
                    for _ in range(layers))
                self.norm = torch.nn.LayerNorm(width)
                half = width // 2
                self.register_buffer("frequencies", torch.exp(
                    -math.log(10000.0) * torch.arange(half, dtype=torch.float32) / half))

            def positions(self, position_ids):  # sinusoidal: a fortune may outrun a row
                angles = position_ids.float()[..., None] * self.frequencies
                return torch.cat([angles.sin(), angles.cos()], dim=-1)

            def forward(self, input_ids, position_ids, document_ids):
                length = input_ids.shape[1]
                causal = torch.ones(length, length, dtype=torch.bool).tril()
                same = document_ids[:, :, None] == document_ids[:, None, :]
                allowed = causal & same  # [batch, L, L]: j <= i, in i's document
                # PyTorch's masks say what is NOT attended, one per (sample, head)
                mask = (~allowed).repeat_interleave(self.heads, dim=0)
                x = self.embed(input_ids.long()) + self.positions(position_ids)
                for layer in self.layers:
                    x = layer(x, src_mask=mask)
                return self.norm(x) @ self.embed.weight.t()  # logits [batch, L, vocab]

        def rows_consistent(batch):
            """Within a row: a label is the next token of its document, -100 at the document's
            end; positions go on by one inside a document and restart at 0 where one starts."""
            ids, labels = batch["input_ids"], batch["labels"]
            docs, pos = batch["document_ids"], batch["position_ids"]
            same = docs[:, 1:] == docs[:, :-1]
            return bool(torch.equal(labels[:, :-1][same], ids[:, 1:][same])
                        and (labels[:, :-1][~same] == -100).all()
                        and torch.equal(pos[:, 1:][same], pos[:, :-1][same] + 1)
                        and (pos[:, 1:][~same] == 0).all()
                        and (docs[:, 1:] - docs[:, :-1]).ge(0).all() and (docs[:, 0] == 0).all())

        context = BarrierTaskContext.get()
        rank = context.partitionId()
        leader = context.getTaskInfos()[0].address.split(":")[0]
        port = ""
        if rank == 0:  # a free port on the leader, told to every rank
            with socket.socket() as s:
                s.bind(("", 0))
                port = str(s.getsockname()[1])
        port = context.allGather(port)[0]
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // ranks))
        dist.init_process_group("gloo", init_method=f"tcp://{leader}:{port}",
                                rank=rank, world_size=ranks)
        torch.manual_seed(seed)  # the same first weights on every rank
        model = CausalLM(VOCAB, width=128, heads=4, layers=2)
        optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
        warmup = 20
        schedule = torch.optim.lr_scheduler.LambdaLR(
            optimizer, lambda s: min(1.0, (s + 1) / warmup))
        losses, seconds, shapes, consistent = [], [], {}, False
        tokens = padding = document_ends = 0
        try:
            with st.batches(handles) as loader:
                batches = len(loader)
                total = steps if steps else epochs * batches
                if batches == 0:
                    raise ValueError("no full batch: fewer tokens than ranks x batch x length")
                start = time.perf_counter()
                for _ in range(epochs if not steps else -(-steps // batches)):
                    for batch in loader:  # a step's time: from the last step's end, waits too
                        # {"input_ids", "position_ids", "document_ids", "labels"}: int32 [B, L]
                        if not shapes:
                            shapes = {k: [str(v.dtype), list(v.shape)] for k, v in batch.items()}
                            consistent = rows_consistent(batch)
                        ids, labels = batch["input_ids"], batch["labels"]
                        logits = model(ids, batch["position_ids"], batch["document_ids"])
                        loss = F.cross_entropy(logits.view(-1, logits.shape[-1]),
                                               labels.reshape(-1).long(), ignore_index=-100)
                        optimizer.zero_grad()
                        loss.backward()
                        for p in model.parameters():  # the mean gradient over the ranks
                            dist.all_reduce(p.grad)
                            p.grad /= ranks
                        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                        optimizer.step()
                        schedule.step()
                        mean = loss.detach().clone()
                        dist.all_reduce(mean)
                        mean = float(mean) / ranks
                        end = time.perf_counter()
                        seconds.append(end - start)
                        start = end
                        losses.append(mean)
                        tokens += ids.numel()
                        # padding is what attention_mask marks 0 (padded rows): a packed row has
                        # none, every place holds a fortune's token or its end of document
                        if "attention_mask" in batch:
                            padding += int((batch["attention_mask"] == 0).sum())
                        document_ends += int((labels == -100).sum())
                        if rank == 0:
                            rate = ranks * ids.numel() / seconds[-1]
                            print(f"step {len(losses):4d}  epoch {loader.epoch}  loss "
                                  f"{mean:.3f}  {rate:7.0f} tokens/s  padding "
                                  f"{padding / tokens:.2%}", flush=True)
                        if len(losses) == total:
                            break
                    if len(losses) == total:
                        break
        finally:
            dist.destroy_process_group()
        yield pa.RecordBatch.from_pydict({
            "rank": [rank], "batches": [batches], "loss": [losses], "seconds": [seconds],
            "tokens": [tokens], "padding": [padding], "document_ends": [document_ends],
            "shapes": [json.dumps(shapes)], "consistent": [consistent]})

    return train


SCHEMA = ("rank long, batches long, loss array<double>, seconds array<double>, tokens long, "
          "padding long, document_ends long, shapes string, consistent boolean")


def plot(losses, path: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    steps = range(1, len(losses) + 1)
    ax.plot(steps, losses, lw=1, alpha=0.45, label="loss per step")
    window = 10
    if len(losses) > window:
        smooth = [sum(losses[i - window:i]) / window for i in range(window, len(losses) + 1)]
        ax.plot(range(window, len(losses) + 1), smooth, lw=2, label=f"mean of {window} steps")
    ax.set_xlabel("step")
    ax.set_ylabel("cross entropy (nats per token)")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="/tmp/stoker-fortunes")
    parser.add_argument("--fortunes", type=int, default=0, help="only the first N (0: all)")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--length", type=int, default=128, help="tokens per packed row")
    parser.add_argument("--steps", type=int, default=200, help="0: run --epochs whole epochs")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--plot", help="draw the loss curve into this PNG")
    parser.add_argument("--json", help="write the figures and each rank's losses here")
    args = parser.parse_args()
    spark = session(args.ranks)
    spark.sparkContext.setLogLevel("ERROR")
    tokens_path = write_tokens(spark, args.data, args.fortunes)
    counts = spark.read.parquet(tokens_path).selectExpr(
        "count(*) AS documents", "sum(size(tokens)) AS tokens").first()
    stream = counts["tokens"] + counts["documents"]  # each fortune, then its end of document

    import stoker.torch as st

    options = dict(pack=args.length, eodToken=EOD, shiftLabels=True, batchSize=args.batch_size,
                   worldSize=args.ranks, shuffle=True, seed=args.seed, epoch=0, numWorkers=1)
    frame = spark.read.format("stoker").options(
        **{k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in options.items()}
    ).load(tokens_path)
    report = described(frame)
    print(f"{counts['documents']} fortunes, {counts['tokens']} tokens (+ {counts['documents']} "
          f"end-of-document tokens); the read: {report}", flush=True)

    started = time.perf_counter()
    rows = st.ranks(frame).mapInArrow(
        train_function(args.ranks, args.steps, args.epochs, args.lr, args.seed), SCHEMA,
        barrier=True).repartition(1).collect()
    wall = time.perf_counter() - started
    rows = sorted(rows, key=lambda r: r["rank"])
    losses = list(rows[0]["loss"])
    per_epoch = args.ranks * rows[0]["batches"] * args.batch_size * args.length
    tokens = sum(r["tokens"] for r in rows)
    padding = sum(r["padding"] for r in rows)
    step_seconds = [max(r["seconds"][i] for r in rows) for i in range(1, len(losses))]
    rate = (tokens / len(losses)) * len(step_seconds) / sum(step_seconds) if step_seconds else 0
    head = sum(losses[:10]) / len(losses[:10])
    tail = sum(losses[-10:]) / len(losses[-10:])
    figures = {
        "ranks": args.ranks, "batch_size": args.batch_size, "length": args.length,
        "steps": len(losses), "batches_per_rank": rows[0]["batches"],
        "fortunes": counts["documents"], "stream_tokens": stream,
        "tokens_per_epoch": per_epoch, "tail_dropped": stream - per_epoch,
        "tokens_trained": tokens, "padding_tokens": padding,
        "padding_fraction": padding / tokens if tokens else 0.0,
        "document_ends": sum(r["document_ends"] for r in rows),
        "first_loss": losses[0], "last_loss": losses[-1], "first_10_mean": head,
        "last_10_mean": tail, "tokens_per_second": rate, "seconds": wall, "read": report,
        "shapes": json.loads(rows[0]["shapes"]),
        "rows_consistent": all(r["consistent"] for r in rows),
        "losses": {str(r["rank"]): list(r["loss"]) for r in rows}}
    print(f"{len(losses)} steps of {args.ranks} x {args.batch_size} rows x {args.length} tokens: "
          f"loss {losses[0]:.3f} -> {losses[-1]:.3f} (mean of the first 10 steps {head:.3f}, of "
          f"the last 10 {tail:.3f}); {rate:.0f} tokens/s over the ranks; padding "
          f"{figures['padding_fraction']:.2%} of the batches; an epoch packs {per_epoch} of the "
          f"{stream} tokens, the tail of {stream - per_epoch} "
          f"({(stream - per_epoch) / stream:.2%}) dropped; {wall:.0f} s")
    if args.plot:
        plot(losses, args.plot, f"Packed fortunes ({args.length} tokens a row), {args.ranks} "
             f"ranks x {args.batch_size} rows: 2-layer causal transformer")
        print(f"loss curve: {args.plot}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)
    spark.stop()


if __name__ == "__main__":
    main()
