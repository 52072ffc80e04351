"""The front end's copies of the kernel protocol and of the JSON contract (src/tokens.ts) match
the Python side. TypeScript is read as text: no Node, Spark or JVM needed."""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from pathlib import Path

import pytest

from magicpush_lab import protocol
from magicpush_lab.suggestion import CellChange, OptimizeResult, ProofStep, Suggestion, Together

SRC = Path(__file__).resolve().parents[1] / "src"
# the contract's interfaces are generated into src/contract.ts, which src/tokens.ts re-exports
TOKENS = (SRC / "tokens.ts").read_text(encoding="utf-8") + "\n" + (SRC / "contract.ts").read_text(encoding="utf-8")


def ts_string(name: str) -> str:
    """The value of `export const NAME = '...'` (a single-quoted literal without escapes)."""
    match = re.search(rf"^export const {name} =\s*'([^'\\]*)';", TOKENS, re.M)
    assert match, f"src/tokens.ts has no string constant {name}"
    return match.group(1)


def ts_fields(interface: str) -> set[str]:
    """The top-level field names of `export interface NAME { ... }`; `name?:` counts as `name`.
    Prettier puts the interface's closing brace, and nothing nested, at the start of a line."""
    match = re.search(rf"^export interface {interface} \{{\n(.*?)^\}}", TOKENS, re.M | re.S)
    assert match, f"src/tokens.ts has no interface {interface}"
    return set(re.findall(r"^  (\w+)\??:", match.group(1), re.M))


@pytest.mark.parametrize("name", ["TRACE_STATUS_MIME", "APPLY_MIME", "TRACE_STATUS_EXPRESSION"])
def test_kernel_protocol_constants_match(name):
    assert ts_string(name) == getattr(protocol, name)


def test_every_mime_type_the_front_end_names_is_the_protocol_s():
    names = re.findall(r"^export const (\w+_MIME) =", TOKENS, re.M)
    assert {name: ts_string(name) for name in names} == {name: getattr(protocol, name) for name in names}


STEP = ProofStep("Filter", "ROW-TO-ROW", 1, "equivalent")
CELL = CellChange(0, "df.filter(f(x))", "df")
SUGGESTION = Suggestion("df", "x > 1", "equivalent", (STEP,), (CELL,), 0, {})


@pytest.mark.parametrize("interface, python_json", [
    ("ISuggestion", SUGGESTION.to_json()),
    ("IProofStep", asdict(STEP)),
    ("ICellChange", asdict(CELL)),
    ("ITogether", Together("df", "equivalent", (CELL,), 2).to_json()),
    ("IOptimizeResult", OptimizeResult((SUGGESTION,), 0.5).to_json(notebook="n.ipynb")),
    ("ITraceStatus", __import__("magicpush_lab.kernel").kernel.trace_status()._repr_mimebundle_()[
        protocol.TRACE_STATUS_MIME]),
])
def test_interface_fields_are_the_json_keys(interface, python_json):
    assert ts_fields(interface) == set(python_json)


# -- the route contract: one schema, the front end's types generated from it --------------------


def test_the_front_ends_types_are_generated_from_the_schema():
    import importlib.util

    spec = importlib.util.spec_from_file_location("contract_types", SRC.parent / "scripts" / "contract_types.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (SRC / "contract.ts").read_text(encoding="utf-8") == module.generate(), \
        "src/contract.ts is out of date: run python scripts/contract_types.py"


X_ABOVE_1 = {"kind": "Cmp", "op": ">", "left": {"kind": "Col", "name": "x", "id": 3, "dtype": "int"},
             "right": {"kind": "Lit", "value": 1, "dtype": "int"}}
PROVED = Suggestion("df", "F.col('x') > 1", "equivalent", (STEP,), (CELL,), 0, X_ABOVE_1, late_filter_event=2,
                    sink_event=2)
MEASURED = Suggestion("df", "F.upper(F.col('s')) == 'A'", "superset", (STEP,), (CELL,), 0,
                      {"kind": "Cmp", "op": "=", "left": {"kind": "Func", "name": "upper", "args": [
                          {"kind": "Col", "name": "s"}], "dtype": "string"},
                       "right": {"kind": "Lit", "value": "A", "dtype": "string"}},
                      alternatives=(PROVED,)).measured(1000, 10)


@pytest.mark.parametrize("definition, python_json", [
    ("OptimizeResult", OptimizeResult((PROVED, MEASURED), 0.5, notes=("n",)).to_json(notebook="n.ipynb")),
    ("OptimizeResult", OptimizeResult((), 0.1, together=(Together("df", "equivalent", (CELL,), 2),)).to_json()),
    ("Suggestion", MEASURED.to_json()),
    ("SuggestionIn", PROVED.to_json()),
])
def test_the_engines_answers_are_what_the_schema_describes(definition, python_json):
    from magicpush_lab.server.validation import validator

    errors = [e.message for e in validator(definition).iter_errors(json.loads(json.dumps(python_json)))]
    assert errors == []
