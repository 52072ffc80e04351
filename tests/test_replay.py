"""Replaying notebooks in a fresh kernel, and reading/writing notebook files."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from magicpush_lab.driver.notebook import execution_order, parse_percent, read_document, write_document
from magicpush_lab.driver.replay import Replay, ReplayError
from magicpush_lab.ir.expr import Cmp, Col, Lit
from magicpush_lab.ir.serialize import expr_to_json

NOTEBOOKS = Path(__file__).parent / "notebooks"


@pytest.fixture(scope="module")
def replayed(tmp_path_factory):
    work = tmp_path_factory.mktemp("replay")
    shutil.copy(NOTEBOOKS / "sales_pipeline.py", work)
    with Replay(work / "sales_pipeline.py", timeout=180) as r:
        yield r
    assert r._client is None  # the kernel is shut down at exit


def _text(cells, site):
    src = next(c.source for c in cells if c.execution_count == site.execution_count)
    lines = src.splitlines(keepends=True)
    start = sum(len(x) for x in lines[: site.lineno - 1]) + site.col_offset
    end = sum(len(x) for x in lines[: site.end_lineno - 1]) + site.end_col_offset
    return src[start:end]


def test_replay_traces_the_notebook(replayed):
    trace = replayed.trace
    cells = replayed.notebook_cells
    assert len(cells) == 8 and cells[0].startswith("# Sales above 995")  # markdown counted
    ops = [e.op for e in trace.events]
    # the notebook writes its data first (range/select): the write is a look at every row, which
    # holds that DataFrame until its cell runs again; then the pipeline runs
    assert ops == ["range", "select", "read.parquet", "createDataFrame", "withColumn", "join", "filter",
                   "withColumn"]
    by_op = {e.op: e for e in trace.events}
    read, join, filt = by_op["read.parquet"], by_op["join"], by_op["filter"]
    assert _text(trace.cells, read.site) == 'spark.read.parquet("data/sales.parquet")'
    assert _text(trace.cells, filt.site) == (
        'enrich(sales)\n       .join(stores, "store")\n       .filter(F.col("v") > 995)')
    assert join.inputs[1] == by_op["createDataFrame"].id
    labeled = trace.events[-1]
    assert labeled.udfs[0].name == "bucket" and "return v // 100" in labeled.udfs[0].source
    assert [i.action for i in trace.inspections] == ["write", "count", "show"]
    assert trace.variables["big"] == filt.id and trace.variables["sales"] == read.id
    # every executed code cell was recorded with its source as written
    assert {c.source for c in trace.cells} <= set(cells)


def test_measure_in_the_replayed_kernel(replayed):
    read = next(e for e in replayed.trace.events if e.op == "read.parquet")
    pred = expr_to_json(Cmp(">", Col("v", -1, "bigint"), Lit(995, "int")))
    got = replayed.measure([{"source_event": read.id, "predicate_ir": pred}, {"source_event": 10**6,
                                                                             "predicate_ir": pred}])
    counts = {k: got[0][k] for k in ("rows_before", "rows_after", "estimated")}
    assert counts == {"rows_before": 1000, "rows_after": 4, "estimated": False}
    assert got[0]["scan_filters"]["all_pushed"] is True  # the replayed source is a Parquet scan
    assert "error" in got[1]


def test_the_replay_kernels_spark_draws_no_console_progress_bar(replayed):
    """Spark's progress bar is drawn without line ends on the kernel's stderr, which is the CLI's:
    the CLI's progress lines would run into it."""
    assert replayed.evaluate("spark.sparkContext.getConf().get('spark.ui.showConsoleProgress')") == "'false'"


def test_failing_cell_gives_a_readable_error(tmp_path):
    shutil.copy(NOTEBOOKS / "broken.py", tmp_path)
    with pytest.raises(ReplayError) as info:
        with Replay(tmp_path / "broken.py", timeout=60):
            pass
    err = info.value
    assert (err.cell_index, err.ename, err.evalue) == (1, "ValueError", "value too small: 1")
    assert err.where == "line 3"  # in the failing cell itself
    assert "broken.py: cell [2] failed at line 3" in str(err) and len(str(err)) < 300


def test_percent_format_round_trip(tmp_path):
    text = "# header comment\nimport os\n\n# %% [markdown]\n# Title\n#\n# text\n\n# %%\nx = 1\n\n\n# %% tags=['a']\ny = 2\n"
    cells = parse_percent(text)
    assert [(c.kind, c.source) for c in cells] == [
        ("code", "# header comment\nimport os"), ("markdown", "Title\n\ntext"), ("code", "x = 1"), ("code", "y = 2")]
    src = tmp_path / "nb.py"
    src.write_text(text)
    doc = read_document(src)
    write_document(doc, {2: "x = 3"}, tmp_path / "out.py")
    again = parse_percent((tmp_path / "out.py").read_text())
    assert [c.source for c in again] == ["# header comment\nimport os", "Title\n\ntext", "x = 3", "y = 2"]
    assert again[3].marker == "# %% tags=['a']"


def test_ipynb_write_keeps_untouched_outputs(tmp_path):
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                           "language": "python"}})
    nb.cells = [nbformat.v4.new_markdown_cell("# T"),
                nbformat.v4.new_code_cell("a = 1", outputs=[nbformat.v4.new_output("stream", text="hi\n")],
                                          execution_count=1),
                nbformat.v4.new_code_cell("b = 2", outputs=[nbformat.v4.new_output("stream", text="x\n")],
                                          execution_count=2)]
    nbformat.write(nb, tmp_path / "in.ipynb")
    doc = read_document(tmp_path / "in.ipynb")
    write_document(doc, {2: "b = 3"}, tmp_path / "out.ipynb")
    out = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    assert out.metadata.kernelspec.name == "python3"
    assert out.cells[1].outputs[0].text == "hi\n" and out.cells[1].execution_count == 1
    assert out.cells[2].source == "b = 3" and out.cells[2].outputs == [] and out.cells[2].execution_count is None


def test_unsupported_file(tmp_path):
    (tmp_path / "x.txt").write_text("1")
    with pytest.raises(ValueError, match="unsupported"):
        read_document(tmp_path / "x.txt")


SETUP = ('from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n\n'
         'spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")\n'
         '         .config("spark.sql.shuffle.partitions", "2").getOrCreate())')

# (source, execution count) in notebook order. The user ran the filter cell (index 4) at [3]
# and again at [4], and only then the cell above it (index 3) at [5]: in that history `big`
# holds the ids whose v (id % 10) is 5, 6 or 7, while notebook order would leave it empty.
OUT_OF_ORDER = [
    (SETUP, 1),
    ('df = spark.createDataFrame([(i, i % 10) for i in range(100)], ["id", "v"])', 2),
    # `% 100` keeps the sum from overflowing: it runs after a filter, and a predicate computing
    # `v + 5` below that filter, on every row, would be refused (verify/overflow.py)
    ('df = df.withColumn("v", F.col("v") % 100 + 5)', 5),
    ('df = df.filter(F.col("v") < 8)', 4),
    ('big = df.filter(F.col("v") > 9)\nbig.count()', 6),
]


def _ipynb(path, cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Recorded out of order")] + [
        nbformat.v4.new_code_cell(src, execution_count=n) for src, n in cells]
    nbformat.write(nb, str(path))


def _rows(replay, name):
    return replay.evaluate(f"sorted(tuple(r) for r in {name}.collect())")


def test_out_of_order_history_is_replayed_in_execution_order_and_its_rewrite_agrees(tmp_path):
    from magicpush_lab.pipeline import optimize_trace
    from magicpush_lab.translate.dataflow import longest_path

    _ipynb(tmp_path / "history.ipynb", OUT_OF_ORDER)
    with Replay(tmp_path / "history.ipynb", timeout=180) as r:
        assert r.order == [1, 2, 4, 3, 5]  # notebook indices (0 is markdown), by execution count
        assert any("recorded execution order" in n for n in r.notes)
        assert any("executions 3 have no cell" in n for n in r.notes)  # the filter's first run
        path = longest_path(r.trace)
        assert [e.op for e in path] == ["createDataFrame", "filter", "withColumn", "filter"]
        cell_of = {c.execution_count: c.source for c in r.trace.cells}
        assert [cell_of[e.site.execution_count] for e in path] == [OUT_OF_ORDER[k][0] for k in (1, 3, 2, 4)]
        # each replayed execution carries its notebook cell's id, so equal code cannot be confused,
        # and the count its saved prompt shows, so that every message names the cell as the user sees it
        ids = {c.execution_count: c.cell_id for c in r.trace.cells}
        assert ids == {r.document.nb.cells[i].execution_count: r.notebook_cell_ids[i] for i in r.order}
        assert sorted(ids) == sorted(n for _, n in OUT_OF_ORDER)
        assert None not in ids.values()
        before = _rows(r, "big")
        assert r.evaluate("big.count()") == "30"
        result = optimize_trace(r.trace, r.notebook_cells, cell_ids=r.notebook_cell_ids)
        doc = r.document
    assert result.suggestions, result.notes
    s = result.suggestions[0]
    changed = {c.index: c.rewritten for c in s.cells}
    assert 2 in changed and ".filter(" in changed[2]  # the source's cell gets the pushed filter
    write_document(doc, changed, tmp_path / "rewritten.ipynb")
    written = nbformat.read(tmp_path / "rewritten.ipynb", as_version=4)
    # rewritten cells keep their counts: they carry the order the rewrite was proved for
    assert [c.execution_count for c in written.cells[1:]] == [n for _, n in OUT_OF_ORDER]
    with Replay(tmp_path / "rewritten.ipynb", timeout=180) as again:
        assert again.order == [1, 2, 4, 3, 5]
        assert _rows(again, "big") == before


ORDERS = [
    # (execution counts of the code cells, replay order, a note containing)
    ([1, 2, 3], [0, 1, 2], None),
    ([None, None, None], [0, 1, 2], None),
    ([2, 1, 3], [1, 0, 2], "recorded execution order"),
    ([1, 4, 2], [0, 2, 1], "executions 3 have no cell"),
    ([1, None, 2], [0, 1, 2], None),  # the counted cells agree with notebook order
    ([2, None, 1], [0, 1, 2], "cells 1 have no execution count"),
    ([1, 1, 2], [0, 1, 2], "same execution count"),
]


@pytest.mark.parametrize("counts, order, note", ORDERS)
def test_execution_order_follows_consistent_counts(counts, order, note):
    cells = [nbformat.v4.new_code_cell(f"x{k} = {k}", execution_count=n) for k, n in enumerate(counts)]
    got, notes = execution_order(cells + [nbformat.v4.new_code_cell("  ", execution_count=9)])
    assert got == order
    assert any(note in n for n in notes) if note else notes == []


def test_cell_over_the_time_limit_is_reported_with_its_index(tmp_path):
    (tmp_path / "slow.py").write_text("# %%\nimport time\n\n# %%\ntime.sleep(120)\n")
    with pytest.raises(ReplayError) as info:
        with Replay(tmp_path / "slow.py", timeout=3):
            pass
    assert (info.value.cell_index, info.value.ename) == (1, "CellTimeoutError")
    assert "slow.py: cell [2] failed" in str(info.value)


def test_relative_paths_resolve_next_to_the_notebook_not_the_working_directory(tmp_path, monkeypatch):
    home, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    (home / "data").mkdir(parents=True)
    elsewhere.mkdir()
    (home / "data" / "in.txt").write_text("42")
    (home / "nb.py").write_text('# %%\nvalue = open("data/in.txt").read()\nopen("out.txt", "w").write(value)\n')
    monkeypatch.chdir(elsewhere)
    with Replay(home / "nb.py", timeout=60) as r:
        assert r.evaluate("value") == "'42'"
    assert (home / "out.txt").read_text() == "42" and not (elsewhere / "out.txt").exists()
