"""The Databricks Python notebook of examples/notebooks: in Databricks' source format, and its code
cells run top to bottom on the local Spark with stand-ins for dbutils and display, with results
that show it loaded and learned."""

import os

import pytest

NOTEBOOK = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "notebooks",
                        "stoker-pytorch.py")
HEADER = "# Databricks notebook source"
SEPARATOR = "# COMMAND ----------"


def cells():
    with open(NOTEBOOK, encoding="utf-8") as f:
        lines = f.read().split("\n")
    assert lines[0] == HEADER, "Databricks imports the file as a plain script without it"
    found, current = [], []
    for line in lines[1:]:
        if line == SEPARATOR:
            found.append("\n".join(current).strip("\n"))
            current = []
        else:
            assert not line.startswith("# COMMAND"), f"a malformed separator: {line!r}"
            current.append(line)
    found.append("\n".join(current).strip("\n"))
    return [c for c in found if c]


def is_markdown(cell):
    return cell.startswith("# MAGIC %md")


def test_the_notebook_is_in_databricks_source_format():
    all_cells = cells()
    assert is_markdown(all_cells[0])
    for cell in all_cells:
        if is_markdown(cell):
            assert all(line.startswith("# MAGIC") for line in cell.split("\n")), cell[:60]
        else:
            assert "# MAGIC" not in cell, cell[:60]
            compile(cell, NOTEBOOK, "exec")
    assert sum(map(is_markdown, all_cells)) > 3
    assert "`dev.stoker:stoker-spark-runtime-3.5_2.12:0.1.0-SNAPSHOT`" in all_cells[0]


class Widgets:
    def __init__(self, values):
        self._values = dict(values)

    def text(self, name, default, label=None):
        self._values.setdefault(name, default)

    def get(self, name):
        return self._values[name]


class DbUtils:
    def __init__(self, widgets):
        self.widgets = Widgets(widgets)


def test_the_notebook_runs_top_to_bottom_and_learns(spark, tmp_path):
    shown = []

    def display(frame):
        shown.append(frame.collect())

    namespace = {"__name__": "__notebook__", "spark": spark, "display": display,
                 "dbutils": DbUtils({"path": str(tmp_path / "data"), "rows": "3000",
                                     "epochs": "2"})}
    for cell in cells():
        if not is_markdown(cell):
            exec(compile(cell, NOTEBOOK, "exec"), namespace)

    labels, peek, history, tokens = shown
    assert sorted(r["label"] for r in labels) == list(range(10))
    assert sum(r["count"] for r in labels) == 3000
    # 3000 rows on 2 ranks of 64: 23 full batches each, 56 rows dropped
    assert [(r["rank"], r["batches"], r["dropped_rows"]) for r in peek] == [(0, 23, 56),
                                                                           (1, 23, 56)]
    assert peek[0]["pixels"] == "(64, 784) torch.uint8"
    assert [r["steps_per_rank"] for r in history] == ["[23, 23]", "[23, 23]"]
    assert history[1]["mean_loss"] < history[0]["mean_loss"]
    assert namespace["accuracy"] > 0.9
    # the packed token rows: both ranks as many batches, rows of 64 tokens, documents marked
    assert [r["rank"] for r in tokens] == [0, 1]
    assert tokens[0]["batches"] == tokens[1]["batches"] > 0
    assert all(r["input_ids"] == "(8, 64)" for r in tokens)
    assert all(r["documents_in_first_row"] >= 1 for r in tokens)
