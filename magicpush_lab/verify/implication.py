"""Whether one predicate keeps only rows another keeps: proved on one symbolic row.

>>> from magicpush_lab.ir.expr import Cmp, Col, Lit
>>> v = Col("v", 1, "int")
>>> implies(Cmp(">", v, Lit(5, "int")), Cmp(">", v, Lit(3, "int"))).proved
True
>>> implies(Cmp(">", v, Lit(3, "int")), Cmp(">", v, Lit(5, "int"))).proved
False
"""

from __future__ import annotations

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.symbolic.solver import DEFAULT_TIMEOUT_MS, Proof, prove


def implies(premise: X.Expr, conclusion: X.Expr, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Proof:
    """Every row `premise` keeps, `conclusion` keeps (NULL counts as false); a time-out is no
    proof. Raises NotModelled for an expression the encoder cannot model."""
    ev = Evaluator()
    row = SymbolicRow("r")
    claim = z3.Implies(truth(ev.eval(premise, row)), truth(ev.eval(conclusion, row)))
    return prove(z3.Implies(domain([row]), claim), timeout_ms)
