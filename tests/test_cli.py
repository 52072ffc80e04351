"""The `magicpush optimize` command, end to end on a small percent script."""

from __future__ import annotations

import ast
import io
import json
import shutil
from pathlib import Path

import nbformat
import pytest

from magicpush_lab.driver.notebook import parse_percent
from magicpush_lab.cli import EXIT_FAILED, cell_changes, main, rewrite_preview
from magicpush_lab.suggestion import CellChange, OptimizeResult, Suggestion

NOTEBOOKS = Path(__file__).parent / "notebooks"

_REPLAYS: dict[tuple, object] = {}


@pytest.fixture
def one_replay_per_script(monkeypatch):
    """The CLI's replay of a notebook (assist.replay_and_optimize: a fresh kernel and its JVM),
    made once per notebook text and replay options in this module. The tests that read one
    replay of sales_pipeline.py in several ways (JSON with --apply, the text report, --apply
    alone) still run the CLI end to end; only the kernel's work is shared."""
    from magicpush_lab import assist

    replay = assist.replay_and_optimize

    def once(path, budget, **options):
        key = (Path(path).read_text(), budget.seconds,
               tuple(sorted((k, v) for k, v in options.items() if k != "progress")))
        if key not in _REPLAYS:
            _REPLAYS[key] = replay(path, budget, **options)
        return _REPLAYS[key]

    monkeypatch.setattr(assist, "replay_and_optimize", once)


def test_optimize_json_and_apply(tmp_path, one_replay_per_script):
    shutil.copy(NOTEBOOKS / "sales_pipeline.py", tmp_path)
    nb = tmp_path / "sales_pipeline.py"
    (tmp_path / "out").mkdir()  # an existing directory: the notebook keeps its name there
    out = io.StringIO()
    code = main(["optimize", str(nb), "--json", "--apply", "-o", str(tmp_path / "out"), "--timeout", "180"],
                stdout=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert "error" not in result, result.get("error")
    assert code == 0
    assert set(result) == {"notebook", "suggestions", "together", "refusals", "pipelines", "optimizer_seconds", "notes",
                           "measure_errors", "already_applied", "left_behind",
                           "failed_cell", "folds"}
    assert result["notebook"] == str(nb)
    sales = [s for s in result["suggestions"] if s["source"] == "sales"]
    assert sales, result
    s = sales[0]
    assert s["kind"] in ("equivalent", "superset") and "995" in s["predicate"]
    assert (s["rows_before"], s["rows_after"], s["estimated"]) == (1000, 4, False)
    assert s["row_reduction"] == 0.996
    assert s["scan_filters"]["scan"] == "Parquet" and s["scan_filters"]["all_pushed"] is True
    assert s["proof"] and all({"operator", "category", "base_case_rows", "kind"} <= set(p) for p in s["proof"])
    written = parse_percent((tmp_path / "out" / "sales_pipeline.py").read_text())
    for change in s["cells"]:
        assert written[change["index"]].source == change["rewritten"]
        ast.parse(change["rewritten"])
    # sales is counted on its own, so it keeps all its rows: the filter goes where the pipeline uses it
    assert any('.filter(F.col("v") > 995)' in c["rewritten"] for c in s["cells"])


def test_errors_name_the_file_and_exit_2(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("x")
    out = io.StringIO()
    code = main(["optimize", str(tmp_path / "missing.py"), str(tmp_path / "notes.txt"), "--json"], stdout=out)
    assert code == EXIT_FAILED
    errors = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [e["notebook"] for e in errors] == [str(tmp_path / "missing.py"), str(tmp_path / "notes.txt")]
    err = capsys.readouterr().err
    assert "missing.py: no such file" in err and "unsupported file type .txt" in err
    assert main(["optimize", str(tmp_path / "missing.py"), "--apply"]) == EXIT_FAILED


def test_failing_cell_exit_2(tmp_path, capsys):
    shutil.copy(NOTEBOOKS / "broken.py", tmp_path)
    out = io.StringIO()
    assert main(["optimize", str(tmp_path / "broken.py")], stdout=out) == EXIT_FAILED
    err = capsys.readouterr().err
    # a script has no prompts: its cells are named by the count the replay gave them
    assert "broken.py: cell [2] failed at line 3" in err and "ValueError: value too small: 1" in err
    assert "running cell [2] (2 of 2)" in err  # progress on stderr
    assert out.getvalue() == ""


def test_cell_changes_keep_the_first_of_conflicting_rewrites():
    def sugg(source, *changes):
        return Suggestion(source, "p", "equivalent", (), tuple(CellChange(i, "o", r) for i, r in changes), 0, {})

    result = OptimizeResult((sugg("a", (1, "x"), (2, "y")), sugg("b", (2, "z")), sugg("c", (3, "w"))), 0.1)
    changes, skipped = cell_changes(result)
    assert changes == {1: "x", 2: "y", 3: "w"}
    assert len(skipped) == 1 and "filter on b" in skipped[0]


REASSIGNED = '''# %%
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "2").getOrCreate())

# %%
df = spark.read.csv("data/points.csv", header=True, inferSchema=True)

# %%
df = df.withColumn("w", F.col("v") * 2)

# %%
df = df.filter(F.col("w") > 12)
df.count()
'''


def test_reassigned_dataframe_rewrites_the_read_cell_with_data_relative_to_the_notebook(tmp_path, monkeypatch,
                                                                                       capfd):
    """...and the counts the replay kernel stops at their time limit, cancelling its own jobs,
    leave nothing on stderr but the CLI's own lines."""
    from magicpush_lab.driver.replay import KernelReplay, Replay
    from tests.spark_logs import NOISE

    counted = KernelReplay.measure

    async def first_out_of_time(self, requests):
        # the same counts first with no time to finish: the kernel cancels its own jobs, as when
        # counting a big source runs out of time, and estimates on a sample; then the real ones
        await counted(self, [dict(r, time_limit=0.001) for r in requests])
        return await counted(self, requests)

    monkeypatch.setattr(KernelReplay, "measure", first_out_of_time)

    home = tmp_path / "project"
    (home / "data").mkdir(parents=True)
    (home / "data" / "points.csv").write_text("id,v\n" + "".join(f"{i},{i % 10}\n" for i in range(60)))
    (home / "points.py").write_text(REASSIGNED)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # data/points.csv exists only next to the notebook
    out = io.StringIO()
    code = main(["optimize", str(home / "points.py"), "--json", "--apply", "-o", str(home / "fast.py"),
                 "--timeout", "180"], stdout=out)
    result = json.loads(out.getvalue())
    assert code == 0, result
    err = capfd.readouterr().err
    assert not [word for word in NOISE if word in err], err
    # each progress line on a line of its own: no console progress bar ("[Stage 3:>  (0 + 2) / 2]")
    assert "[Stage " not in err and all(line.startswith("points.py: ") for line in err.splitlines()
                                         if "points.py: " in line), err
    [s] = result["suggestions"]
    assert s["kind"] == "equivalent" and s["source"] == "df"
    assert (s["rows_before"], s["rows_after"]) == (60, 18)  # v in 7..9
    changed = {c["index"]: c["rewritten"] for c in s["cells"]}
    assert set(changed) == {1, 3}  # the read's cell, and the late filter's cell (filter removed)
    assert changed[1].startswith('df = spark.read.csv("data/points.csv", header=True, inferSchema=True)')
    assert ".filter(" in changed[1]
    assert changed[3].startswith("# filter moved to the source: df = df.filter(")  # not `df = df`
    # the rewritten script, replayed, ends with the rows the original pipeline keeps
    kept = sorted((i, i % 10, 2 * (i % 10)) for i in range(60) if 2 * (i % 10) > 12)
    with Replay(home / "fast.py", timeout=180) as after:
        assert ast.literal_eval(after.evaluate("sorted(tuple(r) for r in df.collect())")) == kept

def test_text_output_shows_the_rewritten_cells_and_how_to_write_them(tmp_path, one_replay_per_script):
    shutil.copy(NOTEBOOKS / "sales_pipeline.py", tmp_path)
    nb = tmp_path / "sales_pipeline.py"
    out = io.StringIO()
    assert main(["optimize", str(nb), "--timeout", "180"], stdout=out) == 0
    text = out.getvalue()
    assert "1,000 -> 4" in text, text  # rows with thousands separators
    added = [line for line in text.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert any('.filter(F.col("v") > 995)' in line for line in added), text
    assert f"to write them: magicpush optimize {nb} --apply -o OUT.ipynb" in text
    assert not (tmp_path / "OUT.ipynb").exists()  # showing is not writing


def test_applied_output_does_not_repeat_the_diff(tmp_path, one_replay_per_script):
    shutil.copy(NOTEBOOKS / "sales_pipeline.py", tmp_path)
    out = io.StringIO()
    written = tmp_path / "rewritten.py"
    assert main(["optimize", str(tmp_path / "sales_pipeline.py"), "--apply", "-o", str(written), "--timeout", "180"],
                stdout=out) == 0
    assert written.exists()
    assert "to write them" not in out.getvalue()


RAISES = ("x = 1", "y = x\nraise ValueError('boom')")
# a Python UDF that fails on the executors: Spark reports it as "PythonException: An exception was
# thrown from the Python worker:", the cause at the end of the worker's traceback
UDF_RAISES = (
    'from pyspark.sql import SparkSession, functions as F\n\n'
    'spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate())\n\n'
    '@F.udf("long")\ndef needs_a_module(x):\n    import not_a_module_xyz\n    return x\n',
    "y = spark.range(2)\ny.select(needs_a_module('id')).collect()")

# (saved execution counts of the two code cells after a markdown one, their code, what stderr must say)
CELL_NAMES = [
    # the saved prompts, followed by the replay: named as they show
    pytest.param((3, 5), RAISES, ["running cell [3] (1 of 2)", "running cell [5] (2 of 2)",
                                  "nb.ipynb: cell [5] failed at line 2: ValueError: boom"], id="saved prompts"),
    # never run: named by the count the replay gives them, [1] the first cell run; the error of a
    # UDF names its cause, not only Spark's wrapper, and where the UDF's own code failed
    pytest.param((None, None), UDF_RAISES, [
        "running cell [1] (1 of 2)",
        "nb.ipynb: cell [2] failed at cell [1], line 7: PythonException: An exception was thrown from the Python "
        "worker: ModuleNotFoundError: No module named 'not_a_module_xyz'"], id="never run, a UDF's error"),
    # one never run: notebook order, and a note saying which counts the messages use
    pytest.param((4, None), RAISES, ["cells are named by the count this replay gave them",
                                     "nb.ipynb: cell [2] failed at line 2"], id="one never run"),
]


@pytest.mark.parametrize("counts, code, said", CELL_NAMES)
def test_progress_and_failures_name_cells_as_their_prompts_show_them(tmp_path, capsys, counts, code, said):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Title"),
                nbformat.v4.new_code_cell(code[0], execution_count=counts[0]),
                nbformat.v4.new_code_cell(code[1], execution_count=counts[1])]
    nbformat.write(nb, str(tmp_path / "nb.ipynb"))
    assert main(["optimize", str(tmp_path / "nb.ipynb"), "--timeout", "120"], stdout=io.StringIO()) == EXIT_FAILED
    err = capsys.readouterr().err
    assert all(s in err for s in said), err
    assert "#1" not in err and "cell 2 failed" not in err  # no notebook positions
    [failure] = [line for line in err.splitlines() if line.startswith("magicpush: ")]  # one line
    assert "Traceback" not in failure


def test_a_reader_that_goes_away_is_no_error(tmp_path):
    """`magicpush optimize ... | head`: once the reader has closed the pipe, the rest of the output
    goes nowhere, without a BrokenPipeError's traceback, and the exit code is the run's own."""
    import os
    import subprocess
    import sys

    read, write = os.pipe()
    os.close(read)  # the reader has gone before anything is written
    try:
        done = subprocess.run([sys.executable, "-m", "magicpush_lab.cli", "optimize", str(tmp_path / "a.py"),
                               str(tmp_path / "b.py"), "--json"], stdout=write, stderr=subprocess.PIPE,
                              text=True, timeout=120)
    finally:
        os.close(write)
    assert done.returncode == EXIT_FAILED  # two missing notebooks, as with a reader
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert "a.py: no such file" in done.stderr and "b.py: no such file" in done.stderr


def test_the_diff_names_the_cells_by_their_prompts():
    change = CellChange(2, "df = spark.read.parquet(p)", "df = spark.read.parquet(p).filter(c)", 7)
    unrun = CellChange(4, "out = df", "out = df.filter(c)", None)
    result = OptimizeResult((Suggestion("df", "c", "superset", (), (change, unrun), 0, {}),), 0.1)
    lines = rewrite_preview(result, "nb.ipynb").splitlines()
    assert [line for line in lines if line.startswith(("---", "+++"))] == [
        "--- cell [7]", "+++ cell [7], rewritten",
        "--- the notebook's 5th cell", "+++ the notebook's 5th cell, rewritten"]


def test_text_output_suggests_the_simplest_proved_predicate(tmp_path, one_replay_per_script):
    """A late filter written with tests its first one implies: the CLI suggests the one test a
    person writes at the read (the same simplification as the sidebar's and the magic's)."""
    nb = tmp_path / "sales_pipeline.py"
    written = (NOTEBOOKS / "sales_pipeline.py").read_text()
    late = '.filter(F.col("v") > 995))'
    assert written.count(late) == 1
    nb.write_text(written.replace(late, '.filter((F.col("v") > 995) & (F.col("v") > 10) & F.col("v").isNotNull()))'))
    out = io.StringIO()
    assert main(["optimize", str(nb), "--timeout", "180"], stdout=out) == 0
    text = out.getvalue()
    assert '1. sales: F.col("v") > 995\n' in text, text
    added = [line for line in text.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert any('.filter(F.col("v") > 995).withColumn(' in line for line in added), text


SQL_SCRIPT = '''# %%
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = (SparkSession.builder.master("local[2]")
         .config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "2")
         .getOrCreate())

# %%
spark.range(0, 1000).selectExpr("id", "id % 50 AS store").createOrReplaceTempView("sales")
totals = spark.sql("SELECT store, count(*) AS n FROM sales GROUP BY store")

# %%
@F.udf("long")
def doubled(v):
    return None if v is None else v * 2


spark.udf.register("doubled", doubled)
scored = spark.sql("SELECT id, store, doubled(id) AS w FROM sales")
out = scored.filter(F.col("w") > 1990)
out.count()
'''


def test_text_output_shows_the_rewritten_sql_in_the_diff(tmp_path):
    """A view another query reads too: the filter goes into this query's SQL text, and the
    report's diff shows the query as rewritten."""
    nb = tmp_path / "sql_pipeline.py"
    nb.write_text(SQL_SCRIPT)
    out = io.StringIO()
    assert main(["optimize", str(nb), "--timeout", "180"], stdout=out) == 0
    text = out.getvalue()
    added = [line for line in text.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert '+scored = spark.sql("SELECT id, store, doubled(id) AS w FROM sales WHERE `id` > 995L")' in added, text
    assert "rows         1,000 -> 4 (99.6% fewer)" in text, text
