"""Spark ML's transformers and estimators: `model.transform(df)` and `estimator.fit(df)`.

Both run in the JVM, so no DataFrame method the tracer wraps sees them. Without this module a
transform's result would be an untraced DataFrame, tied to its input only through its plan (and
to a DataFrame the tracer may already have let go), and a fit would be invisible altogether:

- `transform(df)` is recorded as a step (op `unknown`: its plan is read like any untraced
  DataFrame's, a projection with the transformer's JVM functions) whose input is `df` and whose
  site is the call, so that a filter below it has a place in the notebook and a rebuild can call
  the same transformer again on new rows;
- `fit(df)` is recorded as a look at `df` whose rows leave Spark: the fitted model holds values
  computed from every row (quantiles, means, an index of the values seen), so a filter moved below
  `df` in place would change the model, and every row it gives later (placement refuses a
  DataFrame on the way that is looked at; rebuild.py refuses rows taken out).

Only the outermost call is recorded: a Pipeline's fit calls its stages' fit and transform.
"""

from __future__ import annotations

import functools
import sys
from typing import Any, Callable, Iterator

from magicpush_lab.capture.hooks import inside

#: the op of a transform's result: a DataFrame whose plan is read, not a call the IR names
TRANSFORM_OP = "unknown"
#: the action of a fit: the estimator reads every row of its input
FIT_ACTION = "fit"


def patches(tracer: Any) -> Iterator[tuple[type, str, Callable[[Any], Any]]]:
    """(class, method, wrapper maker) for hooks.Hooks to install; none when Spark ML cannot be
    imported (it needs NumPy)."""
    try:
        from pyspark.ml.base import Estimator, Transformer
    except ImportError:
        return
    yield Transformer, "transform", _transform(tracer)
    yield Estimator, "fit", _fit(tracer)


def _transform(tracer: Any) -> Callable[[Any], Any]:
    def make(original: Any) -> Any:
        @functools.wraps(original)
        def transform(transformer: Any, dataset: Any, *args: Any, **kwargs: Any) -> Any:
            caller = sys._getframe(1)
            if not tracer.should_record(caller):
                return original(transformer, dataset, *args, **kwargs)
            with inside():
                result = original(transformer, dataset, *args, **kwargs)
            try:
                tracer.record_step(TRANSFORM_OP, "transformer", (transformer, dataset, *args), kwargs, result,
                                   caller, "transform")
            except Exception as err:  # recording must never break the user's call
                tracer.warn(f"transform: {type(err).__name__}: {err}")
            return result

        return transform

    return make


def _fit(tracer: Any) -> Callable[[Any], Any]:
    def make(original: Any) -> Any:
        @functools.wraps(original)
        def fit(estimator: Any, dataset: Any, *args: Any, **kwargs: Any) -> Any:
            caller = sys._getframe(1)
            if not tracer.should_record(caller):
                return original(estimator, dataset, *args, **kwargs)
            try:
                if tracer.backend.is_dataframe(dataset):
                    tracer.record_inspection(FIT_ACTION, dataset, caller)
            except Exception as err:
                tracer.warn(f"fit: {type(err).__name__}: {err}")
            with inside():
                return original(estimator, dataset, *args, **kwargs)

        return fit

    return make
