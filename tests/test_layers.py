"""The architecture's layering, as code: the import contracts in pyproject.toml hold, and no
module reaches into another module's private names."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "magicpush_lab"


def test_the_import_contracts_hold():
    command = shutil.which("lint-imports")
    if command is None:
        pytest.fail("lint-imports is not installed: pip install -e '.[test]'")
    done = subprocess.run([command, "--config", str(PACKAGE.parent / "pyproject.toml")], cwd=PACKAGE.parent,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def _private_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("magicpush_lab"):
            found += [f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {node.module}.{a.name}"
                      for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
    return found


def test_no_module_imports_another_modules_private_names():
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) if "labextension" not in path.parts
             for hit in _private_imports(path)]
    assert found == []


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
