"""The tracer, run through a real IPython shell and a real SparkSession."""

from __future__ import annotations

import json

from magicpush_lab.capture.trace import Trace
from magicpush_lab.kernel import measure_bundle, trace_bundle
from magicpush_lab.protocol import MEASURE_MIME, TRACE_MIME
from magicpush_lab.kernel.extension import load, magicpush_result, unload
from tests.cells import run_cell as run


def text_at(trace: Trace, site) -> str:
    """The source text a site points at."""
    cell = next(c for c in trace.cells if c.execution_count == site.execution_count)
    lines = cell.source.splitlines(keepends=True)
    start = sum(len(x.encode()) for x in lines[: site.lineno - 1]) + site.col_offset
    end = sum(len(x.encode()) for x in lines[: site.end_lineno - 1]) + site.end_col_offset
    return cell.source.encode()[start:end].decode()


PIPELINE = [
    'from pyspark.sql import functions as F\n'
    'sales = spark.range(0, 100).withColumn("v", F.col("id") % 10)\n'
    'stores = spark.createDataFrame([(i, f"s{i}") for i in range(10)], ["v", "name"])',
    # leading blank lines and indentation are dropped by IPython before compiling
    '\n\n  def enrich(df):\n      return df.withColumn("w", F.col("v") * 2)\n',
    'big = (enrich(sales)\n       .join(stores, "v")\n       .filter(F.col("v") > 5))',
]


def test_ops_inputs_sites_and_variables(shell):
    ip, tracer = shell
    counts = [run(ip, src) for src in PIPELINE]
    trace = tracer.trace()
    ops = [e.op for e in trace.events]
    assert ops == ["range", "withColumn", "createDataFrame", "withColumn", "join", "filter"]
    rng, with_v, create, with_w, join, filt = trace.events
    assert (rng.inputs, with_v.inputs, create.inputs) == ((), (0,), ())
    assert with_w.inputs == (with_v.id,) and join.inputs == (with_w.id, create.id) and filt.inputs == (join.id,)
    assert text_at(trace, rng.site) == "spark.range(0, 100)"
    assert text_at(trace, with_v.site) == 'spark.range(0, 100).withColumn("v", F.col("id") % 10)'
    # the helper's call is sited in the cell that defines it, relative to the raw cell text
    assert with_w.site.execution_count == counts[1] and with_w.site.lineno == 4
    assert text_at(trace, with_w.site) == 'df.withColumn("w", F.col("v") * 2)'
    assert text_at(trace, join.site) == 'enrich(sales)\n       .join(stores, "v")'
    assert text_at(trace, filt.site) == PIPELINE[2][7:-1]
    assert filt.columns == (("v", "bigint"), ("id", "bigint"), ("w", "bigint"), ("name", "string"))
    assert trace.plan_json(filt.id)[0]["class"].endswith("logical.Filter")
    assert any("v > 5" in a or ">(v, 5)" in a for a in filt.args)
    assert trace.variables == {"sales": with_v.id, "stores": create.id, "big": filt.id}
    assert [c.execution_count for c in trace.cells] == counts
    assert Trace.from_json(json.loads(trace.dumps())) == trace


def test_inspections_are_not_pipeline_and_inner_calls_are_not_recorded(shell):
    ip, tracer = shell
    run(ip, PIPELINE[0])
    n = len(tracer.events)
    run(ip, "sales.count()\nsales.head()\nsales.first()\nsales.describe()\nsales.take(2)\n_ = sales.toPandas()")
    assert len(tracer.events) == n
    assert [i.action for i in tracer.inspections] == ["count", "head", "first", "describe", "take", "toPandas"]
    assert all(i.event == tracer.events[1].id for i in tracer.inspections)
    assert text_at(tracer.trace(), tracer.inspections[1].site) == "sales.head()"
    # df.na.fill goes through DataFrame.fillna inside PySpark: one event, sited at the user's call
    run(ip, "filled = sales.na.fill(0)")
    assert [e.op for e in tracer.events[n:]] == ["fillna"]
    assert text_at(tracer.trace(), tracer.events[-1].site) == "sales.na.fill(0)"


def test_udf_sources_all_forms(shell):
    ip, tracer = shell
    run(ip, PIPELINE[0])
    run(ip, 'plus = F.udf(lambda x: x + 1, "int")\n'
            '@F.udf("int")\ndef twice(x):\n    return 2 * x\n'
            '@F.udf\ndef label(x):\n    return str(x)\n'
            'u = sales.withColumn("p", plus("v")).withColumn("t", twice("v")).select("v", "t", label("v").alias("l"))')
    udfs = {u.name: u for u in tracer.trace().events[-1].udfs}
    assert set(udfs) == {"<lambda>", "twice", "label"}
    assert udfs["<lambda>"].source == "lambda x: x + 1"
    assert udfs["twice"].source == '@F.udf("int")\ndef twice(x):\n    return 2 * x\n'
    assert udfs["label"].return_type == "string" and udfs["twice"].return_type == "int"
    assert all(u.kind == "python" and u.deterministic for u in udfs.values())
    run(ip, 'import pandas as pd\n@F.pandas_udf("double")\ndef half(s: pd.Series) -> pd.Series:\n    return s / 2\n'
            'h = sales.withColumn("h", half("v")).withColumn("r", F.udf(lambda x: x, "int").asNondeterministic()("v"))')
    udfs = {u.name: u for u in tracer.trace().events[-1].udfs}
    assert udfs["half"].kind == "pandas" and udfs["half"].return_type == "double"
    # the notebook's second lambda: a function of its own, under a name of its own
    assert udfs["<lambda>#2"].deterministic is False and udfs["<lambda>#2"].function_name == "<lambda>"


def test_udf_constants_are_recorded_as_spark_shipped_them(shell):
    ip, tracer = shell
    run(ip, PIPELINE[0])
    run(ip, 'LIMIT = 5\nCODES = {"a": 1}\nbig = F.udf(lambda x: 1 if x > LIMIT else CODES.get("a"), "int")\n'
            'column = big("v")')
    # Spark pickled the lambda with LIMIT = 5 on its first call: later changes do not reach it
    run(ip, 'LIMIT = 6\nflagged = sales.withColumn("b", column)')
    run(ip, 'LIMIT = 7\nkept = flagged.filter(F.col("b") == 1)')
    first, later = (e.udfs[0].source for e in tracer.trace().events[-2:])
    assert first == later == "CODES = {'a': 1}\nLIMIT = 5\nlambda x: 1 if x > LIMIT else CODES.get(\"a\")"


def test_dataframe_made_before_tracing_gets_an_unknown_event(spark, shell):
    ip, tracer = shell
    with tracer.suspended():
        ip.user_ns["early"] = spark.range(5)
    assert tracer.events == []
    run(ip, "late = early.filter('id > 2')\nlate.count()")
    unknown, filt = tracer.events
    assert (unknown.op, unknown.inputs, unknown.site) == ("unknown", (), None)
    assert filt.inputs == (unknown.id,) and filt.op == "filter"
    assert ip.user_ns["late"].count() == 2


def test_recording_failures_never_break_user_code(shell, monkeypatch):
    ip, tracer = shell
    run(ip, PIPELINE[0])

    def broken(*args, **kwargs):
        raise RuntimeError("recording broke")

    monkeypatch.setattr(tracer.recorder, "add_event", broken)
    run(ip, "kept = sales.filter('v > 7')\nn = kept.count()")
    assert ip.user_ns["n"] == 20
    assert any("recording broke" in w for w in tracer.warnings)


def test_load_is_idempotent_and_unload_restores(spark):
    from IPython.core.interactiveshell import InteractiveShell
    from pyspark.sql.classic.dataframe import DataFrame
    from pyspark.sql.readwriter import DataFrameReader
    from pyspark.sql.session import SparkSession

    originals = (DataFrame.__dict__["filter"], DataFrame.__dict__["where"], DataFrameReader.__dict__["parquet"],
                 SparkSession.__dict__["range"], "drop_duplicates" in DataFrame.__dict__)
    ip = InteractiveShell.instance()
    hooks = len(ip.events.callbacks["pre_run_cell"])
    first = load(ip)
    assert load(ip) is first
    assert len(ip.events.callbacks["pre_run_cell"]) == hooks + 1
    assert DataFrame.__dict__["filter"] is not originals[0]
    unload(ip)
    unload(ip)
    # an empty trace now says "not tracing", not "nothing ran": the panel offers to load it again
    assert trace_bundle()._repr_mimebundle_()[TRACE_MIME]["tracing"] is False
    assert (DataFrame.__dict__["filter"], DataFrame.__dict__["where"], DataFrameReader.__dict__["parquet"],
            SparkSession.__dict__["range"], "drop_duplicates" in DataFrame.__dict__) == originals
    assert len(ip.events.callbacks["pre_run_cell"]) == hooks
    assert "magicpush" not in ip.magics_manager.magics["line"]


def test_bundles_and_magic(shell):
    ip, tracer = shell
    run(ip, PIPELINE[0])
    bundle = trace_bundle()._repr_mimebundle_()
    trace = Trace.from_json(bundle[TRACE_MIME])
    assert [e.op for e in trace.events] == ["range", "withColumn", "createDataFrame"]
    assert "3 events" in bundle["text/plain"]
    assert bundle[TRACE_MIME]["tracing"] is True
    # user_expressions go through IPython's formatter: the custom mime type must survive it
    data, _ = ip.display_formatter.format(trace_bundle())
    assert TRACE_MIME in data
    pred = {"kind": "Cmp", "op": ">", "left": {"kind": "Col", "name": "v", "id": -1, "dtype": "bigint"},
            "right": {"kind": "Lit", "value": 7, "dtype": "int"}}
    udf = {"kind": "PyUdf", "name": "f", "args": [], "dtype": "boolean"}
    got = measure_bundle(json.dumps([{"source_event": 1, "predicate_ir": pred},
                                     {"source_event": 1, "predicate_ir": udf}, {"oops": 1}]))
    results = got._repr_mimebundle_()[MEASURE_MIME]
    counts = {k: results[0][k] for k in ("rows_before", "rows_after", "estimated")}
    assert counts == {"rows_before": 100, "rows_after": 20, "estimated": False}
    assert results[0]["scan_filters"]["scan"] is None  # an in-memory source has no file scan
    assert "Python UDF" in results[1]["error"] and "error" in results[2]
    assert len(tracer.events) == 3  # measuring is not traced
    shown = magicpush_result(ip, "")
    assert set(shown) == {"text/html", "text/plain"}
    assert "Traceback" not in shown["text/plain"]
    assert "MagicPush" in shown["text/plain"] or "reduction" in shown["text/plain"]


def test_apply_in_pandas_records_the_function_source(shell):
    """The body of applyInPandas is read from its source, recorded as for Python UDFs."""
    ip, tracer = shell
    run(ip, PIPELINE[0])
    run(ip, 'def keep_big(pdf):\n    pdf = pdf[pdf.v > 3]\n    return pdf\n'
            'g = sales.groupBy("v").applyInPandas(keep_big, "id long, v long")')
    event = tracer.trace().events[-1]
    assert event.op == "groupBy.applyInPandas"
    udfs = {u.name: u for u in event.udfs}
    assert udfs["keep_big"].kind == "pandas"
    assert udfs["keep_big"].source == 'def keep_big(pdf):\n    pdf = pdf[pdf.v > 3]\n    return pdf\n'


ROW_ITER = [
    'from pyspark.sql import functions as F\n'
    'df = spark.createDataFrame([(1, 2008, 3), (2, 2009, 0), (1, 2001, 5)], "id int, year int, price int")\n'
    'df_old = spark.createDataFrame([(1, 2006), (1, 2005), (2, 2004)], "id int, year int")',
    'old_rows = df_old.select("id", "year").collect()\ncopied = [r for r in df_old.collect()]',
    '@F.udf("int")\ndef flag(id):\n    for r in old_rows:\n        if r.id == id and r.year == 2006:\n'
    '            return 1\n    return 0\n'
    '@F.udf("int")\ndef copy_flag(id):\n    for r in copied:\n        if r.id == id:\n'
    '            return 1\n    return 0\n'
    'out = df.withColumn("flag", flag("id")).withColumn("c", copy_flag("id")).filter(F.col("flag") == 1)',
]


def test_udf_reading_a_collected_list_is_tied_to_the_collected_dataframe(shell):
    from magicpush_lab.pipeline import optimize_trace

    ip, tracer = shell
    for src in ROW_ITER:
        run(ip, src)
    trace = tracer.trace()
    select = next(e for e in trace.events if e.op == "select")
    udfs = {u.name: u for u in trace.events[-1].udfs}
    assert udfs["flag"].side_inputs == (("old_rows", select.id),)
    # a list made from the collected rows is another object: no tie, the UDF stays a black box
    assert udfs["copy_flag"].side_inputs == ()
    assert [i.action for i in trace.inspections if i.event == select.id] == ["collect"]
    assert Trace.from_json(json.loads(trace.dumps())) == trace

    # the predicate for the collected table lands right before its collect()
    result = optimize_trace(trace, [c.source for c in trace.cells])
    on_old = [s for s in result.suggestions if s.source_event == select.id]
    assert [s.predicate for s in on_old] == ['F.col("year") == 2006'], result.notes
    assert [c.rewritten.splitlines()[0] for c in on_old[0].cells] == \
        ['old_rows = df_old.select("id", "year").filter(F.col("year") == 2006).collect()']
    assert ip.user_ns["out"].count() == 2


def test_a_collected_list_read_outside_the_udf_is_not_filtered(shell):
    from magicpush_lab.pipeline import optimize_trace

    ip, tracer = shell
    for src in ROW_ITER[:2] + [ROW_ITER[2] + "\nn_old = len(old_rows)"]:
        run(ip, src)
    trace = tracer.trace()
    result = optimize_trace(trace, [c.source for c in trace.cells])
    select = next(e for e in trace.events if e.op == "select")
    assert not [s for s in result.suggestions if s.source_event == select.id]
    assert any("old_rows is also read outside the UDF" in n for n in result.notes), result.notes
