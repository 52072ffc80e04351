"""The one line a user needs from a failed cell's error: its first line, and, when that line
only says that something went wrong elsewhere, the line that says what.

Spark wraps the errors that matter: a Python UDF's exception raised on an executor arrives as
`PythonException: An exception was thrown from the Python worker:` with the exception at the
end of a traceback; a JVM call's as `Py4JJavaError: An error occurred while calling o42.count.`
with the Java exception and its `Caused by:` chain under it; a Spark Connect call's as
`<_InactiveRpcError of RPC that terminated with:` with the gRPC status and details further down.
Their first lines alone name the wrapper, never the cause.

Errors can quote connection strings and request headers: anything that looks like a credential
is replaced by `***` before the line is shown, logged or returned as JSON.

>>> error_line("PythonException", '''An exception was thrown from the Python worker:
... Traceback (most recent call last):
...   File "<stdin>", line 3, in f
... ModuleNotFoundError: No module named 'pyarrow'
... ''')
"An exception was thrown from the Python worker: ModuleNotFoundError: No module named 'pyarrow' (the executors' \
Python lacks it: set PYSPARK_PYTHON, where the session starts, to a Python that has it)"
>>> error_line("ValueError", "bad value\\nmore about it")
'bad value'
"""

from __future__ import annotations

import re

#: a terminal's colour codes, as kernels write them into error values and tracebacks
ANSI_CODES = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")

#: the longest line an error is shown as
MAX_CHARS = 500

_TRACEBACK = "Traceback (most recent call last):"
# a Python exception line: a (dotted) class name, then its message or nothing
_PY_EXCEPTION = re.compile(r"^[A-Za-z_][\w.]*(: .*)?$")
_CAUSED_BY = re.compile(r"^\s*Caused by: (.+)$")

# what a credential looks like where errors quote it; the name and separator are kept, so the
# line still says which setting was wrong
_SECRETS = [
    # the scheme's word and its value: "Bearer eyJ...", "Basic dXNlcjpw..."
    (re.compile(r"(?i)\b(Bearer|Basic)\s+[^\s'\",;)}\]]+"), r"\1 ***"),
    # a header or setting with a secret's name, in any quoting: "authorization: x",
    # ('x-api-key', 'x'), "api_key=x", "token=x" (an sc:// URL's parameters), "password": "x"
    (re.compile(r"(?i)\b(authorization|proxy-authorization|x-api-key|api[-_]?key|x-[\w-]*token|access[-_]?token"
                r"|refresh[-_]?token|token|password|passwd|secret|client[-_]?secret)"
                # a separator: ":" or "=", or a quoted pair's comma (a comma in prose is no pair)
                r"((?:['\"]?\s*[:=]|['\"]\s*,)\s*['\"]?)(?!\*\*\*|Bearer\b|Basic\b)[^\s'\",;&)}\]]+"), r"\1\2***"),
]


def redacted(text: str) -> str:
    """`text` with every credential it quotes replaced by `***`.

    >>> redacted("cannot reach sc://host:15002/;user_id=ann;token=abc123;use_ssl=true")
    'cannot reach sc://host:15002/;user_id=ann;token=***;use_ssl=true'
    >>> redacted("metadata [('authorization', 'Bearer eyJhbGciOi.x.y'), ('x-api-key', 'k-99')]")
    "metadata [('authorization', 'Bearer ***'), ('x-api-key', '***')]"
    """
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text


def error_line(ename: str, evalue: str | None) -> str:
    """The line to show for an error `ename: evalue` (the exception's whole text, as a kernel
    reports it): the first line, followed by the root cause when the first line is one of
    Spark's wrappers (see the module's doc); credentials masked, at most MAX_CHARS characters.

    >>> error_line("Py4JJavaError", '''An error occurred while calling o42.count.
    ... : org.apache.spark.SparkException: Job aborted.
    ... \\tat org.apache.spark.SparkContext.runJob(SparkContext.scala:2564)
    ... Caused by: java.io.FileNotFoundException: File file:/data/x.parquet does not exist
    ... \\t... 35 more''')
    'An error occurred while calling o42.count. Caused by: java.io.FileNotFoundException: File file:/data/x.parquet does not exist'
    """
    lines = [line.rstrip() for line in ANSI_CODES.sub("", evalue or "").splitlines()]
    first = next((line.strip() for line in lines if line.strip()), "")
    cause = _cause(ename, first, lines)
    line = f"{first} {cause}" if cause and cause not in first else first
    return redacted(line)[:MAX_CHARS]


def _cause(ename: str, first: str, lines: list[str]) -> str | None:
    """The line that says what went wrong, when `first` only says that something did."""
    if "Python worker" in first or (ename == "PythonException" and _TRACEBACK not in first):
        raised = python_exception(lines)
        if raised is not None and raised.startswith("ModuleNotFoundError"):
            # on a cluster, the executors run the Python PYSPARK_PYTHON names, not the kernel's
            raised += (" (the executors' Python lacks it: set PYSPARK_PYTHON, where the session starts, "
                       "to a Python that has it)")
        return raised
    if first.startswith("An error occurred while calling") or ename == "Py4JJavaError":
        return java_cause(lines)
    if "_InactiveRpcError" in first or "_MultiThreadedRendezvous" in first or "RPC that terminated" in first:
        return grpc_status(lines)
    return None


def python_exception(lines: list[str]) -> str | None:
    """The exception line of the last Python traceback in `lines`: what the worker raised (a
    chained exception's traceback comes after its cause's, so the last one is what was raised).

    >>> python_exception(["Traceback (most recent call last):", '  File "u.py", line 2, in f',
    ...                   "    1 / 0", "ZeroDivisionError: division by zero", "", "JVM stacktrace:",
    ...                   "org.apache.spark.SparkException: Job aborted"])
    'ZeroDivisionError: division by zero'
    """
    found = None
    inside = False
    for line in lines:
        if _TRACEBACK in line:
            inside = True
            continue
        if inside and line.strip() and not line[:1].isspace():
            if _PY_EXCEPTION.match(line):
                found = line.strip()
            inside = False
    return found


def java_cause(lines: list[str]) -> str | None:
    """The root cause of a Java exception's text: its last `Caused by:` (the Python exception
    when that is a Python worker's failure), else the exception line under the first one.

    >>> java_cause(["An error occurred while calling z:java.lang.Class.forName.",
    ...             ": java.lang.ClassNotFoundException: no.such.Cls", "\\tat java.base/java.lang.Class.forName0"])
    'java.lang.ClassNotFoundException: no.such.Cls'
    """
    causes = [m.group(1).strip() for m in map(_CAUSED_BY.match, lines) if m]
    python = python_exception(lines)
    if python and (not causes or "PythonException" in causes[-1]):
        return python
    if causes:
        return f"Caused by: {causes[-1]}"
    exception = next((line[2:].strip() for line in lines[1:] if line.startswith(": ")), None)
    return exception


def grpc_status(lines: list[str]) -> str | None:
    """`status = StatusCode.X, details = "..."` of a gRPC error's text.

    >>> grpc_status(["<_InactiveRpcError of RPC that terminated with:", "\\tstatus = StatusCode.UNAUTHENTICATED",
    ...              '\\tdetails = "invalid token"', '\\tdebug_error_string = "UNKNOWN:Error received from peer"', ">"])
    'status = StatusCode.UNAUTHENTICATED, details = "invalid token"'
    """
    parts = [line.strip() for line in lines if line.strip().startswith(("status = ", "details = "))]
    return ", ".join(parts) or None
