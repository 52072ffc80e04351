"""Python UDFs that clean text, written at the source as the same Column code
(symbolic/udf_inline.py) and proved call by call (verify/congruence.py), on real Spark.

A notebook strips thousands separators with `s.replace(",", "")`, casts the text to a double and
filters on a quantity computed from it. Python's `str.replace` and Spark's `replace` replace every
occurrence alike, so the late filter moves with the call written as Column code; each pushing case
runs the original and the rewritten pipeline on rows with NULL, empty text, repeated separators and
duplicates and compares the bags. Each has a neighbour where Python and Spark part (an empty text to
replace, a `!=` test that a None passes in Python and a NULL fails in Spark), which must not be
written as Column code.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from dataclasses import dataclass
from typing import Callable

import pytest
from pyspark.sql import functions as F

from magicpush_lab.capture.trace import Udf
from magicpush_lab.capture.udfs import with_captured_constants
from magicpush_lab.ir import expr as X
from magicpush_lab.symbolic.udf_inline import inlined
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET

from .harness import bag, check_pushdown, run_engine_with_notes

SCHEMA = "id int, area string, people long, code string"
ROWS = [
    (1, "1,234.5", 90_000_000, "a-b"),
    (1, "1,234.5", 90_000_000, "a-b"),  # a duplicate
    (2, "12", 900_000, "ab"),
    (3, None, 5_000, None),
    (4, "", 100, ""),
    (5, "1,,0", 700_000, "--"),
    (6, "0", 8_000, "a--b"),
    (7, "n/a", 10, "x"),
    (8, "3,000", 600_000_000, "b-a"),
]

# a cast of malformed text raises under ANSI mode, in the original pipeline as in the rewrite
NUMBERS = [r for r in ROWS if r[1] is None or r[1].replace(",", "").replace(".", "").isdigit()]

SEPARATOR = ","  # a notebook's constant, recorded in front of the UDF that reads it


def clean_area(area):
    return area.replace(",", "") if isinstance(area, str) else "0"


def without_separator(area):
    return None if area is None else area.replace(SEPARATOR, "")


def no_dashes(code):
    return code.replace("-", "") if code is not None else None


def dashes_between(code):
    return code.replace("", "-") if isinstance(code, str) else None


CODES = {"ab": "AB", "a-b": "A-B", "x": "ex"}


def code_name(code):
    return CODES[code] if code in CODES else code


def code_or_unknown(code):
    return CODES.get(code, "unknown")


def code_or_shouted(code):
    return CODES[code] if code in CODES else code.upper()


def missing_unless_x(code):
    return "missing" if code != "x" else code


@dataclass(frozen=True)
class Case:
    title: str
    fn: Callable
    column: str
    late: Callable
    expect: str | None
    written: bool = True  # the UDF call is written as Column code
    predicate: str | None = None
    rows: tuple = tuple(ROWS)


CASES = [
    Case("separators stripped, then cast and compared: the same replace at the source",
         clean_area, "area", lambda: F.col("x").cast("double") > 100, EQUIVALENT,
         predicate="cast(CASE WHEN area IS NOT NULL THEN replace(area, ',', '') ELSE '0' END as double) > cast(100 as double)",
         rows=tuple(NUMBERS)),
    Case("a separator the notebook keeps in a constant: the same replace at the source",
         without_separator, "area", lambda: F.col("x") == "1234.5", EQUIVALENT),
    Case("a None-guarded replace compared with a text: the same replace at the source",
         no_dashes, "code", lambda: F.col("x") == "ab", EQUIVALENT),
    Case("a lookup in a constant dict is not written as a CASE: the keys that give the constants move instead",
         code_name, "code", lambda: F.col("x").isin("AB", "--"), EQUIVALENT, written=False),
    Case("dict.get with a default is not written either; what the model proves of it moves",
         code_or_unknown, "code", lambda: F.col("x") != "unknown", EQUIVALENT, written=False),
    Case("a lookup whose other branch changes case (Python's and Spark's Unicode tables differ): must not",
         code_or_shouted, "code", lambda: F.col("x") == "AB", None, written=False),
    Case("an empty text to replace inserts between characters in Python and changes nothing in Spark:"
         " not written: must not (only what the model says of a NULL moves)",
         dashes_between, "code", lambda: F.col("x") == "-a-b-", SUPERSET, written=False,
         predicate="code IS NOT NULL"),
]


def _record(fn: Callable) -> Udf:
    return Udf(fn.__name__, with_captured_constants(textwrap.dedent(inspect.getsource(fn)), fn), True, "string")


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_string_udf_case(spark, case: Case):
    source = spark.createDataFrame(list(case.rows), SCHEMA)
    udf = F.udf(case.fn, "string")

    def body(s):
        return s[0].withColumn("x", udf(F.col(case.column)))

    original = body([source]).filter(case.late())
    walk, _ = run_engine_with_notes([source], [body([source])], original, [_record(case.fn)])
    check_pushdown(walk, [source], body, case.late, case.expect, [case.predicate] if case.predicate else None)
    if case.expect is not None:
        assert bag(original), "the data should keep some rows, or the comparison proves little"
    call = X.PyUdf(case.fn.__name__, (X.Col(case.column, 1, "string"),), "string", _record(case.fn).source)
    assert (inlined(call) is not None) == case.written


def test_a_written_call_that_a_null_passes_otherwise_is_not_proved_by_its_column_code(spark):
    """`"missing" if code != "x" else code`: None != "x" is True in Python, NULL in Spark, so the
    Column code would drop the NULL rows the UDF keeps; what moves must keep them."""
    source = spark.createDataFrame(ROWS, SCHEMA)
    udf = F.udf(missing_unless_x, "string")

    def body(s):
        return s[0].withColumn("x", udf(F.col("code")))

    late = lambda: F.col("x") == "missing"  # noqa: E731
    original = body([source]).filter(late())
    walk, _ = run_engine_with_notes([source], [body([source])], original, [_record(missing_unless_x)])
    wrong = "CASE WHEN code != 'x' THEN 'missing' ELSE code END = 'missing'"
    assert all(str(p.predicate) != wrong for p in walk.pushed)
    if walk.pushed:
        check_pushdown(walk, [source], body, late, walk.pushed[0].kind)
    assert any(r["code"] is None for r in original.collect()), "the NULL row is what tells them apart"


def dash_pieces(code):
    return len(code.split("-"))


def dot_pieces(code):
    return len(code.split("."))


def word_runs(code):
    return len(code.split())


@pytest.mark.parametrize("fn, written, expect", [
    (dash_pieces, True, EQUIVALENT),
    (dot_pieces, False, None),
    (word_runs, False, None),
], ids=["a count of pieces split at a constant: size(split(code, '-', -1)) at the source",
        "must not: a separator a Java pattern reads otherwise ('.' is any character)",
        "must not: split() without a separator splits at runs of white space, unlike Spark's split"])
def test_a_count_of_pieces(spark, fn, written, expect):
    """`len(s.split(sep))` counts empty pieces, leading and trailing ones too, as Spark's
    `size(split(s, sep, -1))` does; written so only for a separator that is its own pattern."""
    rows = [r for r in ROWS if r[3] is not None]  # the UDF raises on None, in the notebook too
    source = spark.createDataFrame(rows + [(9, "1", 1, "a.b-c"), (10, "2", 2, " a b ")], SCHEMA)
    udf = F.udf(fn, "int")

    def body(s):
        return s[0].withColumn("x", udf(F.col("code")))

    late = lambda: F.col("x") >= 2  # noqa: E731
    original = body([source]).filter(late())
    record = Udf(fn.__name__, textwrap.dedent(inspect.getsource(fn)), True, "int")
    walk, _ = run_engine_with_notes([source], [body([source])], original, [record])
    check_pushdown(walk, [source], body, late, expect,
                   ["size(split(code, '-', -1)) >= 2"] if expect is not None else None)
    assert bag(original), "the data should keep some rows, or the comparison proves little"
    call = X.PyUdf(fn.__name__, (X.Col("code", 1, "string"),), "int", record.source)
    assert (inlined(call) is not None) == written


def city_before_comma(city):
    return re.match("([^,]+),.*", city)[1] if re.match("([^,]+),.*", city) is not None else ""


def digits_after_x(code):
    return re.search("x([0-9]+)", code).group(1) if re.search("x([0-9]+)", code) else "none"


def repeated_letter(code):
    return re.match("(a|b)+", code)[1] if re.match("(a|b)+", code) else ""


def up_to_line_end(code):
    return re.match("(a[^,]*)$", code)[1] if re.match("(a[^,]*)$", code) else ""


PLACES = [(1, "Ames, Iowa", 1, "x12y"), (2, "Ames, Iowa", 1, "x12y"), (3, "Le Mars,IA,US", 2, "ax3"),
          (4, "no comma", 3, "a\nb"), (5, "", 4, ""), (6, ",lead", 5, "x"), (7, "Ames\r, IA", 6, "bx0x9"),
          (8, "Ames,\nIowa", 7, "ab\r")]


@pytest.mark.parametrize("fn, column, late, written", [
    (city_before_comma, "area", lambda: F.col("x").isin("Ames", "Le Mars"), True),
    (digits_after_x, "code", lambda: F.col("x") == "12", True),
    (repeated_letter, "code", lambda: F.col("x") == "a", False),
    (up_to_line_end, "code", lambda: F.col("x") == "a", False),
], ids=["re.match(p, s)[1] cut at the comma: regexp_extract at the source",
        "re.search(p, s).group(1) with another text where nothing matches: the same CASE at the source",
        "must not be written: a group inside a repetition (which of its captures is kept)",
        "must not be written: `$`, which Java also reads before a carriage return"])
def test_a_regex_group(spark, fn, column, late, written):
    """`re.match(p, s)[k]` / `.group(k)` with a literal pattern in the subset Python and Java read
    alike (symbolic/pyregex.py) is Spark's regexp_extract with the pattern written out; both sides
    of the proof name one uninterpreted text for the group. Rows with a carriage return and a
    newline where `.` and `[^,]` may read them otherwise; no NULLs (the UDF raises on None)."""
    source = spark.createDataFrame(PLACES, SCHEMA)
    udf = F.udf(fn, "string")

    def body(s):
        return s[0].withColumn("x", udf(F.col(column)))

    original = body([source]).filter(late())
    record = _record(fn)
    walk, _ = run_engine_with_notes([source], [body([source])], original, [record])
    call = X.PyUdf(fn.__name__, (X.Col(column, 1, "string"),), "string", record.source)
    assert (inlined(call) is not None) == written
    if written:
        assert walk.pushed and all("regexp_extract" in str(p.predicate) for p in walk.pushed), walk.refusals
        check_pushdown(walk, [source], body, late, walk.pushed[0].kind)
        assert bag(original), "the data should keep some rows, or the comparison proves little"
    else:
        assert not any("regexp_extract" in str(p.predicate) for p in walk.pushed)
        if walk.pushed:
            check_pushdown(walk, [source], body, late, walk.pushed[0].kind)


@pytest.mark.parametrize("pattern, how, group", [
    ("([^,]+),.*", "match", 1), ("x([0-9]+)", "search", 1), ("(a.)(b?)c", "match", 2), ("([^ ]*) +(.*)", "match", 2),
])
def test_regexp_extract_captures_what_python_captures(spark, pattern, how, group):
    """The claim the written pattern rests on, checked on Spark: for each text, regexp_extract
    gives the group Python's re captures where it matches, and "" where it does not."""
    from magicpush_lab.symbolic.pyregex import extract_pattern

    java = extract_pattern(how, pattern, group)
    assert java is not None
    texts = ["Ames, Iowa", "a,b,c", ",x", "no comma", "", "x1", "yx23z", "ab c", "a\nbc", "a\rbc", "axbc", "abc",
             "ü, Zürich", "two  spaces here", "tab\there", "x\n9", "é,\u2028,"]
    rows = spark.createDataFrame([(t,) for t in texts], "t string") \
        .select("t", F.regexp_extract("t", java, group).alias("g")).collect()
    for row in rows:
        m = getattr(re, how)(pattern, row.t)
        assert row.g == (m[group] if m else ""), (row.t, java)
