"""The distributions install as wheels with plain pip, outside the uv workspace.

Builds every distribution with ``uv build``, creates fresh virtual environments with plain
``python -m venv`` and installs from the built wheels with plain ``pip`` (no workspace, no
editable installs, no package index: third-party wheels come from the wheelhouse that
``.ci/build-wheelhouse`` downloads). Then runs the installed ``harness`` command.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from harness_core.testing import runtime_required

REPO = Path(__file__).resolve().parents[2]
WHEELHOUSE = Path(os.environ.get("HARNESS_WHEELHOUSE", REPO / ".ci" / "wheelhouse"))

DISTRIBUTIONS = [
    "harness_agent_core",
    *sorted(
        p.name.replace("-", "_")
        for p in (REPO / "plugins").iterdir()
        if (p / "pyproject.toml").is_file()
    ),
]


def _need_tools() -> None:
    missing = [
        what
        for what, ok in (("uv", shutil.which("uv")), ("wheelhouse", WHEELHOUSE.is_dir()))
        if not ok
    ]
    if not missing:
        return
    reason = f"{' and '.join(missing)} missing (run .ci/build-wheelhouse for the wheelhouse)"
    if runtime_required("wheelhouse"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every distribution's wheel and sdist, built from this checkout by ``uv build``."""
    _need_tools()
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        ["uv", "build", "--all-packages", "--offline", "--quiet", "-o", str(out)],
        cwd=REPO,
        check=True,
        timeout=600,
    )
    return out


def _venv(where: Path) -> Path:
    # The base interpreter, not the workspace's: nothing of the workspace may leak in.
    base = Path(getattr(sys, "_base_executable", sys.executable))
    subprocess.run([str(base), "-m", "venv", str(where)], check=True, timeout=300)
    return where / "bin"


def _pip_install(bin_dir: Path, dist: Path, *names: str) -> None:
    subprocess.run(
        [
            str(bin_dir / "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-index",
            "--find-links",
            str(dist),
            "--find-links",
            str(WHEELHOUSE),
            *names,
        ],
        check=True,
        timeout=600,
    )


def _clean_env(tmp: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("VIRTUAL_ENV", "UV_", "PYTHONPATH"))
    }
    env["HOME"] = str(tmp)  # no user configuration leaks in
    return env


def _members(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        return archive.namelist()


def test_every_distribution_has_a_wheel_and_an_sdist_with_py_typed(dist: Path) -> None:
    for name in DISTRIBUTIONS:
        wheels = list(dist.glob(f"{name}-*.whl"))
        sdists = list(dist.glob(f"{name}-*.tar.gz"))
        assert len(wheels) == 1 and len(sdists) == 1, (name, sorted(p.name for p in dist.iterdir()))
        members = _members(wheels[0])
        package = "harness_core" if name == "harness_agent_core" else name
        assert f"{package}/py.typed" in members, f"{wheels[0].name} has no py.typed"
    builtin = _members(next(dist.glob("harness_builtin-*.whl")))
    assert "harness_builtin/demo/project/calc/test_stats.py" in builtin, (
        "the demo project is not shipped"
    )
    ui = _members(next(dist.glob("harness_ui-*.whl")))
    assert "harness_ui/static/app.js" in ui, "the front-end bundle is not shipped"


def test_core_sdist_holds_the_core_only(dist: Path) -> None:
    import tarfile

    sdist = next(dist.glob("harness_agent_core-*.tar.gz"))
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
    tops = {name.split("/")[1] for name in names if name.count("/") >= 1}
    assert "harness_core" in tops and "plugins" not in tops and "bench" not in tops, sorted(tops)


def test_core_and_two_plugins_install_with_plain_pip_and_run_the_demo(
    dist: Path, tmp_path: Path
) -> None:
    bin_dir = _venv(tmp_path / "venv")
    _pip_install(bin_dir, dist, "harness-agent-core", "harness-builtin", "harness-tools-git")
    env = _clean_env(tmp_path)
    listing = subprocess.run(
        [str(bin_dir / "harness"), "plugins", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
        cwd=tmp_path,
    )
    records = {record["distribution"]: record for record in json.loads(listing.stdout)["plugins"]}
    for distribution in ("harness-builtin", "harness-tools-git"):
        assert records[distribution]["status"] == "loaded", records[distribution]
    assert "harness-claude-code" not in records, (
        "a workspace plugin leaked into the fresh environment"
    )
    demo = subprocess.run(
        [str(bin_dir / "harness"), "demo", "--yes", "--workspace-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        cwd=tmp_path,
    )
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert "tests now      pass" in demo.stdout, demo.stdout


def test_the_core_alone_installs_and_names_the_plugin_the_demo_needs(
    dist: Path, tmp_path: Path
) -> None:
    bin_dir = _venv(tmp_path / "venv")
    _pip_install(bin_dir, dist, "harness-agent-core")
    env = _clean_env(tmp_path)
    listing = subprocess.run(
        [str(bin_dir / "harness"), "plugins", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
        cwd=tmp_path,
    )
    distributions = {record["distribution"] for record in json.loads(listing.stdout)["plugins"]}
    assert distributions == {"harness-agent-core"}, distributions
    demo = subprocess.run(
        [str(bin_dir / "harness"), "demo"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=tmp_path,
    )
    assert demo.returncode == 1, demo.stdout + demo.stderr
    assert "pip install harness-builtin" in demo.stderr, demo.stderr
    assert "Traceback" not in demo.stderr
