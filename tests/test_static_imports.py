"""Static checks of the imports (ast, no code run): plugins use only the public API, and no
package has an import cycle.

* The non-test code of every plugin package (``plugins/*/harness_*/**.py``) imports from the
  core only ``harness_core`` (names in ``harness_core.__all__``), ``harness_core.testing``
  and ``harness_core.testing.conformance`` (names in their ``__all__``), and no other
  plugin; the core imports no plugin.
* Between the modules of ``harness_core``, and of each plugin package, there is no import
  cycle, function-local imports included; imports under ``if TYPE_CHECKING:`` do not count.
  An edge goes to the module named by the import (``from a.b import c`` goes to ``a.b.c``
  when that is a module, else to ``a.b``); the implicit import of parent packages does not
  count. Cycles are found with Tarjan's strongly connected components, and each one is
  printed with the import lines that make it.
"""

from __future__ import annotations

import ast
import importlib
import itertools
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

ROOT = Path(__file__).resolve().parents[1]


@attrs.frozen
class Import:
    """One import statement's target.

    Attributes:
        module: the absolute module imported from (``harness_core.parts.models``).
        names: the names imported from it (``()`` for ``import module``).
        line: the line number in the file.
        type_checking: the import sits under ``if TYPE_CHECKING:``.
    """

    module: str
    names: tuple[str, ...]
    line: int
    type_checking: bool


def module_name(path: Path, package_dir: Path) -> str:
    """The dotted module name of ``path`` inside the package rooted at ``package_dir``."""
    parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def python_files(package_dir: Path) -> list[Path]:
    """Every ``.py`` file of a package, sorted."""
    return sorted(p for p in package_dir.rglob("*.py") if "__pycache__" not in p.parts)


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def imports_of(path: Path, module: str) -> Iterator[Import]:
    """Every import of the file, function-local ones included, relative ones made absolute.

    Args:
        path: the file.
        module: its dotted module name (to resolve relative imports).
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    yield from _walk(tree.body, module, is_package, type_checking=False)


def _walk(body: list[ast.stmt], module: str, is_package: bool, *, type_checking: bool) -> Iterator[Import]:
    for node in body:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _walk(node.body, module, is_package, type_checking=True)
            yield from _walk(node.orelse, module, is_package, type_checking=type_checking)
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(alias.name, (), node.lineno, type_checking)
        elif isinstance(node, ast.ImportFrom):
            target = node.module or ""
            if node.level:
                base = module.split(".")
                if not is_package:
                    base = base[:-1]
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                target = ".".join([*base, target] if target else base)
            yield Import(target, tuple(a.name for a in node.names), node.lineno, type_checking)
        for child_body in _bodies(node):
            yield from _walk(child_body, module, is_package, type_checking=type_checking)


def _bodies(node: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The nested statement lists of ``node`` (function, class, if, try, with, loop bodies)."""
    for field in ("body", "orelse", "finalbody"):
        value = getattr(node, field, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            yield value
    for handler in getattr(node, "handlers", ()):
        yield handler.body
    for case in getattr(node, "cases", ()):
        yield case.body


# -- public API ----------------------------------------------------------------------------

PUBLIC_MODULES = ("harness_core", "harness_core.testing", "harness_core.testing.conformance", "harness_core.cli")
"""The core modules plugins may import from."""


def plugin_packages() -> list[Path]:
    """Every plugin's package directory (``plugins/<plugin>/harness_*``)."""
    return sorted(p.parent for p in (ROOT / "plugins").glob("*/harness_*/__init__.py"))


def _public_names(module: str) -> frozenset[str]:
    exported = getattr(importlib.import_module(module), "__all__", None)
    assert exported is not None, f"{module} has no __all__"
    return frozenset(exported)


def public_api_violations(package_dir: Path) -> list[str]:
    """``file:line: what`` for every import of a non-public core name in ``package_dir``."""
    public = {name: _public_names(name) for name in PUBLIC_MODULES}
    others = {p.name for p in plugin_packages()} - {package_dir.name}
    found: list[str] = []
    for path in python_files(package_dir):
        where = (path.relative_to(ROOT) if path.is_relative_to(ROOT) else path).as_posix()
        for item in imports_of(path, module_name(path, package_dir)):
            if item.module.split(".")[0] in others:
                found.append(f"{where}:{item.line}: imports the plugin {item.module} (plugins never import each other)")
                continue
            if item.module != "harness_core" and not item.module.startswith("harness_core."):
                continue
            if item.module not in public:
                found.append(f"{where}:{item.line}: imports the non-public module {item.module}"
                             + (f" ({', '.join(item.names)})" if item.names else ""))
                continue
            hidden = [n for n in item.names if n != "*" and n not in public[item.module] and
                      f"{item.module}.{n}" not in public]
            if hidden:
                found.append(f"{where}:{item.line}: imports {', '.join(hidden)} from {item.module}, "
                             f"not in its __all__")
        found.extend(f"{where}:{line}: uses {what}, not in harness_core.__all__"
                     for line, what in _attribute_uses(path, public["harness_core"]))
    return found


def _attribute_uses(path: Path, exported: frozenset[str]) -> list[tuple[int, str]]:
    """``harness_core.<name>`` attribute uses (after ``import harness_core [as x]``) of names
    that are neither exported nor a public module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    aliases = {alias.asname or "harness_core" for node in ast.walk(tree) if isinstance(node, ast.Import)
               for alias in node.names if alias.name == "harness_core" or
               (alias.asname is None and alias.name.startswith("harness_core."))}
    uses = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                and node.attr not in exported and f"harness_core.{node.attr}" not in PUBLIC_MODULES):
            uses.append((node.lineno, f"harness_core.{node.attr}"))
    return uses


@pytest.mark.parametrize("package_dir", plugin_packages(), ids=lambda p: p.name)
def test_plugins_import_only_the_public_api(package_dir: Path) -> None:
    violations = public_api_violations(package_dir)
    assert not violations, "plugins may import only the public API:\n" + "\n".join(violations)


def test_the_public_api_check_can_fail(tmp_path: Path) -> None:
    package = tmp_path / "harness_fake"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from harness_core import HarnessAgent\n"
        "from harness_core.parts.models import TextPart\n"
        "def f():\n    from harness_core import _nope\n"
        "import harness_core.adapter\n"
        "from harness_core.testing import ScriptedAdapter\n"
        "import harness_core as hc\n"
        "hc.HarnessAgent, hc._private, hc.testing\n"
        "from harness_builtin import BuiltinAdapter\n", encoding="utf-8")
    violations = public_api_violations(package)
    assert [v.split(": ", 1)[1] for v in violations] == [
        "imports the non-public module harness_core.parts.models (TextPart)",
        "imports _nope from harness_core, not in its __all__",
        "imports the non-public module harness_core.adapter",
        "imports the plugin harness_builtin (plugins never import each other)",
        "uses harness_core._private, not in harness_core.__all__",
    ]


# -- import cycles -------------------------------------------------------------------------


def import_graph(package_dir: Path) -> dict[str, dict[str, int]]:
    """``{module: {imported module: line}}`` for the modules of one package (run-time imports)."""
    files = {module_name(p, package_dir): p for p in python_files(package_dir)}
    graph: dict[str, dict[str, int]] = {name: {} for name in files}
    for name, path in files.items():
        for item in imports_of(path, name):
            if item.type_checking:
                continue
            targets = [f"{item.module}.{n}" for n in item.names if f"{item.module}.{n}" in files]
            if len(targets) < len(item.names) or not item.names:
                targets.append(item.module)
            for target in targets:
                if target in files and target != name:
                    graph[name].setdefault(target, item.line)
    return graph


def strongly_connected(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Tarjan's algorithm (iterative): the components with more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def a_cycle(graph: dict[str, dict[str, int]], component: list[str]) -> list[str]:
    """One shortest cycle through the first module of ``component`` (breadth first)."""
    members = set(component)
    start = component[0]
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for child in sorted(graph[node]):
                if child not in members:
                    continue
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [start, *reversed(path[:-1]), start] if len(path) > 1 else [start, node, start]
                if child not in previous:
                    previous[child] = node
                    following.append(child)
        frontier = following
    raise AssertionError(f"no cycle in component {component}")  # pragma: no cover


def describe_cycles(graph: dict[str, dict[str, int]]) -> list[str]:
    """One paragraph per cycle: the modules in order, each hop with its import line."""
    out = []
    for component in strongly_connected(graph):
        cycle = a_cycle(graph, component)
        hops = [f"    {a} (line {graph[a][b]}) -> {b}" for a, b in itertools.pairwise(cycle)]
        extra = f" (component of {len(component)}: {', '.join(component)})" if len(component) > len(cycle) - 1 else ""
        out.append(f"cycle {' -> '.join(cycle)}{extra}\n" + "\n".join(hops))
    return out


CYCLE_PACKAGES = [ROOT / "harness_core", *plugin_packages()]


@pytest.mark.parametrize("package_dir", CYCLE_PACKAGES, ids=lambda p: p.name)
def test_no_import_cycles(package_dir: Path) -> None:
    cycles = describe_cycles(import_graph(package_dir))
    assert not cycles, f"import cycles in {package_dir.name}:\n" + "\n".join(cycles)


def test_the_cycle_check_can_fail(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "a.py").write_text("from pkg.b import x\n", encoding="utf-8")
    (package / "b.py").write_text("def f():\n    from . import c\n", encoding="utf-8")
    (package / "c.py").write_text("import pkg.a\n", encoding="utf-8")
    (package / "d.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n",
                                  encoding="utf-8")
    (package / "e.py").write_text("from pkg import d\n", encoding="utf-8")
    graph = import_graph(package)
    assert graph["pkg.b"] == {"pkg.c": 2} and graph["pkg.d"] == {} and graph["pkg.e"] == {"pkg.d": 1}
    [cycle] = describe_cycles(graph)
    assert cycle.splitlines() == [
        "cycle pkg.a -> pkg.b -> pkg.c -> pkg.a",
        "    pkg.a (line 1) -> pkg.b",
        "    pkg.b (line 2) -> pkg.c",
        "    pkg.c (line 1) -> pkg.a",
    ]


def test_the_core_imports_no_plugin() -> None:
    """Plugins depend on the core, never the other way round: no cycle can span packages."""
    plugins = {p.name for p in plugin_packages()}
    core = ROOT / "harness_core"
    found = [
        f"{path.relative_to(ROOT).as_posix()}:{item.line}: imports {item.module}"
        for path in python_files(core)
        for item in imports_of(path, module_name(path, core))
        if item.module.split(".")[0] in plugins
    ]
    assert not found, "the core imports plugins:\n" + "\n".join(found)
