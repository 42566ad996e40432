"""Finding pi, and the isolated directory and command line of one pi process.

Every pi process the adapter starts gets its own temporary directory (:class:`PiHome`)::

    <tmp>/home/                  HOME
    <tmp>/home/.pi/agent/        PI_CODING_AGENT_DIR: models.json, settings.json, mcp.json
    <tmp>/sessions/              pi's session files (--session-dir / --session)
    <tmp>/harness-extension.mjs  the generated extension (-e)
    <tmp>/instructions.md        --append-system-prompt, when there are instructions

The environment is built from scratch: ``PATH`` (with ``node_path``'s folder first),
``HOME``, ``PI_CODING_AGENT_DIR``, ``PI_OFFLINE=1``, a few locale variables and the
``env=`` setting. No API key is inherited; ``api_key=`` reaches pi as
``HARNESS_PI_API_KEY``, which ``models.json`` names (``"apiKey": "$HARNESS_PI_API_KEY"``),
so the key is neither on the command line nor on disk.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import attrs

from harness_core import HarnessConfigurationError, McpServerConfig, McpStdioServer

from ._settings import PiSettings

__all__ = ["KEY_VARIABLE", "MARKER_VARIABLE", "PiHome", "find_pi", "path_env", "pi_version", "rpc_argv"]

KEY_VARIABLE: Final = "HARNESS_PI_API_KEY"
"""The environment variable carrying ``api_key=`` to pi."""

MARKER_VARIABLE: Final = "HARNESS_PI_HOME"
"""Set to the session's temporary directory in pi's environment; pi's tools inherit it, so
the adapter finds (and ends) every process a session started."""

_PASS_THROUGH: Final = ("LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "SYSTEMROOT")


def find_pi(settings: PiSettings) -> list[str] | None:
    """The argv prefix that runs pi (``["pi"]``, ``[node, cli.js]``), or ``None`` when there is none.

    ``pi_path`` (an executable, or pi's ``dist/cli.js``) else ``pi`` on ``PATH``. With
    ``node_path`` (or a ``.js`` file) pi's script runs under that node.
    """
    path = settings.pi_path
    if path is None:
        found = shutil.which("pi")
        if found is None:
            return None
        path = Path(found)
    if settings.node_path is not None or path.suffix in (".js", ".mjs"):
        node = str(settings.node_path) if settings.node_path is not None else (shutil.which("node") or "node")
        return [node, str(path.resolve())]
    return [str(path)]


@functools.lru_cache(maxsize=16)
def _version(prefix: tuple[str, ...], path_env: str) -> tuple[int, ...]:
    try:
        done = subprocess.run([*prefix, "--version"], capture_output=True, text=True, timeout=60,
                              env={"PATH": path_env, "HOME": tempfile.gettempdir(), "PI_OFFLINE": "1",
                                   "PI_CODING_AGENT_DIR": os.path.join(tempfile.gettempdir(), "harness-pi-probe")},
                              check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise HarnessConfigurationError(f"pi: cannot run {' '.join(prefix)} --version: {error}") from error
    match = re.search(r"(\d+)\.(\d+)\.(\d+)", done.stdout + done.stderr)
    if done.returncode != 0 or match is None:
        raise HarnessConfigurationError(
            f"pi: {' '.join(prefix)} --version failed (exit {done.returncode}): {(done.stderr or done.stdout).strip()[-300:]}"
        )
    return tuple(int(part) for part in match.groups())


def pi_version(prefix: Sequence[str], settings: PiSettings) -> tuple[int, ...]:
    """pi's version as ``(major, minor, patch)`` (cached per executable).

    Raises:
        HarnessConfigurationError: pi does not run.
    """
    return _version(tuple(prefix), path_env(settings))


def path_env(settings: PiSettings) -> str:
    """The ``PATH`` pi runs with: the host's, with ``node_path``'s folder first."""
    path = os.environ.get("PATH", os.defpath)
    if settings.node_path is not None:
        path = os.pathsep.join([str(settings.node_path.resolve().parent), path])
    return path


def _private_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)


def _mcp_entry(config: McpServerConfig) -> dict[str, Any]:
    """One ``mcp.json`` server entry (pi 1.x), with direct exposure (``mcp__<server>__<tool>``)."""
    if isinstance(config, McpStdioServer):
        entry: dict[str, Any] = {"command": config.command, "args": list(config.args), "env": dict(config.env)}
        if config.cwd is not None:
            entry["cwd"] = config.cwd
    else:
        entry = {"type": "http", "url": config.url, "headers": dict(config.headers)}
    entry["exposure"] = "direct"
    return entry


@attrs.define
class PiHome:
    """The temporary directory of one harness session's pi processes (see the module docs)."""

    root: Path

    @classmethod
    def create(cls, settings: PiSettings) -> PiHome:
        """Make the directory and write ``models.json``, ``settings.json`` and ``mcp.json``."""
        home = cls(Path(tempfile.mkdtemp(prefix="harness-pi-")))
        home.agent_dir.mkdir(parents=True)
        home.sessions_dir.mkdir()
        providers: dict[str, Any] = {}
        if settings.base_url is not None:
            providers[settings.provider_name or ""] = {
                "baseUrl": settings.base_url, "api": settings.api, "apiKey": f"${KEY_VARIABLE}",
                "models": [{"id": settings.model, "contextWindow": settings.context_window,
                            "maxTokens": settings.max_tokens, "reasoning": settings.reasoning,
                            "input": ["text", "image"]}],  # tool result images reach the model
            }
        elif settings.provider is not None and settings.api_key is not None:
            providers[settings.provider] = {"apiKey": f"${KEY_VARIABLE}"}  # a built-in provider's key
        _private_write(home.agent_dir / "models.json", json.dumps({"providers": providers}, indent=1))
        config: dict[str, Any] = {"quietStartup": True}
        retry = {key: value for key, value in (("maxRetries", settings.max_retries),
                                                ("baseDelayMs", settings.retry_delay_ms)) if value is not None}
        if retry:
            config["retry"] = retry
        if settings.keep_recent_tokens is not None:
            config["compaction"] = {"keepRecentTokens": settings.keep_recent_tokens}
        _private_write(home.agent_dir / "settings.json", json.dumps(config, indent=1))
        if settings.mcp_servers:
            servers = {name: _mcp_entry(config) for name, config in settings.mcp_servers.items()}
            _private_write(home.agent_dir / "mcp.json", json.dumps({"mcpServers": servers}, indent=1))
        return home

    @property
    def home(self) -> Path:
        """pi's ``HOME``."""
        return self.root / "home"

    @property
    def agent_dir(self) -> Path:
        """pi's ``PI_CODING_AGENT_DIR``."""
        return self.home / ".pi" / "agent"

    @property
    def sessions_dir(self) -> Path:
        """Where pi writes session files."""
        return self.root / "sessions"

    @property
    def session_file(self) -> Path:
        """The session file pi reads and appends to (``--session``)."""
        return self.sessions_dir / "session.jsonl"

    @property
    def extension_path(self) -> Path:
        """The generated extension."""
        return self.root / "harness-extension.mjs"

    def write_extension(self, source: str) -> Path:
        """Write the generated extension; returns its path."""
        _private_write(self.extension_path, source)
        return self.extension_path

    def write_instructions(self, text: str) -> Path:
        """Write the system-prompt addition to a file (pi reads a path given to ``--append-system-prompt``)."""
        path = self.root / "instructions.md"
        _private_write(path, text)
        return path

    def environ(self, settings: PiSettings) -> dict[str, str]:
        """The process environment (see the module docs); inherits no API key."""
        env = {name: os.environ[name] for name in _PASS_THROUGH if name in os.environ}
        env.update(PATH=path_env(settings), HOME=str(self.home), PI_CODING_AGENT_DIR=str(self.agent_dir),
                   PI_OFFLINE="1")
        env[KEY_VARIABLE] = settings.api_key or "harness-pi-no-key"
        env.update(settings.env)
        env[MARKER_VARIABLE] = str(self.root)
        return env

    @property
    def marker(self) -> str:
        """The environment entry (``NAME=value``) every process of this session carries."""
        return f"{MARKER_VARIABLE}={self.root}"

    def cleanup(self) -> None:
        """Remove the directory (idempotent)."""
        shutil.rmtree(self.root, ignore_errors=True)


def rpc_argv(prefix: Sequence[str], settings: PiSettings, home: PiHome, *, session_file: Path,
             excluded: Sequence[str], instructions: str | None, version: tuple[int, ...],
             extra_tools: Sequence[str] = (), extension: bool = True) -> list[str]:
    """The ``pi --mode rpc`` command line of one process.

    ``excluded`` are pi tool names pi must not offer (``--exclude-tools``); ``grep``,
    ``find`` and ``ls`` are switched on besides pi's default four. ``extension`` loads the
    generated extension (``-e``).
    """
    argv = [*prefix, "--mode", "rpc"]
    provider = settings.provider_name
    if provider is not None:
        argv += ["--provider", provider]
    if settings.model is not None:
        argv += ["--model", settings.model]
    if settings.thinking is not None:
        argv += ["--thinking", settings.thinking]
    argv += ["--session", str(session_file)]
    if extension:
        argv += ["-e", str(home.extension_path)]
    for other in settings.extensions:
        argv += ["-e", str(other)]
    wanted = [name for name in ("grep", "find", "ls") if name not in excluded]
    if version >= (1,):
        if wanted:
            argv += ["--tools", ",".join(f"+{name}" for name in wanted)]
        if excluded:
            argv += ["--exclude-tools", ",".join(excluded)]
    else:
        allowed = [n for n in ("read", "bash", "edit", "write", "grep", "find", "ls") if n not in excluded]
        argv += ["--tools", ",".join([*allowed, *extra_tools])]
    if instructions:
        argv += ["--append-system-prompt", str(home.write_instructions(instructions))]
    return argv

