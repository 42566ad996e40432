"""Fixtures for the harness-tools-git tests: a real git repository and a real sandbox."""

from __future__ import annotations

import os
import subprocess
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path

import pytest

from harness_core import CommandResult, SandboxView
from harness_core.sandbox import LocalSandbox
from harness_core.testing import anyio_backend  # noqa: F401  (the shipped fixture: asyncio only)

# Commits made by the tests need an identity, whatever the machine's git configuration.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Ada Tester",
    "GIT_AUTHOR_EMAIL": "ada@example.invalid",
    "GIT_COMMITTER_NAME": "Ada Tester",
    "GIT_COMMITTER_EMAIL": "ada@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(cwd: Path, *args: str) -> str:
    """Run git for test set-up (outside the sandbox) and return its stdout."""
    result = subprocess.run(
        ["git", *args], cwd=cwd, env={**os.environ, **GIT_ENV}, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, f"git {' '.join(args)} failed: {result.stderr}"
    return result.stdout


def commit_file(repo: Path, path: str, content: str, message: str) -> None:
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8")
    git(repo, "add", path)
    git(repo, "commit", "-q", "-m", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with three commits on ``main``: README, src/app.py, a README update."""
    root = tmp_path / "workspace"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    commit_file(root, "README.md", "# Demo\n", "Initial commit")
    commit_file(root, "src/app.py", "print('hello')\n", "Add the app")
    commit_file(root, "README.md", "# Demo\n\nA demo project.\n", "Describe the project")
    return root


class RecordingSandbox:
    """A :class:`SandboxView` that records every command, then lets ``LocalSandbox`` run it."""

    def __init__(self, inner: SandboxView) -> None:
        self.inner = inner
        self.commands: list[str | list[str]] = []
        self.envs: list[Mapping[str, str] | None] = []

    @property
    def root(self) -> Path:
        return self.inner.root

    async def read_text_file(self, path: str) -> str:
        return await self.inner.read_text_file(path)

    async def write_text_file(self, path: str, content: str) -> None:
        await self.inner.write_text_file(path, content)

    async def run_command(
        self, command: str | list[str], *, timeout: float | None = None, env: Mapping[str, str] | None = None
    ) -> CommandResult:
        self.commands.append(command)
        self.envs.append(env)
        return await self.inner.run_command(command, timeout=timeout, env=env)


async def _sandbox_for(root: Path) -> AsyncIterator[RecordingSandbox]:
    local = LocalSandbox(root)
    try:
        yield RecordingSandbox(local.restricted())
    finally:
        await local.stop()


@pytest.fixture
async def sandbox(repo: Path) -> AsyncIterator[RecordingSandbox]:
    """The restricted view of a real ``LocalSandbox`` on ``repo``, recording commands."""
    async for view in _sandbox_for(repo):
        yield view


@pytest.fixture
async def plain_sandbox(tmp_path: Path) -> AsyncIterator[RecordingSandbox]:
    """A sandbox on a directory that is not a git repository."""
    root = tmp_path / "not-a-repo"
    root.mkdir()
    (root / "file.txt").write_text("x\n", encoding="utf-8")
    async for view in _sandbox_for(root):
        yield view


@pytest.fixture
def run_git() -> Callable[..., str]:
    """``run_git(cwd, *args) -> stdout``: git for test set-up, outside the sandbox."""
    return git


@pytest.fixture
def commit() -> Callable[[Path, str, str, str], None]:
    """``commit(repo, path, content, message)``: write, add and commit one file."""
    return commit_file
