"""The Claude Code adapter and its factory, :func:`claude_code`."""

from __future__ import annotations

import dataclasses
import importlib.util
import shutil
from pathlib import Path
from typing import Any, Final

from harness_core import HarnessConfigurationError, StartRequest

from ._capabilities import CAPABILITIES
from ._session import ClaudeCodeSession
from ._settings import HARNESS_ID, HOST_PREFIX, ClaudeCodeSettings

__all__ = ["HARNESS_ID", "ClaudeCodeAdapter", "claude_code", "find_cli"]

_SDK: Final = "claude_agent_sdk"


def find_cli(cli_path: str | Path | None = None) -> Path | None:
    """The Claude Code CLI the adapter would run, or ``None`` when there is none.

    Order: ``cli_path``; the CLI bundled in the ``claude-agent-sdk`` wheel; ``claude`` on
    ``PATH`` (the same order as ``claude-agent-sdk``). Never imports the SDK.
    """
    if cli_path is not None:
        path = Path(cli_path)
        return path if path.is_file() else None
    spec = importlib.util.find_spec(_SDK)
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            bundled = Path(location) / "_bundled" / "claude"
            if bundled.is_file():
                return bundled
    found = shutil.which("claude")
    return Path(found) if found else None


class ClaudeCodeAdapter:
    """Drives the real Claude Code runtime through ``claude-agent-sdk``.

    Build it with :func:`claude_code`. Built-in approvals and built-in filtering are
    native (``can_use_tool`` and ``tools=`` / ``disallowed_tools=``).

    Attributes:
        harness_id: ``"claude-code"``.
        settings: the checked factory settings.
    """

    harness_id: str = HARNESS_ID
    supports_builtin_approvals: bool = True
    supports_builtin_filtering: bool = True
    host_tool_prefix: str = HOST_PREFIX
    """Host tools reach the runtime as ``mcp__harness__<name>`` (the core keeps the
    prefixed name within the provider's 64 characters)."""
    capabilities = CAPABILITIES

    def __init__(self, settings: ClaudeCodeSettings) -> None:
        self.settings = settings

    async def start(self, request: StartRequest) -> ClaudeCodeSession:
        """Open a session: new, resumed (``resume_from``) or continuing a turn (``continue_from``).

        The CLI starts at the session's first prompt (or continued turn), not here.

        Raises:
            HarnessConfigurationError: unreadable state, a missing workspace, or no CLI.
        """
        if find_cli(self.settings.cli_path) is None:
            raise HarnessConfigurationError(
                "claude-code: no Claude Code CLI found (install claude-agent-sdk, whose wheel bundles it, "
                "or pass claude_code(cli_path=...))"
            )
        return ClaudeCodeSession(self.settings, request)

    @property
    def mcp_servers(self) -> dict[str, Any]:
        """The external MCP servers by name: ``McpStdioServer`` / ``McpHttpServer`` configs and
        the SDK's own ``sdk`` / ``sse`` entries (the core reads the names, for filters)."""
        return dict(self.settings.mcp_servers)

    def __repr__(self) -> str:
        model = self.settings.model or "default model"
        return f"<ClaudeCodeAdapter {model}>"


def claude_code(**settings: Any) -> ClaudeCodeAdapter:
    """Build a Claude Code adapter (harness id ``claude-code``).

    Keyword Args:
        model (str): the model id (``--model``); Claude Code's default otherwise.
        base_url (str): the Anthropic API base URL, without ``/v1`` (``ANTHROPIC_BASE_URL``).
        api_key (str): the API key (``ANTHROPIC_API_KEY``).
        mcp_servers (dict): external MCP servers checked by
            :func:`~harness_core.parse_mcp_servers` (stdio ``{"command", "args", "env",
            "cwd"}`` or ``{"type": "http", "url", "headers"}``), plus the SDK's own
            ``{"type": "sdk", "instance": ...}`` and ``{"type": "sse", "url": ...}``
            entries; their tools are ``mcp__<server>__<tool>``, dynamic provider-executed
            tools. The name ``harness`` is reserved.
        env (dict[str, str]): environment overrides for the CLI process.
        home (path): the CLI's ``HOME``; config_dir (path): its ``CLAUDE_CONFIG_DIR``.
        cli_path (path): a Claude Code executable instead of the bundled one.
        cwd (path): the workspace when the session has no sandbox (default: the current directory).
        max_turns (int): Claude Code's ``--max-turns``.
        setting_sources (list): which settings files Claude Code loads (``user``, ``project``,
            ``local``); default ``["user"]``: the workspace's ``project`` / ``local`` settings
            and ``.mcp.json`` run hooks and MCP servers without approval, so they are opt-in.
        stderr (callable): receives each line the CLI writes to stderr.
        interrupt_timeout (float): seconds an abort waits for Claude Code to stop its tools
            before killing its process tree (default 3).
        extra_options (dict): more ``ClaudeAgentOptions`` fields (``effort``, ``thinking``,
            ``max_budget_usd``...), except those the adapter sets itself.

    Returns:
        A :class:`ClaudeCodeAdapter`.

    Raises:
        HarnessConfigurationError: an unknown setting or a bad value, naming it.
    """
    checked = ClaudeCodeSettings.from_kwargs(**settings)
    if checked.extra_options:
        from claude_agent_sdk import ClaudeAgentOptions

        fields = {field.name for field in dataclasses.fields(ClaudeAgentOptions)}
        unknown = sorted(set(checked.extra_options) - fields)
        if unknown:
            raise HarnessConfigurationError(
                f"claude_code(extra_options=...): {', '.join(map(repr, unknown))} "
                "is not a ClaudeAgentOptions field"
            )
    return ClaudeCodeAdapter(checked)
