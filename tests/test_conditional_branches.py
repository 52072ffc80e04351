"""Suggestions for notebooks whose pipeline branches: conditional blocks (paper, Section 5.1,
Figure 7(4)) and one DataFrame read by several branches (Figure 7(3)).

Each notebook is traced in a real IPython shell; every suggestion's rewritten cells are run
again, with the branch taken and with the other one, and must give the original's rows.
"""

from __future__ import annotations

from magicpush_lab.pipeline import optimize_trace
from tests.cells import rewritten, traced

HEAD = ('from pyspark.sql import functions as F\n'
        'sales = spark.createDataFrame([(i, i % 10, i % 7) for i in range(200)], "id int, v int, s int")')

# a source read before an `if`: the else path makes `v` from `s`, so `v > 7` at the source
# would drop rows that path needs
IF_ELSE = [
    'flag = True\n' + HEAD,
    'if flag:\n    df2 = sales.withColumn("w", F.col("v") * 2)\nelse:\n'
    '    df2 = sales.withColumn("v", F.col("s") + 5)\nout = df2.filter(F.col("v") > 7)',
]
# the same with the late filter inside the branch: it runs exactly when the pushed filter does
IF_ELSE_FILTER_INSIDE = [
    'flag = True\n' + HEAD,
    'if flag:\n    out = sales.withColumn("w", F.col("v") * 2).filter(F.col("v") > 7)\nelse:\n'
    '    out = sales.withColumn("v", F.col("s") + 5)',
]
# neighbour without any conditional block: the filter goes to the source's definition
STRAIGHT = [
    'flag = True\n' + HEAD,
    'df2 = sales.withColumn("w", F.col("v") * 2)\nout = df2.filter(F.col("v") > 7)',
]
# the branch reads the source as a join's right input: no place in the branch, refused
IF_JOIN_RIGHT = [
    'flag = True\n' + HEAD + '\nstores = spark.createDataFrame([(i, f"s{i}") for i in range(10)], "k int, name string")',
    'if flag:\n    df2 = stores.join(sales, stores.k == sales.v)\nelse:\n'
    '    df2 = stores.join(sales.withColumn("v", F.col("s") + 5), "k")\nout = df2.filter(F.col("v") > 7)',
]
# two branches made from one DataFrame, different filters, meeting in a union
UNION = [
    'flag = True\n' + HEAD,
    'a = sales.withColumn("w", F.col("v") * 2).filter(F.col("v") > 7)\n'
    'b = sales.withColumn("w", F.col("s") * 3).filter(F.col("s") < 2)\n'
    'out = a.union(b).filter(F.col("w") > 4)',
]
# one DataFrame (t) feeding two branches: a's filter alone must not go to `sales`, which b reads through t
SHARED = [
    'flag = True\n' + HEAD,
    't = sales.withColumn("w", F.col("v") * 2)\na = t.filter(F.col("v") > 7)\nb = t.filter(F.col("s") < 2)\n'
    'out = a.union(b)',
]


def _rows(spark, cells, flag=True):
    ns = {"spark": spark}
    for i, src in enumerate(cells):
        if i == 0:
            src = src.replace("flag = True", f"flag = {flag}")
        exec(compile(src, "<cell>", "exec"), ns)  # noqa: S102 - running notebook cells under test
    return sorted(ns["out"].collect(), key=repr)


def _same_rows_both_ways(spark, cells, suggestion):
    new = rewritten(cells, suggestion)
    for flag in (True, False):
        assert _rows(spark, new, flag) == _rows(spark, cells, flag), (flag, new)


def _on_sales(result):
    return [s for s in result.suggestions if s.source == "sales"]


def test_source_read_before_an_if_gets_the_filter_inside_the_branch(spark, shell):
    trace = traced(shell, IF_ELSE)
    result = optimize_trace(trace, [c.source for c in trace.cells])
    (s,) = _on_sales(result)
    assert s.predicate == 'F.col("v") > 7' and s.kind == "superset"
    assert [c.index for c in s.cells] == [1]  # the source's own cell is untouched
    assert s.cells[0].rewritten.splitlines()[1] == '    df2 = sales.filter(F.col("v") > 7).withColumn("w", F.col("v") * 2)'
    assert "out = df2.filter(F.col(\"v\") > 7)" in s.cells[0].rewritten  # the late filter stays
    _same_rows_both_ways(spark, IF_ELSE, s)
    # the filter at the source's definition instead would lose rows of the path not taken
    naive = [IF_ELSE[0] + '.filter(F.col("v") > 7)', IF_ELSE[1]]
    assert _rows(spark, naive, False) != _rows(spark, IF_ELSE, False)


def test_late_filter_in_the_same_branch_is_removed_there(spark, shell):
    trace = traced(shell, IF_ELSE_FILTER_INSIDE)
    (s,) = _on_sales(optimize_trace(trace, [c.source for c in trace.cells]))
    assert s.kind == "equivalent" and [c.index for c in s.cells] == [1]
    assert s.cells[0].rewritten.splitlines()[1] == \
        '    out = sales.filter(F.col("v") > 7).withColumn("w", F.col("v") * 2)'
    _same_rows_both_ways(spark, IF_ELSE_FILTER_INSIDE, s)


def test_without_a_conditional_block_the_source_definition_gets_the_filter(spark, shell):
    trace = traced(shell, STRAIGHT)
    (s,) = _on_sales(optimize_trace(trace, [c.source for c in trace.cells]))
    assert s.kind == "equivalent" and [c.index for c in s.cells] == [0, 1]
    assert s.cells[0].rewritten.endswith('"id int, v int, s int").filter(F.col("v") > 7)')
    _same_rows_both_ways(spark, STRAIGHT, s)


def test_branch_reading_the_source_where_no_filter_can_go_is_refused_with_a_note(spark, shell):
    trace = traced(shell, IF_JOIN_RIGHT)
    result = optimize_trace(trace, [c.source for c in trace.cells])
    assert not _on_sales(result)
    assert any("conditional block" in n or "pipeline's use of it was not found" in n for n in result.notes), \
        result.notes


def test_union_of_two_branches_of_one_source_one_suggestion_with_every_edit(spark, shell):
    trace = traced(shell, UNION)
    result = optimize_trace(trace, [c.source for c in trace.cells])
    merged = [s for s in _on_sales(result) if " | " in s.predicate]
    assert len(merged) == 1, [s.predicate for s in result.suggestions]
    s = merged[0]
    assert s.predicate == '(F.col("v") * 2 > 4) | (F.col("s") * 3 > 4)'
    text = {c.index: c.rewritten for c in s.cells}
    assert text[0].endswith('.filter((F.col("v") * 2 > 4) | (F.col("s") * 3 > 4))')
    assert 'a = sales.filter(F.col("v") * 2 > 4).withColumn' in text[1]
    assert 'b = sales.filter(F.col("s") * 3 > 4).withColumn' in text[1]
    for each in result.suggestions:
        _same_rows_both_ways(spark, UNION, each)


def test_a_filter_of_one_branch_never_reaches_a_dataframe_the_other_branch_reads(spark, shell):
    trace = traced(shell, SHARED)
    result = optimize_trace(trace, [c.source for c in trace.cells])
    for s in result.suggestions:
        assert s.predicate not in ('F.col("v") > 7', 'F.col("s") < 2'), s
        _same_rows_both_ways(spark, SHARED, s)
    assert any("feeds other code" in n for n in result.notes), result.notes
