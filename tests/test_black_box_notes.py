"""The note for a filter that a black box stopped names the user's code: the construct, the
function or lambda that holds it, its cell and line. For an RDD round trip the engine reads
the steps through UDFs it synthesizes (translate/rdd.py, named `rdd<event>_<field>`), which no
cell defines; the note names the user's lambda or function instead. A helper a UDF calls is
named itself, at its own line. Uninterpreted string methods (`title()`) are named as well.
"""

from __future__ import annotations

import re

import pytest

from magicpush_lab.pipeline import optimize_trace
from tests.cells import traced
from tests.test_real_notebooks import SETUP

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

LAMBDA_STEP = ['swapped = spark.createDataFrame(\n'
               '    cases.rdd.map(lambda r: (r.country, (r.country or "").swapcase())),\n'
               '    "country string, swapped string")',
               'late = swapped.filter(F.col("swapped") == "fr")']
# the field's check (an int in range) of an unknown object is not read: the note names the field
LAMBDA_UNREAD = ['weeks = spark.createDataFrame(\n'
                 '    cases.rdd.map(lambda r: (r.country, r.day.isocalendar()[1] if r.day else 0)),\n'
                 '    "country string, week int")',
                 'late = weeks.filter(F.col("week") == 10)']
FUNCTION_STEP = ['def to_row(r):\n'
                 '    name = (r.country or "").title()\n'
                 '    return (name, r.new_cases)',
                 'named = cases.rdd.map(to_row).toDF("country string, new_cases int")',
                 'late = named.filter(F.col("country") == "Fr")']
HELPER = ['def week_of(d):\n'
          '    return d.isocalendar()[1]\n'
          '@F.udf("boolean")\n'
          'def early(d):\n'
          '    return d is not None and week_of(d) < 11',
          'late = cases.withColumn("e", early("day")).filter(F.col("e"))']


@pytest.mark.parametrize("cells,named", [
    (LAMBDA_STEP, "`(r.country or '').swapcase()` in a lambda (cell [{first}], line 2): not modelled"),
    (LAMBDA_UNREAD, "field `week` of the RDD round trip is not read"),
    (FUNCTION_STEP, "`(r.country or '').title()` in `to_row` (cell [{first}], line 2): not modelled"),
    (HELPER, "`d.isocalendar()` in `week_of` (cell [{first}], line 2): not modelled"),
], ids=["rdd_lambda", "rdd_field_not_read", "rdd_function_with_title", "udf_helper"])
def test_the_note_names_the_users_function_its_cell_and_line(shell, cells, named):
    trace = traced(shell, [SETUP, *cells])
    first = trace.cells[1].execution_count  # the cell after SETUP holds the black box
    result = optimize_trace(trace, [SETUP, *cells])
    boxes = [n for n in result.notes if "not modelled" in n or "is not read" in n]
    assert any(named.format(first=first) in n for n in boxes), result.notes
    assert not re.search(r"`rdd\d+_", " ".join(boxes)), boxes  # no synthesized UDF is named
