"""The solver wrapper every verifier goes through: a time-out or `unknown` is never a proof."""

import pytest
import z3

from magicpush_lab.symbolic.solver import prove, satisfiable

x, y, z = z3.Ints("x y z")
POSITIVE = z3.And(x > 0, y > 0, z > 0)

# (claim, time limit in ms, proved?, counterexample expected?, what the reason says)
CASES = {
    "valid and easy: proved": (z3.Implies(x > 5, x > 3), 2000, True, False, ""),
    "false: a counterexample, no proof": (z3.Implies(x > 3, x > 5), 2000, False, True, "counterexample"),
    # true (Fermat, n = 3), and far beyond a millisecond of nonlinear integer search
    "valid but not decided in time: no proof": (
        z3.Implies(POSITIVE, x * x * x + y * y * y != z * z * z), 1, False, False, "no answer"),
}


@pytest.mark.parametrize("claim, limit, proved, has_model, reason", CASES.values(), ids=CASES.keys())
def test_prove_counts_only_a_decided_claim_as_proved(claim, limit, proved, has_model, reason):
    result = prove(claim, timeout_ms=limit)
    assert result.proved is proved
    assert (result.model is not None) is has_model
    assert reason in result.reason


def test_satisfiable_says_none_when_the_solver_runs_out_of_time():
    hard = z3.And(POSITIVE, x * x * x + y * y * y == z * z * z)
    assert satisfiable(hard, timeout_ms=1) is None
    assert satisfiable(z3.And(x > 1, x < 3), timeout_ms=2000) is True
    assert satisfiable(z3.And(x > 1, x < 2), timeout_ms=2000) is False
