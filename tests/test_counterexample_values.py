"""Values of a refusal's counterexample, read from a Z3 model as the user sees them."""

from __future__ import annotations

import pytest
import z3

from magicpush_lab.verify.counterexample import _python


@pytest.mark.parametrize("value,dtype,shown", [
    (z3.IntVal(0), "date", "1970-01-01"),
    (z3.IntVal(19783), "date", "2024-03-01"),
    # the model's dates are not bounded to Spark's: a day before 0001-01-01 once made the walk
    # itself raise (OverflowError) while printing a refusal, found by the fuzzer's date column
    (z3.IntVal(-719163), "date", "-719163 days from 1970-01-01"),
    (z3.IntVal(2932897), "date", "+2932897 days from 1970-01-01"),
    (z3.IntVal(-3), "int", -3),
], ids=["epoch", "a_day", "before_year_1_is_a_count_of_days", "after_9999_is_a_count_of_days", "an_int"])
def test_counterexample_value_is_shown_without_raising(value, dtype, shown):
    assert _python(value, dtype) == shown
