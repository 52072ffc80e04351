"""Kernel side: the `%load_ext magicpush_lab` extension and what the frontend asks the kernel for.

The server (server/kernel_measure.py) and `driver.replay` read the trace with a silent
execute request whose `user_expressions` holds `protocol.TRACE_EXPRESSION` (the browser asks
only whether the kernel traces: `protocol.TRACE_STATUS_EXPRESSION`), measure predicates with
`protocol.measure_expression(requests)` and times a suggestion's pipeline with
`protocol.runtime_expression(request)`; all evaluate to objects whose mime bundle
carries the JSON.
"""

from __future__ import annotations

from magicpush_lab.kernel.bundles import measure_bundle, runtime_bundle, trace_bundle, trace_status

__all__ = ["measure_bundle", "runtime_bundle", "trace_bundle", "trace_status"]
