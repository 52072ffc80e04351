"""Time-limited Z3 checks. A time-out or an `unknown` answer is never a proof.

>>> import z3
>>> x = z3.Int("x")
>>> prove(z3.Implies(x > 5, x > 3)).proved
True
>>> r = prove(z3.Implies(x > 3, x > 5))
>>> r.proved, r.model is not None
(False, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

DEFAULT_TIMEOUT_MS = 2000


@dataclass(frozen=True)
class Proof:
    proved: bool
    model: z3.ModelRef | None = None  # a counterexample when the claim is false
    reason: str = ""


def prove(claim: z3.BoolRef, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Proof:
    """Is `claim` valid (true for every assignment)? Checked as unsat of its negation."""
    solver = z3.Solver()
    solver.set("timeout", int(timeout_ms))
    solver.add(z3.Not(claim))
    answer = solver.check()
    if answer == z3.unsat:
        return Proof(True)
    if answer == z3.sat:
        return Proof(False, solver.model(), "counterexample found")
    return Proof(False, None, f"solver gave no answer within {timeout_ms} ms ({solver.reason_unknown()})")


def satisfiable(formula: z3.BoolRef, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> bool | None:
    """True/False when Z3 decides, None on time-out."""
    solver = z3.Solver()
    solver.set("timeout", int(timeout_ms))
    solver.add(formula)
    answer = solver.check()
    if answer == z3.sat:
        return True
    if answer == z3.unsat:
        return False
    return None
