"""The host tools, policy, agent settings and targets the conformance scenarios use."""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs
import pydantic

from harness_core.agent.harness_agent import HarnessAgent
from harness_core.approval import ApprovalContext, ApprovalDecision, ApprovalStatus
from harness_core.hookspecs import hookimpl
from harness_core.skills import Skill
from harness_core.testing.conformance.scenario import (
    Scenario,
)
from harness_core.tools.definition import HarnessTool, ToolCall, ToolContext, define_harness_tool

__all__ = ["EXECUTIONS_FILE", "AgentFactory", "ApproveOnlyPolicy", "ConformanceTarget", "DenyShellPolicy", "WhoAmIContext", "agent_kwargs_from_spec", "conformance_tools", "executions", "load_factory", "scripted_conformance_target"]


EXECUTIONS_FILE = ".conformance-executions.jsonl"
"""Every conformance host-tool execution appends one JSON line here (in the workspace)."""




class WhoAmIContext(pydantic.BaseModel):
    """The context of ``conformance_whoami``."""

    user: str


def _log_execution(workspace: Path, tool: str, input: Any) -> None:
    with (workspace / EXECUTIONS_FILE).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"tool": tool, "input": input, "pid": os.getpid()}) + "\n")


def conformance_tools(workspace: str | os.PathLike[str]) -> list[HarnessTool]:
    """The host tools of the conformance scenarios; each execution is logged in ``workspace``.

    * ``conformance_add {a, b}``: read-only; returns ``a + b`` as text;
    * ``conformance_record {text}``: writes ``text`` to ``conformance-record.txt``;
    * ``conformance_pick {question}``: client-side (no ``execute``);
    * ``conformance_whoami {}``: needs context ``{"user": str}``; returns ``user``.
    """
    root = Path(workspace)

    def add(input: dict[str, Any], ctx: ToolContext) -> str:
        _log_execution(root, "conformance_add", input)
        return str(input["a"] + input["b"])

    def record(input: dict[str, Any], ctx: ToolContext) -> str:
        _log_execution(root, "conformance_record", input)
        (root / "conformance-record.txt").write_text(input["text"], encoding="utf-8")
        return f"recorded {input['text']}"

    def whoami(input: dict[str, Any], ctx: ToolContext) -> str:
        _log_execution(root, "conformance_whoami", input)
        return f"user={ctx.context.user}"

    number = {"type": "integer"}
    return [
        define_harness_tool(name="conformance_add", description="Add two integers.", read_only=True,
                            input={"type": "object", "properties": {"a": number, "b": number},
                                   "required": ["a", "b"], "additionalProperties": False},
                            execute=add),
        define_harness_tool(name="conformance_record", description="Record a text in the workspace.",
                            input={"type": "object", "properties": {"text": {"type": "string"}},
                                   "required": ["text"]},
                            execute=record),
        define_harness_tool(name="conformance_pick", description="Ask the user to pick an answer.",
                            input={"type": "object", "properties": {"question": {"type": "string"}}}),
        define_harness_tool(name="conformance_whoami", description="Say which user is signed in.",
                            input={"type": "object", "properties": {}}, context_schema=WhoAmIContext,
                            execute=whoami),
    ]


def executions(workspace: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The conformance host-tool executions logged in ``workspace`` (all processes)."""
    path = Path(workspace) / EXECUTIONS_FILE
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


class DenyShellPolicy:
    """An approval policy plugin denying every built-in ``bash`` call."""

    REASON = "conformance policy: shell commands are not allowed"

    @hookimpl
    def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> ApprovalDecision | None:
        if call.provider_executed and call.tool_name == "bash":
            return ApprovalDecision(ApprovalStatus.DENIED, self.REASON)
        return None


class ApproveOnlyPolicy:
    """An approval policy plugin for adversarial tests: approves the built-in calls
    ``approves`` accepts and denies every other built-in call with :attr:`REASON`
    (host-tool calls: no opinion). With no ``approves`` it denies every built-in call.

    Attributes:
        seen: the built-in calls it was asked about, in order (to check that a denied
            shape was asked about, or that a call never reached the host).
    """

    REASON = "adversarial policy: nothing runs"

    def __init__(self, approves: Callable[[ToolCall], bool] | None = None) -> None:
        self._approves = approves
        self.seen: list[ToolCall] = []

    @classmethod
    def bash(cls, command: str) -> ApproveOnlyPolicy:
        """Approves only the built-in ``bash`` calls whose ``command`` input is exactly ``command``."""
        return cls(lambda call: call.tool_name == "bash" and isinstance(call.input, dict)
                   and call.input.get("command") == command)

    @hookimpl
    def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> ApprovalDecision | None:
        if not call.provider_executed:
            return None
        self.seen.append(call)
        if self._approves is not None and self._approves(call):
            return ApprovalDecision(ApprovalStatus.APPROVED)
        return ApprovalDecision(ApprovalStatus.DENIED, self.REASON)


def agent_kwargs_from_spec(spec: Mapping[str, Any], workspace: Path) -> dict[str, Any]:
    """Agent keyword arguments from a JSON spec (the same in the test and the child process).

    Spec keys: ``tool_approval``, ``permission_mode``, ``active_tools``, ``inactive_tools``,
    ``tools_context``, ``deny_shell`` (bool: add :class:`DenyShellPolicy`), ``skills``
    (``[{"name", "description", "content", "files": {path: text}}]``, built into
    :class:`~harness_core.Skill` objects) and ``telemetry`` (a :class:`~harness_core.Telemetry`,
    passed as is: in-process only, never JSON) and ``extra_tools`` (host tools added to the
    conformance ones, in-process only). The conformance host tools are always given.
    """
    kwargs: dict[str, Any] = {"tools": [*conformance_tools(workspace), *spec.get("extra_tools", ())]}
    for key in ("tool_approval", "permission_mode", "active_tools", "inactive_tools"):
        if spec.get(key) is not None:
            kwargs[key] = spec[key]
    kwargs["tools_context"] = spec.get("tools_context") or {"conformance_whoami": {"user": "conformance-user"}}
    if spec.get("deny_shell"):
        kwargs["plugins"] = [DenyShellPolicy()]
    if spec.get("skills"):
        kwargs["skills"] = [Skill(s["name"], s["description"], s["content"],
                                  files=list(dict(s.get("files") or {}).items())) for s in spec["skills"]]
    if spec.get("telemetry") is not None:
        kwargs["telemetry"] = spec["telemetry"]
    return kwargs


# -- targets ------------------------------------------------------------------------------


@attrs.frozen
class ConformanceTarget:
    """What an ``agent_factory`` returns.

    Attributes:
        agent: the agent under test.
        session_kwargs: extra ``create_session`` keyword arguments (``sandbox=``...).
    """

    agent: HarnessAgent
    session_kwargs: Mapping[str, Any] = attrs.field(factory=dict)


AgentFactory = Callable[[Mapping[str, Any], Path, dict[str, Any]], ConformanceTarget]


def load_factory(reference: str) -> AgentFactory:
    """Import ``"package.module:function"``.

    Raises:
        ValueError: a malformed reference, or a missing module or attribute.
    """
    module_name, _, attr = reference.partition(":")
    if not module_name or not attr:
        raise ValueError(f"agent_factory must look like 'package.module:function', got {reference!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"agent_factory {reference!r}: cannot import {module_name!r}: {exc}") from None
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise ValueError(f"agent_factory {reference!r}: {module_name!r} has no callable {attr!r}")
    return factory  # type: ignore[no-any-return]


def scripted_conformance_target(env: Mapping[str, Any], workspace: Path, agent_kwargs: dict[str, Any]
                                ) -> ConformanceTarget:
    """The ``agent_factory`` of the scripted adapter: plays ``env["scenario"]`` in-process."""
    from harness_core.testing.scripted_adapter import (
        Action,
        CallBuiltin,
        CallHost,
        EchoResults,
        Fail,
        Say,
        ScriptedAdapter,
    )

    scenario = Scenario.from_json(env["scenario"])
    script: list[list[list[Action]]] = []
    for prompt in scenario.prompts:
        turn: list[list[Action]] = []
        for response in prompt.responses:
            actions: list[Action] = []
            if response.fail is not None:
                actions.append(Fail(response.fail))
            if response.echo_results:
                actions.append(EchoResults(response.text or ""))
            elif response.text:
                actions.append(Say(response.text))
            for call in response.calls:
                actions.append(CallBuiltin(call.tool, call.input, id=call.id) if call.builtin
                               else CallHost(call.tool, call.input, id=call.id))
            turn.append(actions)
        script.append(turn)
    adapter = ScriptedAdapter(script, workspace=workspace, **dict(env.get("adapter_options") or {}))
    return ConformanceTarget(agent=adapter.agent(**agent_kwargs))
