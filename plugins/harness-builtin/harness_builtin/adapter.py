"""The built-in harness as an :class:`~harness_core.adapter.Adapter` (harness id ``builtin``).

:func:`create_builtin_adapter` is the factory the plugin contributes through
``harness_adapters``; every setting is a keyword argument with a documented default.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from harness_core import (
    HarnessConfigurationError,
    HarnessTool,
    LocalSandbox,
    McpServerConfig,
    Sandbox,
    StartRequest,
    ToolKind,
    parse_mcp_servers,
)

from .mcp_tools import McpToolbox, default_cwd
from .models import ModelClient, create_model_client, default_model_name
from .session import BuiltinSession
from .settings import (
    DEFAULT_LIMITS,
    DEFAULT_TOOL_SETTINGS,
    ToolSettings,
    TurnLimits,
    setting_error,
    tool_settings_from,
)
from .tools import BUILTIN_KINDS, BUILTIN_TOOLS
from .turn_features import CAPABILITIES

__all__ = ["HARNESS_ID", "BuiltinAdapter", "create_builtin_adapter"]

HARNESS_ID: Final = "builtin"
"""The harness id this plugin registers (``harness="builtin"``)."""

_NO_MODEL: Final = (
    "the built-in harness has no model configured. Name one with model='provider:model' (in the "
    "command line: --model), e.g. anthropic:claude-sonnet-4-5 with ANTHROPIC_API_KEY set, "
    "openai:gpt-4.1 with OPENAI_API_KEY set, or openai:qwen2.5-coder with base_url "
    "http://localhost:11434/v1 for a local server; or set HARNESS_MODEL. To see the harness "
    "work without any model, run `harness demo`."
)


class BuiltinAdapter:
    """The built-in harness: our model loop and tools, with any model.

    Supports built-in approvals (every built-in call can wait for a decision) and native
    built-in filtering (inactive built-ins are never offered to the model).

    Attributes:
        harness_id: ``"builtin"``.
        model: the model name or client the sessions use (``None`` until configured).
        mcp_servers: the MCP servers each session connects to, by name (their tools are
            offered as ``mcp__<server>__<tool>``).
    """

    harness_id = HARNESS_ID
    supports_builtin_approvals = True
    supports_builtin_filtering = True
    capabilities = CAPABILITIES

    def __init__(
        self,
        *,
        model: str | ModelClient | None,
        base_url: str | None,
        api_key: str | None,
        max_retries: int,
        timeout: float,
        cwd: str | os.PathLike[str] | None,
        limits: TurnLimits,
        tool_settings: ToolSettings,
        tools: Mapping[str, HarnessTool],
        read_only: frozenset[str],
        detect_file_changes: bool,
        instructions: str | None,
        mcp_servers: Mapping[str, McpServerConfig] | None = None,
    ) -> None:
        self.model = model
        self.mcp_servers: dict[str, McpServerConfig] = dict(mcp_servers or {})
        self.base_url = base_url
        self._api_key = api_key
        self.max_retries = max_retries
        self.timeout = timeout
        self.cwd = cwd
        self.limits = limits
        self.tool_settings = tool_settings
        self.tools = dict(tools)
        self.read_only = read_only
        self.detect_file_changes = detect_file_changes
        self.instructions = instructions

    def __repr__(self) -> str:
        name = self.model if isinstance(self.model, str | None) else getattr(self.model, "name", "client")
        return f"BuiltinAdapter(model={name!r})"

    def model_client(self) -> ModelClient:
        """The model client for a new session.

        Raises:
            HarnessConfigurationError: no model is configured (the message says how to
                configure one, or to try ``harness demo``), or the name is malformed.
            ModelError: the provider's key is missing (``configuration``).
        """
        model = self.model if self.model is not None else default_model_name()
        if model is None:
            raise HarnessConfigurationError(_NO_MODEL)
        return create_model_client(
            model, base_url=self.base_url, api_key=self._api_key, max_retries=self.max_retries, timeout=self.timeout,
        )

    async def start(self, request: StartRequest) -> BuiltinSession:
        """Open a session (new, ``resume_from`` or ``continue_from``).

        Without ``request.sandbox`` the session works in a :class:`LocalSandbox` on
        ``cwd`` (default: the current directory), released by ``destroy()``.

        Raises:
            HarnessConfigurationError: no model, malformed state, or a host tool named
                like a built-in.
            ModelError: the provider's key is missing.
        """
        client = self.model_client()
        sandbox = request.sandbox
        owns = sandbox is None
        if sandbox is None:
            sandbox = LocalSandbox(Path(self.cwd) if self.cwd is not None else Path.cwd())
        mcp: McpToolbox | None = None
        if self.mcp_servers:
            mcp = McpToolbox(self.mcp_servers, cwd=default_cwd(sandbox.root))
            await mcp.start()
        try:
            return self._session(request, client, sandbox, owns, mcp)
        except BaseException:
            if mcp is not None:
                await mcp.aclose()
            raise

    def _session(self, request: StartRequest, client: ModelClient, sandbox: Sandbox, owns: bool,
                 mcp: McpToolbox | None) -> BuiltinSession:
        return BuiltinSession(
            mcp=mcp,
            request=request,
            client=client,
            sandbox=sandbox,
            owns_sandbox=owns,
            tools=self.tools,
            read_only=self.read_only,
            limits=self.limits,
            tool_settings=self.tool_settings,
            detect_file_changes=self.detect_file_changes,
            instructions=self.instructions,
        )


def _check_connection_settings(
    *,
    model: object,
    base_url: object,
    api_key: object,
    max_retries: object,
    timeout: object,
    cwd: object,
    detect_file_changes: object,
    instructions: object,
) -> None:
    """Type checks of the factory's own settings, so a wrong value never fails mid-turn."""
    if model is not None and not isinstance(model, str | ModelClient):
        raise setting_error("model", "'provider:model' or a ModelClient", model)
    if isinstance(model, str) and not model.strip():
        raise setting_error("model", "'provider:model' (not empty)", model)
    for name, value in (("base_url", base_url), ("api_key", api_key), ("instructions", instructions)):
        if value is not None and not isinstance(value, str):
            raise setting_error(name, "a string", value)
    if not isinstance(max_retries, int) or isinstance(max_retries, bool) or max_retries < 0:
        raise setting_error("max_retries", "an integer >= 0", max_retries)
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or not timeout > 0:
        raise setting_error("timeout", "a positive number of seconds", timeout)
    if cwd is not None and not isinstance(cwd, str | os.PathLike):
        raise setting_error("cwd", "a directory path", cwd)
    if not isinstance(detect_file_changes, bool):
        raise setting_error("detect_file_changes", "true or false", detect_file_changes)


def create_builtin_adapter(
    *,
    model: str | ModelClient | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    max_retries: int = 2,
    timeout: float = 600.0,
    cwd: str | os.PathLike[str] | None = None,
    max_steps: int = DEFAULT_LIMITS.max_steps,
    max_tool_calls: int = DEFAULT_LIMITS.max_tool_calls,
    max_turn_tokens: int | None = DEFAULT_LIMITS.max_turn_tokens,
    max_output_tokens: int = DEFAULT_LIMITS.max_output_tokens,
    tool_concurrency: int = DEFAULT_LIMITS.tool_concurrency,
    call_deadline: float = DEFAULT_LIMITS.call_deadline,
    max_repairs: int = DEFAULT_LIMITS.max_repairs,
    compact_threshold_tokens: int | None = DEFAULT_LIMITS.compact_threshold_tokens,
    compact_keep_messages: int = DEFAULT_LIMITS.compact_keep_messages,
    on_error: str = DEFAULT_LIMITS.on_error,
    tool_settings: ToolSettings = DEFAULT_TOOL_SETTINGS,
    extra_tools: Mapping[str, HarnessTool] | None = None,
    detect_file_changes: bool = True,
    instructions: str | None = None,
    mcp_servers: Mapping[str, object] | None = None,
) -> BuiltinAdapter:
    """Build the built-in harness adapter (the ``builtin`` factory of ``harness_adapters``).

    Args:
        model: ``provider:model`` (``anthropic:claude-sonnet-4-5``, ``openai:gpt-4.1``,
            ``openai:qwen2.5-coder`` with ``base_url``) or a ``ModelClient``; default
            ``HARNESS_MODEL``, else a default model of the provider whose key is set.
        base_url: the provider endpoint (OpenAI-compatible local servers, proxies).
        api_key: the key; default the provider's variable (``ANTHROPIC_API_KEY``,
            ``OPENAI_API_KEY``).
        max_retries: the SDK's retries (2); timeout: seconds per model request (600).
        cwd: the workspace when the session gets no sandbox (default: current directory).
        max_steps / max_tool_calls / max_turn_tokens / max_output_tokens /
            tool_concurrency / call_deadline / max_repairs / compact_threshold_tokens /
            compact_keep_messages / on_error: see :class:`~harness_builtin.settings.TurnLimits`.
        tool_settings: bounds of the built-in tools (:class:`~harness_builtin.settings.ToolSettings`).
        extra_tools: more tools the harness runs itself, by name (``read_only`` tools run
            in parallel); they are offered with the built-ins but not declared to the core.
        detect_file_changes: snapshot the workspace around ``bash`` calls and emit
            ``fileChange`` parts (True).
        instructions: text appended to the system prompt of every session.
        mcp_servers: ``{name: config}`` MCP servers each session connects to when it
            starts (:func:`~harness_core.parse_mcp_servers`: stdio ``command`` / ``args``
            / ``env`` / ``cwd``, or ``{"type": "http", "url", "headers"}``); their tools
            are offered as ``mcp__<server>__<tool>`` (docs/mcp.md).

    Raises:
        HarnessConfigurationError: a setting of the wrong type or out of range (the message
            names it; also a ``ValueError``), an extra tool named like a built-in, or a bad
            MCP server entry (named with its field; secrets never shown).
    """
    _check_connection_settings(model=model, base_url=base_url, api_key=api_key, max_retries=max_retries,
                               timeout=timeout, cwd=cwd, detect_file_changes=detect_file_changes,
                               instructions=instructions)
    servers = parse_mcp_servers(mcp_servers, where="builtin(mcp_servers=...)")
    tool_settings = tool_settings_from(tool_settings)
    limits = TurnLimits(
        max_steps=max_steps,
        max_tool_calls=max_tool_calls,
        max_turn_tokens=max_turn_tokens,
        max_output_tokens=max_output_tokens,
        tool_concurrency=tool_concurrency,
        call_deadline=call_deadline,
        max_repairs=max_repairs,
        compact_threshold_tokens=compact_threshold_tokens,
        compact_keep_messages=compact_keep_messages,
        on_error=on_error,  # type: ignore[arg-type]
    )
    tools: dict[str, HarnessTool] = dict(BUILTIN_TOOLS)
    read_only = {name for name, kind in BUILTIN_KINDS.items() if kind is ToolKind.READ_ONLY}
    if extra_tools is not None and not isinstance(extra_tools, Mapping):
        raise setting_error("extra_tools", "a mapping of names to HarnessTool", extra_tools)
    for name, tool in (extra_tools or {}).items():
        if not isinstance(tool, HarnessTool):
            raise setting_error(f"extra_tools[{name!r}]", "a HarnessTool (see define_harness_tool)", tool)
        if name in tools:
            raise HarnessConfigurationError(f"extra tool {name!r} has the name of a built-in tool")
        tools[name] = tool
        if tool.read_only:
            read_only.add(name)
    return BuiltinAdapter(
        model=model,
        base_url=base_url,
        api_key=api_key,
        max_retries=max_retries,
        timeout=timeout,
        cwd=cwd,
        limits=limits,
        tool_settings=tool_settings,
        tools=tools,
        read_only=frozenset(read_only),
        detect_file_changes=detect_file_changes,
        instructions=instructions,
        mcp_servers=servers,
    )

