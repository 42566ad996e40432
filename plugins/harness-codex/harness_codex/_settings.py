"""The checked settings of :func:`harness_codex.codex` and the MCP server shapes it accepts."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import attrs

from harness_core import (
    HarnessConfigurationError,
    McpServerConfig,
    McpStdioServer,
    describe_unknown_names,
    parse_mcp_servers,
)

__all__ = ["HARNESS_ID", "NATIVE_PATCH", "NATIVE_SHELL", "CodexSettings", "codex_mcp_table"]

HARNESS_ID: Final = "codex"
NATIVE_SHELL: Final = "exec_command"
"""Codex 0.171.0's shell tool (``{cmd, ...}``); older builds called it ``shell``."""
NATIVE_PATCH: Final = "apply_patch"
"""Codex's freeform patch tool, offered for built-in model slugs such as ``gpt-5.5``."""

_KEYS: Final = frozenset({
    "model", "base_url", "api_key", "mcp_servers", "config", "codex_path", "home", "codex_home", "cwd",
    "env", "startup_timeout", "interrupt_timeout", "web_search",
})


def codex_mcp_table(servers: Mapping[str, McpServerConfig]) -> dict[str, dict[str, Any]]:
    """``[mcp_servers.<name>]`` tables for ``config.toml`` (codex 0.171.0 keys: ``command``,
    ``args``, ``env``, ``cwd`` for stdio; ``url``, ``http_headers`` for streamable HTTP)."""
    tables: dict[str, dict[str, Any]] = {}
    for name, server in servers.items():
        if isinstance(server, McpStdioServer):
            table: dict[str, Any] = {"command": server.command, "args": list(server.args)}
            if server.env:
                table["env"] = dict(server.env)
            if server.cwd:
                table["cwd"] = server.cwd
        else:
            table = {"url": server.url}
            if server.headers:
                table["http_headers"] = dict(server.headers)
        tables[name] = table
    return tables


def _path(value: Any, key: str) -> Path | None:
    if value is None:
        return None
    if not isinstance(value, str | Path):
        raise HarnessConfigurationError(f"codex({key}=...) must be a path")
    return Path(value).expanduser().resolve()


def _positive(value: Any, key: str, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise HarnessConfigurationError(f"codex({key}=...) must be a positive number of seconds")
    return float(value)


@attrs.frozen(kw_only=True)
class CodexSettings:
    """The factory settings, checked. See :func:`harness_codex.codex` for each one."""

    model: str | None = None
    base_url: str | None = None
    api_key: str | None = attrs.field(default=None, repr=False)
    mcp_servers: Mapping[str, McpServerConfig] = attrs.field(factory=dict)
    config: Mapping[str, Any] = attrs.field(factory=dict)
    codex_path: Path | None = None
    home: Path | None = None
    codex_home: Path | None = None
    cwd: Path | None = None
    env: Mapping[str, str] = attrs.field(factory=dict, repr=False)
    startup_timeout: float = 60.0
    interrupt_timeout: float = 10.0
    web_search: bool = False

    @classmethod
    def from_kwargs(cls, **settings: Any) -> CodexSettings:
        """Check keyword settings. Raises :class:`HarnessConfigurationError` naming a bad one."""
        unknown = sorted(set(settings) - _KEYS)
        if unknown:
            raise HarnessConfigurationError(describe_unknown_names("codex()", "setting", unknown, _KEYS))
        for key in ("model", "base_url", "api_key"):
            value = settings.get(key)
            if value is not None and (not isinstance(value, str) or not value):
                raise HarnessConfigurationError(f"codex({key}=...) must be a non-empty string")
        model = settings.get("model")
        if model is not None and ":" in model:
            provider, _, model = model.partition(":")
            if provider != "openai" or not model:
                raise HarnessConfigurationError(
                    f"codex(model=...): {settings['model']!r} names provider {provider!r}; Codex speaks the OpenAI "
                    "Responses API only (use 'openai:<model>' or '<model>', and base_url= for another endpoint)")
        base_url = settings.get("base_url")
        if base_url is not None and not base_url.startswith(("http://", "https://")):
            raise HarnessConfigurationError("codex(base_url=...) must be an http(s) URL ending in /v1")
        config = settings.get("config") or {}
        if not isinstance(config, Mapping) or not all(isinstance(k, str) for k in config):
            raise HarnessConfigurationError("codex(config=...) must map config.toml keys to values")
        env = settings.get("env") or {}
        if not isinstance(env, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
            raise HarnessConfigurationError("codex(env=...) must map strings to strings")
        web_search = settings.get("web_search", False)
        if not isinstance(web_search, bool):
            raise HarnessConfigurationError("codex(web_search=...) must be True or False")
        return cls(
            model=model, base_url=base_url, api_key=settings.get("api_key"),
            mcp_servers=parse_mcp_servers(settings.get("mcp_servers"), where="codex(mcp_servers=...)"),
            config=dict(config),
            codex_path=_path(settings.get("codex_path"), "codex_path"), home=_path(settings.get("home"), "home"),
            codex_home=_path(settings.get("codex_home"), "codex_home"), cwd=_path(settings.get("cwd"), "cwd"),
            env=dict(env), startup_timeout=_positive(settings.get("startup_timeout"), "startup_timeout", 60.0),
            interrupt_timeout=_positive(settings.get("interrupt_timeout"), "interrupt_timeout", 10.0),
            web_search=web_search,
        )
