"""Edits the engine asks for, in terms of call sites; `rewrite.cells` turns them into new cell text.

AddFilter: put `.filter(<predicate>)` on the DataFrame expression at `site`.
  target="call": the call expression at `site` itself (e.g. `spark.read.parquet(p)` where the source is defined);
  target="receiver": the receiver of the method call at `site` (e.g. `sales` in `sales.withColumn(...)`),
  used when the source DataFrame feeds other code that must keep seeing every row;
  target="pandas_on_spark": the pandas-on-Spark read at `site` (`ps.read_parquet(p, index_col="id")`),
  whose Spark source it made and numbered in one call: the filter goes on that frame's Spark
  form, `.spark.apply(lambda sdf: sdf.filter(<predicate>), index_col=<index_col>)`, which
  Spark moves down to the scan (the row order the read added is read by nothing).
RemoveFilter: the call at `site` is `X.filter(...)` or `X.where(...)`; replace it by `X`.
OwnCopy: the late filter's pipeline copied before the late filter's statement, from the filtered
  read up to the late filter's input, under names of its own; the late filter's receiver renamed
  (rewrite/own_copy.py). Each CopiedStatement is a top-level assignment, copied with its target
  renamed, its reads of earlier copies renamed, and `.filter(<predicate>)` on the read at `filter_at`.
"""

from __future__ import annotations

from dataclasses import dataclass

from magicpush_lab.capture.trace import Site
from magicpush_lab.ir.expr import Expr


@dataclass(frozen=True)
class AddFilter:
    site: Site
    predicate: Expr
    target: str = "call"
    index_col: str | None = None  # target "pandas_on_spark": the read's index_col, as written


@dataclass(frozen=True)
class RemoveFilter:
    site: Site


@dataclass(frozen=True)
class CopiedStatement:
    span: Site  # the statement `name = <expression>` as the user wrote it
    target: str  # the copy's name
    renames: tuple[tuple[str, str], ...]  # names it reads that have copies: (original, copy)
    filter_at: Site | None = None  # the source's read in it, which gets the filter


@dataclass(frozen=True)
class OwnCopy:
    site: Site  # the late filter's call
    statements: tuple[CopiedStatement, ...]  # in the order they ran
    predicate: Expr
    receiver: str  # the late filter's receiver as written
    copy: str  # and the name of its copy


Edit = AddFilter | RemoveFilter | OwnCopy
