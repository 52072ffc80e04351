"""The pipeline's own copy, filtered at the read (rewrite/own_copy.py): the place of last resort,
when every DataFrame between the source and the late filter is also shown or read by other code.

Each case is a notebook traced in a real IPython shell; the suggestion's rewritten cells are run
again and every named DataFrame of the notebook (the one the late filter makes, and those other
code shows) must have the original's rows. A case that must not be copied says why in its title.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from magicpush_lab.pipeline import optimize_trace
from magicpush_lab.rewrite.cells import COPY_NOTE
from tests.cells import rewritten, rows_of, traced

HEAD = ('from pyspark.sql import functions as F\n'
        'sales = spark.createDataFrame([(i, i % 10, i % 7 if i % 11 else None) for i in range(200)], '
        '"id int, v int, s int")\n'
        'def doubled(v):\n    return None if v is None else v * 2\n'
        'double = F.udf(doubled, "int")')


@dataclass(frozen=True)
class Case:
    title: str
    cells: tuple[str, ...]
    copied: bool  # the suggestion for `sales` is the pipeline's own copy
    names: tuple[str, ...] = ("out", "agg")  # DataFrames whose rows must not change
    expect_lines: tuple[str, ...] = ()  # lines the copy must have


CASES = [
    Case("the late filter's input is shown: the pipeline is copied, filtered at the read",
         (HEAD,
          't = sales.withColumn("w", double("v"))\nagg = t.groupBy("w").agg(F.sum("s").alias("ss"))\n'
          'agg.show()',
          'out = agg.filter(F.col("w") > 14)'),
         True,
         expect_lines=('t_pushed = sales_pushed.withColumn("w", double("v"))',
                       'agg_pushed = t_pushed.groupBy("w").agg(F.sum("s").alias("ss"))',
                       'out = agg_pushed.filter(F.col("w") > 14)')),
    Case("an aggregate's output named as its input: not the filter Spark would move, so copied",
         (HEAD,
          'day = sales.groupBy("s").agg(F.max("v").alias("v"))\nday.orderBy("s").show()',
          'out = day.filter(F.col("v") >= 9)'),
         True, names=("out", "day"),
         expect_lines=('day_pushed = sales_pushed.groupBy("s").agg(F.max("v").alias("v"))',)),
    Case("must not copy: the late filter is one Spark moves to the read by itself (a key of the aggregate)",
         (HEAD,
          't = sales.withColumn("w", double("v"))\nagg = t.groupBy("v").agg(F.sum("w").alias("sw"))\n'
          'agg.show()',
          'out = agg.filter(F.col("v") > 7)'),
         False),
    Case("a filter on a window's order column after its top 3 per key: Spark does not pass the window, so copied",
         (HEAD,
          'from pyspark.sql import Window\n'
          'agg = (sales.withColumn("r", F.row_number().over(Window.partitionBy("s").orderBy(F.desc("v"), "id")))'
          '.filter(F.col("r") <= 3).select("s", "v", "id"))\nagg.show()',
          'out = agg.filter(F.col("v") >= 8)'),
         True, names=("out", "agg"),
         expect_lines=('out = agg_pushed.filter(F.col("v") >= 8)',)),
    Case("a window spec named in a cell of its own, by column name: the copy reads it as it is",
         (HEAD,
          'from pyspark.sql import Window\nt = sales.withColumn("w", double("v"))\n'
          'by_s = Window.partitionBy(F.col("s")).orderBy(F.desc("w"), "id")',
          'agg = t.withColumn("r", F.row_number().over(by_s)).filter(F.col("r") <= 3)\nagg.show()',
          'out = agg.filter(F.col("w") >= 16)'),
         True, names=("out", "agg"),
         expect_lines=('agg_pushed = t_pushed.withColumn("r", F.row_number().over(by_s)).filter(F.col("r") <= 3)',)),
    Case("a window spec holding a column of a copied DataFrame (t[\"s\"]) is copied too, reading the copy",
         (HEAD,
          'from pyspark.sql import Window\nt = sales.withColumn("w", double("v"))\n'
          'by_s = Window.partitionBy(t["s"]).orderBy(*[F.desc(c) for c in ["w"]], "id")',
          'agg = t.withColumn("r", F.row_number().over(by_s)).filter(F.col("r") <= 3)\nagg.show()',
          'out = agg.filter(F.col("w") >= 16)'),
         True, names=("out", "agg"),
         expect_lines=('by_s_pushed = Window.partitionBy(t_pushed["s"]).orderBy(*[F.desc(c) for c in ["w"]], "id")',
                       'agg_pushed = t_pushed.withColumn("r", F.row_number().over(by_s_pushed)).filter(F.col("r") <= 3)')),
    Case("must not copy: a window spec holding a column of a copied DataFrame is bound twice",
         (HEAD,
          'from pyspark.sql import Window\nt = sales.withColumn("w", double("v"))\n'
          'by_s = Window.partitionBy(t["s"]).orderBy(F.desc("w"), "id")\n'
          'if t.columns:\n    by_s = Window.partitionBy(t["s"]).orderBy(F.desc("w"), "id")',
          'agg = t.withColumn("r", F.row_number().over(by_s)).filter(F.col("r") <= 3)\nagg.show()',
          'out = agg.filter(F.col("w") >= 16)'),
         False, names=("out", "agg")),
    Case("must not copy: a filter on a window's partition key, which Spark passes by itself",
         (HEAD,
          'from pyspark.sql import Window\n'
          'agg = (sales.withColumn("r", F.row_number().over(Window.partitionBy("s").orderBy(F.desc("v"), "id")))'
          '.filter(F.col("r") <= 3).select("s", "v", "id"))\nagg.show()',
          'out = agg.filter(F.col("s") >= 4)'),
         False, names=("out", "agg")),
    Case("must not copy: a step reads the one before it through a temporary view in SQL text",
         (HEAD,
          't = sales.withColumn("w", double("v"))\nt.createOrReplaceTempView("t")\n'
          'agg = spark.sql("SELECT w, SUM(s) AS ss FROM t GROUP BY w")\nagg.show()',
          'out = agg.filter(F.col("w") > 14)'),
         False),
    Case("a name reassigned along the path gets a copy per assignment",
         (HEAD + '\ndf = sales.withColumn("w", double("v"))\ndf = df.withColumn("w2", F.col("w") + 1)',
          'agg = df.groupBy("w2").agg(F.count("*").alias("n"))\nagg.count()',
          'out = agg.filter(F.col("w2") >= 17)'),
         True,
         expect_lines=('df_pushed = sales_pushed.withColumn("w", double("v"))',
                       'df_pushed_2 = df_pushed.withColumn("w2", F.col("w") + 1)',
                       'agg_pushed = df_pushed_2.groupBy("w2").agg(F.count("*").alias("n"))')),
    Case("the source read twice (a join of a DataFrame with its own aggregate), the same filter proved for both",
         (HEAD,
          'data = sales.withColumn("w", F.col("v") * 2)\n'
          'top = data.groupBy(F.col("s").alias("g")).agg(F.max("v").alias("mv"))\n'
          'agg = data.join(top, data.v == top.mv).select("id", "v", "g", "mv")\nagg.show()',
          'out = agg.filter(F.col("mv") >= 8)'),
         True,
         expect_lines=('data_pushed = sales_pushed.withColumn("w", F.col("v") * 2)',)),
    Case("rows holding their group's maximum, joined on the value: Spark stops at the groupBy on the other side, so copied",
         (HEAD,
          'top = sales.groupBy("s").agg(F.max("v").alias("v"))\n'
          'agg = sales.join(top, ["s", "v"])\nagg.show()',
          'out = agg.filter(F.col("v") >= 8)'),
         True,
         expect_lines=('top_pushed = sales_pushed.groupBy("s").agg(F.max("v").alias("v"))',)),
    Case("must not copy: two reads of the source proved to take different filters",
         (HEAD,
          'a = sales.withColumn("w", F.col("v") * 2)\nb = sales.withColumn("w", F.col("s") * 3)\n'
          'agg = a.union(b)\nagg.show()',
          'out = agg.filter(F.col("w") > 14)'),
         False),
    Case("a constant a step reads is bound again before the late filter: its assignment is copied too",
         ('k = 2\n' + HEAD,
          't = sales.withColumn("w", double("v") * k)\nagg = t.groupBy("w").agg(F.sum("s").alias("ss"))\n'
          'agg.show()',
          'k = 100\nout = agg.filter(F.col("w") > 28)'),
         True, expect_lines=("k_pushed = 2", 't_pushed = sales_pushed.withColumn("w", double("v") * k_pushed)')),
    Case("must not copy: a constant a step reads is bound again, and was last made by `+=`",
         ('k = 1\nk += 1\n' + HEAD,
          't = sales.withColumn("w", double("v") * k)\nagg = t.groupBy("w").agg(F.sum("s").alias("ss"))\n'
          'agg.show()',
          'k = 100\nout = agg.filter(F.col("w") > 28)'),
         False),
    Case("a step that binds the name it joins to (t = t.join(...)): the statement that made t is copied too",
         (HEAD + '\nlookup = spark.createDataFrame([(i, i % 3) for i in range(10)], "v int, grp int")',
          't = lookup.withColumn("g2", F.col("grp") * 2)\nt = t.join(sales.withColumn("w", double("v")), "v")\n'
          'agg = t.groupBy("w").agg(F.sum("s").alias("ss"))\nagg.show()',
          'out = agg.filter(F.col("w") > 14)'),
         True,
         expect_lines=('t_pushed = lookup.withColumn("g2", F.col("grp") * 2)',
                       't_pushed_2 = t_pushed.join(sales_pushed.withColumn("w", double("v")), "v")')),
    Case("must not copy: the name a step joins to and binds again was made by unpacking, not a plain assignment",
         (HEAD + '\nlookup = spark.createDataFrame([(i, i % 3) for i in range(10)], "v int, grp int")',
          't, n = lookup.withColumn("g2", F.col("grp") * 2), 1\nt = t.join(sales.withColumn("w", double("v")), "v")\n'
          'agg = t.groupBy("w").agg(F.sum("s").alias("ss"))\nagg.show()',
          'out = agg.filter(F.col("w") > 14)'),
         False),
    Case("must not copy: a constant a step reads is bound again, and was made by a function of the notebook's",
         ('def pick():\n    return 2\nk = pick()\n' + HEAD,
          't = sales.withColumn("w", double("v") * k)\nagg = t.groupBy("w").agg(F.sum("s").alias("ss"))\n'
          'agg.show()',
          'k = 100\nout = agg.filter(F.col("w") > 28)'),
         False),
    Case("a DataFrame on the way takes the filter, but every row read would still run its Python UDF: copied",
         (HEAD,
          't = sales.withColumn("w", double("v"))\nt.show()\nu = t.withColumn("x", F.col("w") + 1)',
          'out = u.filter(F.col("w") > 14)'),
         True, names=("out", "u", "t"),
         expect_lines=('t_pushed = sales_pushed.withColumn("w", double("v"))', 'out = u_pushed.filter(F.col("w") > 14)')),
    Case("the late filter reads columns through its receiver (u.w): on the copy they are the copy's",
         (HEAD,
          't = sales.withColumn("w", double("v"))\nt.show()\nu = t.withColumn("x", F.col("w") + 1)',
          'out = u.filter((u.w > 14) & (u["x"] > 0))'),
         True, names=("out", "u"),
         expect_lines=('out = u_pushed.filter((u_pushed.w > 14) & (u_pushed["x"] > 0))',)),
    Case("must not copy: a DataFrame on the way takes the filter below every Python UDF",
         (HEAD,
          't = sales.withColumn("k", F.col("v") + 1)\nt.show()\nu = t.withColumn("w", double("v"))',
          'out = u.filter(F.col("w") > 14)'),
         False, names=("out", "u")),
    Case("must not copy: a step of the path is made in a loop",
         (HEAD,
          'parts = []\nfor m in (1, 2):\n    parts.append(sales.withColumn("m", F.lit(m)))\n'
          'agg = parts[0].union(parts[1]).withColumn("w", double("v")).groupBy("w").agg(F.count("*").alias("n"))\n'
          'agg.show()',
          'out = agg.filter(F.col("w") > 14)'),
         False),
]


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_own_copy_case(spark, shell, case: Case):
    trace = traced(shell, list(case.cells))
    result = optimize_trace(trace, [c.source for c in trace.cells])
    on_sales = [s for s in result.suggestions if s.source == "sales"]
    copies = [s for s in on_sales if any(COPY_NOTE in c.rewritten for c in s.cells)]
    if not case.copied:
        assert copies == [], [c.rewritten for s in copies for c in s.cells]
    else:
        assert len(copies) == 1, (result.notes, [s.predicate for s in on_sales])
        (s,) = copies
        assert s.kind == "superset" and [c.index for c in s.cells] == [len(case.cells) - 1]
        text = s.cells[0].rewritten
        assert text.index(COPY_NOTE) < text.index("sales_pushed = spark.createDataFrame(")
        assert f".filter({s.predicate})" in text
        for line in case.expect_lines:
            assert line in text.splitlines(), text
        # the cells before the late filter's are untouched: what they show is what they showed
        assert all(c.original == case.cells[c.index] for c in s.cells if c.index < len(case.cells) - 1)
    for s in [*on_sales, *result.together]:  # each suggestion alone, and each joint rewrite
        new = rewritten(list(case.cells), s)
        assert rows_of(spark, new, case.names) == rows_of(spark, list(case.cells), case.names), new


def test_a_joint_rewrite_copies_the_pipeline_with_the_filter_another_suggestion_put_on_the_way(spark, shell):
    """Two late filters in one pipeline, as in a notebook that filters, shows, then filters
    again: alone, the first one's filter goes on the way, the second one's into the pipeline's
    own copy; the joint rewrite keeps the first where it went and its copy filters its read by
    both (the pipeline reads only the copy, so the filter on the original steps alone would save
    it nothing)."""
    cells = [HEAD,
             'm = sales.select("id", "v", "s")\nm.groupBy("s").count().show()\n'
             'm = m.withColumn("w", double("v")).filter(F.col("s") == 3)\nm.show()',
             'agg = m.groupBy("w").agg(F.count("*").alias("n"))\nagg.show()',
             'out = agg.filter(F.col("w") > 14)']
    trace = traced(shell, cells)
    result = optimize_trace(trace, [c.source for c in trace.cells])
    joint = [t for t in result.together if any(COPY_NOTE in c.rewritten for c in t.cells)]
    assert len(joint) == 1, (result.notes, [(s.predicate, [c.index for c in s.cells]) for s in result.suggestions])
    copy = next(c.rewritten for c in joint[0].cells if COPY_NOTE in c.rewritten)
    (read,) = [line for line in copy.splitlines() if line.startswith("sales_pushed = ")]
    assert 'F.col("v") > 7' in read and 'F.col("s") == 3' in read, copy
    assert 'm_pushed.filter(F.col("s") == 3).withColumn(' in copy, copy  # copied as the cell became
    new = rewritten(cells, joint[0])
    assert rows_of(spark, new, ("out", "m", "agg")) == rows_of(spark, cells, ("out", "m", "agg")), new


def test_a_joint_rewrite_makes_one_copy_that_filters_each_source_of_a_join(spark, shell):
    """Two sources, each through its own aggregate, joined and shown, then filtered on both
    aggregates: each source's suggestion is its own copy of the pipeline; the joint rewrite is one
    copy with both reads filtered (each proved for whatever the other read gives)."""
    cells = [HEAD + '\nstores = spark.createDataFrame([(i % 7, i % 5) for i in range(40)], "s int, w int")',
             'a = sales.groupBy("s").agg(F.max("v").alias("top"))\n'
             'b = stores.groupBy("s").agg(F.max("w").alias("wtop"))\n'
             't = a.join(b, "s")\nt.show()',
             'out = t.filter((F.col("top") >= 9) & (F.col("wtop") >= 4))']
    trace = traced(shell, cells)
    result = optimize_trace(trace, [c.source for c in trace.cells])
    copies = [s for s in result.suggestions if any(COPY_NOTE in c.rewritten for c in s.cells)]
    assert sorted(s.source for s in copies) == ["sales", "stores"], result.notes
    (joint,) = result.together
    (last,) = [c for c in joint.cells if c.index == 2]
    assert last.rewritten.count(COPY_NOTE) == 1
    assert "t_pushed = a_pushed.join(b_pushed, \"s\")" in last.rewritten.splitlines(), last.rewritten
    new = rewritten(cells, joint)
    assert rows_of(spark, new, ("out", "t")) == rows_of(spark, cells, ("out", "t")), new

