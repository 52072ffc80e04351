"""Notebooks as analysts write them: intermediate frames shown and plotted, DataFrames shared by
several branches, late filters chained one condition at a time, `dropna(thresh=...)`.

Each case is a notebook (cells over a small COVID-style case table with NULLs and duplicate
rows), run in a traced shell and optimized as the sidebar does (every pipeline). Every
suggestion, each of its alternatives and each joint rewrite is applied to the cells, and the
output bag of every sink of the notebook (each `show()`, `toPandas()`, plot and `collect()`,
and each DataFrame nothing else is built from) must be the same as the original's. A case
that expects a push names the predicate it expects and where it goes; its neighbour that must
not push names the note that says why.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from magicpush_lab.budget import Budget
from magicpush_lab.pipeline import optimize_trace
from tests.cells import traced
from tests.notebook_sinks import rewritten, sink_bags, sink_variables

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SETUP = """\
from pyspark.sql import functions as F
import datetime as dt
import matplotlib
matplotlib.use("Agg")
ROWS = [("FR", dt.date(2020, 3, d), n, None if n is None else n // 20, None if n is None or d % 7 == 0 else n / 3.0)
        for d in range(1, 29) for n in (None if d % 9 == 0 else d * 37 % 600,)]
ROWS += [("DE", dt.date(2020, 4, d), d * 53 % 700, d % 5, float(d)) for d in range(1, 29)]
ROWS += [(None, None, None, None, None), ("IT", None, 250, 3, float("nan"))] * 2
cases = spark.createDataFrame(ROWS, "country string, day date, new_cases int, deaths int, rate double")
"""


@dataclass(frozen=True)
class Case:
    name: str
    cells: tuple[str, ...]
    # what the top suggestion of the pipeline must be: its predicate's code contains each of
    # `predicate`, it goes into the DataFrame named `at`, with this kind; None: nothing pushes
    predicate: tuple[str, ...] | None = None
    at: str | None = None
    kind: str | None = None
    note: str | None = None  # a note that must be given
    alternatives: int | None = None  # how many alternatives the top suggestion has


def case(name, cells, predicate=None, at=None, kind=None, note=None, alternatives=None) -> Case:
    return Case(name, (SETUP, *cells), tuple(predicate) if predicate else None, at, kind, note, alternatives)


RATIO = '@F.udf("double")\ndef ratio(d, n):\n    return None if d is None or not n else d / n\n'
URGENT = '@F.udf("int")\ndef urgent(c):\n    return 1 if c in ("FR", "IT") else 0\n'
OPAQUE = 'import random\n@F.udf("int")\ndef noise(n):\n    return random.randint(0, 9)\nnoise = noise.asNondeterministic()\n'
CHECKSUM = 'import zlib\n@F.udf("int")\ndef digit(n):\n    return zlib.crc32(str(n).encode()) % 10\n'

CASES = [
    # 1. a DataFrame on the way is shown, plotted or read by other code: the pipeline gets its
    # own filtered read of it, everything else keeps every row
    case("a shown frame on the way: the filter goes on the pipeline's own read of it",
         [RATIO + 'cleaned = cases.withColumn("cfr", ratio("deaths", "new_cases"))\ncleaned.show(5)',
          'weekly = cleaned.withColumn("week", F.weekofyear("day"))',
          'recent = weekly.filter(F.col("country") == "FR")'],
         predicate=['F.col("country") == "FR"'], at="cleaned", kind="equivalent"),
    case("must not: every frame on the way is shown",
         [RATIO + 'cleaned = cases.withColumn("cfr", ratio("deaths", "new_cases"))\ncleaned.show(5)',
          'weekly = cleaned.withColumn("week", F.weekofyear("day"))\nweekly.show(5)',
          'recent = weekly.filter(F.col("country") == "FR")'],
         note="also inspected"),
    case("a plotted summary beside the pipeline",
         ['clean = cases.dropna(subset=["new_cases"])',
          'clean.groupBy("country").agg(F.sum("new_cases").alias("n")).toPandas().plot(kind="bar", x="country")',
          URGENT + 'flagged = clean.withColumn("u", urgent("country"))',
          'late = flagged.filter((F.col("u") == 1) & (F.col("day") >= dt.date(2020, 3, 10)))'],
         predicate=['F.col("day") >= datetime.date(2020, 3, 10)'], at="clean"),
    case("must not: the plotted frame is the one the pipeline filters",
         ['clean = cases.dropna(subset=["new_cases"])',
          OPAQUE + 'flagged = clean.withColumn("u", noise("new_cases"))',
          'flagged.toPandas().plot(x="day", y="u")',
          'late = flagged.filter(F.col("u") > 4)'],
         note="`u` = noise(new_cases) is nondeterministic"),
    case("branches of one read meet again: the read keeps their disjunction",
         ['cases.groupBy("country").count().show()',
          'base = cases.withColumn("cfr", F.col("deaths") / F.col("new_cases"))',
          'fr = base.filter(F.col("country") == "FR")\nde = base.filter(F.col("country") == "DE")',
          'both = fr.unionByName(de).filter(F.col("new_cases") > 300)'],
         predicate=['F.col("new_cases") > 300'], at="cases"),
    case("must not: a branch of the read stops at a limit, so the read keeps every row",
         ['cases.groupBy("country").count().show()',
          'base = cases.withColumn("cfr", F.col("deaths") / F.col("new_cases"))',
          'fr = base.filter(F.col("country") == "FR")\nde = base.filter(F.col("country") == "DE").limit(5)',
          'both = fr.unionByName(de).filter(F.col("new_cases") > 300)'],
         note="limit"),
    # 2. a late filter written one condition at a time: one suggestion per place, the
    # conjunction of every proved part, the parts as alternatives
    case("an analyst's chained filters after a join and a UDF become one conjunction",
         ['regions = spark.createDataFrame([("FR", "EU"), ("DE", "EU"), ("IT", "EU"), ("US", "NA")],'
          ' "country string, region string")',
          'joined = cases.join(regions, "country")\njoined.show(3)',
          URGENT + 'flagged = joined.withColumn("u", urgent("country"))',
          'late = (flagged.filter(F.col("region") == "EU").filter(F.col("day") >= dt.date(2020, 3, 5))\n'
          '        .filter(F.col("day") < dt.date(2020, 4, 20)).filter(F.col("deaths") < F.col("new_cases")))',
          'res = late.groupBy("u").agg(F.count("*").alias("n"))'],
         predicate=['F.col("region") == "EU"', 'F.col("day") >= datetime.date(2020, 3, 5)',
                    'F.col("day") < datetime.date(2020, 4, 20)', 'F.col("deaths") < F.col("new_cases")'],
         at="joined", kind="equivalent", alternatives=4),
    case("must not: a chained part on an unreadable UDF stays, the others go together",
         [CHECKSUM + 'scored = cases.withColumn("r", digit("new_cases"))',
          'late = scored.filter(F.col("r") > 3).filter(F.col("country") == "FR").filter(F.col("deaths") > 1)'],
         predicate=['F.col("country") == "FR"', 'F.col("deaths") > 1'], at="cases"),
    case("a date range over a nullable date after a grouping keeps rows the same",
         ['daily = cases.groupBy("country", "day").agg(F.sum("new_cases").alias("n"))',
          'spring = daily.filter((F.col("day") >= dt.date(2020, 3, 15)) & (F.col("day") < dt.date(2020, 4, 10)))'],
         predicate=['F.col("day") >= datetime.date(2020, 3, 15)', 'F.col("day") < datetime.date(2020, 4, 10)'],
         at="cases", kind="equivalent"),
    case("must not: a range over the grouped sum stays above the grouping",
         ['daily = cases.groupBy("country", "day").agg(F.sum("new_cases").alias("n"))',
          'busy = daily.filter((F.col("n") >= 100) & (F.col("n") < 400))'],
         note="GroupBy"),
    # 3. what the engine cannot model is a barrier or a refusal, never a failed optimization
    case("dropna(thresh=...) in the middle of a pipeline is pushed as the count it is",
         ['wide = cases.withColumn("per_death", F.col("new_cases") / (F.col("deaths") + 1))',
          'kept = wide.dropna(thresh=5)\nkept.show(3)',
          URGENT + 'late = kept.withColumn("u", urgent("country")).filter(F.col("country") == "DE")'],
         predicate=['F.col("country") == "DE"'], at="kept"),
    case("must not: dropna(thresh=...) over a random column stops the filter, with a reason",
         ['wild = cases.withColumn("r", F.when(F.rand(3) > 0.5, F.lit(None)).otherwise(F.lit(1)))',
          'kept = wild.dropna(thresh=5)',
          'late = kept.filter(F.col("r") == 1)'],
         note="`r` = rand(3) is nondeterministic"),
]


def _every_rewrite(result):
    for s in result.suggestions:
        yield f"{s.pipeline}: {s.predicate}", s.cells
        for a in s.alternatives:
            yield f"{s.pipeline}: alternative {a.predicate}", a.cells
    for t in result.together:
        yield f"{t.pipeline}: together", t.cells


@pytest.mark.parametrize("c", CASES, ids=[c.name for c in CASES])
def test_notebook_rewrite_keeps_every_sink(shell, spark, c: Case):
    cells = list(c.cells)
    trace = traced(shell, cells)
    result = optimize_trace(trace, cells, all_pipelines=True)
    assert not [n for n in result.notes if "could not analyse" in n], result.notes
    sinks = sink_variables(trace)
    before = sink_bags(spark, cells, sinks)
    for what, changes in _every_rewrite(result):
        assert sink_bags(spark, rewritten(cells, changes), sinks) == before, what
    late = trace.variable_of(max(e.id for e in trace.events))
    mine = [s for s in result.suggestions if s.pipeline == late]
    if c.predicate is None:
        assert mine == [], [s.predicate for s in mine]
    else:
        assert mine, result.notes
        top = mine[0]
        assert all(p in top.predicate for p in c.predicate), top.predicate
        assert top.source == c.at, (top.source, top.predicate)
        assert c.kind is None or top.kind == c.kind, top.kind
        assert c.alternatives is None or len(top.alternatives) == c.alternatives, top.alternatives
    if c.note is not None:
        assert any(c.note in n for n in result.notes), result.notes


# 5. one note per blocking step, naming its code and cell
TEN_FILTERS = [SETUP, 'noisy = cases.withColumn("r", F.rand(5) * 10)\ncases.show(3)',
               'for i in range(10):\n    noisy = noisy.filter(F.col("r") > i / 2)']


def test_ten_filters_stopped_by_one_step_give_one_note_naming_its_code_and_cell(shell):
    trace = traced(shell, TEN_FILTERS)
    result = optimize_trace(trace, TEN_FILTERS)
    assert result.suggestions == ()
    about_step = [n for n in result.notes if "F.rand(5)" in n]
    assert len(about_step) == 1, result.notes
    assert "cell [" in about_step[0] and "line 1" in about_step[0], about_step


# 4. the budget is the user's: when it runs out, what was proved until then is returned
TWO_PIPELINES = [SETUP,
                 'cases.groupBy("country").count().show()',
                 'fr = cases.withColumn("w", F.col("new_cases") * 2).filter(F.col("country") == "FR")',
                 URGENT + 'de = cases.withColumn("u", urgent("country")).withColumn("v", F.col("u") + 1)'
                 '.filter((F.col("v") == 2) & (F.col("deaths") > 2))']


def test_a_budget_spent_midway_returns_what_was_proved_and_says_where_it_stopped(shell, spark, monkeypatch):
    from magicpush_lab import pipeline

    trace = traced(shell, TWO_PIPELINES)
    whole = optimize_trace(trace, TWO_PIPELINES, all_pipelines=True)
    assert {s.pipeline for s in whole.suggestions} == {"fr", "de"}, whole.notes
    # the budget runs out as the second pipeline starts: the same cut on every machine and load,
    # where a cut after a count of candidates moves with the solver's time-outs
    budget, started = Budget(3600.0), []
    translate = pipeline.translate

    def spending_on_the_second(trace, eid, b):
        started.append(eid)
        if len(started) == 2:
            budget.cancel()
        return translate(trace, eid, b)

    monkeypatch.setattr(pipeline, "translate", spending_on_the_second)
    cut = optimize_trace(trace, TWO_PIPELINES, all_pipelines=True, budget=budget)
    first = pipeline_of(whole, started[0])
    assert [s.pipeline for s in cut.suggestions] == [first]
    assert any("time budget used up" in n for n in cut.notes), cut.notes
    sinks = sink_variables(trace)
    assert sink_bags(spark, rewritten(TWO_PIPELINES, cut.suggestions[0].cells), sinks) == \
        sink_bags(spark, TWO_PIPELINES, sinks)


def pipeline_of(result, sink_event: int) -> str:
    return next(s.pipeline for s in result.suggestions if s.sink_event == sink_event)


# 6. a UDF the model reads only in part: the note names what it does not read, and where
ISO_WEEK = [SETUP, 'WEEKEND = 6\n@F.udf("boolean")\ndef is_weekend(d):\n    week = d.isocalendar()\n'
                   '    return week[2] >= WEEKEND',
            'late = cases.withColumn("we", is_weekend("day")).filter(F.col("we"))']
WEEKDAY = [SETUP, 'WEEKEND = 6\n@F.udf("boolean")\ndef is_weekend(d):\n    return d is not None and d.isoweekday() >= WEEKEND',
           'late = cases.withColumn("we", is_weekend("day")).filter(F.col("we"))']


@pytest.mark.parametrize("cells,named", [(ISO_WEEK, "`d.isocalendar()` in `is_weekend` (cell ["),
                                         (WEEKDAY, None)], ids=["isocalendar is unknown", "isoweekday is read"])
def test_a_note_names_the_udf_code_the_model_does_not_read_with_its_cell_and_line(shell, spark, cells, named):
    trace = traced(shell, cells)
    result = optimize_trace(trace, cells)
    boxes = [n for n in result.notes if "not modelled" in n]
    if named is None:
        assert boxes == [] and result.suggestions, result.notes
        sinks = sink_variables(trace)
        assert sink_bags(spark, rewritten(cells, result.suggestions[0].cells), sinks) == sink_bags(spark, cells, sinks)
    else:
        assert result.suggestions == () and len(boxes) == 1, result.notes
        assert named in boxes[0] and "line 4): not modelled" in boxes[0], boxes
