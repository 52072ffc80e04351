"""The walk: a late filter moved toward the sources, operator by operator (paper, Section 5).

- `walk.py`: the walks (every filter, and join conditions' one-input conjuncts), composition
  of steps, refusals with reasons;
- `operators.py`: the one dispatch, operator -> candidate generator and category verifier;
- `proposals.py`: the order candidates are verified in (equivalence first, Algorithm 1 last);
- `alternatives.py`: other proved predicates for a source, for ranking on live data;
- `guards.py`: checks on what a walk pushed that the per-operator proofs cannot make;
- `shared_sources.py`: a source read by several branches, one disjunction at the source;
- `body_walk.py`: applyInPandas, the late filter walked through the pandas body;
- `records.py`: what a walk produces.
"""

from magicpush_lab.pushdown.operators import check
from magicpush_lab.pushdown.records import Pushed, Refusal, Step, WalkResult
from magicpush_lab.pushdown.walk import filters_to_push, join_conjuncts, late_filter, push_down, push_down_all

__all__ = ["Pushed", "Refusal", "Step", "WalkResult", "check", "filters_to_push", "join_conjuncts", "late_filter",
           "push_down", "push_down_all"]
