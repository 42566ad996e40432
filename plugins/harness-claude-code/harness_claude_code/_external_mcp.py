"""External MCP servers on Claude Code: the SDK's config shapes, native filtering, kinds.

``claude_code(mcp_servers=...)`` takes the core's configs (:func:`harness_core.parse_mcp_servers`)
and, as before, the SDK's own ``{"type": "sdk", "instance": ...}`` (an in-process server made
with ``create_sdk_mcp_server``) and ``{"type": "sse", "url": ...}`` entries, passed through
unchanged. :func:`sdk_server_config` maps a core config to the SDK's
``McpStdioServerConfig`` / ``McpHttpServerConfig`` (a stdio ``cwd``, which Claude Code's
config lacks, becomes ``/bin/sh -c 'cd "$0" && exec "$@"'``). Claude Code names the tools
``mcp__<server>__<tool>``, the harness-facing name, and its ``disallowed_tools`` takes
server prefixes and full names (:func:`disallowed_mcp`). :class:`McpCatalog` keeps what the
CLI reports about the servers (``get_mcp_status``): each tool's kind (``readOnly``
annotation -> read-only, else edit) for approval requests and ``runtime_tools``, and the
servers that failed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from harness_core import (
    BuiltinFilter,
    BuiltinFilterMode,
    BuiltinTool,
    McpHttpServer,
    McpStdioServer,
    ToolKind,
    mcp_tool_name,
    split_mcp_name,
)

__all__ = ["McpCatalog", "disallowed_mcp", "sdk_server_config"]

_CD_EXEC = 'cd "$0" && exec "$@"'


def sdk_server_config(config: object) -> dict[str, Any]:
    """The ``ClaudeAgentOptions.mcp_servers`` entry for one server config."""
    if isinstance(config, McpStdioServer):
        command, args = config.command, list(config.args)
        if config.cwd is not None:
            command, args = "/bin/sh", ["-c", _CD_EXEC, config.cwd, config.command, *args]
        entry: dict[str, Any] = {"type": "stdio", "command": command, "args": args}
        if config.env:
            entry["env"] = dict(config.env)
        return entry
    if isinstance(config, McpHttpServer):
        entry = {"type": "http", "url": config.url}
        if config.headers:
            entry["headers"] = dict(config.headers)
        return entry
    assert isinstance(config, Mapping)
    return dict(config)


def disallowed_mcp(servers: Iterable[str], builtin_filter: BuiltinFilter | None) -> list[str]:
    """The MCP names to put in ``disallowed_tools`` so filtered-out tools are never offered.

    A denylist entry naming a configured server (prefix or full name) is disallowed as it
    is; under an allowlist, a server none of whose names is listed is disallowed whole.
    (An allowlist naming some tools of a server leaves its other tools offered; the core
    denies a call to them through the approval path.)
    """
    if builtin_filter is None:
        return []
    names = set(servers)
    if builtin_filter.mode is BuiltinFilterMode.INACTIVE:
        return sorted(n for n in builtin_filter.names if (p := split_mcp_name(n)) is not None and p[0] in names)
    listed = {p[0] for n in builtin_filter.names if (p := split_mcp_name(n)) is not None}
    return sorted(f"mcp__{server}" for server in names - listed)


def _secret_values(config: object) -> Iterable[str]:
    if isinstance(config, McpStdioServer):
        return config.env.values()
    if isinstance(config, McpHttpServer):
        return config.headers.values()
    if isinstance(config, Mapping):
        values = [*(config.get("env") or {}).values(), *(config.get("headers") or {}).values()]
        return [v for v in values if isinstance(v, str)]
    return []


class McpCatalog:
    """What the CLI reported about the external MCP servers of a session.

    Args:
        servers: the configured external servers (their ``env`` / ``headers`` values are
            replaced by ``***`` in any error text the CLI reports).
    """

    def __init__(self, servers: Mapping[str, object]) -> None:
        self._servers = frozenset(servers)
        self._secrets = [value for config in servers.values() for value in _secret_values(config) if value]
        self._tools: dict[str, BuiltinTool] = {}
        self._failed: dict[str, str] = {}
        self._reported: set[str] = set()

    def record(self, status: Mapping[str, Any]) -> None:
        """Take a ``get_mcp_status()`` answer (``{"mcpServers": [...]}``); only names,
        states, error texts and tool annotations are read (never a config's secrets)."""
        self._tools = {}
        for server in status.get("mcpServers") or []:
            name = server.get("name")
            if name not in self._servers:
                continue
            if server.get("status") == "failed":
                error = str(server.get("error") or "it did not start")
                for secret in self._secrets:
                    error = error.replace(secret, "***")
                self._failed[name] = error
            for tool in server.get("tools") or []:
                full = mcp_tool_name(name, str(tool.get("name")))
                read_only = bool((tool.get("annotations") or {}).get("readOnly"))
                self._tools[full] = BuiltinTool(name=full, native_name=full, description=str(tool.get("description") or ""),
                                                kind=ToolKind.READ_ONLY if read_only else ToolKind.EDIT)

    @property
    def tools(self) -> dict[str, BuiltinTool]:
        """The connected servers' tools, by ``mcp__<server>__<tool>``."""
        return dict(self._tools)

    def declaration(self, name: str) -> BuiltinTool | None:
        """The declaration of an external MCP tool (an edit when the CLI did not list it),
        or None for any other name."""
        parts = split_mcp_name(name)
        if parts is None or parts[0] not in self._servers or parts[1] is None:
            return None
        return self._tools.get(name) or BuiltinTool(name=name, native_name=name, kind=ToolKind.EDIT)

    def failures(self) -> list[str]:
        """Messages for servers that failed and were not reported yet (each names its server)."""
        out = [f"MCP server {name!r} failed to start: {error}; the session goes on without its tools"
               for name, error in self._failed.items() if name not in self._reported]
        self._reported.update(self._failed)
        return out

