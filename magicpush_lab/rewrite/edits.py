"""Edits the engine asks for, in terms of call sites; `rewrite.cells` turns them into new cell text.

AddFilter: put `.filter(<predicate>)` on the DataFrame expression at `site`.
  target="call": the call expression at `site` itself (e.g. `spark.read.parquet(p)` where the source is defined);
  target="receiver": the receiver of the method call at `site` (e.g. `sales` in `sales.withColumn(...)`),
  used when the source DataFrame feeds other code that must keep seeing every row;
  target="pandas_on_spark": the pandas-on-Spark read at `site` (`ps.read_parquet(p, index_col="id")`),
  whose Spark source it made and numbered in one call: the filter goes on that frame's Spark
  form, `.spark.apply(lambda sdf: sdf.filter(<predicate>), index_col=<index_col>)`, which
  Spark moves down to the scan (the row order the read added is read by nothing);
  target="sql": the `spark.sql("...")` call at `site` reads the source through the temp view
  `view`: the predicate goes into the SQL text, where the query reads the view (rewrite/sql_text.py).
RemoveFilter: the call at `site` is `X.filter(...)` or `X.where(...)`; replace it by `X`.
OwnCopy: the late filter's pipeline copied before the late filter's statement, from the filtered
  read up to the late filter's input, under names of its own; the late filter's receiver renamed
  (rewrite/own_copy.py). Each CopiedStatement is a top-level assignment, copied with its target
  renamed, its reads of earlier copies renamed, and `.filter(<predicate>)` on the read at `filter_at`.
  `merged_copies` makes one copy of several, each filtering its own read, when they copy the same
  statements under the same names.
"""

from __future__ import annotations

from dataclasses import dataclass

from magicpush_lab.capture.trace import Site
from magicpush_lab.ir.expr import Expr, and_


@dataclass(frozen=True)
class AddFilter:
    site: Site
    predicate: Expr
    target: str = "call"
    index_col: str | None = None  # target "pandas_on_spark": the read's index_col, as written
    view: str | None = None  # target "sql": the temp view the query reads the source by


@dataclass(frozen=True)
class RemoveFilter:
    site: Site


@dataclass(frozen=True)
class CopiedStatement:
    span: Site  # the statement `name = <expression>` as the user wrote it
    target: str  # the copy's name
    renames: tuple[tuple[str, str], ...]  # names it reads that have copies: (original, copy)
    filter_at: Site | None = None  # the source's read in it, which gets the filter
    predicate: Expr | None = None  # that filter, when not the copy's own (a copy with several reads)


@dataclass(frozen=True)
class OwnCopy:
    site: Site  # the late filter's call
    statements: tuple[CopiedStatement, ...]  # in the order they ran
    predicate: Expr
    receiver: str  # the late filter's receiver as written
    copy: str  # and the name of its copy


Edit = AddFilter | RemoveFilter | OwnCopy


def merged_copies(copies: "list[OwnCopy]") -> "OwnCopy | None":
    """One OwnCopy doing what `copies` (of one late filter, each filtering another read) do: the
    union of their statements, each read filtered by its own copy's predicate. None when they
    differ on a statement they share (its copy's name, or two filters on one read).

    >>> a, b = Site(1, 1, 0, 1, 9), Site(1, 2, 0, 2, 9)
    >>> x = OwnCopy(Site(2, 1, 0, 1, 9), (CopiedStatement(a, "p_pushed", (), a),), "P", "p", "p_pushed")
    >>> y = OwnCopy(Site(2, 1, 0, 1, 9), (CopiedStatement(b, "q_pushed", (), b),), "Q", "p", "p_pushed")
    >>> [(s.target, s.predicate) for s in merged_copies([x, y]).statements]
    [('p_pushed', 'P'), ('q_pushed', 'Q')]
    >>> merged_copies([x, OwnCopy(x.site, (CopiedStatement(a, "p_pushed", (), a),), "Q", "p", "p_pushed")]) is None
    True
    """
    first = copies[0]
    if any((c.site, c.receiver, c.copy) != (first.site, first.receiver, first.copy) for c in copies):
        return None
    by_span: dict[Site, CopiedStatement] = {}
    for copy in copies:
        for st in copy.statements:
            mine = CopiedStatement(st.span, st.target, st.renames, st.filter_at,
                                   copy.predicate if st.filter_at is not None else None)
            seen = by_span.get(st.span)
            if seen is None:
                by_span[st.span] = mine
                continue
            if seen.target != mine.target or (seen.filter_at is not None and mine.filter_at is not None):
                return None
            by_span[st.span] = CopiedStatement(
                st.span, st.target, tuple(dict.fromkeys(seen.renames + mine.renames)),
                seen.filter_at or mine.filter_at, seen.predicate if seen.filter_at is not None else mine.predicate)
    statements = tuple(sorted(by_span.values(), key=lambda st: (st.span.execution_count, st.span.lineno)))
    return OwnCopy(first.site, statements, and_(*dict.fromkeys(c.predicate for c in copies)),
                   first.receiver, first.copy)
