"""The kernel protocol: how the server, the CLI's replay and the JupyterLab front end talk to
the kernel extension.

Every request is a silent execute request whose only work is one user expression; the
expression evaluates to an object whose mime bundle carries the answer as JSON under one of
the MIME types below. The front end's copies of these constants live in `src/tokens.ts`;
`tests/test_contract.py` keeps the two in step.

Nothing here imports the rest of the package: capture/, kernel/ and server/ all read it.

>>> measure_expression([{"source_event": 1}])
'__import__("magicpush_lab.kernel").kernel.measure_bundle("[{\\\\"source_event\\\\": 1}]")'
"""

from __future__ import annotations

import json
from typing import Any, Sequence

TRACE_MIME = "application/vnd.magicpush.trace+json"
#: whether the kernel traces and how much it holds, without the trace itself: what the front end
#: checks before it asks the server to optimize (the server pulls the trace from the kernel)
TRACE_STATUS_MIME = "application/vnd.magicpush.trace-status+json"
MEASURE_MIME = "application/vnd.magicpush.measure+json"
RUNTIME_MIME = "application/vnd.magicpush.runtime+json"
#: `%magicpush apply N`: the cells for the front end to rewrite (src/applyRenderer.ts)
APPLY_MIME = "application/vnd.magicpush.apply+json"

# Evaluated in the user's namespace, so it must not depend on names the user defined:
# `__import__` returns the top-level package with `kernel` imported, whatever the user's names.
TRACE_EXPRESSION = '__import__("magicpush_lab.kernel").kernel.trace_bundle()'
TRACE_STATUS_EXPRESSION = '__import__("magicpush_lab.kernel").kernel.trace_status()'


def measure_expression(requests: Sequence[dict[str, Any]]) -> str:
    """The user expression that measures `requests` in the kernel (kernel.measure_bundle); the
    requests travel as a string literal made by `json.dumps`, never as code."""
    return f'__import__("magicpush_lab.kernel").kernel.measure_bundle({json.dumps(json.dumps(list(requests)))})'


def runtime_expression(request: dict[str, Any]) -> str:
    """The user expression that times one suggestion's pipeline in the kernel (kernel.runtime_bundle)."""
    return f'__import__("magicpush_lab.kernel").kernel.runtime_bundle({json.dumps(json.dumps(request))})'
