"""Python UDFs written as data scientists write them, on real Spark: what pushes, what must not.

Each case is data: a UDF (a function of this module, recorded as the tracer records it, with
the modules, constants and helper functions it reads in front of it), the columns it reads, a
late filter on its result and what the engine must conclude. Every case that pushes runs the
original and the rewritten pipeline on rows with NULLs, duplicates, NaN and awkward strings and
compares the output bags; every kind of body has a neighbour that must not push.
"""

from __future__ import annotations

import datetime
import inspect
import math
import re
import textwrap
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Callable

import pytest
from pyspark.sql import functions as F

from magicpush_lab.capture.trace import Udf
from magicpush_lab.capture.udfs import with_captured_constants
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET

from .harness import check_pushdown, run_engine_with_notes

SESSIONS = ("classic", "connect")

REGIONS = {"AB": "EU", "CD": "US", "EF": "EU"}
PRIORITY = {"AB-12": 0, "CD-7": 1, "EF-": 2, "X-9": 3, "": 4}  # a label encoded as a number
# a code -> name table of fifty entries, as a notebook spells out US states
NAMES = {**{f"Q{i}": f"NAME {i}" for i in range(48)}, "AB-12": "ALPHA", "CD-7": "CHARLIE"}
ALLOWED = {"AB-12", "CD-7"}
# more items than the tracer records: a UDF reading these reads an unknown value
MANY_REGIONS = {**{f"Z{i}": "EU" for i in range(300)}, **REGIONS}
MANY_ALLOWED = {f"Z-{i}" for i in range(300)} | ALLOWED


class Limits:
    high = 100


LIMITS = Limits()  # an object, not a literal: the tracer does not record it
START = date(2024, 3, 1)


# ----------------------------------------------------------------------------- UDFs

def is_weekend(d):
    if d is None:
        return False
    return d.weekday() >= 5


def summer(d):
    return d is not None and d.month in (6, 7, 8) and d.year == 2024


def recent(d):
    if d is None:
        return None
    return d >= date(2024, 6, 1)


def within_a_week(d):
    if d is None:
        return False
    return d - timedelta(days=7) < START


def iso_week(d):
    return d.isocalendar()[1] if d is not None else 1


def week_label(d, code):
    if code is None:
        return None
    return code + "/" + str(d.isocalendar()[1])


def prefixed(code):
    if code is None:
        return False
    return code.startswith(("AB", "CD"))


def head2(code):
    if code is None:
        return None
    return code[:2]


def cleaned(code):
    if code is None:
        return ""
    return code.replace("-", "")


def shouted(code):
    if code is None:
        return ""
    return code.upper()


def region(code):
    if code is None:
        return None
    return REGIONS.get(code[:2], code[:2])


def full_name(code):
    return NAMES[code] if code in NAMES else code


def priority_of(code):
    return PRIORITY.get(code)


def allowed(code):
    return code in ALLOWED


def well_formed(code):
    if code is None:
        return False
    return re.fullmatch(r"[A-Z]{2}-[0-9]+", code) is not None


def digits_only(code):
    if code is None:
        return False
    return re.fullmatch(r"\d+", code) is not None


def band(v):
    return "high" if v > 100 else "low"


def titled(code):
    return (code or "").title()


def many_region(code):
    if code is None:
        return None
    return MANY_REGIONS.get(code[:2], code[:2])


def many_allowed(code):
    return code in MANY_ALLOWED


def band_of_object(v):
    return "high" if v > LIMITS.high else "low"


def qty_band_of_object(qty):
    if qty is None:
        return None
    return band_of_object(qty)


def qty_band(qty):
    if qty is None:
        return None
    return band(qty)


def safe_ratio(amount, qty):
    if amount is None or qty is None:
        return None
    try:
        return amount / qty
    except ZeroDivisionError:
        return None


def code_number(code):
    try:
        return int(code[3:])
    except (ValueError, TypeError):
        return -1


def early(qty, code):
    if qty is None:
        return "none"
    if qty < 0:
        return "negative"
    label = (lambda q: "big" if q >= 50 else "small")(qty)
    return f"{label}:{code}" if code else label


def floored(amount):
    if amount is None or math.isnan(amount) or abs(amount) > 1e15:
        return 0
    return math.floor(amount)


def floor_is_qty(amount, qty):
    if amount is None or qty is None or math.isnan(amount) or math.isinf(amount):
        return False
    return math.floor(amount) == qty


def ceiled(amount):
    if amount is None or math.isnan(amount) or abs(amount) > 1e15:
        return None
    return math.ceil(amount)


def rounded(amount):
    # Python rounds half to even (round(2.5) is 2); Spark's round rounds half up
    if amount is None or math.isnan(amount) or abs(amount) > 1e15:
        return 0
    return round(amount)


def dedoubled(code):
    # a backreference: outside the patterns read as regular languages
    return re.sub(r"(.)\1", "", code or "")


def looks_ahead(code):
    return re.search(r"[A-Z](?=-)", code or "") is not None


# ----------------------------------------------------------------------------- data

SCHEMA = "id int, code string, day date, qty int, amount double"
ROWS = [
    (1, "AB-12", date(2024, 3, 2), 5, 1.5),
    (1, "AB-12", date(2024, 3, 2), 5, 1.5),  # a duplicate
    (2, "CD-7", date(2024, 3, 4), 150, float("nan")),
    (3, "ab-12", date(2024, 6, 15), -3, -2.0),
    (4, "EF-", date(2024, 7, 6), 0, 0.0),
    (5, "X-9", date(2023, 7, 7), 101, 1e300),
    (6, "", date(2024, 8, 31), 100, None),
    (7, None, None, None, None),
    (8, "AB-12\n", date(2024, 12, 29), 50, 3.25),
    (9, "CD-7\r", date(2024, 1, 1), 49, float("inf")),
    (10, "ÉF-3", date(1999, 2, 28), 7, -0.0),
    (11, "CD", date(2024, 3, 9), 200, 2.0),
    (12, "12", date(2024, 3, 8), 12, 12.0),
    (13, "AAB-1", date(2024, 3, 10), 2, 2.5),  # round(2.5) is 2 in Python, 3 in Spark
    (14, "BB-2", date(2024, 3, 11), 1, 1.0),
    (15, "CD-7", date(2024, 3, 12), -2, -1.5),
    (16, "EF-3", date(2024, 3, 13), 1, 1.9999999999999998),
]


@dataclass(frozen=True)
class Case:
    title: str
    fn: Callable
    columns: tuple[str, ...]
    dtype: str  # the UDF's Spark return type
    late: Callable  # (Column of the UDF's value) -> Column
    expect: str | None  # EQUIVALENT, SUPERSET, or None: nothing may be pushed
    predicate: str | None = None  # the pushed predicate, when it is pinned down
    # what the user's note says about a step that stopped the filter (every must-not case says
    # why: the construct, or the reason the search gave)
    note: str | None = None


CASES = [
    # dates
    Case("weekday() >= 5 pushes as weekday(day) >= 5", is_weekend, ("day",), "boolean", lambda x: x, EQUIVALENT),
    Case("the week number of isocalendar() is a black box: nothing to push", iso_week, ("day",), "int",
         lambda x: x == 1, None, note="`d.isocalendar()` in `iso_week`: not modelled"),
    Case("month and year tests push as Spark's month and year", summer, ("day",), "boolean", lambda x: x,
         EQUIVALENT),
    Case("a comparison with a date literal pushes", recent, ("day",), "boolean", lambda x: x, EQUIVALENT),
    Case("a date minus a timedelta compared with a date: date arithmetic is not written as Spark's, the "
         "NULL guard is", within_a_week, ("day",), "boolean", lambda x: x, SUPERSET, "day IS NOT NULL"),
    Case("a black box beside a NULL test: the NULL test still pushes", week_label, ("day", "code"), "string",
         lambda x: x.isNull(), EQUIVALENT, "code IS NULL"),
    # str methods
    Case("startswith a tuple pushes as one startswith per prefix", prefixed, ("code",), "boolean", lambda x: x,
         EQUIVALENT),
    Case("a slice pushes as substring", head2, ("code",), "string", lambda x: x == "AB", EQUIVALENT),
    Case("replace pushes as Spark's replace", cleaned, ("code",), "string", lambda x: x == "AB12", EQUIVALENT),
    Case("upper() is Python's own case mapping: not Spark's upper, nothing pushed on it", shouted, ("code",),
         "string", lambda x: x == "AB-12", SUPERSET, "code IS NOT NULL"),
    Case("title() is a black box of its text: nothing pushed, and the note names it", titled, ("code",),
         "string", lambda x: x == "Ab-12", None, note="`(code or '').title()` in `titled`: not modelled"),
    # lookups
    Case("a label mapped to a number by a dict, one number kept: the label that maps to it", priority_of, ("code",),
         "int", lambda x: x == 3, EQUIVALENT, "code = 'X-9'"),
    Case("a label mapped to a number by a dict, a number no label maps to: no row passes, at the read either",
         priority_of, ("code",), "int", lambda x: x == 7, EQUIVALENT, "False"),
    Case("a fifty-entry name table, `in` then index: one name kept is its code, or the name itself",
         full_name, ("code",), "string", lambda x: x == "ALPHA", EQUIVALENT, "code IN ('AB-12', 'ALPHA')"),
    Case("dict.get with the key as default pushes as the keys and the key itself", region, ("code",), "string",
         lambda x: x == "EU", EQUIVALENT),
    Case("membership in a recorded set pushes as IN", allowed, ("code",), "boolean", lambda x: x, EQUIVALENT),
    Case("dict.get on a dict too large to record: an unknown lookup, only the NULL guard", many_region,
         ("code",), "string", lambda x: x == "EU", SUPERSET, "code IS NOT NULL"),
    Case("membership in a set too large to record: an unknown set, nothing pushed", many_allowed, ("code",),
         "boolean", lambda x: x, None, note="`MANY_ALLOWED` in `many_allowed`: not modelled"),
    # regular expressions
    Case("re.fullmatch of a pattern in the subset pushes as rlike", well_formed, ("code",), "boolean", lambda x: x,
         EQUIVALENT),
    Case(r"\d is Unicode in Python and ASCII in Java: a black box, nothing pushed", digits_only, ("code",),
         "boolean", lambda x: x, SUPERSET, "code IS NOT NULL"),
    # helpers, try/except, early returns, lambdas, f-strings
    Case("a helper function the UDF calls is read", qty_band, ("qty",), "string", lambda x: x == "high",
         EQUIVALENT, "qty > 100"),
    Case("a helper reading an object the tracer does not record: only the NULL guard", qty_band_of_object,
         ("qty",), "string", lambda x: x == "high", SUPERSET, "qty IS NOT NULL"),
    Case("ZeroDivisionError caught: the NULL result pushes as its causes", safe_ratio, ("amount", "qty"),
         "double", lambda x: x.isNull(), SUPERSET),
    Case("int() of text caught: which texts parse is a black box, nothing pushed", code_number, ("code",), "int",
         lambda x: x == -1, None, note="no candidate could be proved"),
    Case("early returns and a lambda push the branch that passes", early, ("qty", "code"), "string",
         lambda x: x == "negative", EQUIVALENT, "qty < 0"),
    Case("an f-string of a lambda's label and a column pushes as both", early, ("qty", "code"), "string",
         lambda x: x == "small:AB-12", EQUIVALENT, "qty >= 0 AND qty < 50 AND code = 'AB-12'"),
    Case("startswith and endswith of an f-string push through concat", early, ("qty", "code"), "string",
         lambda x: x.startswith("small:") & x.endswith("-12"), EQUIVALENT),
    Case("re.sub of a pattern outside the subset (a backreference) is a black box: nothing pushed", dedoubled,
         ("code",), "string", lambda x: x == "AB-1", None,
         note="`re.sub('(.)\\\\1', '', code or '')` in `dedoubled`: not modelled"),
    Case("re.search with a lookahead is a black box: nothing pushed", looks_ahead, ("code",), "boolean",
         lambda x: x, None, note="`re.search('[A-Z](?=-)', code or '')` in `looks_ahead`: not modelled"),
    # math
    Case("math.floor compared with a constant pushes as a range of the double", floored, ("amount",), "long",
         lambda x: x == 1, SUPERSET,
         "(amount IS NOT NULL AND amount < 2.0 AND amount >= 1.0) OR isnan((amount - amount))"),
    Case("math.floor compared with a column: Spark's floor raises (ANSI) on NaN, the infinities and beyond the "
         "long range, rows the pushed predicate would meet: nothing pushed", floor_is_qty, ("amount", "qty"),
         "boolean", lambda x: x, None, note="no candidate could be proved"),
    Case("math.ceil compared with a constant pushes as a range of the double", ceiled, ("amount",), "long",
         lambda x: x == 2, SUPERSET),
    Case("round() halves to even, Spark's round halves up: nothing pushed on it", rounded, ("amount",), "long",
         lambda x: x == 2, None, note="no candidate could be proved"),
]


def _record(fn: Callable, dtype: str) -> Udf:
    source = textwrap.dedent(inspect.getsource(fn))
    return Udf(fn.__name__, with_captured_constants(source, fn), True, dtype)


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_everyday_udf_case(spark, case: Case):
    source = spark.createDataFrame(ROWS, SCHEMA)
    udf = F.udf(case.fn, case.dtype)

    def body(s):
        return s[0].withColumn("x", udf(*[F.col(c) for c in case.columns]))

    step = body([source])
    original = step.filter(case.late(F.col("x")))
    walk, notes = run_engine_with_notes([source], [step], original, [_record(case.fn, case.dtype)])
    check_pushdown(walk, [source], body, lambda: case.late(F.col("x")), case.expect,
                   [case.predicate] if case.predicate else None)
    if case.expect is None:
        assert walk.refusals, "a refusal must say why nothing was pushed"
        assert case.note is not None, "a must-not case says what the note names"
    if case.note is not None:
        assert any(case.note in n for n in notes), notes


def test_the_recorded_source_has_the_helpers_and_modules_in_front():
    source = _record(qty_band, "string").source
    assert source.index("def band(v):") < source.index("def qty_band(qty):")
    assert "import re" in _record(well_formed, "boolean").source
    assert "from datetime import date" in _record(recent, "boolean").source
    assert "REGIONS = {" in _record(region, "string").source
    assert datetime.date is date
