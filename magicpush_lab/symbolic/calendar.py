"""Dates as Z3 integers (days since 1970-01-01), and their calendar fields as named functions.

A date is its day number, as in the rest of the model. Its year, month, day of the month and
day of the week are Z3 *defined* functions (`z3.RecFunction`, each defined by integer
divisions by constants on the day number, the civil-from-days method of the proleptic
Gregorian calendar that Python's `datetime.date` and Spark both use). The solver unfolds a
definition where a proof needs it, so the fields are exact; and because a field stays a named
application in a formula, a condition read back from a UDF body (`d.weekday() >= 5`) names the
Spark function that computes the same value (`weekday(d) >= 5`, search/formula.py), and
Spark's own `year(d)`, `month(d)`, ... are encoded as the very same applications (encode.py).

>>> import datetime as dt
>>> d = days(dt.date(2024, 2, 29))
>>> [z3.simplify(f(z3.IntVal(d))).as_long() for f in (year, month, day, weekday)]
[2024, 2, 29, 3]
"""

from __future__ import annotations

import datetime as dt
from functools import lru_cache

import z3

EPOCH = dt.date(1970, 1, 1)
#: the day numbers of date.min and date.max: a Python date outside them raises OverflowError
MIN_DAY = (dt.date.min - EPOCH).days
MAX_DAY = (dt.date.max - EPOCH).days


def days(d: dt.date) -> int:
    """The day number of a date."""
    return (d - EPOCH).days


def _civil(z_days: z3.ArithRef) -> tuple[z3.ArithRef, z3.ArithRef, z3.ArithRef]:
    """(year, month, day) of a day number, by integer divisions by constants only (400-year eras
    of 146097 days, years counted from March so that the leap day comes last)."""
    z = z_days + 719468
    era = z / 146097  # Z3's integer division floors for a positive divisor
    doe = z - era * 146097
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    mp = (5 * doy + 2) / 153
    d = doy - (153 * mp + 2) / 5 + 1
    m = z3.If(mp < 10, mp + 3, mp - 9)
    y = yoe + era * 400 + z3.If(mp >= 10, 1, 0)  # January and February end the March year
    return y, m, d


_made: set[str] = set()  # the fields defined so far (a formula can only hold those)


@lru_cache(maxsize=None)
def _field(name: str) -> z3.FuncDeclRef:
    x = z3.Int(f"{name}_day")
    f = z3.RecFunction(name, z3.IntSort(), z3.IntSort())
    y, m, d = _civil(x)
    body = {"date_year": y, "date_month": m, "date_day": d,
            # 1970-01-01 was a Thursday: Monday is 0, as date.weekday() and Spark's weekday()
            "date_weekday": (x + 3) % 7}[name]
    z3.RecAddDefinition(f, [x], body)
    _made.add(name)
    return f


def year(d: z3.ArithRef) -> z3.ArithRef:
    return _field("date_year")(d)


def month(d: z3.ArithRef) -> z3.ArithRef:
    return _field("date_month")(d)


def day(d: z3.ArithRef) -> z3.ArithRef:
    return _field("date_day")(d)


def weekday(d: z3.ArithRef) -> z3.ArithRef:
    """Monday 0 ... Sunday 6."""
    return _field("date_weekday")(d)


#: the defined functions by name, and the Spark function that computes each from a date
SPARK_NAMES = {"date_year": "year", "date_month": "month", "date_day": "dayofmonth", "date_weekday": "weekday"}


def expand(formula: z3.ExprRef) -> z3.ExprRef:
    """`formula` with every calendar field written out as its definition: the same formula, which
    the solver decides faster than by unfolding the definitions as it goes (solver.py)."""
    pairs = []
    var = z3.Var(0, z3.IntSort())
    y, m, d = _civil(var)
    for name, body in (("date_year", y), ("date_month", m), ("date_day", d), ("date_weekday", (var + 3) % 7)):
        if name in _made:
            pairs.append((_field(name), body))
    return z3.substitute_funs(formula, *pairs) if pairs else formula


def in_range(d: z3.ArithRef) -> z3.BoolRef:
    """Whether a day number is a date Python can hold (years 1 to 9999)."""
    return z3.And(d >= MIN_DAY, d <= MAX_DAY)
