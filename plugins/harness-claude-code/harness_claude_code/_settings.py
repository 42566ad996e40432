"""The adapter factory's settings, checked once when the adapter is built."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

import attrs

from harness_core import (
    HarnessConfigurationError,
    McpServerConfig,
    describe_unknown_names,
    parse_mcp_servers,
)

__all__ = ["HARNESS_ID", "HOST_PREFIX", "HOST_SERVER", "RESERVED_OPTIONS", "ClaudeCodeSettings"]

HARNESS_ID: Final = "claude-code"
"""The adapter's harness id (``HarnessAgent(harness="claude-code")``)."""

HOST_SERVER: Final = "harness"
"""Name of the in-process MCP server carrying host tools: Claude Code calls them
``mcp__harness__<tool>``."""

HOST_PREFIX: Final = f"mcp__{HOST_SERVER}__"
"""The prefix of host tool names as Claude Code sees them (``mcp__harness__``)."""

RESERVED_OPTIONS: Final[Mapping[str, str]] = {
    "can_use_tool": "approvals go through harness_approve_call",
    "hooks": "the adapter installs its own PreToolUse hook",
    "permission_mode": "use the agent's permission_mode",
    "permission_prompt_tool_name": "approvals go through harness_approve_call",
    "mcp_servers": "use the mcp_servers= setting",
    "env": "use the env= setting",
    "cwd": "use the session sandbox or the cwd= setting",
    "cli_path": "use the cli_path= setting",
    "model": "use the model= setting",
    "max_turns": "use the max_turns= setting",
    "resume": "use resume_from= on the session",
    "continue_conversation": "use resume_from= on the session",
    "session_id": "the adapter tracks Claude Code's session id",
    "fork_session": "not supported by the adapter",
    "resume_session_at": "not supported by the adapter",
    "include_partial_messages": "always on: text streams as deltas",
    "tools": "use active_tools / inactive_tools on the agent",
    "disallowed_tools": "use active_tools / inactive_tools on the agent",
    "allowed_tools": "allow rules would bypass harness_approve_call",
    "extra_args": "raw CLI flags could switch permissions off (--dangerously-skip-permissions, "
                  "--permission-mode); use a ClaudeAgentOptions field",
    "system_prompt": "use instructions= on the agent (appended to Claude Code's prompt)",
    "stderr": "use the stderr= setting",
}
"""``ClaudeAgentOptions`` fields the adapter sets itself, with the setting to use instead."""


def _path(value: object, name: str) -> Path | None:
    if value is None:
        return None
    if not isinstance(value, str | os.PathLike) or not str(value):
        raise HarnessConfigurationError(f"claude_code({name}=...): expected a path, got {value!r}")
    return Path(value).expanduser()


def _str_mapping(value: object, name: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise HarnessConfigurationError(f"claude_code({name}=...): expected a mapping of str to str, got {value!r}")
    bad = [key for key, item in value.items() if not isinstance(key, str) or not isinstance(item, str)]
    if bad:
        raise HarnessConfigurationError(
            f"claude_code({name}=...): keys and values must be strings; bad entries: {', '.join(map(repr, bad))}"
        )
    return dict(value)


def _mcp_servers(value: object) -> dict[str, McpServerConfig | dict[str, Any]]:
    """The core's server configs (:func:`~harness_core.parse_mcp_servers`), plus the SDK's own
    ``{"type": "sdk", "instance": ...}`` and ``{"type": "sse", "url": ...}`` entries."""
    where = "claude_code(mcp_servers=...)"
    if not isinstance(value, Mapping):
        return dict(parse_mcp_servers(value, where=where))
    sdk: dict[str, dict[str, Any]] = {}
    for name, config in value.items():
        if isinstance(config, Mapping) and config.get("type") in ("sdk", "sse"):
            entry = f"{where}[{name!r}]"
            if name == HOST_SERVER or not isinstance(name, str) or not name:
                raise HarnessConfigurationError(f"{entry}: the name {name!r} is reserved or empty")
            if "__" in name or f"mcp__{name}__".startswith(HOST_PREFIX):  # would pass as host tools
                raise HarnessConfigurationError(f"{entry}: a server name may not contain '__' (its tools, "
                                                f"mcp__{name}__<tool>, would be taken for host tools)")
            if config["type"] == "sdk" and config.get("instance") is None:
                raise HarnessConfigurationError(f"{entry}: an sdk server needs an 'instance' (create_sdk_mcp_server)")
            if config["type"] == "sse" and (not isinstance(config.get("url"), str) or not config["url"]):
                raise HarnessConfigurationError(f"{entry}: an sse server needs a non-empty 'url'")
            sdk[name] = dict(config)
    parsed = parse_mcp_servers({k: v for k, v in value.items() if k not in sdk}, where=where)
    return {name: sdk[name] if name in sdk else parsed[name] for name in value}


@attrs.frozen(kw_only=True)
class ClaudeCodeSettings:
    """Settings of one Claude Code adapter (see :func:`harness_claude_code.claude_code`).

    Build with :meth:`from_kwargs`, which checks every value and raises
    :class:`~harness_core.HarnessConfigurationError` naming the bad setting.
    """

    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    mcp_servers: Mapping[str, McpServerConfig | Mapping[str, Any]] = attrs.field(factory=dict)
    env: Mapping[str, str] = attrs.field(factory=dict)
    config_dir: Path | None = None
    home: Path | None = None
    cli_path: Path | None = None
    cwd: Path | None = None
    max_turns: int | None = None
    setting_sources: tuple[str, ...] | None = None
    stderr: Callable[[str], None] | None = None
    extra_options: Mapping[str, Any] = attrs.field(factory=dict)
    interrupt_timeout: float = 3.0

    @classmethod
    def from_kwargs(cls, **settings: Any) -> ClaudeCodeSettings:
        """Check and normalize factory keyword settings.

        Raises:
            HarnessConfigurationError: an unknown setting or a bad value (the message names it).
        """
        known = {field.name for field in attrs.fields(cls)}
        unknown = sorted(set(settings) - known)
        if unknown:
            raise HarnessConfigurationError(describe_unknown_names("claude_code()", "setting", unknown, known))
        for name in ("model", "base_url", "api_key"):
            value = settings.get(name)
            if value is not None and (not isinstance(value, str) or not value):
                raise HarnessConfigurationError(f"claude_code({name}=...): expected a non-empty string, got {value!r}")
        model = settings.get("model")
        if isinstance(model, str) and ":" in model:
            provider, _, name = model.partition(":")
            if provider != "anthropic" or not name:
                raise HarnessConfigurationError(
                    f"claude_code(model={model!r}): Claude Code talks to Anthropic models only; "
                    "give a model id ('claude-sonnet-4-5') or 'anthropic:<model id>'"
                )
            settings = {**settings, "model": name}
        max_turns = settings.get("max_turns")
        if max_turns is not None and (isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1):
            raise HarnessConfigurationError(f"claude_code(max_turns=...): expected a positive int, got {max_turns!r}")
        sources = settings.get("setting_sources")
        if sources is not None:
            if isinstance(sources, str) or not all(s in ("user", "project", "local") for s in sources):
                raise HarnessConfigurationError(
                    f"claude_code(setting_sources=...): expected a list of 'user', 'project', 'local', got {sources!r}"
                )
            sources = tuple(sources)
        stderr = settings.get("stderr")
        if stderr is not None and not callable(stderr):
            raise HarnessConfigurationError(f"claude_code(stderr=...): expected a callable taking a line, got {stderr!r}")
        timeout = settings.get("interrupt_timeout", 3.0)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout < 0:
            raise HarnessConfigurationError(f"claude_code(interrupt_timeout=...): expected seconds >= 0, got {timeout!r}")
        extra = settings.get("extra_options") or {}
        if not isinstance(extra, Mapping):
            raise HarnessConfigurationError(f"claude_code(extra_options=...): expected a mapping, got {extra!r}")
        for key in extra:
            if key in RESERVED_OPTIONS:
                raise HarnessConfigurationError(
                    f"claude_code(extra_options={{{key!r}: ...}}): set by the adapter; {RESERVED_OPTIONS[key]}"
                )
        cli_path = _path(settings.get("cli_path"), "cli_path")
        if cli_path is not None and not cli_path.exists():
            raise HarnessConfigurationError(f"claude_code(cli_path=...): {str(cli_path)!r} does not exist")
        return cls(
            model=settings.get("model"),
            base_url=settings.get("base_url"),
            api_key=settings.get("api_key"),
            mcp_servers=_mcp_servers(settings.get("mcp_servers")),
            env=_str_mapping(settings.get("env"), "env"),
            config_dir=_path(settings.get("config_dir"), "config_dir"),
            home=_path(settings.get("home"), "home"),
            cli_path=cli_path,
            cwd=_path(settings.get("cwd"), "cwd"),
            max_turns=max_turns,
            setting_sources=sources,
            stderr=stderr,
            extra_options=dict(extra),
            interrupt_timeout=float(timeout),
        )
