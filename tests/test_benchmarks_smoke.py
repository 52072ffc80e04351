"""The benchmark command's code on tiny data (`python -m benchmarks.run`): a few notebook-corpus
pipelines and one TPC-H query run as original, rule-baseline rewrite and engine rewrite.

Pins what the figures rest on, not the figures: every variant returns the original's rows,
rows read are read from the executed plans for every table, the engine's rewrite never reads
more than the original, and reads fewer where it pushed. Times are measured nowhere here.
"""

from __future__ import annotations

import json

import pytest

from benchmarks import run
from benchmarks.tpch import data as tpch_data

# about 60 s of a CI worker (the corpus pipelines, a TPC-H query, the pandas shapes): the slow
# tier runs it; the engine's own tests check the same rewrites on Spark
pytestmark = pytest.mark.slow

# (pipeline, table the engine's predicate reaches): one per kind of operator the filter crosses
# (a limit sorting on the double `amount` is no longer walked through: NaN sorts last in Spark)
CORPUS = [("udf_band", "sales"), ("agg_max", "sales"), ("full_join_key", "stores")]
ROWS = 2000


@pytest.fixture(scope="module")
def bench_spark(spark):
    before = spark.conf.get("spark.sql.adaptive.optimizer.excludedRules", "")
    run.keep_empty_stages(spark)
    yield spark
    spark.conf.set("spark.sql.adaptive.optimizer.excludedRules", before)


@pytest.fixture(scope="module")
def corpus(bench_spark, tmp_path_factory):
    return run.corpus_rows(bench_spark, ROWS, 0, {name for name, _ in CORPUS}, tmp_path_factory.mktemp("corpus"),
                           lambda row: None)


def test_every_requested_corpus_pipeline_ran(corpus):
    assert sorted(r["name"] for r in corpus) == sorted(name for name, _ in CORPUS)


@pytest.mark.parametrize("name,table", CORPUS)
def test_corpus_rewrites_return_the_original_rows_and_read_fewer(corpus, name, table):
    row = next(r for r in corpus if r["name"] == name)
    assert not row["error"], row["error"]
    assert row["equal"] == {"baseline": True, "magicpush": True}
    assert row["original"]["rows_out"] == row["magicpush"]["rows_out"]
    for variant in ("original", "baseline", "magicpush"):
        assert table in row[variant]["rows_read"], (variant, row[variant]["rows_read"])
    assert table in row["engine_predicates"]
    assert row["magicpush"]["rows_read"][table] < row["original"]["rows_read"][table]
    for t, n in row["magicpush"]["rows_read"].items():
        assert n <= row["original"]["rows_read"][t]
    assert row["original"]["rows_read"]["sales"] == ROWS  # nothing filters the big table before the late filter


@pytest.mark.skipif(not tpch_data.generator_available(), reason="tpchgen-cli is not installed")
def test_tpch_query_rewritten_returns_the_same_rows_reading_no_more(bench_spark, tmp_path_factory):
    [row] = run.tpch_rows(bench_spark, 0.01, 0, {"q3"}, tmp_path_factory.mktemp("tpch"), lambda row: None)
    assert not row["error"], row["error"]
    assert row["equal"] == {"baseline": True, "magicpush": True}
    assert set(row["original"]["rows_read"]) == {"customer", "orders", "lineitem"}
    for t, n in row["magicpush"]["rows_read"].items():
        assert n <= row["original"]["rows_read"][t]


def test_outputs_written_with_the_table_and_summary(corpus, tmp_path):
    settings = {"notebook_corpus": {"rows": ROWS, "runs": 0}, "tpch": {"scale": 0, "runs": 0}}
    written = run.write_outputs(tmp_path, corpus, [], settings, "17")
    assert tmp_path / "benchmarks" / "results.json" in written
    saved = json.loads((tmp_path / "benchmarks" / "results.json").read_text())
    assert saved["summary"]["notebook_corpus"]["unequal_or_failed"] == []
    text = (tmp_path / "benchmarks" / "results.md").read_text()
    assert all(f"| {name} |" in text for name, _ in CORPUS)


def test_the_wide_rows_benchmark_prints_a_row_per_width_and_budget(capsys, monkeypatch):
    import sys

    from benchmarks import wide_rows

    monkeypatch.setattr(sys, "argv", ["wide_rows", "--widths", "20", "--budgets", "5", "--runs", "1"])
    wide_rows.main()
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| 20 ")]
    assert rows == ["| 20 | 5 | " + rows[0].split(" | ")[2] + " | 0.00 | (c0 + 1) > 5 (equivalent) |"]


@pytest.mark.spark
def test_the_pandas_benchmark_rewrites_each_shape_keeping_its_final_frame(spark, capsys):
    """benchmarks/to_pandas.py on small data: each notebook gets its suggestion, the rewritten
    read hands on fewer rows, and the final frames are equal (the script's exit status)."""
    from benchmarks import to_pandas

    assert to_pandas.main(["--rows", "20000", "--runs", "1"]) == 0
    out = capsys.readouterr().out
    rewritten = [line for line in out.splitlines() if line.startswith("| rewritten |")]
    originals = [line for line in out.splitlines() if line.startswith("| original |")]
    assert len(rewritten) == len(originals) == len(to_pandas.NOTEBOOKS), out
    for before, after in zip(originals, rewritten):
        assert int(after.split(" | ")[1].replace(",", "")) < int(before.split(" | ")[1].replace(",", "")), out
    assert ".spark.apply(lambda sdf: sdf.filter(" in out
