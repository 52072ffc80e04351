"""Shared fixtures: one local SparkSession for the whole test run, and an IPython shell with the
tracer loaded."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spark():
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]")
               .appName("magicpush-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture()
def shell(spark):
    """(IPython shell, its tracer): cells run in it are traced as in a notebook's kernel."""
    from IPython.core.interactiveshell import InteractiveShell

    from magicpush_lab.kernel.extension import load, unload

    ip = InteractiveShell.instance()
    tracer = load(ip)
    ip.user_ns["spark"] = spark
    yield ip, tracer
    unload(ip)
