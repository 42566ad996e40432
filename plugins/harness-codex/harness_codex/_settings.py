"""The checked settings of :func:`harness_codex.codex` and the MCP server shapes it accepts."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import attrs

from harness_core import HarnessConfigurationError

__all__ = ["HARNESS_ID", "NATIVE_SHELL", "NATIVE_PATCH", "CodexSettings", "check_mcp_servers"]

HARNESS_ID: Final = "codex"
NATIVE_SHELL: Final = "exec_command"
"""Codex 0.171.0's shell tool (``{cmd, ...}``); older builds called it ``shell``."""
NATIVE_PATCH: Final = "apply_patch"
"""Codex's freeform patch tool, offered for built-in model slugs such as ``gpt-5.5``."""

_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_KEYS: Final = frozenset({
    "model", "base_url", "api_key", "mcp_servers", "config", "codex_path", "home", "codex_home", "cwd",
    "env", "startup_timeout", "interrupt_timeout", "web_search",
})


def _mcp_error(name: str, field: str, problem: str) -> HarnessConfigurationError:
    return HarnessConfigurationError(f"codex(mcp_servers=...): server {name!r}: {field} {problem}")


def _strings(name: str, field: str, value: Any, *, mapping: bool) -> Any:
    if mapping:
        if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                     for k, v in value.items()):
            raise _mcp_error(name, field, "must map strings to strings")  # values never echoed
        return dict(value)
    if isinstance(value, str) or not all(isinstance(v, str) for v in value):
        raise _mcp_error(name, field, "must be a list of strings")
    return list(value)


def check_mcp_servers(servers: Any) -> dict[str, dict[str, Any]]:
    """Validate ``mcp_servers``: ``{name: {"command", "args"?, "env"?, "cwd"?}}`` (stdio) or
    ``{name: {"type": "http", "url", "headers"?}}``.

    Returns plain dicts. Raises :class:`HarnessConfigurationError` naming the server and the
    field; ``env`` and ``headers`` values (secrets) never appear in the message.
    """
    if servers is None:
        return {}
    if not isinstance(servers, Mapping):
        raise HarnessConfigurationError("codex(mcp_servers=...) must map server names to settings")
    checked: dict[str, dict[str, Any]] = {}
    for name, spec in servers.items():
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise HarnessConfigurationError(f"codex(mcp_servers=...): server name {name!r} must match [A-Za-z0-9_-]+")
        if not isinstance(spec, Mapping):
            raise _mcp_error(name, "settings", "must be a mapping")
        kind = spec.get("type", "stdio")
        if kind == "stdio":
            unknown = set(spec) - {"type", "command", "args", "env", "cwd"}
            command = spec.get("command")
            if not isinstance(command, str) or not command:
                raise _mcp_error(name, "command", "must be a non-empty string")
            entry: dict[str, Any] = {"command": command, "args": _strings(name, "args", spec.get("args", []),
                                                                        mapping=False)}
            if "env" in spec:
                entry["env"] = _strings(name, "env", spec["env"], mapping=True)
            if "cwd" in spec:
                if not isinstance(spec["cwd"], str | Path):
                    raise _mcp_error(name, "cwd", "must be a path")
                entry["cwd"] = str(spec["cwd"])
        elif kind == "http":
            unknown = set(spec) - {"type", "url", "headers"}
            url = spec.get("url")
            if not isinstance(url, str) or not url.startswith(("http://", "https://")):
                raise _mcp_error(name, "url", "must be an http(s) URL")
            entry = {"url": url}
            if "headers" in spec:
                entry["http_headers"] = _strings(name, "headers", spec["headers"], mapping=True)
        else:
            raise _mcp_error(name, "type", "must be 'stdio' or 'http'")
        if unknown:
            raise _mcp_error(name, ", ".join(sorted(unknown)), "is not a known field")
        checked[name] = entry
    return checked


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
    mcp_servers: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict, repr=False)
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
            raise HarnessConfigurationError(f"codex(): unknown setting {', '.join(map(repr, unknown))}")
        for key in ("model", "base_url", "api_key"):
            value = settings.get(key)
            if value is not None and (not isinstance(value, str) or not value):
                raise HarnessConfigurationError(f"codex({key}=...) must be a non-empty string")
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
            model=settings.get("model"), base_url=base_url, api_key=settings.get("api_key"),
            mcp_servers=check_mcp_servers(settings.get("mcp_servers")), config=dict(config),
            codex_path=_path(settings.get("codex_path"), "codex_path"), home=_path(settings.get("home"), "home"),
            codex_home=_path(settings.get("codex_home"), "codex_home"), cwd=_path(settings.get("cwd"), "cwd"),
            env=dict(env), startup_timeout=_positive(settings.get("startup_timeout"), "startup_timeout", 60.0),
            interrupt_timeout=_positive(settings.get("interrupt_timeout"), "interrupt_timeout", 10.0),
            web_search=web_search,
        )
