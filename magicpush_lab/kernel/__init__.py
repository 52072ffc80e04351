"""Kernel side: the `%load_ext magicpush_lab` extension and what the frontend asks the kernel for.

The frontend (and `capture.replay`) reads the trace with a silent execute request
whose `user_expressions` holds `TRACE_EXPRESSION`, and measures predicates with
`measure_expression(requests)`, and times a suggestion's pipeline with
`runtime_expression(request)`; all evaluate to objects whose mime bundle
carries the JSON.
"""

from __future__ import annotations

from magicpush_lab.kernel.bundles import (
    MEASURE_MIME, RUNTIME_MIME, TRACE_EXPRESSION, TRACE_MIME, measure_bundle, measure_expression, runtime_bundle,
    runtime_expression, trace_bundle)

__all__ = ["MEASURE_MIME", "RUNTIME_MIME", "TRACE_EXPRESSION", "TRACE_MIME", "measure_bundle", "measure_expression",
           "runtime_bundle", "runtime_expression", "trace_bundle"]
