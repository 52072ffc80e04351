from tests.test_udf_names import HEAD
from tests.cells import traced
from magicpush_lab.pipeline import optimize_trace
import magicpush_lab.pushdown.walk as W

def test_dbg(spark, shell, monkeypatch):
    _o = W.candidates_for
    def _c(*a, **k):
        v = _o(*a, **k); print("CANDS", type(a[0]).__name__, [str(x) for x in a[1:3]], [str(x) for x in v][:10]); return v
    monkeypatch.setattr(W, "candidates_for", _c)
    cells = [HEAD, 'hard = F.udf(lambda hours: 1 if hours is not None and hours > 38.8 else 0, IntegerType())\nw = people.withColumn("hw", hard(F.col("hours")))', 'out = w.filter(F.col("hw") == 1)']
    trace = traced(shell, cells)
    result = optimize_trace(trace, [c.source for c in trace.cells])
    print([s.predicate for s in result.suggestions], result.notes)
