"""pandas after toPandas(), drawn at random: whatever the data and the pandas code, a suggestion
leaves the final frame as it was (rows as a bag, columns, dtypes).

Each example draws rows (integers with NULLs and values near the integer limits, doubles with
NaN, infinities and -0.0, strings with NULLs), a column the pandas code computes and a mask over
the columns, runs the notebook in a traced shell, optimizes it and runs every suggestion's
rewrite. `MAGICPUSH_PANDAS_EXAMPLES` sets how many examples (CI's run is short and always the
same; docs/fuzzing.md has a long one), `MAGICPUSH_PANDAS_LOG` a file to tally them in.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from magicpush_lab.pipeline import optimize_trace
from tests.cells import traced
from tests.notebook_sinks import rewritten
from tests.test_pandas_tail import _final_frame

pytestmark = [pytest.mark.spark, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

EXAMPLES = int(os.environ.get("MAGICPUSH_PANDAS_EXAMPLES", "6"))
LOG = os.environ.get("MAGICPUSH_PANDAS_LOG")

INTS = st.one_of(st.none(), st.integers(-50, 50), st.sampled_from([2 ** 31 - 1, -2 ** 31, 2 ** 40, 2 ** 53 + 1]))
SMALL = st.one_of(st.none(), st.integers(-20, 20), st.sampled_from([2 ** 31 - 1, -2 ** 31]))
DOUBLES = st.one_of(st.none(), st.floats(-100, 100, allow_nan=False, width=32).map(float),
                    st.sampled_from([float("nan"), float("inf"), -float("inf"), -0.0]))
TEXTS = st.one_of(st.none(), st.sampled_from(["a", "b", "ab", ""]))
ROW = st.tuples(INTS, SMALL, DOUBLES, TEXTS)

COMPUTED = st.sampled_from([
    None,
    'pdf["s"] = pdf["k"] * {a} + {b}',
    'pdf["s"] = pdf["n"] - pdf["k"]',
    'pdf["s"] = pdf["n"] + {b}',
    'pdf["s"] = pdf["x"]',
    'pdf = pdf.assign(s=pdf.k * {a})',
])
CMP = st.sampled_from([">", ">=", "<", "<=", "==", "!="])


@st.composite
def masks(draw, computed: bool, depth: int = 0):
    columns = ["n", "k", "x"] + (["s"] if computed else [])
    if depth < 2 and draw(st.integers(0, 3)) == 0:
        left, right = draw(masks(computed, depth + 1)), draw(masks(computed, depth + 1))
        return f"({left}) {draw(st.sampled_from(['&', '|']))} ({right})"
    if draw(st.integers(0, 5)) == 0:
        return f'pdf.t == "{draw(st.sampled_from(["a", "b", ""]))}"'
    column = draw(st.sampled_from(columns))
    return f"pdf.{column} {draw(CMP)} {draw(st.integers(-30, 30))}"


@st.composite
def notebooks(draw):
    rows = draw(st.lists(ROW, max_size=25))
    step = draw(COMPUTED)
    step = step.format(a=draw(st.integers(-3, 3)), b=draw(st.integers(-10, 10))) if step else None
    mask = draw(masks(step is not None))
    spark_step = draw(st.sampled_from(["src", 'src.where(F.col("t").isNotNull() | F.col("k").isNull())',
                                       'src.withColumn("j", F.col("k") % 7)']))
    setup = ("from pyspark.sql import functions as F\nnan, inf = float('nan'), float('inf')\n"
             f"src = spark.createDataFrame({rows!r}, 'n long, k int, x double, t string')")
    tail = "\n".join([*([step] if step else []), f"top = pdf[{mask}]"])
    return [setup, f"pdf = ({spark_step}).toPandas()", tail]


# CI's short run draws the same examples each time; a long run (examples set) draws new ones
@settings(max_examples=EXAMPLES, deadline=None, derandomize="MAGICPUSH_PANDAS_EXAMPLES" not in os.environ,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(cells=notebooks())
def test_a_suggestion_never_changes_the_final_frame(shell, spark, cells):
    trace = traced(shell, cells)
    result = optimize_trace(trace, cells, all_pipelines=True)
    assert not [n for n in result.notes if "could not analyse" in n], result.notes
    before = _final_frame(spark, cells)
    pushed = [s for s in result.suggestions if s.pipeline == "top"]
    for s in pushed:
        for option in (s, *s.alternatives):
            assert _final_frame(spark, rewritten(cells, option.cells)) == before, (option.predicate, cells)
    if LOG:  # a long run's tally: how many examples got a suggestion, and the notes of the others
        with open(LOG, "a") as out:
            out.write(("pushed " + pushed[0].predicate if pushed else "none " + " | ".join(result.notes)) + "\n")
