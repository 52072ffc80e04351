"""What a verification returns: proved or not, how, and a counterexample when not."""

from __future__ import annotations

from dataclasses import dataclass, field

EQUIVALENT = "equivalent"
SUPERSET = "superset"
#: how a reason starts when the symbolic model lacks part of the check (a NaN literal, say)
UNMODELLED = "cannot model: "


def unmodelled(err: Exception) -> str:
    """The reason for a check the model could not express."""
    return f"{UNMODELLED}{err}"


@dataclass(frozen=True)
class Verdict:
    """Outcome of checking one candidate G for one operator.

    counterexample: input tables (name -> rows as {column: value}) on which the
    two sides differ, taken from the solver's model; empty when proved.
    may_hide_errors: the original can raise on a row the rewrite filters out first.
    """

    proved: bool
    kind: str  # EQUIVALENT | SUPERSET
    category: str
    base_case_rows: int
    reason: str = ""
    counterexample: dict[str, list[dict[str, object]]] = field(default_factory=dict)
    may_hide_errors: bool = False
