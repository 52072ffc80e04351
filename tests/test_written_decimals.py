"""A float the user wrote in a UDF body (`hours > 38.8`) is held by the model as its decimal
(194/5), which no double equals; read back, it is written as the same literal, since against
a double the two compare alike. A decimal the model computed (`0.1 + 0.2` is 3/10 there,
0.30000000000000004 in Python) is never written as a literal (search/formula.written_decimals).

Candidates only: the pushdowns these give are run on Spark, output bags compared, in
tests/test_udf_names.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from magicpush_lab.budget import Budget
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.search.candidates import through_project

HOURS = X.Col("hours", 1, "double")
FLAG = X.Col("flag", 2, "int")
WIDENED = "hours > {} OR isnan((hours - hours))"  # NaN and the infinities stay for the late filter


@dataclass(frozen=True)
class Case:
    title: str
    body: str  # the UDF's source, over `hours`
    candidate: str | None  # the predicate below the projection for `flag = 1`; None: none


CASES = [
    Case("a decimal written in the body is read back as that literal",
         "lambda hours: 1 if hours is not None and hours > 38.8 else 0", WIDENED.format("38.8")),
    Case("an exact double is read back as before", "lambda hours: 1 if hours is not None and hours > 0.5 else 0",
         WIDENED.format("0.5")),
    Case("must not write a decimal the body computed: 0.1 + 0.2 is not 0.3 in Python",
         "lambda hours: 1 if hours is not None and hours > 0.1 + 0.2 else 0", None),
    Case("must not write a decimal the body computed from written ones: 38.8 / 4",
         "lambda hours: 1 if hours is not None and hours > 38.8 / 4 else 0", None),
]


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_written_decimal_case(case: Case):
    udf = X.PyUdf("flag_of", (HOURS,), "int", case.body)
    project = P.Project(P.Source("t", (HOURS,)), ((HOURS, HOURS), (FLAG, udf)))
    found = [str(c.predicates[0]) for c in through_project(project, X.Cmp("=", FLAG, X.Lit(1, "int")), Budget(10))]
    assert found == ([] if case.candidate is None else [case.candidate])
