"""``harness plugins`` imports only what plugin registration needs (issue 17).

Runs ``python -X importtime -m harness_core.cli plugins`` in a real subprocess, with every
plugin of this repository installed, and reads the modules it imported from the
``-X importtime`` report on stderr. No timing is asserted here (timings live in bench/).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

FORBIDDEN_PACKAGES = (
    "bashlex",
    "harness_core.testing",
    "yaml",
    "pytest",
    "_pytest",
    "anthropic",
    "openai",
    "claude_agent_sdk",
    "mcp",
    "harness_builtin.turn",
    "harness_builtin.models",
    "harness_builtin.session",
    "harness_codex._protocol",
    "harness_codex._session",
    "harness_rules._engine",
    "harness_rules._shell",
    "acp",
    "dbos",
    "sqlalchemy",
    "starlette",
    "uvicorn",
    "pydantic_ai",
)
"""A module is forbidden if its name is one of these or starts with one of these plus ``.``."""


_DUMP = """
import atexit, json, runpy, sys
out = sys.argv[1]
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
code = sys.argv[2]
if code.startswith("-m "):
    sys.argv = ["harness", *code.split()[2:]]
    runpy.run_module(code.split()[1], run_name="__main__")
else:
    exec(code)
"""
"""Runs ``-m MODULE ARGS`` or a statement, then writes ``sorted(sys.modules)`` as JSON at exit
(``-X importtime`` does not report every module an entry point's ``load()`` imports)."""


def _imported_modules(code: str, tmp_path: Path) -> list[str]:
    """Every module imported by ``code`` in a fresh interpreter: the ``-X importtime`` report on
    stderr plus ``sys.modules`` at exit."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", _DUMP, str(out), code],
        capture_output=True, text=True, env=env, timeout=300, check=False, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    modules = set(json.loads(out.read_text()))
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name != "imported package":
                modules.add(name)
    assert "harness_core" in modules and "json" in modules, "the module report was not read"
    return sorted(modules)


def _forbidden(modules: list[str]) -> list[str]:
    return sorted({m for m in modules for f in FORBIDDEN_PACKAGES if m == f or m.startswith(f + ".")})


def test_harness_plugins_imports_no_heavy_module(tmp_path: Path) -> None:
    modules = _imported_modules("-m harness_core.cli plugins", tmp_path)
    # Every plugin of this repo is discovered, so their plugin modules were imported.
    for plugin_module in ("harness_builtin.plugin", "harness_codex.plugin", "harness_rules.plugin"):
        assert plugin_module in modules
    assert _forbidden(modules) == []


DISCOVERY_DEFERRED = (
    # No pydantic model is built: pydantic itself (so its model machinery) and the core's
    # part models do not load; tools with hand-written schemas need neither.
    "pydantic",
    "pydantic_core",
    "harness_core.parts.models",
    # Tool packs declare tools without the JSON Schema library.
    "jsonschema",
    # Adapter plugins register their hooks without their settings, event and profile models.
    "harness_acp._settings",
    "harness_acp._events",
    "harness_acp._profiles",
    "harness_pi._settings",
    "harness_pi._events",
    "harness_claude_code._settings",
    "harness_claude_code._events",
    "harness_codex._settings",
    # harness-dbos registers its wrapper without the durable agent (and the core agent).
    "harness_dbos.durable_agent",
    "harness_dbos.client",
    "harness_core.agent.harness_agent",
    # Its package imports harness_dbos.launch (for the launch function), which imports
    # sqlite3, pickle and its SQLite stores (and the core's continuation store) when
    # launch() runs, not at discovery.
    "sqlite3",
    "_sqlite3",
    "pickle",
    "_pickle",
    "harness_dbos.claims",
    "harness_dbos.runtime_records",
    "harness_core.agent.continuation_store",
    # harness-sandbox-bwrap names its sandboxes without building the sandbox code (ctypes).
    "harness_sandbox_bwrap.sandbox",
    "ctypes",
    # The permission-mode policy needs the path resolver only, not the local sandbox.
    "harness_core.sandbox.local",
    "harness_core.sandbox.confinement",
    # Not a terminal: `harness plugins` draws its table without rich (the same characters).
    "rich",
)
"""What ``harness plugins`` no longer loads: registration needs none of it (issue 17)."""


def test_harness_plugins_builds_no_model_and_no_plugin_internals(tmp_path: Path) -> None:
    modules = _imported_modules("-m harness_core.cli plugins", tmp_path)
    for plugin_module in ("harness_acp.plugin", "harness_pi.plugin", "harness_claude_code.plugin",
                          "harness_dbos.plugin", "harness_tools_git.plugin", "harness_sandbox_bwrap.plugin"):
        assert plugin_module in modules
    loaded = sorted({m for m in modules for d in DISCOVERY_DEFERRED if m == d or m.startswith(d + ".")})
    assert loaded == []


def test_the_dbos_entry_point_module_imports_neither_sqlite3_nor_pickle(tmp_path: Path) -> None:
    modules = _imported_modules("import harness_dbos.plugin", tmp_path)
    assert "harness_dbos.launch" in modules  # the package imports it (for its launch function)
    assert [m for m in modules if m.split(".")[0] in ("sqlite3", "_sqlite3", "pickle", "_pickle")] == []


def test_import_harness_core_imports_no_heavy_module(tmp_path: Path) -> None:
    modules = _imported_modules("import harness_core", tmp_path)
    assert _forbidden(modules) == []
    assert "harness_builtin" not in modules


DEFERRED_BY_IMPORT = (
    "harness_core.parts",
    "harness_core.agent",
    "harness_core.adapter",
    "harness_core.plugins",
    "harness_core.tools",
    "jsonschema",
    "pydantic",
    "pluggy",
    "anyio",
    "attr",
    "attrs",
)
"""What ``import harness_core`` alone no longer loads: the root names are imported on first use."""


def test_import_harness_core_loads_no_submodule(tmp_path: Path) -> None:
    modules = _imported_modules("import harness_core", tmp_path)
    loaded = sorted({m for m in modules for d in DEFERRED_BY_IMPORT if m == d or m.startswith(d + ".")})
    assert loaded == []


def test_a_root_name_loads_its_submodule_only(tmp_path: Path) -> None:
    modules = _imported_modules("from harness_core import ToolKind", tmp_path)
    assert "harness_core.tools.definition" in modules
    # The tool-schema validator, the part models and the agent are not needed for this name.
    assert not [m for m in modules if m == "jsonschema" or m.startswith(("jsonschema.", "harness_core.agent."))]
    assert "harness_core.parts.models" not in modules


def test_every_root_name_resolves_and_is_listed() -> None:
    import harness_core

    assert sorted(harness_core.__all__) == sorted(set(harness_core.__all__))
    missing = [name for name in harness_core.__all__ if not hasattr(harness_core, name)]
    assert missing == []
    assert set(harness_core.__all__) <= set(dir(harness_core))
    lazy = vars(harness_core)["_LAZY"]  # the module's own table of what loads on first use
    assert set(harness_core.__all__) == set(lazy), set(harness_core.__all__) ^ set(lazy)


def test_no_root_name_is_also_a_submodule_name() -> None:
    """Importing ``harness_core.X`` sets the package attribute ``X`` to the module, which would
    then shadow a lazy root name ``X`` (``from harness_core import X`` gave the module)."""
    import pkgutil

    import harness_core

    submodules = {info.name for info in pkgutil.iter_modules(harness_core.__path__)}
    assert sorted(submodules & set(harness_core.__all__)) == []


def test_registering_the_core_plugins_defines_no_part_model(tmp_path: Path) -> None:
    modules = _imported_modules("from harness_core import create_plugin_manager; "
                                "create_plugin_manager(load_entry_points=False, env={})", tmp_path)
    assert "harness_core.plugins.defaults" in modules
    assert "harness_core.parts.models" not in modules
    assert not [m for m in modules if m == "jsonschema" or m.startswith("jsonschema.")]


def test_forbidden_matcher_can_fail() -> None:
    assert _forbidden(["bashlex.parser", "harness_core.testing", "harness_core.tools", "yamlx"]) == [
        "bashlex.parser",
        "harness_core.testing",
    ]


def test_harness_plugins_json_does_not_load_rich(tmp_path: Path) -> None:
    modules = _imported_modules("-m harness_core.cli plugins --json", tmp_path)
    assert "harness_core.cli.plugins_command" in modules
    assert [m for m in modules if m == "rich" or m.startswith("rich.")] == []
    assert [m for m in modules for d in DISCOVERY_DEFERRED if m == d or m.startswith(d + ".")] == []


def test_a_plugin_distribution_s_metadata_is_parsed_once(tmp_path: Path) -> None:
    import importlib.metadata
    from types import SimpleNamespace

    from harness_core.plugins.records import distribution_of

    info = tmp_path / "demo_dist-1.2.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: demo-dist\nVersion: 1.2\n\nA long description.\n")
    reads: list[int] = []

    class CountingDistribution(importlib.metadata.PathDistribution):
        @property
        def metadata(self) -> importlib.metadata.PackageMetadata:
            reads.append(1)
            return super().metadata

    assert distribution_of(SimpleNamespace(dist=CountingDistribution(info))) == ("demo-dist", "1.2")
    assert len(reads) == 1  # name and version from one parse (it was one parse each)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: demo-dist\n\n")
    assert distribution_of(SimpleNamespace(dist=CountingDistribution(info))) == ("demo-dist", None)
