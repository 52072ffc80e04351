"""The readability measure of docs/benchmarks.md (benchmarks/readability.py): predicate sizes and
the forms a Parquet scan takes, read from saved results; no Spark."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.readability import main, pairs, scan_form, size, summary

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("code, takes", [
    ('F.col("amount") > 950', True),
    ('(F.col("amount") > 950) | F.col("amount").isNull()', True),
    ('~(F.col("kind") == "x") & F.col("k").isin(1, 2)', True),
    ('F.col("d") >= datetime.date(2020, 1, 1)', True),
    ('F.col("name").startswith("A")', True),
    # not handed to the scan: arithmetic on the column, a function of it, a coalesce guard
    ('F.col("amount") + 99 > 1049', False),
    ('F.year(F.col("d")) < 2019', False),
    ('F.coalesce(F.col("region") != "APAC", F.lit(True))', False),
    ('F.col("a") > F.col("b")', False),
])
def test_a_predicate_is_a_scan_form_only_when_every_part_is(code, takes):
    assert scan_form(code) is takes


@pytest.mark.parametrize("smaller, larger", [
    ('F.col("v") > 1', '(F.col("v") > 1) & F.col("v").isNotNull()'),
    ('F.col("v") > 1', 'F.when(F.col("v").isNull(), True).otherwise(F.col("v") > 1)'),
])
def test_size_counts_what_a_reader_reads(smaller, larger):
    assert size(smaller) < size(larger)


def test_the_saved_reach_run_pairs_suggestions_with_their_tables_bests(capsys):
    import json

    result = json.loads((ROOT / "benchmarks/reach/results/whole-corpus-d5ebfc3-rows-2000.json").read_text())
    found = list(pairs(result, ROOT / "benchmarks/reach/corpus"))
    got = summary(found)
    assert got["pairs"] > 50 and got["hand_scan_form"] > 0  # variables mapped to their tables
    assert all(f["best"] and f["suggested"] for f in found)
    assert main([str(ROOT / "benchmarks/reach/results/whole-corpus-d5ebfc3-rows-2000.json")]) == 0
    assert "suggestions with a hand-written best" in capsys.readouterr().out
