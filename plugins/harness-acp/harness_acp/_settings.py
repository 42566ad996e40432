"""The adapter factory's settings, checked once when the adapter is built."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

import attrs

from harness_core import (
    HarnessCapabilityUnsupportedError,
    HarnessConfigurationError,
    McpHttpServer,
    PermissionMode,
    describe_unknown_names,
    parse_mcp_servers,
)

from ._profiles import PROFILES, AgentProfile

__all__ = ["HARNESS_ID", "HOST_PREFIX", "HOST_SERVER", "AcpSettings"]

HARNESS_ID: Final = "acp"
"""The adapter's harness id (``HarnessAgent(harness="acp")``)."""

HOST_SERVER: Final = "harness"
"""Name of the relay MCP server carrying host tools (passed in ``session/new``)."""

HOST_PREFIX: Final = f"mcp__{HOST_SERVER}__"
"""How Codex-style agents name host tools on the model's wire (``mcp__harness__<tool>``)."""

_KNOWN: Final = (
    "agent", "command", "env", "cwd", "name", "permission_mode_mapping", "mcp_servers",
    "base_url", "model", "api_key", "home", "stderr", "startup_timeout", "cancel_timeout",
)


def _fail(name: str, message: str) -> HarnessConfigurationError:
    return HarnessConfigurationError(f"acp({name}=...): {message}")


def _str_mapping(value: object, name: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _fail(name, f"expected a mapping of str to str, got {type(value).__name__}")
    bad = [key for key, item in value.items() if not isinstance(key, str) or not isinstance(item, str)]
    if bad:
        # never echo the values: env may carry secrets
        raise _fail(name, f"keys and values must be strings; bad keys: {', '.join(map(repr, bad))}")
    return dict(value)


def _string_list(value: object, where: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise HarnessConfigurationError(f"{where}: expected a list of strings")
    return list(value)


def check_mcp_servers(value: object) -> dict[str, dict[str, Any]]:
    """Validate ``mcp_servers`` with the core's :func:`~harness_core.parse_mcp_servers` (stdio:
    ``{"command", "args", "env", "cwd"}``; HTTP: ``{"type": "http", "url", "headers"}``).

    Returns plain mappings (``type`` ``stdio`` or ``http``). Raises
    :class:`HarnessConfigurationError` naming the server and the field; ``env`` and
    ``headers`` values are never echoed.
    """
    servers: dict[str, dict[str, Any]] = {}
    for name, config in parse_mcp_servers(value, where="acp(mcp_servers=...)").items():
        if isinstance(config, McpHttpServer):
            servers[name] = {"type": "http", "url": config.url, "headers": dict(config.headers)}
        else:
            servers[name] = {"type": "stdio", "command": config.command, "args": list(config.args),
                             "env": dict(config.env), "cwd": config.cwd}
    return servers


def _mode_mapping(value: object, profile: AgentProfile | None, agent: str) -> dict[PermissionMode, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _fail("permission_mode_mapping", "expected {permission mode: agent session mode id}")
    mapping: dict[PermissionMode, str] = {}
    for mode, session_mode in value.items():
        try:
            parsed = PermissionMode.parse(mode)
        except ValueError as error:
            raise _fail("permission_mode_mapping", str(error)) from None
        if not isinstance(session_mode, str) or not session_mode:
            raise _fail("permission_mode_mapping", f"the session mode for {parsed.value!r} must be a non-empty string")
        if profile is not None and session_mode not in profile.session_modes:
            have = ", ".join(sorted(profile.session_modes)) or "none"
            raise HarnessCapabilityUnsupportedError(
                HARNESS_ID, f"permission mode {parsed.value!r} on agent {agent!r}",
                f"permission_mode_mapping maps it to session mode {session_mode!r}, which {agent} does not have "
                f"(its modes: {have})",
            )
        mapping[parsed] = session_mode
    return mapping


def _seconds(value: object, name: str, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise _fail(name, f"expected seconds > 0, got {value!r}")
    return float(value)


@attrs.frozen(kw_only=True)
class AcpSettings:
    """Settings of one ACP adapter (see :func:`harness_acp.acp`).

    Attributes:
        agent: the profile name (``codex-acp``, ``pi-acp``) or ``None`` for a plain command.
        profile: the :class:`AgentProfile`, or ``None``.
        command: the agent's argv (the profile's when not given).
        name: a display name for the agent (errors, ``repr``).
        env: environment overrides for the agent process.
        cwd: the workspace when the session has no sandbox.
        permission_mode_mapping: permission mode -> agent session mode id.
        mcp_servers: external MCP servers passed in ``session/new``.
        base_url / model / api_key / home: isolation for profiles that write the agent's
            config (a loopback model server, say); see ``docs/acp.md``.
        stderr: called with each line the agent writes to stderr.
        startup_timeout / cancel_timeout: seconds for ``initialize`` + ``session/new``, and for
            the agent to end a cancelled prompt before its process group is killed.
    """

    agent: str | None
    profile: AgentProfile | None
    command: tuple[str, ...]
    name: str
    env: Mapping[str, str] = attrs.field(factory=dict)
    cwd: Path | None = None
    permission_mode_mapping: Mapping[PermissionMode, str] = attrs.field(factory=dict)
    mcp_servers: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict)
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    home: Path | None = None
    stderr: Callable[[str], None] | None = None
    startup_timeout: float = 60.0
    cancel_timeout: float = 5.0

    @classmethod
    def from_kwargs(cls, **settings: Any) -> AcpSettings:
        """Check and normalize factory keyword settings.

        Raises:
            HarnessConfigurationError: an unknown setting or a bad value (the message names it).
            HarnessCapabilityUnsupportedError: a ``permission_mode_mapping`` entry the agent
                cannot honour (naming the agent and the mode).
        """
        unknown = sorted(set(settings) - set(_KNOWN))
        if unknown:
            raise HarnessConfigurationError(describe_unknown_names("acp()", "setting", unknown, _KNOWN))
        agent = settings.get("agent")
        profile: AgentProfile | None = None
        if agent is not None:
            if not isinstance(agent, str) or agent not in PROFILES:
                raise _fail("agent", f"unknown agent profile {agent!r}; known profiles: {', '.join(sorted(PROFILES))}")
            profile = PROFILES[agent]
        command = settings.get("command")
        if command is None:
            if profile is None:
                profile, agent = PROFILES["codex-acp"], "codex-acp"
            argv: tuple[str, ...] = profile.command
        else:
            if isinstance(command, str):
                command = command.split()
            if not isinstance(command, list | tuple) or not command or not all(isinstance(c, str) and c for c in command):
                raise _fail("command", "expected the agent's argv, a non-empty list of strings")
            argv = tuple(command)
        for key in ("base_url", "model", "api_key", "name"):
            item = settings.get(key)
            if item is not None and (not isinstance(item, str) or not item):
                raise _fail(key, "expected a non-empty string")
        if settings.get("base_url") is not None and (profile is None or not profile.writes_config):
            raise _fail("base_url", "only agent profiles that write the agent's config take base_url "
                        f"({', '.join(n for n, p in PROFILES.items() if p.writes_config)}); configure the agent yourself")
        stderr = settings.get("stderr")
        if stderr is not None and not callable(stderr):
            raise _fail("stderr", "expected a callable taking a line")
        label = settings.get("name") or agent or Path(argv[0]).name
        home, cwd = settings.get("home"), settings.get("cwd")
        for key, item in (("home", home), ("cwd", cwd)):
            if item is not None and not isinstance(item, str | os.PathLike):
                raise _fail(key, "expected a path")
        return cls(
            agent=agent, profile=profile, command=argv, name=str(label),
            env=_str_mapping(settings.get("env"), "env"),
            cwd=Path(cwd).expanduser() if cwd is not None else None,
            permission_mode_mapping=_mode_mapping(settings.get("permission_mode_mapping"), profile, str(label)),
            mcp_servers=check_mcp_servers(settings.get("mcp_servers")),
            base_url=settings.get("base_url"), model=settings.get("model"), api_key=settings.get("api_key"),
            home=Path(home).expanduser() if home is not None else None,
            stderr=stderr,
            startup_timeout=_seconds(settings.get("startup_timeout"), "startup_timeout", 60.0),
            cancel_timeout=_seconds(settings.get("cancel_timeout"), "cancel_timeout", 5.0),
        )
