"""Every distribution's metadata agrees: one shared version, a compatible core lower bound,
the classifiers the index shows, a description and a readme."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORE = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
PLUGINS = sorted(p for p in (REPO / "plugins").glob("*/pyproject.toml"))


def test_the_core_is_named_harness_agent_core() -> None:
    assert CORE["name"] == "harness-agent-core"


@pytest.mark.parametrize("pyproject", PLUGINS, ids=lambda p: p.parent.name)
def test_each_plugin_shares_the_version_and_requires_a_compatible_core(pyproject: Path) -> None:
    project = tomllib.loads(pyproject.read_text())["project"]
    assert project["name"] == pyproject.parent.name
    assert project["version"] == CORE["version"], "every distribution is released with one version"
    bounds = [d for d in project["dependencies"] if re.match(r"harness-agent-core\b", d)]
    assert len(bounds) == 1, (
        f"{project['name']} must depend on harness-agent-core once: {project['dependencies']}"
    )
    major, minor = CORE["version"].split(".")[:2]
    assert bounds[0] == f"harness-agent-core>={major}.{minor}", bounds[0]
    for dependency in project["dependencies"]:
        assert re.search(r">=\s*\d", dependency), (
            f"{project['name']}: pin a lower bound for {dependency!r}"
        )
    assert "Typing :: Typed" in project["classifiers"]
    assert project["description"] and project["readme"] == "README.md"
    assert (pyproject.parent / "README.md").is_file()
    package = project["name"].replace("-", "_")
    assert (pyproject.parent / package / "py.typed").is_file()


def test_the_changelog_has_an_entry_for_the_current_version() -> None:
    changelog = (REPO / "CHANGELOG.md").read_text()
    assert f"## {CORE['version']}" in changelog
