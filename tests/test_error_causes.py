"""A failed cell's error as one line that names its cause (errortext.py), credentials masked.

Each case is an error's text as PySpark 4.x gives it to the kernel (`str(exception)`, which is
what a kernel reports as `evalue`), with the line a user must see and what must not be in it.
"""

from __future__ import annotations

import pytest

from magicpush_lab.errortext import MAX_CHARS, error_line, redacted

WORKER = "/opt/conda/lib/python3.11/site-packages/pyspark/python/lib/pyspark.zip/pyspark"

PYARROW_ON_EXECUTORS = f"""An exception was thrown from the Python worker:
Traceback (most recent call last):
  File "{WORKER}/worker.py", line 2044, in main
    process()
  File "{WORKER}/worker.py", line 2036, in process
    serializer.dump_stream(out_iter, outfile)
  File "{WORKER}/sql/pandas/serializers.py", line 531, in dump_stream
    return ArrowStreamSerializer.dump_stream(self, init_stream_yield_batches(), stream)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "{WORKER}/sql/pandas/utils.py", line 61, in require_minimum_pyarrow_version
    import pyarrow
ModuleNotFoundError: No module named 'pyarrow'
"""

CHAINED_IN_A_UDF = f"""An exception was thrown from the Python worker:
Traceback (most recent call last):
  File "/home/ann/work/<ipython-input-4-1f2e3d>", line 5, in parse_amount
KeyError: 'amount'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "{WORKER}/worker.py", line 2044, in main
    process()
  File "/home/ann/work/<ipython-input-4-1f2e3d>", line 7, in parse_amount
ValueError: row 17 has no amount:
  {{'id': 17, 'note': 'refund'}}
"""

# Spark Connect's PythonException: the worker's traceback, then the server's JVM stack trace
CONNECT_PYTHON_WORKER = """[PYTHON_EXCEPTION] An exception was thrown from the Python worker. Please see the stack trace below.
Traceback (most recent call last):
  File "/tmp/ipykernel_5512/3920178440.py", line 4, in to_points
ZeroDivisionError: division by zero


JVM stacktrace:
org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 in stage 3.0 failed 4 times
\tat org.apache.spark.scheduler.DAGScheduler.failJobAndIndependentStages(DAGScheduler.scala:2856)
\tat org.apache.spark.scheduler.DAGScheduler.$anonfun$abortStage$2(DAGScheduler.scala:2792)
"""

STAGE_FAILURE = """An error occurred while calling o4242.count.
: org.apache.spark.SparkException: Job aborted due to stage failure: Task 1 in stage 12.0 failed 1 times, most recent failure: Lost task 1.0 in stage 12.0 (TID 31) (10.0.0.5 executor driver): org.apache.spark.SparkFileNotFoundException: File file:/data/orders/part-00001.parquet does not exist
It is possible the underlying files have been updated. You can explicitly invalidate the cache in Spark by running 'REFRESH TABLE tableName' command in SQL or by recreating the Dataset/DataFrame involved.
\tat org.apache.spark.sql.errors.QueryExecutionErrors$.fileNotExistError(QueryExecutionErrors.scala:781)
\tat org.apache.spark.sql.execution.datasources.FileScanRDD$$anon$1.nextIterator(FileScanRDD.scala:264)

Driver stacktrace:
\tat org.apache.spark.scheduler.DAGScheduler.failJobAndIndependentStages(DAGScheduler.scala:2856)
\tat org.apache.spark.sql.Dataset.count(Dataset.scala:1499)
\tat java.base/java.lang.Thread.run(Thread.java:840)
Caused by: org.apache.spark.SparkFileNotFoundException: File file:/data/orders/part-00001.parquet does not exist
\tat org.apache.spark.sql.errors.QueryExecutionErrors$.fileNotExistError(QueryExecutionErrors.scala:781)
\t... 1 more
Caused by: java.io.FileNotFoundException: File file:/data/orders/part-00001.parquet does not exist
\tat org.apache.hadoop.fs.RawLocalFileSystem.deprecatedGetFileStatus(RawLocalFileSystem.java:917)
\t... 27 more
"""

NO_CAUSED_BY = """An error occurred while calling z:java.lang.Class.forName.
: java.lang.ClassNotFoundException: com.example.udfs.Loyalty
\tat java.base/jdk.internal.loader.BuiltinClassLoader.loadClass(BuiltinClassLoader.java:641)
\tat java.base/java.lang.Class.forName(Class.java:375)
\tat py4j.Gateway.invoke(Gateway.java:282)
\tat java.base/java.lang.Thread.run(Thread.java:840)
"""

# an RDD's Python function failing: the Python traceback comes inside the Java text
RDD_PYTHON_FAILURE = f"""An error occurred while calling z:org.apache.spark.api.python.PythonRDD.collectAndServe.
: org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 in stage 0.0 failed 1 times, most recent failure: Lost task 0.0 in stage 0.0 (TID 0) (10.0.0.5 executor driver): org.apache.spark.api.python.PythonException: Traceback (most recent call last):
  File "{WORKER}/worker.py", line 2044, in main
    process()
  File "/tmp/ipykernel_811/2218.py", line 3, in <lambda>
ImportError: cannot import name 'Holidays' from 'calendars' (/home/ann/calendars.py)

\tat org.apache.spark.api.python.BasePythonRunner$ReaderIterator.handlePythonException(PythonRunner.scala:621)

Driver stacktrace:
\tat org.apache.spark.scheduler.DAGScheduler.failJobAndIndependentStages(DAGScheduler.scala:2856)
Caused by: org.apache.spark.api.python.PythonException: Traceback (most recent call last):
  File "{WORKER}/worker.py", line 2044, in main
    process()
  File "/tmp/ipykernel_811/2218.py", line 3, in <lambda>
ImportError: cannot import name 'Holidays' from 'calendars' (/home/ann/calendars.py)

\tat org.apache.spark.api.python.BasePythonRunner$ReaderIterator.handlePythonException(PythonRunner.scala:621)
\t... 1 more
"""

UNAUTHENTICATED = """<_InactiveRpcError of RPC that terminated with:
\tstatus = StatusCode.UNAUTHENTICATED
\tdetails = "Invalid credentials for sc://spark.example.com:443/;token=dapi0123456789abcdef"
\tdebug_error_string = "UNKNOWN:Error received from peer ipv4:10.1.2.3:443 {grpc_message:"Invalid credentials", grpc_status:16, created_time:"2025-05-01T10:00:00+00:00"}"
>"""

UNAVAILABLE = """<_MultiThreadedRendezvous of RPC that terminated with:
\tstatus = StatusCode.UNAVAILABLE
\tdetails = "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:15002: Failed to connect to remote host: Connection refused"
\tdebug_error_string = "UNKNOWN:Error received from peer  {created_time:"2025-05-01T10:00:00+00:00", grpc_status:14}"
>"""

ANALYSIS = "[PATH_NOT_FOUND] Path does not exist: file:/data/orders_2024. SQLSTATE: 42K03"

# (ename, evalue, what the line must contain, what it must not)
CASES = [
    pytest.param("PythonException", PYARROW_ON_EXECUTORS,
                 ["An exception was thrown from the Python worker:", "ModuleNotFoundError: No module named 'pyarrow'",
                  "set PYSPARK_PYTHON"],
                 ["Traceback", "worker.py"], id="a module missing on the executors"),
    pytest.param("PythonException", CHAINED_IN_A_UDF, ["ValueError: row 17 has no amount:"], ["KeyError", "refund"],
                 id="a chained exception: the one raised last"),
    pytest.param("PythonException", CONNECT_PYTHON_WORKER, ["[PYTHON_EXCEPTION]", "ZeroDivisionError: division by zero"],
                 ["SparkException", "JVM stacktrace"], id="Connect's worker exception before its JVM trace"),
    pytest.param("Py4JJavaError", STAGE_FAILURE,
                 ["An error occurred while calling o4242.count.",
                  "Caused by: java.io.FileNotFoundException: File file:/data/orders/part-00001.parquet does not exist"],
                 ["\tat ", "Driver stacktrace"], id="a stage failure: the last Caused by"),
    pytest.param("Py4JJavaError", NO_CAUSED_BY,
                 ["calling z:java.lang.Class.forName.", "java.lang.ClassNotFoundException: com.example.udfs.Loyalty"],
                 ["BuiltinClassLoader"], id="a Java exception without a Caused by"),
    pytest.param("Py4JJavaError", RDD_PYTHON_FAILURE,
                 ["collectAndServe.", "ImportError: cannot import name 'Holidays' from 'calendars'"],
                 ["Caused by", "Traceback"], id="an RDD function's Python exception inside the Java text"),
    pytest.param("SparkConnectGrpcException", UNAUTHENTICATED,
                 ["_InactiveRpcError of RPC that terminated with:", "status = StatusCode.UNAUTHENTICATED",
                  'details = "Invalid credentials for sc://spark.example.com:443/;token=***"'],
                 ["dapi0123456789abcdef", "debug_error_string"], id="gRPC status and details, the token masked"),
    pytest.param("SparkConnectGrpcException", UNAVAILABLE,
                 ["status = StatusCode.UNAVAILABLE", "Connection refused"], ["grpc_status"],
                 id="a Connect server that is not there"),
    pytest.param("AnalysisException", ANALYSIS, [ANALYSIS], [], id="a one-line error stays as it is"),
    pytest.param("ValueError", "value too small: 1\n  (the second line is context)", ["value too small: 1"],
                 ["context"], id="a plain error: its first line"),
    pytest.param("ValueError", "\x1b[0;31mbad input\x1b[0m", ["bad input"], ["\x1b"], id="colour codes removed"),
    pytest.param("RuntimeError", "cannot connect to sc://host:15002/;user_id=ann;token=s3cr3t-t0ken;use_ssl=true",
                 ["user_id=ann;token=***;use_ssl=true"], ["s3cr3t"], id="a token in an sc:// URL"),
]


@pytest.mark.parametrize("ename, evalue, shown, hidden", CASES)
def test_the_line_names_the_cause_and_hides_credentials(ename, evalue, shown, hidden):
    line = error_line(ename, evalue)
    assert "\n" not in line and len(line) <= MAX_CHARS
    for text in shown:
        assert text in line, line
    for text in hidden:
        assert text not in line, line


SECRETS = [
    ("headers: {'Authorization': 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbm4ifQ.c2ln'}", "eyJ",
     "{'Authorization': 'Bearer ***'}"),
    ("metadata [('x-api-key', 'k-1234567890'), ('user-agent', 'grpc-python')]", "k-1234567890",
     "('x-api-key', '***'), ('user-agent', 'grpc-python')"),
    ("authorization: Basic YW5uOnBhc3N3b3Jk rejected", "YW5u", "authorization: Basic *** rejected"),
    ("x-databricks-token=dapiabc; password=\"hunter2\"", "hunter2", 'x-databricks-token=***; password="***"'),
    # prose about a token is not a token
    ("expected a token, got ')'", None, "expected a token, got ')'"),
]


@pytest.mark.parametrize("text, secret, masked", SECRETS)
def test_credentials_are_masked_and_their_names_kept(text, secret, masked):
    got = redacted(text)
    assert masked in got, got
    assert secret is None or secret not in got


def test_a_long_cause_keeps_the_line_bounded():
    evalue = PYARROW_ON_EXECUTORS.replace("No module named 'pyarrow'", "x" * 2000)
    line = error_line("PythonException", evalue)
    assert len(line) == MAX_CHARS and line.startswith("An exception was thrown from the Python worker: ModuleNotFound")


def test_real_spark_errors_name_their_cause(spark, tmp_path):
    """The texts of errors this PySpark raises, as a kernel would report them. (A Python UDF's
    failure is replayed end to end by tests/test_cli.py, in a kernel it starts anyway.)"""
    errors = []
    for fail in (lambda: spark.read.parquet(str(tmp_path / "missing")),
                 lambda: spark.sparkContext.textFile(str(tmp_path / "missing.txt")).count()):
        with pytest.raises(Exception) as info:
            fail()
        errors.append(error_line(type(info.value).__name__, str(info.value)))
    analysis, java = errors
    assert analysis.startswith("[PATH_NOT_FOUND] Path does not exist:"), analysis
    assert java.startswith("An error occurred while calling") and "Caused by: java.io.IOException: Input path " \
                                                                    "does not exist" in java, java
