"""What a Codex session runs with: ``config.toml``, the environment, the command line and the
approval policy / sandbox pair for a permission mode.

Isolation (RUNTIMES.md §2): ``CODEX_HOME`` and ``HOME`` point at per-session folders, the
environment drops every inherited ``*_API_KEY``, ``*_TOKEN``, ``OPENAI_*``, ``ANTHROPIC_*``
and ``CODEX*`` variable, and the model endpoint is a provider written into ``config.toml``
whose key is passed in :data:`KEY_VARIABLE` only.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from harness_core import MAX_OUTPUT_CHARS

from ._settings import CodexSettings, codex_mcp_table

__all__ = ["DEFAULT_BASE_URL", "KEY_VARIABLE", "PROVIDER", "approval_and_sandbox", "argv", "config_toml",
           "environment", "to_toml", "untrusted_projects"]

PROVIDER: Final = "harness"
KEY_VARIABLE: Final = "HARNESS_CODEX_API_KEY"
DEFAULT_BASE_URL: Final = "https://api.openai.com/v1"
_DROPPED_PREFIXES: Final = ("CODEX", "OPENAI_", "ANTHROPIC_", "AZURE_OPENAI")
_DROPPED_SUFFIXES: Final = ("_API_KEY", "_TOKEN", "_ACCESS_KEY", "_SECRET")
_LEAN_FEATURES: Final = ("plugins", "multi_agent", "goals", "apps")
_UNASKED_FEATURES: Final = ("view_image", "unified_exec_tty")
"""Codex 0.171.0 features whose tool calls never reach an approval request: ``view_image``
reads a local file into the model's context, and ``write_stdin`` types into a command kept
open with ``tty: true`` (an approved ``sh``, a REPL...), which then runs whatever it reads.
Without a tty, a command's stdin is closed and ``write_stdin`` can only poll its output."""


def approval_and_sandbox(builtin_approvals: bool) -> tuple[str, str]:
    """The ``(approvalPolicy, sandbox)`` pair for ``thread/start`` / ``thread/resume``.

    With approvals the thread runs ``untrusted`` with ``danger-full-access``: codex 0.171.0 then
    sends ``item/commandExecution/requestApproval`` before every shell command (``ls`` too) and
    ``item/fileChange/requestApproval`` before every patch, so the host decides each call, and
    an approved call runs as approved (``untrusted`` is refused in ``config.toml`` but accepted
    on ``thread/start``). The ``read-only`` sandbox also asks for every call, but then runs
    some approved commands inside the read-only sandbox, so they fail. Without approvals,
    ``never`` and ``danger-full-access``: the runtime runs its built-ins freely.
    """
    return ("untrusted", "danger-full-access") if builtin_approvals else ("never", "danger-full-access")


def _key(name: str) -> str:
    return name if name.replace("_", "").replace("-", "").isalnum() else json.dumps(name)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str | Path):
        return json.dumps(str(value))
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def to_toml(data: Mapping[str, Any], prefix: str = "") -> str:
    """A small TOML writer: scalars first, then one ``[table]`` per nested mapping.

    Raises:
        TypeError: a value TOML cannot hold (``None``, objects).
    """
    lines = [f"{_key(k)} = {_value(v)}" for k, v in data.items() if not isinstance(v, Mapping)]
    text = "\n".join(lines) + ("\n" if lines else "")
    for name, table in data.items():
        if isinstance(table, Mapping):
            path = f"{prefix}.{_key(name)}" if prefix else _key(name)
            text += f"\n[{path}]\n" + to_toml(table, path)
    return text


def _merge(base: dict[str, Any], dotted: Mapping[str, Any]) -> None:
    for key, value in dotted.items():
        node = base
        *parents, leaf = key.split(".")
        for parent in parents:
            node = node.setdefault(parent, {})
        if isinstance(value, Mapping) and isinstance(node.get(leaf), dict):
            _merge(node[leaf], value)
        else:
            node[leaf] = value


TOOL_OUTPUT_TOKEN_LIMIT: Final = MAX_OUTPUT_CHARS // 2
"""``tool_output_token_limit`` in ``config.toml``: room for a host result the core cut at
:data:`harness_core.MAX_OUTPUT_CHARS` characters, whatever Codex's token estimate."""


def untrusted_projects(workspace: Path) -> dict[str, Any]:
    """``[projects."<dir>"] trust_level = "untrusted"`` for the workspace and every parent.

    Codex 0.171.0 otherwise loads a project's ``.codex/config.toml`` (found from the
    workspace up to its repository root): a checked-out repository then started its own MCP
    server (any command) with no approval. Marked untrusted, those files are ignored.
    """
    folders = dict.fromkeys([workspace, *workspace.parents, workspace.resolve(), *workspace.resolve().parents])
    return {str(folder): {"trust_level": "untrusted"} for folder in folders}


def config_toml(settings: CodexSettings, workspace: Path | None = None) -> str:
    """The session's ``config.toml``: model, the ``harness`` provider, MCP servers, overrides.

    ``settings.config`` keys may be dotted (``"model_providers.harness.request_max_retries"``)
    and override what the adapter writes. ``workspace`` and its parents are marked untrusted
    (:func:`untrusted_projects`).
    """
    data: dict[str, Any] = {}
    if workspace is not None:
        data["projects"] = untrusted_projects(workspace)
    if settings.model:
        data["model"] = settings.model
    data["model_provider"] = PROVIDER
    data["approval_policy"] = "never"
    data["sandbox_mode"] = "read-only"
    if not settings.web_search:
        data["web_search"] = "disabled"
    # Codex cuts tool outputs over this many tokens (about 4 characters each) out of the
    # middle; the core's 100,000-character cut must reach the model as the stream shows it.
    data["tool_output_token_limit"] = TOOL_OUTPUT_TOKEN_LIMIT
    data["model_providers"] = {PROVIDER: {
        "name": PROVIDER, "base_url": settings.base_url or DEFAULT_BASE_URL, "wire_api": "responses",
        "env_key": KEY_VARIABLE,
    }}
    if settings.mcp_servers:
        data["mcp_servers"] = codex_mcp_table(settings.mcp_servers)
    _merge(data, settings.config)
    return to_toml(data)


def environment(settings: CodexSettings, home: Path, codex_home: Path) -> dict[str, str]:
    """The complete process environment: the caller's, minus secrets and ``CODEX*``, plus isolation."""
    env = {k: v for k, v in os.environ.items()
           if not k.upper().startswith(_DROPPED_PREFIXES) and not k.upper().endswith(_DROPPED_SUFFIXES)}
    env.update(settings.env)
    env["HOME"] = str(home)
    env["CODEX_HOME"] = str(codex_home)
    key = settings.api_key or os.environ.get("OPENAI_API_KEY") or "harness-no-key"
    env[KEY_VARIABLE] = key
    return env


def argv(codex: Path, *, builtin_approvals: bool = True) -> list[str]:
    """``codex app-server`` with the lean features switched off (plugins, sub-agents, goals, apps).

    With approvals, the tools Codex runs without ever asking are switched off too
    (:data:`_UNASKED_FEATURES`): fail closed, since the host could neither approve nor deny them.
    """
    command = [str(codex), "app-server"]
    for feature in (*_LEAN_FEATURES, *(_UNASKED_FEATURES if builtin_approvals else ())):
        command += ["--disable", feature]
    return command
