"""Runtime availability checks and isolated home directories for runtime tests."""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

__all__ = [
    "KNOWN_RUNTIMES",
    "IsolatedHome",
    "make_isolated_home",
    "missing_runtime_reason",
    "runtime_required",
    "skip_unless_runtime",
]

KNOWN_RUNTIMES: Mapping[str, tuple[str, ...]] = {
    "claude": ("module:claude_agent_sdk", "exe:claude"),
    "claude-code": ("module:claude_agent_sdk", "exe:claude"),
    "codex": ("exe:codex",),
    "pi": ("exe:pi",),
    "codex-acp": ("exe:codex-acp",),
    "pi-acp": ("exe:pi-acp",),
    "acp": ("module:acp",),
    "node": ("exe:node",),
}
"""Runtime name -> alternatives, any one of which makes it available.

``exe:NAME`` is an executable on ``PATH``; ``module:NAME`` an importable Python
module (checked without importing it). Names not listed here may be written
``exe:NAME`` / ``module:NAME`` directly; a bare unknown name is an executable.
"""

_REQUIRE_ENV = "HARNESS_REQUIRE_RUNTIMES"


def _satisfied(requirement: str) -> bool:
    kind, _, target = requirement.partition(":")
    if kind == "module":
        try:
            return importlib.util.find_spec(target) is not None
        except (ImportError, ValueError):
            return False
    return shutil.which(target) is not None


def _describe(requirement: str) -> str:
    kind, _, target = requirement.partition(":")
    return f"Python module {target!r}" if kind == "module" else f"executable {target!r} on PATH"


def missing_runtime_reason(name: str) -> str | None:
    """``None`` when runtime ``name`` is installed, else why not (for a skip reason)."""
    if name.startswith(("exe:", "module:")):
        alternatives: tuple[str, ...] = (name,)
    else:
        alternatives = KNOWN_RUNTIMES.get(name, (f"exe:{name}",))
    if any(_satisfied(requirement) for requirement in alternatives):
        return None
    wanted = " or ".join(_describe(requirement) for requirement in alternatives)
    return f"runtime {name!r} is not installed (needs {wanted})"


def runtime_required(name: str) -> bool:
    """True when ``HARNESS_REQUIRE_RUNTIMES`` says a missing ``name`` must fail, not skip.

    The variable is ``1`` / ``all`` (every runtime) or a comma-separated list of names.
    """
    value = os.environ.get(_REQUIRE_ENV, "").strip()
    if value.lower() in ("1", "all", "true", "yes"):
        return True
    return name in {part.strip() for part in value.split(",") if part.strip()}


def skip_unless_runtime(*names: str) -> None:
    """Skip the calling test unless every runtime in ``names`` is installed.

    Under ``HARNESS_REQUIRE_RUNTIMES`` (see :func:`runtime_required`) a missing
    runtime fails the test instead, so CI notices a runtime it forgot to install.
    """
    import pytest

    for name in names:
        reason = missing_runtime_reason(name)
        if reason is None:
            continue
        if runtime_required(name):
            pytest.fail(f"{reason}, and {_REQUIRE_ENV} requires it", pytrace=False)
        pytest.skip(reason)


_DIRECTORIES: Mapping[str, str] = {
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
    "XDG_STATE_HOME": ".local/state",
    "XDG_CACHE_HOME": ".cache",
    "CLAUDE_CONFIG_DIR": ".claude",
    "CODEX_HOME": ".codex",
    "PI_CODING_AGENT_DIR": ".pi/agent",
}

_DROPPED_PREFIXES = ("ANTHROPIC_", "OPENAI_", "CODEX_", "CLAUDE_", "PI_", "XDG_")


class IsolatedHome(dict[str, str]):
    """Environment variables pointing a runtime at a fresh home directory.

    Keys: ``HOME``, ``XDG_CONFIG_HOME``, ``XDG_DATA_HOME``, ``XDG_STATE_HOME``,
    ``XDG_CACHE_HOME``, ``CLAUDE_CONFIG_DIR`` (``<home>/.claude``), ``CODEX_HOME``
    (``<home>/.codex``) and ``PI_CODING_AGENT_DIR`` (``<home>/.pi/agent``); every
    directory exists. ``path`` is the home directory.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        super().__init__(HOME=str(path))
        for variable, relative in _DIRECTORIES.items():
            directory = path / relative
            directory.mkdir(parents=True, exist_ok=True)
            self[variable] = str(directory)

    def environ(self, base: Mapping[str, str] | None = None, **extra: str) -> dict[str, str]:
        """A full environment for a runtime subprocess.

        Starts from ``base`` (default ``os.environ``), drops inherited credentials
        and runtime settings (``*_API_KEY``, ``ANTHROPIC_*``, ``OPENAI_*``,
        ``CODEX_*``, ``CLAUDE_*``, ``PI_*``, ``XDG_*``), then applies this home and
        ``extra``.
        """
        source = os.environ if base is None else base
        env = {
            key: value
            for key, value in source.items()
            if not key.endswith("_API_KEY") and not key.startswith(_DROPPED_PREFIXES)
        }
        env.update(self)
        env.update(extra)
        return env


def make_isolated_home(root: str | os.PathLike[str]) -> IsolatedHome:
    """Create ``root`` (and its config directories) and return its :class:`IsolatedHome`."""
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return IsolatedHome(path)
