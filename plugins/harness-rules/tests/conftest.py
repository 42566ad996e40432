"""Fixtures for harness-rules tests: a real workspace with files and symlinks, a fake home."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest
from harness_rules import RulesPolicy


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@attrs.frozen
class Layout:
    """A workspace, a home and a directory outside both, under one temporary directory.

    ws/.env, ws/secrets/key.pem, ws/src/{a.py, sub/b.py}, ws/docs/readme.md, ws/out/,
    ws/src/env_link -> ../.env, ws/src/out_link -> <outside>/secret.txt,
    ws/src/outdir_link -> <outside>/dir, ws/harmless_link -> src/a.py,
    home/.ssh/id_rsa, home/notes/todo.txt, outside/secret.txt, outside/dir/data.txt.
    """

    base: Path
    ws: Path
    home: Path
    outside: Path

    @property
    def env(self) -> dict[str, str]:
        return {"HOME": str(self.home), "XDG_CONFIG_HOME": str(self.home / ".config")}

    def policy(self, rules: Mapping[str, Sequence[str]] | None = None, **kwargs: Any) -> RulesPolicy:
        kwargs.setdefault("env", self.env)
        kwargs.setdefault("cwd", self.ws)
        return RulesPolicy(rules, **kwargs)


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    base = tmp_path.resolve()
    ws, home, outside = base / "ws", base / "home", base / "outside"
    for directory in (ws / "secrets", ws / "src" / "sub", ws / "docs", ws / "out", ws / ".harness",
                      home / ".ssh", home / "notes", outside / "dir"):
        directory.mkdir(parents=True)
    files = {
        ws / ".env": "TOKEN=hunter2\n",
        ws / "secrets" / "key.pem": "-----BEGIN KEY-----\n",
        ws / "src" / "a.py": "print('a')\n",
        ws / "src" / "sub" / "b.py": "print('b')\n",
        ws / "docs" / "readme.md": "# docs\n",
        home / ".ssh" / "id_rsa": "private\n",
        home / "notes" / "todo.txt": "todo\n",
        outside / "secret.txt": "outside secret\n",
        outside / "dir" / "data.txt": "data\n",
    }
    for path, text in files.items():
        path.write_text(text)
    os.symlink("../.env", ws / "src" / "env_link")
    os.symlink(outside / "secret.txt", ws / "src" / "out_link")
    os.symlink(outside / "dir", ws / "src" / "outdir_link")
    os.symlink("src/a.py", ws / "harmless_link")
    return Layout(base, ws, home, outside)
