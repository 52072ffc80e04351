"""Scalar pandas UDFs in real Spark pipelines: what must push, what must not, and equal outputs.

A pandas UDF whose body reads as element-wise (symbolic/pandas_udf.py) is a
function of one row, and filters on its output push like those on a Python
UDF's. One that reads its whole batch (a mean, a shift), or whose integer
arithmetic can overflow (int32 wraps, float64 is exact only to 2**53), has a
value per row that depends on the batch, which a pushed filter changes: it
blocks every pushdown through the operator that computes it, even of a filter
on another column. Every pushing case runs the original and the rewritten
pipeline on Spark and compares the output bags.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np
import pandas as pd
import pytest
from pyspark.sql import functions as F
from pyspark.sql.functions import pandas_udf
from pyspark.sql.types import BooleanType, DoubleType, LongType

from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET
from tests.cells import run_cell

from .harness import bag, check_pushdown, pandas_udf_record, run_engine
from .test_row_to_row_pipelines import SALES_SCHEMA, sales_rows

# every case runs on a classic and on a Spark Connect session (tests/engine/conftest.py)
SESSIONS = ("classic", "connect")
CONNECT_GAPS = {
    # the test's fault, not the engine's: a notebook on Connect decorates with its own session's
    # functions, and the tracer test below reads a decorated UDF on both sessions
    "a decorated pandas UDF is read from its source":
        "this module decorates at import, which makes a classic UDF object that Connect columns do not take",
}


# ----------------------------------------------------------------------------- UDF bodies

def doubled_clipped(s: pd.Series) -> pd.Series:
    return s.clip(-1000, 1000) * 2 + 1


def doubled(s: pd.Series) -> pd.Series:
    return s * 2 + 1


def positive_or_zero(s: pd.Series) -> pd.Series:
    return s.where(s > 0, 0)


def filled(s: pd.Series) -> pd.Series:
    return s.fillna(0)


def capped(s: pd.Series) -> pd.Series:
    return pd.Series(np.where(s > 700, 700, s))


def store_a(s: pd.Series) -> pd.Series:
    return s.str.startswith("a")


def v_in_store_a(v: pd.Series, store: pd.Series) -> pd.Series:
    return v.where(store.str.startswith("a", na=False), 0)


def twice_amount(s: pd.Series) -> pd.Series:
    return s * 2


def above_100(s: pd.Series) -> pd.Series:
    return s > 100


def squared(s: pd.Series) -> pd.Series:
    return s ** 2


def cubed(s: pd.Series) -> pd.Series:
    return s ** 3


def centred(s: pd.Series) -> pd.Series:
    return s - s.mean()


def previous(s: pd.Series) -> pd.Series:
    return s.shift(1).fillna(0)


def above_mean(s: pd.Series) -> pd.Series:
    return s > s.mean()


def halved(s: pd.Series) -> pd.Series:
    return s / 2


@pandas_udf(LongType())  # a type object: a type string needs a session at import
def decorated_cap(s: pd.Series) -> pd.Series:
    return s.clip(upper=1000)


class SessionPandasUdf:
    """A scalar pandas UDF made for the session in use when it is applied: a UDF object made at
    import is a classic one, which a Connect session's columns do not take."""

    def __init__(self, fn: Callable, return_type) -> None:
        self.fn, self.return_type = fn, return_type

    def __call__(self, *columns):
        from pyspark.sql import functions as F

        return F.pandas_udf(self.fn, self.return_type)(*columns)


def pandas_udf(fn: Callable, return_type) -> SessionPandasUdf:  # noqa: F811 - the session's own, when applied
    return SessionPandasUdf(fn, return_type)


UDFS = {
    "doubled_clipped": (pandas_udf(doubled_clipped, LongType()), pandas_udf_record("doubled_clipped", doubled_clipped)),
    "doubled": (pandas_udf(doubled, LongType()), pandas_udf_record("doubled", doubled)),
    "positive_or_zero": (pandas_udf(positive_or_zero, LongType()), pandas_udf_record("positive_or_zero", positive_or_zero)),
    "filled": (pandas_udf(filled, LongType()), pandas_udf_record("filled", filled)),
    "capped": (pandas_udf(capped, LongType()), pandas_udf_record("capped", capped)),
    "store_a": (pandas_udf(store_a, BooleanType()), pandas_udf_record("store_a", store_a, "boolean")),
    "v_in_store_a": (pandas_udf(v_in_store_a, LongType()), pandas_udf_record("v_in_store_a", v_in_store_a)),
    "twice_amount": (pandas_udf(twice_amount, DoubleType()), pandas_udf_record("twice_amount", twice_amount, "double")),
    "above_100": (pandas_udf(above_100, BooleanType()), pandas_udf_record("above_100", above_100, "boolean")),
    "squared": (pandas_udf(squared, DoubleType()), pandas_udf_record("squared", squared, "double")),
    "cubed": (pandas_udf(cubed, DoubleType()), pandas_udf_record("cubed", cubed, "double")),
    "centred": (pandas_udf(centred, DoubleType()), pandas_udf_record("centred", centred, "double")),
    "previous": (pandas_udf(previous, DoubleType()), pandas_udf_record("previous", previous, "double")),
    "above_mean": (pandas_udf(above_mean, BooleanType()), pandas_udf_record("above_mean", above_mean, "boolean")),
    "halved": (pandas_udf(halved, LongType()), pandas_udf_record("halved", halved)),
    "decorated_cap": (decorated_cap, pandas_udf_record("decorated_cap", decorated_cap)),
    # recorded in a session that hands integer columns over as nullable Int series (pd.NA)
    "positive_or_zero_nullable_int": (
        pandas_udf(positive_or_zero, LongType()),
        replace(pandas_udf_record("positive_or_zero", positive_or_zero), int_extension_dtype=True)),
}


def udf(name: str):
    return UDFS[name][0]


# ----------------------------------------------------------------------------- cases

@dataclass(frozen=True)
class Case:
    title: str
    body: Callable  # (list of source DataFrames) -> DataFrame before the late filter
    late: Callable  # () -> Column
    expect: str | None  # EQUIVALENT, SUPERSET, or None when nothing may be pushed
    udfs: tuple[str, ...]
    predicates: tuple[str, ...] | None = None
    nan_rows: bool = False  # the source also has NaN amounts


CASES = [
    Case("clipped arithmetic: the filter on its output pushes as a bound on the column",
         lambda s: s[0].withColumn("w", udf("doubled_clipped")(F.col("v"))),
         lambda: F.col("w") > 1001, EQUIVALENT, ("doubled_clipped",)),
    Case("the same arithmetic without the clip can wrap in int32: nothing is pushed",
         lambda s: s[0].withColumn("w", udf("doubled")(F.col("v"))),
         lambda: F.col("w") > 1001, None, ("doubled",)),
    Case("where(s > 0, 0): NULL and negatives become 0, the filter pushes as v > 500",
         lambda s: s[0].withColumn("w", udf("positive_or_zero")(F.col("v"))),
         lambda: F.col("w") > 500, EQUIVALENT, ("positive_or_zero",), ("v > 500",)),
    Case("where(s > 0, 0), filter the zeros: the NULL rows are kept too",
         lambda s: s[0].withColumn("w", udf("positive_or_zero")(F.col("v"))),
         lambda: F.col("w") == 0, EQUIVALENT, ("positive_or_zero",)),
    Case("fillna(0), filter the fill value passes: NULL rows stay in the pushed predicate",
         lambda s: s[0].withColumn("w", udf("filled")(F.col("v"))),
         lambda: F.col("w") < 5, EQUIVALENT, ("filled",)),
    Case("np.where cap in a series, filter below the cap",
         lambda s: s[0].withColumn("w", udf("capped")(F.col("v"))),
         lambda: F.col("w") < 100, EQUIVALENT, ("capped",)),
    Case("str.startswith as a boolean column, filter on it",
         lambda s: s[0].withColumn("flag", udf("store_a")(F.col("store"))),
         lambda: F.col("flag"), EQUIVALENT, ("store_a",)),
    Case("two series arguments: both columns end up in the pushed predicate",
         lambda s: s[0].withColumn("w", udf("v_in_store_a")(F.col("v"), F.col("store"))),
         lambda: F.col("w") > 900, EQUIVALENT, ("v_in_store_a",)),
    # pandas receives NaN and NULL alike, and its NaN result comes back as NULL: a NaN row acts
    # as the NULL row, which the model covers (symbolic/nan.py)
    Case("a double argument read only by a pandas UDF: NaN rows act as NULL rows (equivalent)",
         lambda s: s[0].withColumn("w", udf("twice_amount")(F.col("amount"))),
         lambda: F.col("w") > 4.0, EQUIVALENT, ("twice_amount",), ("amount > 2.0 AND NOT isnan(amount)",),
         nan_rows=True),
    # a conjunct Spark evaluates itself goes down as it is, on NaN rows too
    Case("the filter also reads the double directly: that conjunct goes down as it is (equivalent)",
         lambda s: s[0].withColumn("w", udf("twice_amount")(F.col("amount"))),
         lambda: (F.col("w") > 4.0) & (F.col("amount") > 1.0), EQUIVALENT, ("twice_amount",),
         ("amount > 2.0 AND NOT isnan(amount)",), nan_rows=True),  # amount > 1.0 is implied
    # a Python UDF sees NaN, not None: NaN rows stay, and only a superset can be proved
    Case("the double also reaches a Python UDF: NaN rows stay (superset)",
         lambda s: s[0].withColumn("w", udf("twice_amount")(F.col("amount")))
                       .withColumn("p", F.udf(lambda a: a, "double")(F.col("amount"))),
         lambda: (F.col("w") > 4.0) & (F.col("p") > 1.0), SUPERSET, ("twice_amount",), nan_rows=True),
    Case("a pandas UDF in the late filter itself, read through a projection",
         lambda s: s[0].withColumn("half", F.col("v") - 1),
         lambda: udf("above_100")(F.col("half")), EQUIVALENT, ("above_100",)),
    Case("a decorated pandas UDF is read from its source",
         lambda s: s[0].withColumn("w", udf("decorated_cap")(F.col("v"))),
         lambda: F.col("w") >= 300, EQUIVALENT, ("decorated_cap",)),
    Case("the square of a double is one row's value: a filter on another column moves past it",
         lambda s: s[0].withColumn("sq", udf("squared")(F.col("amount"))),
         lambda: F.col("store") == "a", EQUIVALENT, ("squared",), ("store = 'a'",), nan_rows=True),
    Case("a filter on the square itself would be written as amount * amount in doubles: refused",
         lambda s: s[0].withColumn("sq", udf("squared")(F.col("amount"))),
         lambda: F.col("sq") > 16.0, None, ("squared",), nan_rows=True),
    # must not push: values that depend on the batch
    Case("a cube goes through the C library's pow, not modelled: a filter on another column must not move",
         lambda s: s[0].withColumn("cube", udf("cubed")(F.col("amount"))),
         lambda: F.col("store") == "a", None, ("cubed",)),
    Case("s - s.mean() reads the batch: a filter on its output is not pushed",
         lambda s: s[0].withColumn("w", udf("centred")(F.col("v"))),
         lambda: F.col("w") > 0, None, ("centred",)),
    Case("a batch-dependent UDF blocks even a filter on another column (its values would change)",
         lambda s: s[0].withColumn("w", udf("previous")(F.col("v"))),
         lambda: F.col("store") == "a", None, ("previous",)),
    Case("a batch-dependent pandas UDF in the late filter: nothing is pushed",
         lambda s: s[0].withColumn("half", F.col("v") - 1),
         lambda: udf("above_mean")(F.col("half")), None, ("above_mean",)),
    Case("integer columns as nullable Int series (pd.NA compares as NA, not False): not read, nothing pushed",
         lambda s: s[0].withColumn("w", udf("positive_or_zero_nullable_int")(F.col("v"))),
         lambda: F.col("w") > 500, None, ("positive_or_zero_nullable_int",)),
    Case("a float result for a long column (Arrow's safe check raises): refused",
         lambda s: s[0].withColumn("w", udf("halved")(F.col("v"))),
         lambda: F.col("w") > 100, None, ("halved",)),
]


def _source(spark, case: Case):
    rows = sales_rows()
    if case.nan_rows:
        rows = rows + [(7, "a", float("nan")), (8, "b", float("nan"))]
    return [spark.createDataFrame(rows, SALES_SCHEMA)]


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_pandas_udf_pushdown(spark, case: Case):
    sources = _source(spark, case)
    original = case.body(sources).filter(case.late())
    walk = run_engine(sources, original, [UDFS[u][1] for u in case.udfs])
    check_pushdown(walk, sources, case.body, case.late, case.expect, case.predicates)
    if case.expect is not None:
        assert len(bag(original)) > 0, "the case's data should keep some rows, or the comparison proves little"


# ----------------------------------------------------------------------------- from the notebook tracer

ELEMENT_WISE = '@F.pandas_udf("long")\ndef capped(s: pd.Series) -> pd.Series:\n    return s.where(s < 700, 700)\n'
TRACED = [
    # (cell defining the UDF, session hands ints over as nullable Int series, pushdown proved)
    (ELEMENT_WISE, False, True),
    ('@F.pandas_udf("long")\ndef capped(s: pd.Series) -> pd.Series:\n    return s.where(s < s.max(), 0)\n', False,
     False),
    (ELEMENT_WISE, True, False),
    ('CAP = 700\n@F.pandas_udf("long")\ndef capped(s: pd.Series) -> pd.Series:\n    return s.where(s < CAP, CAP)\n',
     False, True),
]
INT_EXTENSION = "spark.sql.execution.pythonUDF.pandas.preferIntExtensionDtype"


@pytest.mark.parametrize("cell,int_extension,pushes", TRACED,
                         ids=["element-wise body pushes", "body reading the batch does not",
                              "nullable Int series setting: not read", "a notebook constant is read as shipped"])
def test_tracer_records_pandas_udf_source_and_the_engine_reads_it(spark, cell: str, int_extension: bool,
                                                                   pushes: bool):
    from IPython.core.interactiveshell import InteractiveShell

    from magicpush_lab.kernel.extension import load, unload
    from magicpush_lab.pipeline import optimize_trace

    ip = InteractiveShell.instance()
    tracer = load(ip)
    ip.user_ns["spark"] = spark
    spark.conf.set(INT_EXTENSION, str(int_extension).lower())
    try:
        for source in ('import pandas as pd\nfrom pyspark.sql import functions as F\n'
                       'sales = spark.createDataFrame([(i % 1000, "a") for i in range(3000)], "v int, store string")',
                       cell,
                       'out = sales.withColumn("w", capped("v")).filter(F.col("w") < 100)'):
            run_cell(ip, source)
        trace = tracer.trace()
    finally:
        unload(ip)
        spark.conf.unset(INT_EXTENSION)
    recorded = [u for e in trace.events for u in e.udfs if u.name == "capped"]
    assert recorded and recorded[-1].kind == "pandas" and "def capped" in recorded[-1].source
    assert recorded[-1].int_extension_dtype == int_extension
    result = optimize_trace(trace)
    assert bool(result.suggestions) == pushes, result.notes


def test_the_dataframes_own_session_decides_how_a_pandas_udf_sees_integers(spark):
    """Two sessions in one process: the one the DataFrame runs on, not the active one, says
    whether its pandas UDF gets nullable Int series (which the engine does not read)."""
    from IPython.core.interactiveshell import InteractiveShell

    from magicpush_lab.kernel.extension import load, unload

    other = spark.newSession()
    other.conf.set(INT_EXTENSION, "true")
    ip = InteractiveShell.instance()
    tracer = load(ip)
    ip.user_ns.update(other=other, spark=spark)
    try:
        for source in ('import pandas as pd\nfrom pyspark.sql import functions as F\n'
                       'sales = other.createDataFrame([(i % 1000, "a") for i in range(300)], "v int, store string")',
                       TRACED[2][0],
                       'out = sales.withColumn("w", capped("v")).filter(F.col("w") < 100)',
                       'spark.createDataFrame([(1,)], "x int").count()'):  # the first session is active again
            run_cell(ip, source)
        trace = tracer.trace()
    finally:
        unload(ip)
    assert spark.conf.get(INT_EXTENSION, "false") == "false"
    recorded = [u for e in trace.events for u in e.udfs if u.name == "capped"]
    assert recorded and all(u.int_extension_dtype for u in recorded)
