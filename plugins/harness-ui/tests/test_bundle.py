"""The committed chat page bundle matches its sources: ``frontend/build.mjs`` records the
sha256 of its inputs (sources, package.json, package-lock.json, build.mjs) and of each
output in ``harness_ui/static/BUILD_INPUTS.json``. Rebuild with
``plugins/harness-ui/scripts/build-frontend.sh`` after changing the front end."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FRONTEND = ROOT / "frontend"
STATIC = ROOT / "harness_ui" / "static"


def inputs() -> list[str]:
    sources = [p for p in (FRONTEND / "src").rglob("*") if p.is_file()]
    files = [*sources, FRONTEND / "package.json", FRONTEND / "package-lock.json", FRONTEND / "build.mjs"]
    return sorted(p.relative_to(FRONTEND).as_posix() for p in files)


def digest(paths: list[str]) -> str:
    hash_ = hashlib.sha256()
    for path in paths:
        hash_.update(path.encode() + b"\0")
        hash_.update((FRONTEND / path).read_bytes())
        hash_.update(b"\0")
    return hash_.hexdigest()


def test_the_bundle_was_built_from_the_committed_sources() -> None:
    record = json.loads((STATIC / "BUILD_INPUTS.json").read_text())
    assert record["inputs"] == inputs(), "the front end's files changed: run scripts/build-frontend.sh"
    assert record["inputs_sha256"] == digest(record["inputs"]), \
        "the front end's sources changed since the bundle was built: run scripts/build-frontend.sh"


def test_the_outputs_are_the_ones_the_build_wrote() -> None:
    record = json.loads((STATIC / "BUILD_INPUTS.json").read_text())
    for name, sha in record["outputs"].items():
        assert hashlib.sha256((STATIC / name).read_bytes()).hexdigest() == sha, f"{name} was changed by hand"


def test_the_bundle_uses_the_pinned_packages() -> None:
    record = json.loads((STATIC / "BUILD_INPUTS.json").read_text())
    package = json.loads((FRONTEND / "package.json").read_text())
    pinned = {**package["dependencies"], **package["devDependencies"]}
    for name, version in record["packages"].items():
        assert pinned[name] == version, f"{name}: bundle built with {version}, package.json pins {pinned[name]}"
