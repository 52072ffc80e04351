"""Counting on a Spark Connect session when something goes wrong on the server's side: a
function the server does not have, and a server that goes away while a count runs. Each is a
clear message for that request, with no rows reported (so nothing is applied on their strength),
and the kernel is free again afterwards."""

from __future__ import annotations

import threading
import time

import pytest

from magicpush_lab.ir import expr as X
from magicpush_lab.ir.serialize import expr_to_json
from magicpush_lab.kernel.bundles import measure_in_kernel
from magicpush_lab.kernel.extension import load, unload
from magicpush_lab.measure import watched_call
from tests.cells import run_cells
from tests.connect_support import connect_mode, connect_server, connect_session, connect_spark, start_server  # noqa: F401

pytestmark = pytest.mark.spark


def _traced(session, cells: list[str]):
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    tracer = load(ip)
    ip.user_ns["spark"] = session
    run_cells(ip, cells)
    return ip, tracer


def _request(source_event: int, predicate: X.Expr, time_limit: float | None = None) -> dict:
    request = {"source_event": source_event, "predicate_ir": expr_to_json(predicate)}
    if time_limit is not None:
        request["time_limit"] = time_limit
    return request


V_OVER_5 = X.Cmp(">", X.Col("v", 1, "int"), X.Lit(5, "int"))


def test_a_function_the_server_lacks_is_named_and_nothing_is_counted(connect_spark, monkeypatch):  # noqa: F811
    from pyspark.sql import functions as F

    import magicpush_lab.measure as measure

    with connect_mode():
        ip, tracer = _traced(connect_spark, ["src = spark.createDataFrame([(i,) for i in range(20)], 'v int')"])
        try:
            # the predicate as an older server would meet it: a function it does not know
            monkeypatch.setattr(measure, "to_column",
                                lambda e: F.call_function("magicpush_function_the_server_lacks", F.col("v")) > 5)
            [result] = measure_in_kernel(tracer, [_request(0, V_OVER_5)])
            assert "rows_before" not in result and "rows_after" not in result
            assert "magicpush_function_the_server_lacks" in result["error"]
            assert result["error"].startswith("the Spark session has no function"), result["error"]
            monkeypatch.undo()
            [counted] = measure_in_kernel(tracer, [_request(0, V_OVER_5)])
            assert (counted["rows_before"], counted["rows_after"]) == (20, 14), "the session is still usable"
        finally:
            unload(ip)


def _wait_for_the_count(counting: threading.Thread, seconds: float = 300.0) -> None:
    """Until the count's jobs run (run_limited's thread, named for its job group, is there) and a
    second more: a loaded machine may spend many seconds reading the plan before counting."""
    deadline = time.monotonic() + seconds
    while not any(t.name.startswith("magicpush-measure-") for t in threading.enumerate()):
        assert counting.is_alive() and time.monotonic() < deadline, "the count never started"
        time.sleep(0.2)
    time.sleep(1.0)


# about half a minute (a server of its own, stopped mid-count): slow tier. In CI,
# tests/test_connect_notebook.py's server gone before counting gives the same message path
@pytest.mark.slow
def test_a_server_gone_in_the_middle_of_a_count_is_a_clear_message():
    server = start_server()
    session = None
    try:
        with connect_mode():
            session = connect_session(server.url)
            ip, tracer = _traced(session, ["src = spark.range(0, 10 ** 12).withColumnRenamed('id', 'v')"])
            try:
                predicate = X.Cmp(">", X.Col("v", 1, "long"), X.Lit(5, "long"))
                out: list = []
                counting = threading.Thread(
                    target=lambda: out.extend(measure_in_kernel(tracer, [_request(0, predicate, time_limit=10)])))
                counting.start()
                _wait_for_the_count(counting)
                server.process.kill()
                counting.join(600)
                assert not counting.is_alive(), "the count must give up on a server that is gone"
                [result] = out
                assert "rows_before" not in result
                assert "Spark Connect server cannot be reached" in result["error"], result
                # a call outside the counts (reading the plan's scans) gives up too, not after
                # the client's minutes of retries
                df = tracer.frames()[0]
                with pytest.raises(ConnectionError, match="cannot be reached"):
                    watched_call(df, lambda: df._explain_string(extended=False))
            finally:
                unload(ip)
    finally:
        server.stop()
        if session is not None:  # closed: the client would retry the dead server at exit
            session.client.close()
