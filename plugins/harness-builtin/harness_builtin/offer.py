"""What a built-in session offers the model: its tools and its system prompt.

:class:`ToolOffer` holds the built-in tools (with the host's filter of active built-ins),
the host tools of the current prompt, which tools are read-only, and the instructions of
the system prompt. The model step asks it which tools to offer (only read-only ones in
repair mode) and how to check a call; the tool step asks which calls may run in parallel.
The MCP tools of the session's connected servers (:class:`~harness_builtin.mcp_tools.McpToolbox`)
are offered and filtered like built-ins, under their ``mcp__<server>__<tool>`` names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness_core import (
    BuiltinFilter,
    BuiltinTool,
    HarnessConfigurationError,
    HarnessTool,
    HostToolSpec,
    Skill,
)

from .mcp_tools import McpToolbox
from .models.base import ToolSpec
from .prompt import system_prompt
from .tools import SKILL_TOOL, skill_tool_description
from .turn_features import FINAL_ANSWER, TurnFeatures
from .workspace import Workspace

__all__ = ["ToolOffer"]


class ToolOffer:
    """The tools and system prompt of one built-in session.

    Args:
        tools: the built-in tools by name.
        read_only: the built-ins that only read (they may run in parallel).
        builtin_filter: the host's filter of active built-ins (None: all are active).
        host_tools: the host tools of the start request.
        workspace: the workspace whose root the system prompt names.
        withheld: the host's inactive host tools (``StartRequest.withheld_host_tools``).
        instructions: the adapter's and the start request's instructions (appended to the
            system prompt in this order, then the current prompt's).
        mcp: the session's MCP tools (their connected servers' tools are offered after the
            built-ins, filtered like them, by ``mcp__<server>__<tool>`` name).
        skills: the session's skills (``StartRequest.skills``); without any, the ``skill``
            tool is not offered.

    Raises:
        HarnessConfigurationError: a host tool has a built-in's name.
    """

    def __init__(
        self,
        *,
        tools: Mapping[str, HarnessTool],
        read_only: frozenset[str],
        builtin_filter: BuiltinFilter | None,
        host_tools: Sequence[HostToolSpec],
        workspace: Workspace,
        withheld: frozenset[str] = frozenset(),
        instructions: Sequence[str | None] = (),
        mcp: McpToolbox | None = None,
        skills: Sequence[Skill] = (),
    ) -> None:
        self.skills: Mapping[str, Skill] = {skill.name: skill for skill in skills}
        """The session's skills, served by the ``skill`` tool (offered only when there are some)."""
        self._tools = {name: tool for name, tool in tools.items() if name != SKILL_TOOL.name or skills}
        self._read_only = read_only
        self._filter = builtin_filter
        self._specs = {name: ToolSpec(name, tool.description, tool.json_schema) for name, tool in self._tools.items()}
        if SKILL_TOOL.name in self._specs:
            self._specs[SKILL_TOOL.name] = ToolSpec(SKILL_TOOL.name, skill_tool_description(skills),
                                                    SKILL_TOOL.json_schema)
        self._workspace = workspace
        self._instructions = tuple(instructions)
        self._host_tools: tuple[HostToolSpec, ...] = ()
        self._prompt_instructions: str | None = None
        self._system: str | None = None
        self._mcp = mcp
        self._withheld = withheld
        self._features = TurnFeatures()
        self._set_host_tools(host_tools)

    def _set_host_tools(self, specs: Sequence[HostToolSpec]) -> None:
        clash = sorted({spec.name for spec in specs} & (set(self._tools) | self._mcp_known()))
        if clash:
            raise HarnessConfigurationError(
                f"host tool(s) {', '.join(map(repr, clash))} have the name of a built-in tool of the "
                "built-in harness; rename them or make the built-in inactive"
            )
        self._host_tools = tuple(specs)
        self._system = None

    def set_prompt(self, host_tools: Sequence[HostToolSpec], instructions: str | None,
                   features: TurnFeatures | None = None) -> None:
        """Take a prompt's host tools (when it has some; otherwise the previous ones stay),
        its instructions and its structured output / plan mode (replacing the previous prompt's).

        Raises:
            HarnessConfigurationError: a host tool has a built-in's name, or is named
                ``final_answer`` while the prompt asks for structured output.
        """
        if host_tools:
            self._set_host_tools(host_tools)
        if features is not None and features.output_schema is not None and \
                any(spec.name == FINAL_ANSWER for spec in self._host_tools):
            raise HarnessConfigurationError(
                f"host tool {FINAL_ANSWER!r} has the name of the built-in harness's structured-output tool; "
                "rename it to use output=")
        self._prompt_instructions = instructions
        self._features = features or TurnFeatures()
        self._system = None

    @property
    def features(self) -> TurnFeatures:
        """The current prompt's structured output and mode (:mod:`~harness_builtin.turn_features`)."""
        return self._features

    @property
    def tools(self) -> Mapping[str, HarnessTool]:
        """The built-in tools by name (active or not)."""
        return self._tools

    @property
    def builtin_names(self) -> frozenset[str]:
        """The names of every built-in tool (active or not)."""
        return frozenset(self._specs)

    @property
    def runtime_names(self) -> frozenset[str]:
        """The tools the harness runs itself: the built-ins and every listed MCP tool."""
        return frozenset(self._specs) | self._mcp_known()

    def _mcp_known(self) -> frozenset[str]:
        return self._mcp.known if self._mcp is not None else frozenset()

    def mcp_tools(self) -> dict[str, BuiltinTool]:
        """The MCP tools of the connected servers (active or not), declared by harness name."""
        return self._mcp.declarations() if self._mcp is not None else {}

    def is_mcp(self, name: str) -> bool:
        """Whether ``name`` is a tool some MCP server of the session listed."""
        return name in self._mcp_known()

    @property
    def mcp(self) -> McpToolbox | None:
        """The session's MCP tools, if it has MCP servers."""
        return self._mcp

    @property
    def host_tools(self) -> tuple[HostToolSpec, ...]:
        """The current host tools."""
        return self._host_tools

    def allows(self, name: str) -> bool:
        """Whether the built-in ``name`` is active (passes the host's filter)."""
        return self._filter is None or self._filter.allows(name)

    def inactive(self) -> list[str]:
        """The built-ins the filter leaves out: not offered, and a call to one is refused."""
        names = [name for name in self._specs if not self.allows(name)]
        return names + [name for name in self._mcp_known() if not self.allows(name)]

    def withheld(self) -> frozenset[str]:
        """The host's inactive host tools: not offered; a call to one still goes to the
        core (which denies it), not to a repair."""
        return self._withheld - {spec.name for spec in self._host_tools}

    def read_only_names(self) -> frozenset[str]:
        """The active read-only built-ins and the read-only host tools."""
        host = {spec.name for spec in self._host_tools if spec.read_only}
        mcp = {name for name, tool in self.mcp_tools().items() if tool.read_only and self.allows(name)}
        active = {name for name in self._read_only if name in self._tools and self.allows(name)}
        return frozenset(active | host | mcp)

    def host_schemas(self) -> dict[str, Any]:
        """The host tools' input JSON Schemas by name."""
        return {spec.name: spec.input_schema for spec in self._host_tools}

    def checked_schemas(self) -> dict[str, Any]:
        """The JSON Schemas calls are checked against: the host tools' and the MCP tools'."""
        mcp = {name: dict(tool.input_schema) for name, tool in self.mcp_tools().items()}
        return {**mcp, **self.host_schemas(), **self._features.schemas()}

    def offered(self, *, repair_mode: bool) -> list[ToolSpec]:
        """The tools offered to the model: the active built-ins then the host tools; in
        repair mode and plan mode only the read-only ones; then ``final_answer`` (structured output)."""
        specs = [spec for name, spec in self._specs.items() if self.allows(name)]
        specs.extend(ToolSpec(name, tool.description, dict(tool.input_schema))
                     for name, tool in self.mcp_tools().items() if self.allows(name))
        specs.extend(ToolSpec(t.name, t.description, dict(t.input_schema)) for t in self._host_tools)
        if repair_mode or self._features.plan:
            read_only = self.read_only_names()
            specs = [spec for spec in specs if spec.name in read_only]
        final = self._features.final_answer_spec()
        return specs if final is None else [*specs, final]

    def system(self) -> str:
        """The system prompt for the current prompt (built once per prompt)."""
        if self._system is None:
            names = [n for n in self._tools if self.allows(n)] + [t.name for t in self._host_tools]
            names += [n for n in self.mcp_tools() if self.allows(n)]
            if self._features.plan:
                names = [n for n in names if n in self.read_only_names()]
            self._system = system_prompt(self._workspace.root, names, [*self._instructions, self._prompt_instructions,
                                                                      *self._features.instructions()])
        return self._system
