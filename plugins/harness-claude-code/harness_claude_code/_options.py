"""Building ``ClaudeAgentOptions`` for one Claude Code process.

Environment, in increasing precedence (``claude-agent-sdk`` merges it over ``os.environ``):

1. quiet, offline-friendly defaults: ``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1``,
   ``DISABLE_TELEMETRY=1``, ``DISABLE_AUTOUPDATER=1``, ``DISABLE_ERROR_REPORTING=1``,
   ``ENABLE_TOOL_SEARCH=false`` (host tools are offered directly, not behind
   ``ToolSearch``) and a long ``MCP_TOOL_TIMEOUT`` (a client-side tool may wait for a person);
2. the settings: ``base_url`` -> ``ANTHROPIC_BASE_URL``, ``api_key`` -> ``ANTHROPIC_API_KEY``,
   ``home`` -> ``HOME``, ``config_dir`` -> ``CLAUDE_CONFIG_DIR``;
3. the ``env=`` setting;
4. what the adapter needs for this process: ``IS_SANDBOX=1`` when running without prompts as
   root (Claude Code refuses ``bypassPermissions`` as root otherwise) and
   ``CLAUDE_CODE_RESUME_INTERRUPTED_TURN=1`` when continuing a suspended turn.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import attrs

from harness_core import MAX_OUTPUT_CHARS, BuiltinFilter

from ._builtins import BUILTINS, native_names
from ._external_mcp import disallowed_mcp
from ._sandboxing import CONFINED_NATIVES
from ._settings import ClaudeCodeSettings

if TYPE_CHECKING:
    from claude_agent_sdk import ClaudeAgentOptions

__all__ = ["DEFAULT_ENV", "DEFAULT_SOURCES", "ProcessSpec", "build_options", "config_dir_of", "process_env"]

DEFAULT_ENV: Final[Mapping[str, str]] = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "ENABLE_TOOL_SEARCH": "false",
    "MCP_TOOL_TIMEOUT": str(24 * 3600 * 1000),
    # The CLI keeps an MCP result inline while its estimated tokens (characters / 4) stay
    # under half of this (default 25,000): the core's 100,000-character cut then always fits.
    "MAX_MCP_OUTPUT_TOKENS": str(MAX_OUTPUT_CHARS),
}
"""Defaults applied before the ``env=`` setting (which overrides them)."""

DEFAULT_SOURCES: Final[tuple[str, ...]] = ("user",)
"""The settings files loaded when ``setting_sources`` is not given: the user's own only.
``project`` and ``local`` live in the workspace, whose hooks (``SessionStart``,
``PreToolUse``...) and ``.mcp.json`` servers Claude Code runs without asking anyone."""


@attrs.frozen(kw_only=True)
class ProcessSpec:
    """What one Claude Code process is started with, besides the adapter's settings.

    Attributes:
        cwd: the working directory (the workspace).
        bypass: run without permission prompts (``bypassPermissions``).
        builtin_filter: which built-ins the runtime may offer, or ``None`` for all.
        instructions: text appended to Claude Code's system prompt.
        host_tool_key: identifies the host tool set (a change restarts the process).
        resume: the Claude Code session id to resume, or ``None`` for a new session.
        continue_interrupted: set ``CLAUDE_CODE_RESUME_INTERRUPTED_TURN=1``.
        sandbox: Claude Code ``sandbox`` settings as JSON (:mod:`._sandboxing`), applied
            after ``extra_options`` so they cannot be turned off there; ``None`` for none.
        output_schema: the structured-output JSON Schema as JSON text (``--json-schema``), or ``None``.
        plan: run in Claude Code's ``plan`` permission mode (it plans, edits nothing).
        skills: the session installed skills in the config dir: ``user`` joins a given
            ``setting_sources`` list, so the CLI reads its skills folder.
    """

    cwd: Path
    bypass: bool
    builtin_filter: BuiltinFilter | None = None
    instructions: str | None = None
    host_tool_key: tuple[Any, ...] = ()
    resume: str | None = None
    continue_interrupted: bool = False
    sandbox: str | None = None
    output_schema: str | None = None
    plan: bool = False
    skills: bool = False

    def same_process(self, other: ProcessSpec) -> bool:
        """True when a process started for ``other`` can serve this spec."""
        return (
            self.cwd == other.cwd
            and self.bypass == other.bypass
            and self.builtin_filter == other.builtin_filter
            and self.instructions == other.instructions
            and self.host_tool_key == other.host_tool_key
            and self.sandbox == other.sandbox
            and self.output_schema == other.output_schema
            and self.plan == other.plan
        )


def config_dir_of(settings: ClaudeCodeSettings) -> Path:
    """Where Claude Code keeps its config and transcripts for these settings."""
    env = process_env(settings, bypass=False)
    configured = env.get("CLAUDE_CONFIG_DIR") or os.environ.get("CLAUDE_CONFIG_DIR")
    if configured:
        return Path(configured).expanduser()
    home = env.get("HOME") or os.environ.get("HOME") or str(Path.home())
    return Path(home) / ".claude"


def process_env(settings: ClaudeCodeSettings, *, bypass: bool, continue_interrupted: bool = False) -> dict[str, str]:
    """The environment overrides for one process (see the module docstring)."""
    env = dict(DEFAULT_ENV)
    if settings.base_url is not None:
        env["ANTHROPIC_BASE_URL"] = settings.base_url
    if settings.api_key is not None:
        env["ANTHROPIC_API_KEY"] = settings.api_key
    if settings.home is not None:
        env["HOME"] = str(settings.home)
    if settings.config_dir is not None:
        env["CLAUDE_CONFIG_DIR"] = str(settings.config_dir)
    env.update(settings.env)
    if bypass and hasattr(os, "geteuid") and os.geteuid() == 0:
        env.setdefault("IS_SANDBOX", "1")
    if continue_interrupted:
        env["CLAUDE_CODE_RESUME_INTERRUPTED_TURN"] = "1"
    return env


def _tool_lists(builtin_filter: BuiltinFilter | None) -> tuple[list[str], list[str]]:
    """``(tools, disallowed_tools)``: the natives to offer and the inactive ones to refuse."""
    active = [tool.name for tool in BUILTINS if builtin_filter is None or builtin_filter.allows(tool.name)]
    inactive = [tool.name for tool in BUILTINS if tool.name not in active]
    return native_names(active), native_names(inactive)


def build_options(
    settings: ClaudeCodeSettings,
    spec: ProcessSpec,
    *,
    mcp_servers: Mapping[str, Any],
    can_use_tool: Callable[..., Any] | None,
    hooks: Mapping[str, Sequence[Any]] | None,
    stderr: Callable[[str], None],
) -> ClaudeAgentOptions:
    """The ``ClaudeAgentOptions`` for one process.

    Built-ins are filtered natively: ``tools=`` lists the active natives (so inactive ones
    are never offered) and ``disallowed_tools=`` names the inactive ones (so a call to one
    is refused with "No such tool available"), filtered-out external MCP servers and tools
    included (``mcp__<server>`` / ``mcp__<server>__<tool>``). Without prompts the process runs in
    ``bypassPermissions``; otherwise in ``default`` mode with ``can_use_tool`` and a
    ``PreToolUse`` hook answering ``ask``, so every built-in call reaches the callback.
    """
    from claude_agent_sdk import ClaudeAgentOptions

    tools, disallowed = _tool_lists(spec.builtin_filter)
    if spec.sandbox is not None:  # natives outside Claude Code's sandbox are withheld
        disallowed = sorted({*disallowed, *(t for t in tools if t not in CONFINED_NATIVES)})
        tools = [t for t in tools if t in CONFINED_NATIVES]
    disallowed += disallowed_mcp(settings.mcp_servers, spec.builtin_filter)
    options: dict[str, Any] = {
        "cwd": str(spec.cwd),
        "env": process_env(settings, bypass=spec.bypass, continue_interrupted=spec.continue_interrupted),
        "tools": tools,
        "disallowed_tools": disallowed,
        "mcp_servers": dict(mcp_servers),
        "include_partial_messages": True,
        "permission_mode": "plan" if spec.plan else "bypassPermissions" if spec.bypass else "default",
        "stderr": stderr,
    }
    # snapshot=False: Claude Code otherwise keeps the system prompt recorded on a session's
    # first request forever (resumes included), and changed instructions would be ignored.
    prompt: dict[str, Any] = {"type": "preset", "preset": "claude_code", "snapshot": False}
    if spec.instructions:
        prompt["append"] = spec.instructions
    options["system_prompt"] = prompt
    if not spec.bypass:
        options["can_use_tool"] = can_use_tool
        options["hooks"] = dict(hooks or {})
    if spec.resume is not None:
        options["resume"] = spec.resume
    if settings.model is not None:
        options["model"] = settings.model
    if settings.cli_path is not None:
        options["cli_path"] = str(settings.cli_path)
    if settings.max_turns is not None:
        options["max_turns"] = settings.max_turns
    # Never Claude Code's default (every source): the workspace's own .claude/settings*.json
    # and .mcp.json would run their hooks and MCP servers without any approval.
    sources = list(settings.setting_sources) if settings.setting_sources is not None else list(DEFAULT_SOURCES)
    options["setting_sources"] = [*sources, "user"] if spec.skills and "user" not in sources else sources
    options.update(settings.extra_options)
    if spec.sandbox is not None:
        options["sandbox"] = json.loads(spec.sandbox)
    if spec.output_schema is not None:
        options["output_format"] = {"type": "json_schema", "schema": json.loads(spec.output_schema)}
    return ClaudeAgentOptions(**options)
