"""A notebook whose session is Spark Connect, end to end in a traced IPython shell: the README's
UDF example is traced client side, optimized, counted on the Connect session (DataFrame API
only), timed original against rewritten, and a server that went away is a clear message with
nothing applied."""

from __future__ import annotations

import pytest

from magicpush_lab.kernel.bundles import runtime_result
from magicpush_lab.kernel.extension import load, magicpush_result, unload
from magicpush_lab.pipeline import optimize_trace
from tests.cells import run_cells
from tests.connect_support import (connect_mode, connect_server, connect_session,  # noqa: F401 - fixtures
                                   connect_spark, start_server)

pytestmark = pytest.mark.spark

CELLS = [
    "from pyspark.sql import functions as F\nfrom pyspark.sql.types import IntegerType",
    "orders = spark.createDataFrame([(i % 1000, i) for i in range(2000)], 'amount int, id int')",
    "@F.udf(IntegerType())\ndef loyalty_points(amount):\n    if amount is None:\n        return None\n"
    "    if amount > 500:\n        return amount + 50\n    return amount // 10\n\n"
    "scored = orders.withColumn('points', loyalty_points(F.col('amount')))",
    "big_earners = scored.filter(F.col('points') > 1000)",
]


@pytest.fixture()
def notebook(connect_spark):  # noqa: F811 - the fixture
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    tracer = load(ip)
    ip.user_ns["spark"] = connect_spark
    with connect_mode():
        run_cells(ip, CELLS)
        yield ip, tracer
    unload(ip)


def test_the_connect_pipeline_is_traced_with_its_udf_source(notebook):
    _, tracer = notebook
    trace = tracer.trace()
    assert [e.op for e in trace.events] == ["createDataFrame", "withColumn", "filter"]
    assert trace.variables.keys() >= {"orders", "scored", "big_earners"}
    [udf] = {u.name: u for e in trace.events for u in e.udfs}.values()
    assert udf.name == "loyalty_points" and "return amount + 50" in udf.source
    assert not tracer.warnings, tracer.warnings


def test_the_suggestion_is_proved_and_rewrites_the_cells(notebook):
    _, tracer = notebook
    result = optimize_trace(tracer.trace(), CELLS, time_budget=20)
    [s] = result.suggestions
    assert s.kind == "equivalent" and s.predicate == 'F.col("amount") > 950'
    rewritten = "\n".join(c.rewritten for c in s.cells)
    assert '.filter(F.col("amount") > 950)' in rewritten


def test_magicpush_counts_rows_on_the_connect_session(notebook):
    ip, _ = notebook
    with connect_mode():
        text = magicpush_result(ip, "")["text/plain"]
    assert 'F.col("amount") > 950' in text, text
    assert "2,000 -> 98" in text, text  # amounts 951..999, twice each


def test_the_suggestion_is_timed_and_its_output_compared_on_the_connect_session(notebook):
    from magicpush_lab.assist import optimize_and_measure
    from magicpush_lab.budget import Budget

    _, tracer = notebook
    with connect_mode():
        result = optimize_and_measure(tracer.trace(), CELLS, Budget(20), None)
        [suggestion] = result.suggestions
        answer = runtime_result(tracer, {**suggestion.to_json(), "runs": 1, "time_limit": 120})
    assert answer.get("outputs_equal") is True, answer
    assert len(answer["original_seconds"]) == 1 and len(answer["rewritten_seconds"]) == 1


def test_a_server_gone_before_counting_is_a_message_and_nothing_is_counted(connect_server):  # noqa: F811
    """A second server, stopped after the suggestion was proved and before the rows are counted:
    the suggestion stays unmeasured and measure_errors say the server cannot be reached. The
    notebook's other server is untouched."""
    from IPython.core.interactiveshell import InteractiveShell

    from magicpush_lab.assist import apply_measurements, measure_requests, optimize_and_measure
    from magicpush_lab.budget import Budget
    from magicpush_lab.kernel.bundles import kernel_cells, measure_in_kernel

    server = start_server()
    ip = InteractiveShell.instance()
    tracer = load(ip)
    session = None
    try:
        session = ip.user_ns["spark"] = connect_session(server.url)
        with connect_mode():
            run_cells(ip, CELLS)
            trace = tracer.trace()
            cells, ids = kernel_cells(trace)
            result = optimize_and_measure(trace, cells, Budget(10), None, cell_ids=ids)
            assert result.suggestions, result.notes
            server.stop()
            measured = apply_measurements(result.suggestions, measure_in_kernel(
                tracer, measure_requests(result.suggestions), time_limit=20))
    finally:
        unload(ip)
        server.stop()
        if session is not None:  # closed without a request: the client would retry the dead server at exit
            session.client.close()
    assert all(s.rows_before is None for s in measured.suggestions), (measured, server.process.poll())
    assert any("Spark Connect server" in e for e in measured.errors), measured.errors
