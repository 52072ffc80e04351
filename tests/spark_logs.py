"""What a classic session's JVM logs, read in the test process.

The JVM is a process of its own that PySpark started with the stderr it had then, so capturing
this process's output (capfd) never sees it. The same log events reach an extra appender on the
root logger, which a test reads: every event a logger lets through (one set to OFF lets none
through) is one the console, the kernel's output of a notebook, would have shown.
"""

from __future__ import annotations

import contextlib
import uuid
from typing import Any, Callable, Iterator

# what Spark says of a job the tool cancels ("ERROR ...: NoopBatchWrite is aborting", "WARN
# TaskSetManager: Lost task ... TaskKilled", "WARN DAGScheduler: Failed to cancel job group", a
# stack trace), none of which a user should see
NOISE = ("NoopBatchWrite", "ERROR", "TaskKilled", "Traceback", "Failed to cancel job group")
# the same in what the JVM logged while the tool alone ran jobs: nothing at WARN or above
LOGGED_NOISE = NOISE + ("WARN",)


@contextlib.contextmanager
def spark_log(spark: Any) -> Iterator[Callable[[], str]]:
    """A function returning the text the JVM has logged since entering, at the levels set."""
    jvm = spark.sparkContext._jvm
    log4j = jvm.org.apache.logging.log4j
    context = log4j.LogManager.getContext(False)
    config = context.getConfiguration()
    text = jvm.java.io.StringWriter()
    name = f"test-log-{uuid.uuid4().hex}"
    layout = log4j.core.layout.PatternLayout.newBuilder().withPattern("%p %c{1}: %m%n%ex").build()
    appender = log4j.core.appender.WriterAppender.createAppender(layout, None, text, name, False, True)
    appender.start()
    config.addAppender(appender)
    config.getRootLogger().addAppender(appender, None, None)
    context.updateLoggers()
    try:
        yield lambda: str(text.toString())
    finally:
        config.getRootLogger().removeAppender(name)
        context.updateLoggers()
        appender.stop()


def users_levels(spark: Any, names: tuple[str, ...]) -> tuple[str, dict[str, tuple[str, bool]]]:
    """The root logger's level, and each named logger's level and whether it has one of its own."""
    manager = spark.sparkContext._jvm.org.apache.logging.log4j.LogManager
    own = manager.getContext(False).getConfiguration().getLoggers()
    return str(manager.getRootLogger().getLevel()), {
        name: (str(manager.getLogger(name).getLevel()), bool(own.containsKey(name))) for name in names}
