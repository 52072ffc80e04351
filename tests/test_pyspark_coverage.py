"""docs/pyspark_coverage.md stays true: it names every public method of the installed PySpark's
DataFrame, GroupedData and DataFrameNaFunctions, and it is what scripts/coverage_table.py writes."""

from __future__ import annotations

import pathlib
import subprocess
import sys

from magicpush_lab.translate.coverage import COVERAGE, installed_classes, markdown, missing, public_names

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_every_public_method_of_the_installed_pyspark_is_in_the_table():
    assert missing() == {}


def test_the_table_checks_the_classes_it_describes():
    classes = installed_classes()
    assert set(classes) == set(COVERAGE)
    assert "filter" in public_names(classes["DataFrame"]) and "pivot" in public_names(classes["GroupedData"])
    # a method the table lacks is reported, by class
    assert missing({"DataFrame": type("Fake", (), {"frobnicate": None})}) == {"DataFrame": ["frobnicate"]}


def test_every_entry_says_what_the_call_becomes():
    assert all(text.strip() for entries in COVERAGE.values() for text in entries.values())


def test_the_doc_is_the_scripts_output():
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "coverage_table.py")], capture_output=True,
                         text=True, check=True, cwd=ROOT)
    assert out.stdout == markdown()
    assert (ROOT / "docs" / "pyspark_coverage.md").read_text() == out.stdout, \
        "run `python scripts/coverage_table.py --write`"
