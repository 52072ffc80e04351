"""The walk: a late filter moved toward the sources, operator by operator (paper, Section 5).

- `walk.py`: the walks (every filter, and join conditions' one-input conjuncts), composition
  of steps, refusals with reasons;
- `operators.py`: the one dispatch, operator -> candidate generator and category verifier;
- `proposals.py`: the order candidates are verified in (equivalence first, Algorithm 1 last);
- `alternatives.py`: other proved predicates for a source, for ranking on live data;
- `guards.py`: checks on what a walk pushed that the per-operator proofs cannot make;
- `shared_sources.py`: a source read by several branches, one disjunction at the source;
- `body_walk.py`: applyInPandas, the late filter walked through the pandas body;
- `pandas_tail.py`: a pandas filter after `toPandas()` as a Spark filter on the collected DataFrame;
- `records.py`: what a walk produces.

The names below are for callers outside the package. The modules inside import one another
by module (`from magicpush_lab.pushdown.records import Pushed`), never from here: this file
imports walk.py, which would otherwise import this file back.
"""

from magicpush_lab.pushdown.operators import check
from magicpush_lab.pushdown.records import Pushed, Refusal, Step, WalkResult
from magicpush_lab.pushdown.walk import (filters_to_push, join_conjuncts, late_filter, push_down, push_down_all,
                                         push_down_stacked)

__all__ = ["Pushed", "Refusal", "Step", "WalkResult", "check", "filters_to_push", "join_conjuncts", "late_filter",
           "push_down", "push_down_all", "push_down_stacked"]
