"""The architecture's layering, as code: the import contracts in pyproject.toml hold, no module
reaches into another module's private names, and no package imports itself through its own
`__init__`.

Import cycles between modules are import-linter's to find (the `acyclic_siblings` contract):
for every package, its modules and subpackages import one another in one direction. What
import-linter cannot see is a package import: `from magicpush_lab.pushdown import body_walk`
runs `pushdown/__init__.py` first, but grimp records only the submodule it names. So where a
package's `__init__` re-exports a module that imports its siblings through the package, the
cycle `__init__ -> module -> __init__` is in no graph import-linter reads; this test counts
such imports itself.
"""

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


def _source_files() -> list[Path]:
    return [path for path in sorted(PACKAGE.rglob("*.py")) if "labextension" not in path.parts]


def test_no_module_imports_another_modules_private_names():
    found = [hit for path in _source_files() for hit in _private_imports(path)]
    assert found == []


# ----------------------------------------------------------------------------- package imports


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


PACKAGES = sorted(_module_name(path) for path in _source_files() if path.name == "__init__.py")


def _imported_from(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    """The module a `from ... import` statement names, relative levels resolved."""
    if not node.level:
        return node.module or ""
    parts = importer.split(".")
    base = parts[:len(parts) - node.level + (1 if is_package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def package_imports(source: str, importer: str, is_package: bool, packages: set[str]) -> set[tuple[str, str]]:
    """(importer, package) for each statement of `source` that imports from one of `packages`
    by naming the package itself: `from magicpush_lab.pushdown import body_walk` runs the
    package's `__init__` whatever it takes from it. `is_package`: `source` is an `__init__`."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            named = [_imported_from(node, importer, is_package)]
        elif isinstance(node, ast.Import):
            named = [alias.name for alias in node.names]
        else:
            continue
        found |= {(importer, module) for module in named if module in packages and module != importer}
    return found


def test_a_package_import_counts_as_an_import_of_its_init():
    source = ("from a.p import sibling\n"        # through the package: counted
              "from . import other\n"            # the same, written relative
              "from a.p.sibling import name\n"   # the module itself: grimp has it already
              "import a.q\n")                    # the package by name: counted
    assert package_imports(source, "a.p.walk", False, {"a", "a.p", "a.q"}) == {("a.p.walk", "a.p"),
                                                                             ("a.p.walk", "a.q")}
    assert package_imports("from . import walk\n", "a.p", True, {"a", "a.p"}) == set()


@pytest.fixture(scope="module")
def graph_with_package_imports():
    """grimp's graph of the project, with every package import counted as an import of the
    package's `__init__`."""
    import grimp

    graph = grimp.build_graph("magicpush_lab")
    packages = set(PACKAGES)
    for path in _source_files():
        found = package_imports(path.read_text(), _module_name(path), path.name == "__init__.py", packages)
        for importer, package in found:
            graph.add_import(importer=importer, imported=package)
    return graph


def _cycle_through(graph, package: str) -> list[str]:
    """A chain of imports from `package`'s `__init__` back to it, or [] where there is none."""
    for importer in sorted(graph.find_modules_that_directly_import(package)):
        chain = graph.find_shortest_chain(importer=package, imported=importer)
        if chain:
            return [*chain, package]
    return []


# a package whose __init__ takes part in an import cycle today, with why; each entry must fail
# (strict), so it is struck off as soon as the cycle is gone
@pytest.mark.parametrize("package", PACKAGES)
def test_no_package_imports_itself_through_its_init(graph_with_package_imports, package):
    cycle = _cycle_through(graph_with_package_imports, package)
    assert not cycle, "imports in a cycle: " + " -> ".join(cycle)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
