"""The reach benchmark's harness (benchmarks/reach): the corpus format's validator, the
corpus table (--table), the blocker classifier and the bag comparison without Spark
(seconds); on Spark, one small
pipeline end to end through the benchmark and the checker on a sound and an unsound best
(about a minute on two cores, with the session's start)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from benchmarks.folds import CORPUS as FOLDS
from benchmarks.reach import corpus
from benchmarks.reach.blockers import blockers_of, kind_of
from benchmarks.reach.run import normal_bag


@pytest.mark.parametrize("name", corpus.names())
def test_every_corpus_directory_is_well_formed(name):
    assert corpus.validate(name) == []


@pytest.mark.parametrize("name", corpus.names(FOLDS))
def test_every_fold_family_directory_is_well_formed(name):
    assert corpus.validate(name, FOLDS) == []


# (rows handed on per variant, sound): effective, share
EFFECTIVENESS = [
    ({"original": {"t": 100}, "engine": {"t": 40}, "hand": {"t": 40}}, True, (True, 1.0)),
    ({"original": {"t": 100}, "engine": {"t": 70}, "hand": {"t": 40}}, True, (False, 0.5)),
    ({"original": {"t": 100}, "engine": {"t": 40}, "hand": {"t": 40}}, False, (False, 1.0)),
    # an RDD round trip scans in a job of its own: the sink's plan shows no read, nothing is measured
    ({"original": {}, "engine": {}, "hand": {}}, True, (None, None)),
    # a read Spark prunes (the filter is false): no scan in the plan, no row handed on
    ({"original": {"t": 100}, "engine": {}, "hand": {}}, True, (True, 1.0)),
    ({"original": {"u": 5}, "engine": {"u": 5}, "hand": {"u": 5}}, True, (True, None)),
]


@pytest.mark.parametrize("read,sound,expected", EFFECTIVENESS)
def test_effective_compares_the_rewrites_reads_with_the_hand_optimum_and_only_when_counted(read, sound, expected):
    from benchmarks.reach.bench import PipelineResult, _effectiveness

    result = PipelineResult("p", True, ["t"], ["t"], sound=sound, read=read)
    _effectiveness(result)
    assert (result.effective, result.share) == expected


def test_the_corpus_has_pipelines_where_nothing_may_move_and_reducible_ones():
    pipelines = [corpus.load(n) for n in corpus.names()]
    assert any(p.nothing_may_move for p in pipelines) and any(p.reducible for p in pipelines)


def _write(directory: Path, pipeline: str, expected: str) -> None:
    directory.mkdir(parents=True)
    (directory / "pipeline.py").write_text(pipeline)
    (directory / "expected.toml").write_text(expected)
    (directory / "data.py").write_text("def tables(rows, seed):\n    return {}\n")


FIRST = 'import os\nfrom pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n' \
        'DATA = os.environ.get("REACH_DATA", "data")\n'


def test_the_tables_stamp_covers_the_project_modules_data_py_imports(tmp_path):
    import hashlib

    from benchmarks.reach.tables import _project_imports, data_stamp
    source = "import numpy as np\nimport benchmarks.reach.corpus\nfrom benchmarks.folds.tables import grouped\n"
    assert _project_imports(source) == {"benchmarks.reach.corpus", "benchmarks.folds.tables"}
    alone = tmp_path / "data.py"
    alone.write_text("import numpy as np\n")
    assert data_stamp(alone) == hashlib.sha256(alone.read_bytes()).hexdigest()
    shared = tmp_path / "shared.py"
    shared.write_text("from benchmarks.folds.tables import grouped\n")
    # the shared table maker's code is in the stamp: when it changes, the tables are made again
    assert data_stamp(shared) != hashlib.sha256(shared.read_bytes()).hexdigest()


def test_the_validator_names_what_is_wrong(tmp_path):
    _write(tmp_path / "bad", FIRST + '# %%\nt = spark.read.parquet(f"{DATA}/t")\nout = t\n',
           'origin = "x"\nwhat = "y"\nsink = "result"\n[sources.other]\nbest = "F.col(\'a\') >"\nwhy = "w"\n')
    problems = " | ".join(corpus.validate("bad", tmp_path))
    assert "`kind` must be one of" in problems
    assert "not a Python expression" in problems
    assert "reads ['t'] but expected.toml has sources ['other']" in problems
    assert "never assigns `result`" in problems


def test_a_pipeline_where_nothing_moves_must_say_why(tmp_path):
    _write(tmp_path / "quiet", FIRST + '# %%\nt = spark.read.parquet(f"{DATA}/t")\nout = t\n',
           'origin = "x"\nwhat = "y"\nsink = "out"\nnothing_may_move = true\n[sources.t]\nwhy = "w"\n')
    assert corpus.validate("quiet", tmp_path) == [
        "expected.toml: `nothing_may_move = true` needs `trap` (why the obvious pushdown is wrong)"]


def test_cells_split_at_percent_markers_keeping_markdown_apart():
    cells = corpus.split_cells("# %% [markdown]\n# Title\n\n# %%\nx = 1\n\n# %%\ny = x\n")
    assert [(c.source, c.markdown) for c in cells] == [("# Title", True), ("x = 1", False), ("y = x", False)]


@pytest.mark.parametrize("operator, reason, kind", [
    ("GroupBy", "no candidate could be proved", "aggregate: filter on its output"),
    ("FullOuterJoin", "no candidate could be proved", "outer join: filter on the null-supplying side"),
    ("CumAggr", "no candidate could be proved", "window: filter on its output or across its partitions"),
    ("Project", "time budget used up", "over budget"),
    ("Project", "check failed: TypeError: bad operand", "check error: TypeError"),
    ("Project", "the late filter cannot be modelled at this step: the udf calls str.title (str.title)",
     "python UDF: call not modelled (str.title)"),
    ("Frobnicate", "a reason nobody has seen before", "other: Frobnicate: a reason nobody has"),
])
def test_refusals_are_sorted_into_blocker_kinds(operator, reason, kind):
    assert kind_of(operator, reason) == kind


def test_blockers_carry_the_step_cell_and_line_the_note_names():
    note = 'GroupBy `….agg(F.mean("x").alias("m"))` (cell [5], line 2): no filter before this step was proved'
    optimized = SimpleNamespace(error="", seconds=12.0, skipped=[],
                                refusals=[{"operator": "GroupBy", "reason": "no candidate could be proved",
                                           "event": 3, "note": note}],
                                notes=[note, ("pipeline ending in out: the optimizer could not analyse it "
                                              "(KeyError: 'x')")])
    found = blockers_of(optimized, budget=10.0)
    assert [(b.kind, b.step, b.cell, b.line) for b in found] == [
        ("aggregate: filter on its output", '….agg(F.mean("x").alias("m"))', "5", 2),
        ("optimizer error: KeyError", "", "", None),
        ("over budget", "", "", None)]


def test_a_pipeline_the_harness_cannot_run_is_its_own_row_not_the_end_of_the_run(tmp_path):
    from benchmarks.reach.bench import bench_guarded
    from benchmarks.reach.report import summary_line

    result = bench_guarded("no_such_pipeline", None, None, 100, 0, 10.0, tmp_path)
    assert result.error.startswith("the harness could not run it: ValueError: no_such_pipeline: missing")
    assert summary_line([result]).startswith("1 pipelines (1 could not run)")


def test_bags_ignore_order_and_treat_nan_as_equal():
    nan = float("nan")
    assert normal_bag([(1, nan, "a"), (2, 0.1 + 0.2, None)]) == normal_bag([(2, 0.3, None), (1, nan, "a")])
    assert normal_bag([(1,), (1,)]) != normal_bag([(1,)])


def test_the_table_flag_lists_every_pipeline_with_the_counts_and_the_pipelines_not_ported(capsys):
    from benchmarks.reach.__main__ import main

    assert main(["--table"]) == 0  # 0: the corpus reaches its floors
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ") and not line.startswith("| pipeline |")]
    named = {line.split(" | ")[0][2:] for line in rows}
    assert set(corpus.names()) <= named and "NB_160505" in named
    assert f"{len(corpus.names())} pipelines: " in out and "### Pipelines not ported" in out


def test_the_table_shortens_origins_and_optima_and_counts_against_the_floors(tmp_path):
    from benchmarks.reach import catalog

    assert catalog.short_origin("public notebooks a-b/c.d x.py and y.py, run in turn") == "public: a-b/c.d"
    assert catalog.short_origin("written in the shape of public notebooks on taxis (fares); not one") == \
        "in the shape of public notebooks on taxis"
    assert catalog.steps_and_late_filter("a, b; c; the late one") == ("a, b; c", "the late one")
    assert catalog.clauses("one, two (2, 2), three", width=16) == "one, two (2, 2), …"
    _write(tmp_path / "two", FIRST + '# %%\nt = spark.read.parquet(f"{DATA}/t")\nu = spark.read.parquet(f"{DATA}/u")\n'
           'out = t\n', 'origin = "MagicPush paper pipeline NB_1 (x)"\nwhat = "y; z"\nsink = "out"\n'
           '[sources.t]\nbest = "F.col(\'a\') > 1"\nkind = "superset"\nwhy = "w"\n[sources.u]\nwhy = "w"\n')
    pipeline = corpus.load("two", tmp_path)
    assert catalog.short_optimum(pipeline) == "superset at t; nothing at u"
    counts = catalog.counts([pipeline])
    assert (counts.magicpush, counts.public_all, counts.nothing_may_move) == (1, 0, 0)
    assert len(counts.shortfalls()) == 3  # too few paper and public pipelines, none where nothing moves


# -- Spark tier: one small pipeline end to end -------------------------------------------------

SMALL = "nb140759_celeba"


def test_a_small_pipeline_runs_end_to_end_through_the_benchmark(spark, tmp_path):
    from benchmarks.reach.bench import bench_one
    from benchmarks.reach.report import render
    from benchmarks.reach.run import shell

    result = bench_one(corpus.load(SMALL), spark, shell(spark), rows=300, seed=0, budget=10.0, data_root=tmp_path)
    assert result.error == "" and result.sound is True
    assert result.optimizer_seconds is not None
    original, hand = result.read["original"], result.read["hand"]
    assert set(original) == {"list_attr_celeba", "list_eval_partition"}
    assert sum(hand.values()) <= sum(original.values())
    assert result.effective is not None
    assert SMALL in render([result], 10.0)


def test_the_checker_finds_the_hand_optimum_sound_and_an_unsound_one_not(spark, tmp_path):
    from dataclasses import replace

    from benchmarks.reach.check import check
    from benchmarks.reach.run import shell

    pipeline = corpus.load("nb1089645_movies")  # one table: two runs per check
    ip = shell(spark)
    assert check(pipeline, spark, ip, 300, 0, tmp_path, log=lambda line: None).ok
    # the films of 2000-2009 are in the output: a read keeping only 2010 on loses them
    wrong = replace(pipeline, sources=tuple(replace(s, best='F.col("release_year") >= 2010')
                                            for s in pipeline.sources))
    report = check(wrong, spark, ip, 300, 0, tmp_path, log=lambda line: None)
    assert not report.ok and "all bests" in report.problems[0]


def test_rows_handed_on_count_the_filter_at_the_read_and_sum_a_table_read_twice(spark, tmp_path):
    import pandas as pd
    from pyspark.sql import functions as F

    from benchmarks.reach.rows import executed_plan, rows_handed_on
    from benchmarks.reach.tables import write_table

    write_table(pd.DataFrame({"k": range(100), "v": [i % 10 for i in range(100)]}), tmp_path / "t")
    write_table(pd.DataFrame({"k": range(0, 100, 2)}), tmp_path / "u")

    def handed_on(df):
        fresh = df.select("*")
        fresh.collect()
        return rows_handed_on(executed_plan(fresh), {"t", "u"})

    t, u = spark.read.parquet(str(tmp_path / "t")), spark.read.parquet(str(tmp_path / "u"))
    # Spark's own filter at the read counts, whether Parquet or a Filter above the scan applies it
    assert handed_on(t.filter(F.col("v") == 3)) == {"t": 10}
    assert handed_on(t.filter(F.col("v") * 2 == 6).select("k")) == {"t": 10}
    # a filter that cannot reach the read (on an aggregate) leaves the scan's own count
    assert handed_on(t.groupBy("v").count().filter(F.col("count") > 5)) == {"t": 100}
    # two reads of one table are summed; each table is counted apart
    twice = t.filter(F.col("v") < 5).join(t.filter(F.col("v") >= 8).select("k"), "k", "left").join(u, "k")
    assert handed_on(twice) == {"t": 50 + 20, "u": 50}
    # a cached DataFrame is counted through its cached plan
    cached = t.filter(F.col("v") == 1).cache()
    cached.count()
    assert handed_on(cached.select("k")) == {"t": 10}
    cached.unpersist()


def test_a_pandas_sink_is_compared_as_rows_and_measured_through_the_frame_it_collected(spark, tmp_path):
    import pandas as pd
    from pyspark.sql import functions as F

    from benchmarks.reach.run import outcome
    from benchmarks.reach.tables import write_table

    write_table(pd.DataFrame({"k": range(20), "v": [i % 4 for i in range(20)]}), tmp_path / "t")
    df = spark.read.parquet(str(tmp_path / "t")).filter(F.col("v") == 2)
    pdf = df.toPandas()
    namespace = {"df": df, "late": pdf[pdf["k"] > 10]}
    got = outcome(namespace, sink="late", measure="df", tables={"t"})
    assert got.read == {"t": 5} and got.bag == [(14, 2), (18, 2)]
    assert "no variable `nothing`" in outcome(namespace, "nothing", "df", {"t"}).error
