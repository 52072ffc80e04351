"""Notebook-shaped dataflow: variables reassigned across cells, several pipelines in one notebook.

Cells run through a real IPython shell with tracing on; each suggestion's rewritten cells are
run again on the same SparkSession and the resulting DataFrames compared with the original's.
"""

from __future__ import annotations

import pytest

from magicpush_lab.pipeline import optimize_trace
from magicpush_lab.translate.dataflow import longest_path, sink_paths
from tests.cells import traced

IMPORTS = "from pyspark.sql import functions as F"


def bags(spark, cells, names):
    """Run `cells` untraced in a namespace of their own; the sorted rows of each named DataFrame."""
    ns = {"spark": spark}
    for src in cells:
        exec(compile(src, "<cell>", "exec"), ns)
    return {n: sorted(tuple(r) for r in ns[n].collect()) for n in names}


def rewritten(cells, suggestions):
    """The cells as `magicpush optimize --apply` writes them (a conflicting suggestion is skipped)."""
    from magicpush_lab.cli import cell_changes
    from magicpush_lab.pipeline import OptimizeResult

    changes, skipped = cell_changes(OptimizeResult(tuple(suggestions), 0.0))
    assert skipped == []
    return [changes.get(i, src) for i, src in enumerate(cells)]


REASSIGNED = [
    IMPORTS,
    'df = spark.createDataFrame([(i, i % 10) for i in range(60)], ["id", "v"])',
    'df = df.withColumn("w", F.col("v") * 2)',
    'df = df.filter(F.col("w") > 12)',
]
# the same, but the filtered column is random: nothing may move before the withColumn
REASSIGNED_RANDOM = REASSIGNED[:2] + ['df = df.withColumn("w", F.rand(7) * 20)', REASSIGNED[3]]


def test_reassigned_variable_pipeline_reaches_the_first_source_and_the_source_cell_is_rewritten(shell, spark):
    trace = traced(shell, REASSIGNED)
    path = longest_path(trace)
    assert [e.op for e in path] == ["createDataFrame", "withColumn", "filter"]
    assert [e.inputs for e in path[1:]] == [(path[0].id,), (path[1].id,)]  # each df is the one before
    assert trace.variables["df"] == path[-1].id
    result = optimize_trace(trace, REASSIGNED)
    assert len(result.suggestions) == 1, result.notes
    s = result.suggestions[0]
    assert s.kind == "equivalent" and s.source_event == path[0].id
    changed = {c.index: c.rewritten for c in s.cells}
    assert set(changed) == {1, 3}  # the source's cell gets the filter, the late filter's cell loses it
    assert ".filter(" in changed[1]
    assert changed[3] == "# filter moved to the source: " + REASSIGNED[3]  # not `df = df`
    assert bags(spark, rewritten(REASSIGNED, [s]), ["df"]) == bags(spark, REASSIGNED, ["df"])


def test_reassigned_variable_with_a_random_column_is_not_pushed(shell):
    result = optimize_trace(traced(shell, REASSIGNED_RANDOM), REASSIGNED_RANDOM)
    assert result.suggestions == () and result.notes


SEVERAL = [
    IMPORTS,
    # one source per cell: two suggestions rewriting one cell differently would not both apply
    'a = spark.createDataFrame([(i, i % 10) for i in range(50)], ["k", "v"])',
    'b = spark.createDataFrame([(i, i % 7) for i in range(50)], ["k", "x"])',
    'c = spark.createDataFrame([(i % 5, i) for i in range(50)], ["g", "n"])',
    'a_big = a.withColumn("w", F.col("v") + 1).withColumn("u", F.col("w") * 3).filter(F.col("w") > 6)',
    'b_big = b.withColumn("y", F.col("x") * 2).filter(F.col("y") > 8)',
    # a filter on a sum cannot move below the groupBy: this pipeline gets a note, not a suggestion
    'c_big = c.groupBy("g").agg(F.sum("n").alias("s")).filter(F.col("s") > 250)',
]


def test_every_pipeline_is_optimized_on_request_the_longest_only_by_default(shell, spark):
    trace = traced(shell, SEVERAL)
    ends = {trace.variables[n]: n for n in ("a_big", "b_big", "c_big")}
    assert [ends.get(p[-1].id) for p in sink_paths(trace)] == ["a_big", "c_big", "b_big"]  # longest first
    sources = {p[-1].id: p[0].id for p in sink_paths(trace)}

    default = optimize_trace(trace, SEVERAL)
    assert [s.source_event for s in default.suggestions] == [sources[trace.variables["a_big"]]]
    assert [s.pipeline for s in default.suggestions] == ["a_big"]

    every = optimize_trace(trace, SEVERAL, all_pipelines=True)
    assert sorted(s.source_event for s in every.suggestions) == sorted(
        sources[trace.variables[n]] for n in ("a_big", "b_big"))
    assert any(n.startswith("pipeline ending in c_big: ") for n in every.notes), every.notes
    assert sorted(s.pipeline for s in every.suggestions) == ["a_big", "b_big"]
    names = ["a_big", "b_big", "c_big"]
    assert bags(spark, rewritten(SEVERAL, every.suggestions), names) == bags(spark, SEVERAL, names)


def test_a_cancelled_budget_proves_nothing_and_an_untouched_one_does(shell):
    from magicpush_lab.budget import Budget

    trace = traced(shell, REASSIGNED)
    cancelled = Budget(60.0)
    cancelled.cancel()  # the client went away: every check gets the minimum limit and fails
    assert optimize_trace(trace, REASSIGNED, budget=cancelled).suggestions == ()
    assert optimize_trace(trace, REASSIGNED, budget=Budget(60.0)).suggestions


def test_a_refused_naive_filter_comes_with_its_counterexample_as_json(shell):
    """must not push: a filter after orderBy + limit on another column. The result says why, with
    the rows on which the filter at the source would change the result, as plain JSON."""
    import json

    cells = [IMPORTS, 'df = spark.createDataFrame([(i, i % 10) for i in range(30)], ["id", "v"])',
             'top = df.orderBy("v").limit(3).filter(F.col("id") > 5)']
    result = optimize_trace(traced(shell, cells), cells)
    assert result.suggestions == ()
    [refusal] = json.loads(json.dumps(result.to_json()))["refusals"]
    assert (refusal["pipeline"], refusal["operator"]) == ("top", "TopK")
    assert refusal["candidate"].startswith("id > ")
    [rows] = refusal["counterexample"].values()
    # the limit keeps rows the filter drops (ids of at most 5, or NULL): filtering first changes them
    assert len(rows) > 3 and any(r["id"] is not None and r["id"] > 5 for r in rows)


def test_each_optimized_pipeline_comes_with_its_graph_of_calls(shell):
    cells = SEVERAL
    trace = traced(shell, cells)
    result = optimize_trace(trace, cells, all_pipelines=True)
    graphs = {g["name"]: g for g in result.to_json()["pipelines"]}
    assert set(graphs) == {"a_big", "b_big", "c_big"}
    nodes = {n["id"]: n for n in graphs["a_big"]["nodes"]}
    assert [n["label"] for n in graphs["a_big"]["nodes"]] == ["a", "withColumn", "withColumn", "a_big"]
    assert [n["what"].split(";")[0] for n in graphs["a_big"]["nodes"]] == [
        "source", "RowTransform", "RowTransform", "Filter"]
    for s in result.suggestions:  # what a suggestion moves, and where to, are nodes of its pipeline's graph
        ids = {n["id"] for n in graphs[s.pipeline]["nodes"]}
        assert {s.source_event, s.late_filter_event} <= ids
    assert all(i in nodes for n in nodes.values() for i in n["inputs"])


def test_each_graph_node_says_its_own_step_not_every_form_of_its_call(shell):
    """A four-key groupBy's `agg` is a GroupBy on its four keys (not "GroupBy (no keys)", the
    coverage table's first reading of `agg`), a left join is a LeftOuterJoin."""
    cells = [IMPORTS,
             'df = spark.createDataFrame([(1, 2, 3, 4, 5)], ["a", "b", "c", "d", "v"])',
             'names = spark.createDataFrame([(1, "x")], ["a", "name"])',
             'sums = df.groupBy("a", "b", "c", "d").agg(F.sum("v").alias("total"))',
             'out = sums.join(names, "a", "left").filter(F.col("a") > 0)']
    result = optimize_trace(traced(shell, cells), cells, all_pipelines=True)
    [graph] = [g for g in result.to_json()["pipelines"] if g["name"] == "out"]
    what = {n["label"]: n["what"] for n in graph["nodes"]}
    assert what["sums"] == "GroupBy on a, b, c, d"
    assert "LeftOuterJoin" in what.values() and what["df"] == "source"


def test_a_suggestion_names_the_cell_of_its_late_filter_and_its_pipelines_last_event(shell):
    """Where an inline banner goes: the cell whose code holds the late filter. A markdown cell
    in front counts, as the notebook's positions do."""
    cells = SEVERAL
    trace = traced(shell, cells)
    notebook = ["# a heading", *cells]
    result = optimize_trace(trace, notebook, all_pipelines=True)
    assert result.suggestions
    for s in result.suggestions:
        assert s.late_filter_cell is not None
        assert f"{s.pipeline} = " in notebook[s.late_filter_cell]
        assert s.sink_event == max(n["id"] for g in result.to_json()["pipelines"] if g["name"] == s.pipeline
                                   for n in g["nodes"])



@pytest.mark.parametrize("every", [False, True])
def test_a_refusal_names_its_blocking_step_as_a_node_of_the_graph_and_carries_its_note(shell, every):
    """What a view needs to say why nothing moved once: the step that stopped the filter, as a
    node of the pipeline's graph (to mark it), and the result's note about that step (named
    for its pipeline when every pipeline is optimized, as the notes are)."""
    cells = [IMPORTS, 'df = spark.createDataFrame([(i, i % 10) for i in range(30)], ["id", "v"])',
             'top = df.orderBy("v").limit(3).filter(F.col("id") > 5)']
    out = optimize_trace(traced(shell, cells), cells, all_pipelines=every).to_json()
    [refusal] = out["refusals"]
    nodes = {n["id"]: n for g in out["pipelines"] for n in g["nodes"]}
    assert nodes[refusal["event"]]["op"] == "limit"
    assert refusal["note"] in out["notes"]
    prefix = "pipeline ending in top: " if every else ""
    assert refusal["note"].startswith(f"{prefix}TopK `") and "(cell [" in refusal["note"]


def test_a_suggestion_carries_its_late_filter_and_the_prompt_counts_of_its_cells(shell):
    """The plain-words Why relates the predicate to the late filter it stands in for, and every
    view names a rewritten cell by the count its prompt shows, not by its notebook position."""
    trace = traced(shell, SEVERAL)
    notebook = ["# a heading", *SEVERAL]
    result = optimize_trace(trace, notebook, all_pipelines=True)
    late = {s.pipeline: s.late_predicate for s in result.suggestions}
    assert late == {"a_big": 'F.col("w") > 6', "b_big": 'F.col("y") > 8'}
    ran = {c.source: c.execution_count for c in trace.cells}
    for s in result.suggestions:
        assert [c.execution_count for c in s.cells] == [ran[notebook[c.index]] for c in s.cells]


def test_measuring_estimates_the_time_saved_from_a_sample_of_the_source(shell):
    """The kernel times the pipeline's own work per row on the source's first rows (never a
    second pass over the whole source); the saving is that cost times the rows removed,
    labelled an estimate by its basis. Where the runs' own spread hides the cost, as on a busy
    machine, there is no figure and the note says why."""
    from magicpush_lab.assist import apply_measurements, measure_requests
    from magicpush_lab.kernel.bundles import measure_in_kernel

    cells = [IMPORTS, "from pyspark.sql.types import IntegerType",
             "@F.udf(IntegerType())\ndef plus_one(v):\n    return None if v is None else v + 1",
             'src = spark.range(0, 20000).withColumnRenamed("id", "v")',
             'out = src.withColumn("p", plus_one("v")).filter(F.col("p") > 19000)']
    _, tracer = shell
    result = optimize_trace(traced(shell, cells), cells)
    [s] = result.suggestions
    [request] = measure_requests(result.suggestions)
    assert request["sink_event"] == s.sink_event
    [m] = measure_in_kernel(tracer, [request])
    cost = m["cost"]
    [measured] = apply_measurements(result.suggestions, [m]).suggestions
    assert measured.rows_after == 1000
    if "seconds_per_row" in cost:  # the growth stood out from the spread of the runs
        assert (cost["sample_rows"], cost["small_rows"]) == (20_000, 4_000)
        saved = measured.time_saved
        assert saved["rows_removed"] == 19_000
        assert saved["seconds"] == round(19_000 * cost["seconds_per_row"], 3)
    else:  # a busy machine: no figure is made up, and the note says why
        assert cost["note"].startswith(("the pipeline's time per row could not be told apart from Spark's fixed costs",
                                        "timing the pipeline on 20,000 rows took over")), cost
        assert measured.time_saved == {"seconds": None, "note": cost["note"]}
