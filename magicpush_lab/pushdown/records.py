"""What the walk produces: the proof steps that carried a predicate, the predicates that reached
a source, and why a filter stopped where it did. Immutable records, copied with `replace`."""

from __future__ import annotations

from dataclasses import dataclass, field

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P


@dataclass(frozen=True)
class Step:
    """One operator a predicate was pushed through, and how that step was proved."""

    operator: str
    category: str
    base_case_rows: int
    kind: str
    # Spark's own optimizer would not move the late filter's condition through this operator
    # (its PushDownPredicates rules stop there): see pushdown/walk.spark_stops_at
    spark_stops: bool = False


@dataclass(frozen=True)
class Waypoint:
    """Where a predicate passed on its way down: the traced DataFrame (`event`) whose rows it was
    a filter on, the traced operator reading that DataFrame (`consumer`, through its input
    `via_input`), the predicate there and the proof steps above it. When the source cannot take
    the filter (a DataFrame on the way feeds other code), the filter can go on the pipeline's
    own read of such a DataFrame instead, when the walk found it safe there (`unsafe`)."""

    event: int
    consumer: int | None
    via_input: int
    predicate: X.Expr
    steps: tuple[Step, ...]
    kind: str
    may_hide_errors: bool = False
    names_unique: bool = True  # the predicate's columns are named once in that DataFrame
    # why `predicate` placed here may still change the result where the per-operator proofs
    # cannot see it (integer overflow the original never computes, a gap of the model:
    # guards.why_unsafe), "" when it may go here; None until the walk is done and has checked it
    unsafe: str | None = None


@dataclass(frozen=True)
class Pushed:
    """A predicate that reached a source, and the proof steps that carried it there."""

    source: P.Source
    predicate: X.Expr
    steps: tuple[Step, ...]
    kind: str
    late_filter: P.Filter
    consumer: int | None  # trace event of the operator right above the source
    via_input: int  # which input of that operator the source feeds (0 = receiver)
    may_hide_errors: bool = False
    transferred: bool = False  # an extra predicate from predicate transfer across a join
    alternatives: tuple[X.Expr, ...] = ()  # other proved superset predicates for the same source
    # a source read by several branches: one entry per read, `predicate` their disjunction
    # (shared_sources.py)
    branches: tuple["Pushed", ...] = ()
    waypoints: tuple[Waypoint, ...] = ()  # from the late filter down, one per traced DataFrame passed


@dataclass(frozen=True)
class Refusal:
    """Why a filter stopped at an operator: the naive candidate and the input rows on which it
    changes the result, when the operator's verifier found them."""

    operator: str
    reason: str
    candidate: str = ""
    counterexample: dict = field(default_factory=dict)
    event: int | None = None  # the trace event of the operator that stopped the filter


@dataclass(frozen=True)
class AlreadyFiltered:
    """A predicate on its way down met a filter of the pipeline's own whose condition keeps only
    rows the predicate keeps: below it, the predicate would remove nothing more. Typically a
    filter applied at the source on an earlier run; never a failure."""

    event: int | None  # the trace event of that filter
    condition: X.Expr  # the filter's condition
    predicate: X.Expr  # what was pushed to it


@dataclass(frozen=True)
class LeftBehind:
    """A conjunct of a late filter that stays in it while the filter's other conjuncts move:
    walked alone, it stopped at `refusal`'s step for `refusal`'s reason."""

    conjunct: X.Expr
    refusal: Refusal


@dataclass
class WalkResult:
    pushed: list[Pushed] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    already: list[AlreadyFiltered] = field(default_factory=list)
    left_behind: list[LeftBehind] = field(default_factory=list)
