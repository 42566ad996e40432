"""The MCP server configuration every adapter accepts, and MCP tool naming.

An agent's runtime can be given external MCP servers with ``mcp_servers={name: config}``
on any adapter factory (``builtin``, ``claude-code``, ``codex``, ``pi``, ``acp``). A config is
one of

* :class:`McpStdioServer`: a local process speaking MCP on stdin/stdout
  (``{"command": "...", "args": [...], "env": {...}, "cwd": "..."}``);
* :class:`McpHttpServer`: a streamable-HTTP MCP endpoint (``{"type": "http", "url": "...",
  "headers": {...}}``);

given as these objects or as plain mappings, checked by :func:`parse_mcp_servers`, which
raises one :class:`~harness_core.errors.HarnessConfigurationError` naming the server and the
field. ``env`` and ``headers`` usually hold secrets: their **values** never appear in an
error, a ``repr``, a log line, a stream part or suspended state (only their keys do).

MCP tools are known by their harness-facing name ``mcp__<server>__<tool>``
(:func:`mcp_tool_name`), the name Claude Code and pi use too; ``active_tools`` /
``inactive_tools`` also accept the server prefix ``mcp__<server>``, meaning every tool of
that server (:func:`mcp_name_matches`). Transport details follow the MCP specification
(modelcontextprotocol.io, "Transports": stdio and Streamable HTTP).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, TypeAlias

import attrs

from harness_core.errors import HarnessConfigurationError

__all__ = [
    "MCP_PREFIX",
    "McpHttpServer",
    "McpServerConfig",
    "McpStdioServer",
    "mcp_name_matches",
    "mcp_tool_name",
    "parse_mcp_servers",
    "split_mcp_name",
]

MCP_PREFIX = "mcp__"
"""Every MCP tool's harness-facing name starts with this."""

_SERVER_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*")
_RESERVED = frozenset({"harness"})
_STDIO_FIELDS = frozenset({"type", "command", "args", "env", "cwd"})
_HTTP_FIELDS = frozenset({"type", "url", "headers"})


def _secret_map(value: Mapping[str, str]) -> str:
    return "{" + ", ".join(f"{key!r}: '***'" for key in value) + "}"


def _frozen_strings(value: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType(dict(value))


@attrs.frozen(kw_only=True)
class McpStdioServer:
    """A local MCP server process (stdio transport).

    Attributes:
        command: the executable (looked up on ``PATH`` when not a path).
        args: its arguments.
        env: extra environment variables (values are secret: shown as ``'***'``).
        cwd: its working directory, or ``None`` for the session's work directory.
    """

    command: str
    args: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    env: Mapping[str, str] = attrs.field(factory=dict, converter=_frozen_strings, repr=_secret_map)
    cwd: str | None = None

    @property
    def transport(self) -> str:
        """``"stdio"``."""
        return "stdio"

    def describe(self) -> dict[str, Any]:
        """JSON data safe to show or store: ``env`` keys only, never their values."""
        return {"type": "stdio", "command": self.command, "args": list(self.args), "env_keys": sorted(self.env),
                "cwd": self.cwd}


@attrs.frozen(kw_only=True)
class McpHttpServer:
    """A remote MCP server (streamable HTTP transport).

    Attributes:
        url: the endpoint (``http://`` or ``https://``).
        headers: extra request headers (values are secret: shown as ``'***'``).
    """

    url: str
    headers: Mapping[str, str] = attrs.field(factory=dict, converter=_frozen_strings, repr=_secret_map)

    @property
    def transport(self) -> str:
        """``"http"``."""
        return "http"

    def describe(self) -> dict[str, Any]:
        """JSON data safe to show or store: ``headers`` keys only, never their values."""
        return {"type": "http", "url": self.url, "header_keys": sorted(self.headers)}


McpServerConfig: TypeAlias = McpStdioServer | McpHttpServer
"""One MCP server's configuration."""


def mcp_tool_name(server: str, tool: str) -> str:
    """The harness-facing name of ``tool`` on ``server``: ``mcp__<server>__<tool>``."""
    return f"{MCP_PREFIX}{server}__{tool}"


def split_mcp_name(name: str) -> tuple[str, str | None] | None:
    """``(server, tool)`` for ``mcp__server__tool``, ``(server, None)`` for the prefix
    ``mcp__server``, ``None`` for a name that is not an MCP name."""
    if not name.startswith(MCP_PREFIX):
        return None
    rest = name[len(MCP_PREFIX):]
    server, sep, tool = rest.partition("__")
    if not server:
        return None
    return (server, tool) if sep and tool else (server, None)


def mcp_name_matches(pattern: str, name: str) -> bool:
    """True when filter entry ``pattern`` covers tool ``name``: the same name, or the server
    prefix ``mcp__<server>`` of an ``mcp__<server>__<tool>`` name."""
    if pattern == name:
        return True
    parts = split_mcp_name(pattern)
    target = split_mcp_name(name)
    return parts is not None and target is not None and parts[1] is None and parts[0] == target[0]


def _error(where: str, message: str) -> HarnessConfigurationError:
    return HarnessConfigurationError(f"{where}: {message}")


def _string_map(value: object, where: str, field: str) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise _error(where, f"{field!r} must be a mapping of strings, got {type(value).__name__}")
    out: dict[str, str] = {}
    for key, item in value.items():
        if not isinstance(key, str) or not key:
            raise _error(where, f"{field!r} keys must be non-empty strings, got {key!r}")
        if not isinstance(item, str):
            # Never echo the value: it may be a secret.
            raise _error(where, f"{field}[{key!r}] must be a string, got {type(item).__name__}")
        out[key] = item
    return out


def _unknown(fields: Sequence[str], known: frozenset[str], where: str) -> None:
    for field in fields:
        if field not in known:
            close = difflib.get_close_matches(field, sorted(known), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(sorted(known))})"
            raise _error(where, f"unknown field {field!r}{hint}")


def _from_mapping(config: Mapping[str, Any], where: str) -> McpServerConfig:
    kind = config.get("type", "http" if "url" in config else "stdio")
    if kind == "stdio":
        _unknown(list(config), _STDIO_FIELDS, where)
        command = config.get("command")
        if not isinstance(command, str) or not command:
            raise _error(where, "a stdio server needs a non-empty string 'command'")
        args = config.get("args", ())
        if isinstance(args, str) or not isinstance(args, Sequence) or not all(isinstance(a, str) for a in args):
            raise _error(where, "'args' must be a list of strings")
        cwd = config.get("cwd")
        if cwd is not None and (not isinstance(cwd, str) or not cwd):
            raise _error(where, "'cwd' must be a non-empty string")
        return McpStdioServer(command=command, args=tuple(args), env=_string_map(config.get("env", {}), where, "env"),
                              cwd=cwd)
    if kind in ("http", "streamable-http"):
        _unknown(list(config), _HTTP_FIELDS, where)
        url = config.get("url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise _error(where, f"an http server needs a 'url' starting with http:// or https://, got {url!r}")
        return McpHttpServer(url=url, headers=_string_map(config.get("headers", {}), where, "headers"))
    raise _error(where, f"unknown server type {kind!r} (stdio or http)")


def parse_mcp_servers(value: object, *, where: str = "mcp_servers") -> dict[str, McpServerConfig]:
    """Check ``mcp_servers={name: config}`` and return it as config objects.

    Args:
        value: ``None`` (no servers) or a mapping of server name to an
            :class:`McpStdioServer`, an :class:`McpHttpServer` or a mapping with their fields.
        where: how the setting is named in errors (``"claude_code(mcp_servers=...)"``).

    Returns:
        ``{name: config}``, in the given order.

    Raises:
        HarnessConfigurationError: not a mapping; a server name that is not
            ``[A-Za-z0-9_-]`` without ``__`` or is reserved (``harness``); a config with a
            missing, mistyped or unknown field (the message names the server and the
            field, never a secret's value).
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise HarnessConfigurationError(f"{where}: expected a mapping of server name to config, got "
                                        f"{type(value).__name__}")
    servers: dict[str, McpServerConfig] = {}
    for name, config in value.items():
        if not isinstance(name, str) or _SERVER_NAME.fullmatch(name) is None:
            raise HarnessConfigurationError(
                f"{where}: server name {name!r} must be letters, digits, '-' and single '_' (no '__': tools are "
                "named mcp__<server>__<tool>)"
            )
        server_where = f"{where}[{name!r}]"
        if name in _RESERVED:
            raise _error(server_where, f"the name {name!r} is reserved for the host tools")
        if isinstance(config, McpStdioServer | McpHttpServer):
            servers[name] = config
        elif isinstance(config, Mapping):
            servers[name] = _from_mapping(config, server_where)
        else:
            raise _error(server_where, f"expected McpStdioServer, McpHttpServer or a mapping, got "
                                       f"{type(config).__name__}")
    return servers
