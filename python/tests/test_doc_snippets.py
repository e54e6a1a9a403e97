"""Every ``python`` and ``sql`` block of the README, CONTRIBUTING.md, python/README.md and docs/
runs, one test per block named by its file and line, on the one local Spark session of conftest.py
(local[2] with the Stoker jars).

The HTML comment right before a block says how (the Java side, DocSnippetsTest, reads the same
comments)::

    <!-- snippet: run                 run the block with ``spark`` defined (the default)
    data: /data/train                 this path, wherever the block names it, becomes a small
    -->                               generated Parquet table (pixels: 784-byte binary, label: int)

    <!-- snippet: syntax-only         compile() the block only, never run it
    reason: needs a GPU
    -->

A ``sql`` block's statements (separated by ``;``) run one after the other with ``spark.sql``.
"""

import glob
import os
import re
import traceback

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FILES = ["README.md", "CONTRIBUTING.md", os.path.join("python", "README.md")]
LANGUAGES = ("python", "sql")
ROWS = 512  # 2 ranks x 4 batches of 64 rows


class Block:
    def __init__(self, file, line, language, code, kind, keys):
        self.file, self.line, self.language, self.code = file, line, language, code
        self.kind, self.keys = kind, keys

    @property
    def where(self):
        return f"{self.file}:{self.line}"

    def values(self, key):
        return [v.strip() for line in self.keys.get(key, []) for v in line.split(",") if v.strip()]


def markdown_files():
    files = [os.path.join(ROOT, f) for f in FILES]
    files += sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
    return files


def blocks_of(path):
    name = os.path.relpath(path, ROOT).replace(os.sep, "/")
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks = []
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if not stripped.startswith("```"):
            i += 1
            continue
        indent = lines[i][:lines[i].index("`")]
        language = stripped[3:].strip()
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        assert end < len(lines), f"{name}:{i + 1}: a fenced block that never ends"
        code = "\n".join(l[len(indent):] if l.startswith(indent) else l for l in lines[i + 1:end])
        kind, keys = None, {}
        if i > 0 and lines[i - 1].strip() == "-->":
            start = i - 2
            while start >= 0 and not lines[start].strip().startswith("<!--"):
                start -= 1
            first = lines[start].strip() if start >= 0 else ""
            assert first.startswith("<!-- snippet:"), (
                f"{name}:{i + 1}: the comment before this block is no snippet comment")
            kind = first[len("<!-- snippet:"):].strip()
            for entry in lines[start + 1:i - 1]:
                key, colon, value = entry.partition(":")
                assert colon, f"{name}: expected 'key: value' in a snippet comment, got {entry!r}"
                keys.setdefault(key.strip(), []).append(value)
        blocks.append(Block(name, i + 2, language, code + "\n", kind, keys))
        i = end + 1
    return blocks


BLOCKS = [b for path in markdown_files() for b in blocks_of(path) if b.language in LANGUAGES]


def test_the_docs_have_python_and_sql_blocks():
    assert any(b.language == "python" for b in BLOCKS)
    assert any(b.language == "sql" for b in BLOCKS)


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.kind == "syntax-only"],
                         ids=lambda b: b.where)
def test_blocks_not_run_say_why_and_compile(block):
    assert block.keys.get("reason"), f"{block.where}: a syntax-only block needs a reason"
    if block.language == "python":
        compile(block.code, block.where, "exec")


@pytest.fixture(scope="module")
def fashion_parquet(spark, tmp_path_factory):
    """A small table shaped as the docs' examples read it: 784-byte images and an int label."""
    from pyspark.sql import functions as F

    path = str(tmp_path_factory.mktemp("doc-data") / "train")
    (spark.range(0, ROWS, 1, 2)
     .select(F.expr("unhex(repeat(lpad(hex(CAST(id % 256 AS INT)), 2, '0'), 784))").alias("pixels"),
             (F.col("id") % 10).cast("int").alias("label"))
     .write.parquet(path))
    return path


def with_data(block, path):
    code = block.code
    for given in block.values("data"):
        assert given in code, f"{block.where}: 'data: {given}' names a path the block does not use"
        code = code.replace(given, path)
    return code


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.kind in (None, "run")],
                         ids=lambda b: b.where)
def test_block_runs(block, spark, fashion_parquet):
    code = with_data(block, fashion_parquet)
    settings = session_settings(spark)
    try:
        if block.language == "sql":
            for statement in (s.strip() for s in code.split(";")):
                if statement:
                    spark.sql(statement).collect()
        else:
            # a fresh namespace per block, as a reader's session would be; not importable, so
            # PySpark sends the block's functions to its workers by value
            namespace = {"__name__": "doc_snippet", "spark": spark}
            # blank lines first, so that a traceback's line numbers are the Markdown file's
            exec(compile("\n" * (block.line - 1) + code, block.file, "exec"), namespace)
    except Exception:  # noqa: BLE001: the block's own failure, whatever it is
        pytest.fail(f"{block.where}: the {block.language} block failed:\n{traceback.format_exc()}"
                    f"\nas run:\n{code}", pytrace=False)
    finally:
        restore(spark, settings)


def session_settings(spark):
    return {row.key: row.value for row in spark.sql("SET").collect()}


def restore(spark, before):
    """Session settings as they were before a block (e.g. Arrow's batch size), for the tests
    after it."""
    for key, value in session_settings(spark).items():
        if key not in before:
            spark.conf.unset(key)
        elif before[key] != value:
            spark.conf.set(key, before[key])


def test_every_block_is_run_or_marked():
    unknown = [f"{b.where}: kind '{b.kind}'" for b in BLOCKS
               if b.kind not in (None, "run", "syntax-only")]
    assert unknown == [], "snippet kinds of python/sql blocks are run or syntax-only"
