"""The adapter conformance suite: one set of behaviour tests every adapter plugin runs.

An adapter passes when :class:`~harness_core.agent.harness_agent.HarnessAgent` behaves the same on it as
on any other runtime: built-in calls execute, host tools round-trip, approvals pause and
continue, denials never execute, filtering holds, a suspended turn continues in a fresh
process, abort and runtime failures leave a usable session.

**How it works.** Each test describes its model abstractly as a :class:`Scenario`: the
prompts of the conversation and, for each, the model's responses (text, tool calls by
*common* built-in name or host tool name, "repeat the tool results you received", "fail").
Your subclass turns a scenario into a running runtime:

1. :meth:`AdapterConformanceSuite.scenario_environment` (an async context manager) starts
   whatever serves the scenario's model, typically a scripted model server from
   :mod:`harness_core.testing` whose turns you build from the scenario, and yields
   JSON-serializable data (say ``{"base_url": server.base_url}``);
2. :attr:`AdapterConformanceSuite.agent_factory` names (``"package.module:function"``) an
   importable function ``build(env, workspace, agent_kwargs) -> ConformanceTarget`` that
   builds the agent: ``HarnessAgent(harness=<your adapter>, **agent_kwargs)`` plus the
   keyword arguments its sessions need (a sandbox on ``workspace``, say). The suite calls it
   in the test process and, for the cross-process test, in a fresh Python process
   (``python -m harness_core.testing.conformance``) with the same ``env``.

Conventions a scenario relies on:

* the runtime works in ``workspace`` (a fresh directory per test): shell commands run
  there, relative paths resolve there;
* built-in inputs follow the common baseline: ``bash`` takes ``{"command"}``; translate
  in :meth:`AdapterConformanceSuite.native_input` if your runtime differs;
* :attr:`ModelResponse.echo_results`: the model's text is its ``text`` followed by the
  text of every tool result it received in the previous request, so the suite can check
  what reached the model;
* :attr:`ModelResponse.fail`: the model endpoint fails (an HTTP 500 from a scripted
  server, for instance) so the runtime reports an error for that prompt.

:func:`scenario_script` (also exported here) builds that server's script from a scenario,
with hooks for how your runtime names host tools on the wire.

Example (the scripted in-process adapter runs it in ``tests/agent``)::

    from harness_core.testing import ScenarioFailure, ScriptedModelServer
    from harness_core.testing.conformance import AdapterConformanceSuite, scenario_script

    class TestMyAdapterConformance(AdapterConformanceSuite):
        agent_factory = "my_adapter.testing:conformance_target"

        @asynccontextmanager
        async def scenario_environment(self, scenario, workspace):
            with ScriptedModelServer(scenario_script(scenario)) as server:
                yield {"base_url": server.base_url}
            assert all(isinstance(e, ScenarioFailure) for e in server.errors), server.errors

A runtime that lacks a capability skips the tests that need it, with the reason, via
:attr:`AdapterConformanceSuite.unsupported` (``{"test name": "reason"}``); built-in approval
tests skip themselves when the adapter says ``supports_builtin_approvals = False``.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, ClassVar

import anyio
import attrs
import pydantic
import pytest

from harness_core.agent.harness_agent import HarnessAgent
from harness_core.agent.results import GenerateResult, collect_parts
from harness_core.agent.session import HarnessSession
from harness_core.agent.turn_state import TurnState
from harness_core.approval import ApprovalContext, ApprovalDecision, ApprovalStatus
from harness_core.hookspecs import hookimpl
from harness_core.parts.models import (
    AbortPart,
    ErrorPart,
    FinishPart,
    Part,
    ToolApprovalRequestPart,
    ToolApprovalResponsePart,
    ToolCallPart,
    ToolErrorPart,
    ToolOutputDeniedPart,
    ToolResultPart,
    parse_part,
)
from harness_core.testing._scenario_script import (
    ScenarioFailure,
    find_prompt_position,
    received_tool_results,
    scenario_script,
)
from harness_core.tools.definition import HarnessTool, ToolCall, ToolContext, define_harness_tool

__all__ = [
    "EXECUTIONS_FILE",
    "AdapterConformanceSuite",
    "ConformanceTarget",
    "DenyShellPolicy",
    "ModelResponse",
    "Scenario",
    "ScenarioCall",
    "ScenarioFailure",
    "ScenarioPrompt",
    "agent_kwargs_from_spec",
    "builtin",
    "check_contract",
    "check_stream_shape",
    "conformance_tools",
    "executions",
    "find_prompt_position",
    "host",
    "load_factory",
    "received_tool_results",
    "say",
    "scenario_script",
    "scripted_conformance_target",
]

EXECUTIONS_FILE = ".conformance-executions.jsonl"
"""Every conformance host-tool execution appends one JSON line here (in the workspace)."""


# -- scenarios --------------------------------------------------------------------------


@attrs.frozen
class ScenarioCall:
    """One tool call the model makes.

    Attributes:
        tool: a common built-in name (``bash``) or a host tool name.
        input: the input (common baseline for built-ins).
        id: the call id, unique within the scenario.
        builtin: True for built-ins.
    """

    tool: str
    input: Mapping[str, Any]
    id: str
    builtin: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"tool": self.tool, "input": dict(self.input), "id": self.id, "builtin": self.builtin}


@attrs.frozen
class ModelResponse:
    """One model response.

    Attributes:
        text: what the model says (before any tool calls).
        calls: tool calls made in this response (parallel calls when several).
        echo_results: append the text of every tool result the model received.
        fail: the model endpoint fails with this message instead of answering.
    """

    text: str | None = None
    calls: tuple[ScenarioCall, ...] = ()
    echo_results: bool = False
    fail: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "calls": [c.to_json() for c in self.calls], "echo_results": self.echo_results,
                "fail": self.fail}


@attrs.frozen
class ScenarioPrompt:
    """One user prompt and the model responses it gets, in order."""

    prompt: str
    responses: tuple[ModelResponse, ...]

    def to_json(self) -> dict[str, Any]:
        return {"prompt": self.prompt, "responses": [r.to_json() for r in self.responses]}


@attrs.frozen
class Scenario:
    """A conversation with a scripted model, independent of any runtime.

    Attributes:
        name: the conformance test's name.
        prompts: the prompts, in order.
    """

    name: str
    prompts: tuple[ScenarioPrompt, ...]

    def to_json(self) -> dict[str, Any]:
        """JSON data (:meth:`from_json` reads it back)."""
        return {"name": self.name, "prompts": [p.to_json() for p in self.prompts]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Scenario:
        """Rebuild a scenario from :meth:`to_json` data."""
        return cls(name=data["name"], prompts=tuple(
            ScenarioPrompt(prompt=p["prompt"], responses=tuple(
                ModelResponse(text=r.get("text"), echo_results=bool(r.get("echo_results")), fail=r.get("fail"),
                              calls=tuple(ScenarioCall(tool=c["tool"], input=c["input"], id=c["id"],
                                                       builtin=bool(c.get("builtin"))) for c in r.get("calls", ())))
                for r in p["responses"]))
            for p in data["prompts"]))

    @property
    def calls(self) -> tuple[ScenarioCall, ...]:
        """Every call of the scenario, in order."""
        return tuple(c for p in self.prompts for r in p.responses for c in r.calls)


def say(text: str, *, echo: bool = False) -> ModelResponse:
    """A text response (optionally echoing the tool results received)."""
    return ModelResponse(text=text, echo_results=echo)


def builtin(tool: str, call_id: str, **input: Any) -> ModelResponse:
    """A response calling one built-in."""
    return ModelResponse(calls=(ScenarioCall(tool, input, call_id, builtin=True),))


def host(tool: str, call_id: str, **input: Any) -> ModelResponse:
    """A response calling one host tool."""
    return ModelResponse(calls=(ScenarioCall(tool, input, call_id),))


# -- the host tools the scenarios use ------------------------------------------------------


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


def agent_kwargs_from_spec(spec: Mapping[str, Any], workspace: Path) -> dict[str, Any]:
    """Agent keyword arguments from a JSON spec (the same in the test and the child process).

    Spec keys: ``tool_approval``, ``permission_mode``, ``active_tools``, ``inactive_tools``,
    ``tools_context``, ``deny_shell`` (bool: add :class:`DenyShellPolicy`). The
    conformance host tools are always given.
    """
    kwargs: dict[str, Any] = {"tools": conformance_tools(workspace)}
    for key in ("tool_approval", "permission_mode", "active_tools", "inactive_tools"):
        if spec.get(key) is not None:
            kwargs[key] = spec[key]
    kwargs["tools_context"] = spec.get("tools_context") or {"conformance_whoami": {"user": "conformance-user"}}
    if spec.get("deny_shell"):
        kwargs["plugins"] = [DenyShellPolicy()]
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


# -- assertions helpers -------------------------------------------------------------------------


def _of(parts: Sequence[Part], kind: type[Part]) -> list[Any]:
    return [p for p in parts if isinstance(p, kind)]


def _final_results(parts: Sequence[Part], call_id: str) -> list[Part]:
    return [p for p in parts if isinstance(p, ToolResultPart | ToolErrorPart | ToolOutputDeniedPart)
            and p.tool_call_id == call_id and not (isinstance(p, ToolResultPart) and p.preliminary)]


def check_contract(violations: Sequence[str]) -> None:
    """Fail the test when the adapter broke the contract of docs/adapters.md.

    ``violations`` are a session's :attr:`~harness_core.agent.session.HarnessSession.contract_violations`:
    a part the adapter emitted twice (a ``tool-call`` the core also emitted for a control
    event, a denial the core already emitted) or a result whose ``tool-call`` is missing.
    """
    if violations:
        pytest.fail("the adapter broke the part contract (docs/adapters.md, 'Who emits which part'):\n- "
                    + "\n- ".join(violations))


def check_stream_shape(parts: Sequence[Part]) -> None:
    """Assert the slice invariants: start first, finish (or abort) last, balanced steps,
    one ``tool-call`` per id, at most one final result per call id."""
    assert parts, "the slice produced no parts"
    assert parts[0].type == "start", f"first part is {parts[0].type!r}, not 'start'"
    assert parts[-1].type in ("finish", "abort"), f"last part is {parts[-1].type!r}, not 'finish' or 'abort'"
    depth = 0
    for part in parts:
        if part.type == "start-step":
            assert depth == 0, "start-step inside an open step"
            depth = 1
        elif part.type == "finish-step":
            assert depth == 1, "finish-step without start-step"
            depth = 0
    calls = [p.tool_call_id for p in parts if isinstance(p, ToolCallPart)]
    assert len(calls) == len(set(calls)), f"a tool-call part appears twice: {calls}"
    for call_id in set(calls):
        assert len(_final_results(parts, call_id)) <= 1, f"call {call_id} has more than one final result"


# -- the suite ----------------------------------------------------------------------------


class AdapterConformanceSuite:
    """Subclass as ``Test...`` in your plugin's tests; see the module docs.

    Class attributes:
        agent_factory: ``"package.module:function"`` building a :class:`ConformanceTarget`.
        unsupported: ``{test name: reason}`` for tests your runtime cannot pass.
        scenario_timeout: seconds before a scenario fails as hung.
        child_timeout: seconds the cross-process continuation may take.
    """

    agent_factory: ClassVar[str] = ""
    unsupported: ClassVar[Mapping[str, str]] = {}
    scenario_timeout: ClassVar[float] = 120.0
    child_timeout: ClassVar[float] = 180.0

    # -- what a subclass provides --------------------------------------------------------

    def scenario_environment(self, scenario: Scenario, workspace: Path
                             ) -> AbstractAsyncContextManager[Mapping[str, Any]]:
        """Serve ``scenario``'s model for the duration of a test; yield JSON data for the factory."""
        raise NotImplementedError(f"{type(self).__name__} must implement scenario_environment()")

    def native_input(self, call: ScenarioCall) -> Mapping[str, Any]:
        """The runtime's input for a built-in call (default: the common baseline unchanged)."""
        return call.input

    def subprocess_command(self) -> list[str]:
        """The command running the cross-process continuation (reads JSON on stdin)."""
        return [sys.executable, "-m", "harness_core.testing.conformance"]

    # -- fixtures ------------------------------------------------------------------------

    @pytest.fixture
    def anyio_backend(self) -> str:
        return "asyncio"

    @pytest.fixture
    def workspace(self, tmp_path: Path) -> Path:
        path = tmp_path / "workspace"
        path.mkdir()
        return path

    # -- machinery ----------------------------------------------------------------------

    def _skip_if_unsupported(self, name: str) -> None:
        if name in self.unsupported:
            pytest.skip(f"{type(self).__name__}: {self.unsupported[name]}")

    def _native(self, scenario: Scenario) -> Scenario:
        def convert(call: ScenarioCall) -> ScenarioCall:
            return attrs.evolve(call, input=dict(self.native_input(call))) if call.builtin else call

        return attrs.evolve(scenario, prompts=tuple(
            attrs.evolve(p, responses=tuple(attrs.evolve(r, calls=tuple(convert(c) for c in r.calls))
                                            for r in p.responses)) for p in scenario.prompts))

    @asynccontextmanager
    async def _run(self, scenario: Scenario, workspace: Path, spec: Mapping[str, Any] | None = None, *,
                   requires: frozenset[str] = frozenset()
                   ) -> AsyncIterator[tuple[HarnessAgent, HarnessSession, Mapping[str, Any]]]:
        self._skip_if_unsupported(scenario.name)
        if not self.agent_factory:
            raise NotImplementedError(f"{type(self).__name__} must set agent_factory = 'package.module:function'")
        scenario = self._native(scenario)
        factory = load_factory(self.agent_factory)
        async with self.scenario_environment(scenario, workspace) as env:
            json.dumps(env)  # must be JSON data: the child process receives it
            if requires:
                adapter = factory(env, workspace, agent_kwargs_from_spec({}, workspace)).agent.adapter
                if "builtin-approvals" in requires and not adapter.supports_builtin_approvals:
                    pytest.skip(f"harness {adapter.harness_id!r} does not support built-in approvals")
                if "builtin-filtering" in requires and not (
                        adapter.supports_builtin_filtering or adapter.supports_builtin_approvals):
                    pytest.skip(f"harness {adapter.harness_id!r} can filter built-ins neither natively nor by approvals")
            target = factory(env, workspace, agent_kwargs_from_spec(spec or {}, workspace))
            session = await target.agent.create_session(**dict(target.session_kwargs))
            try:
                with anyio.fail_after(self.scenario_timeout):
                    yield target.agent, session, env
                check_contract(session.contract_violations)
            except TimeoutError:
                pytest.fail(
                    f"scenario {scenario.name!r} did not finish within {self.scenario_timeout} s; a paused turn that "
                    "never returns usually means the adapter does not emit AwaitingAnswers when its runtime waits"
                )
            finally:
                with anyio.CancelScope(shield=True):
                    await session.destroy()

    def run_scenario(self, scenario: Scenario, workspace: Path, spec: Mapping[str, Any] | None = None, *,
                     requires: frozenset[str] = frozenset()
                     ) -> AbstractAsyncContextManager[tuple[HarnessAgent, HarnessSession, Mapping[str, Any]]]:
        """Run ``scenario`` for an extra test of your own: ``async with self.run_scenario(...) as
        (agent, session, env):``.

        Serves the model through :meth:`scenario_environment`, builds the agent with
        ``agent_factory`` from ``spec`` (see :func:`agent_kwargs_from_spec`), opens a session,
        applies :attr:`scenario_timeout`, and destroys the session afterwards. ``requires``
        may hold ``"builtin-approvals"`` / ``"builtin-filtering"`` to skip on adapters without them.
        """
        return self._run(scenario, workspace, spec, requires=requires)

    def continue_in_child(self, env: Mapping[str, Any], workspace: Path, spec: Mapping[str, Any],
                          state: Mapping[str, Any], continuation: Mapping[str, Any]) -> dict[str, Any]:
        """Continue suspended ``state`` in a fresh Python process (blocking; run it in a thread).

        Args:
            env: the environment data from :meth:`scenario_environment`.
            workspace: the scenario workspace.
            spec: the agent spec (as for :meth:`run_scenario`); rebind ``tools_context`` here.
            state: the JSON from ``session.suspend_turn()``.
            continuation: ``{"approval_responses": [...], "tool_result_continuations": [...]}``.

        Returns:
            ``{"parts": [part JSON...], "state": <session state after>, "pid": <child pid>}``.
        """
        return self._continue_in_child(env, workspace, spec, state, continuation)

    def _continue_in_child(self, env: Mapping[str, Any], workspace: Path, spec: Mapping[str, Any],
                           state: Mapping[str, Any], continuation: Mapping[str, Any]) -> dict[str, Any]:
        payload = {"factory": self.agent_factory, "env": env, "workspace": str(workspace), "spec": spec,
                   "state": state, "continuation": continuation}
        process = subprocess.run(self.subprocess_command(), input=json.dumps(payload), capture_output=True,
                                 text=True, timeout=self.child_timeout, check=False)
        assert process.returncode == 0, (
            f"the continuation process failed (exit {process.returncode}):\n{process.stderr[-4000:]}"
        )
        data: dict[str, Any] = json.loads(process.stdout.strip().splitlines()[-1])
        check_contract(data.get("violations", ()))
        return data

    # -- the tests ------------------------------------------------------------------------

    @pytest.mark.anyio
    async def test_builtin_call_executed(self, workspace: Path) -> None:
        """The model runs a shell command through the runtime's built-in; the file appears."""
        scenario = Scenario("test_builtin_call_executed", (ScenarioPrompt("Create built-in.txt", (
            builtin("bash", "conf-bash-1", command="echo conformance > built-in.txt"),
            say("done"),
        )),))
        async with self._run(scenario, workspace) as (agent, session, _):
            result = await agent.generate(session=session, prompt="Create built-in.txt")
        check_stream_shape(result.parts)
        calls = [c for c in _of(result.parts, ToolCallPart) if c.tool_name == "bash"]
        assert calls, f"no tool-call part for built-in 'bash': {[p.type for p in result.parts]}"
        call = calls[0]
        assert call.provider_executed is True
        native = agent.builtins["bash"].native_name
        if native != "bash":
            assert (call.provider_metadata or {}).get(agent.harness_id, {}).get("nativeToolName") == native
        finals = _final_results(result.parts, call.tool_call_id)
        assert len(finals) == 1 and isinstance(finals[0], ToolResultPart), f"bash result: {finals}"
        assert (workspace / "built-in.txt").read_text().strip() == "conformance"
        assert result.finish_reason == "stop", result.error
        assert "done" in result.all_text
        assert session.state is TurnState.IDLE

    @pytest.mark.anyio
    async def test_host_tool_round_trip(self, workspace: Path) -> None:
        """A host tool executes in the host and its result reaches the model."""
        scenario = Scenario("test_host_tool_round_trip", (ScenarioPrompt("Add 2 and 3", (
            host("conformance_add", "conf-add-1", a=2, b=3),
            say("sum:", echo=True),
        )),))
        async with self._run(scenario, workspace) as (agent, session, _):
            result = await agent.generate(session=session, prompt="Add 2 and 3")
        check_stream_shape(result.parts)
        call = next(c for c in _of(result.parts, ToolCallPart) if c.tool_name == "conformance_add")
        assert not call.provider_executed
        finals = _final_results(result.parts, call.tool_call_id)
        assert len(finals) == 1 and isinstance(finals[0], ToolResultPart), finals
        assert str(finals[0].output) == "5"
        assert [e["tool"] for e in executions(workspace)] == ["conformance_add"]
        assert "5" in result.all_text, f"the model did not receive the result: {result.all_text!r}"
        assert result.finish_reason == "stop"

    @pytest.mark.anyio
    async def test_host_approval_pause_and_continue(self, workspace: Path) -> None:
        """user-approval pauses the slice; approving continues the same session and runs the tool."""
        scenario = Scenario("test_host_approval_pause_and_continue", (ScenarioPrompt("Record it", (
            host("conformance_record", "conf-rec-1", text="approved"),
            say("recorded:", echo=True),
        )),))
        spec = {"tool_approval": {"conformance_record": "user-approval"}}
        async with self._run(scenario, workspace, spec) as (agent, session, _):
            first = await agent.generate(session=session, prompt="Record it")
            check_stream_shape(first.parts)
            assert first.finish_reason == "awaiting-approval"
            assert session.state is TurnState.AWAITING_APPROVAL and session.has_unfinished_turn()
            (request,) = first.approval_requests
            assert request.tool_call.tool_name == "conformance_record"
            assert executions(workspace) == []
            second = await agent.continue_generate(
                session=session, approval_responses=[{"approval_id": request.approval_id, "approved": True}])
        check_stream_shape(second.parts)
        assert _of(second.parts, ToolApprovalResponsePart)[0].approved is True
        finals = _final_results(second.parts, request.tool_call.tool_call_id)
        assert len(finals) == 1 and isinstance(finals[0], ToolResultPart), finals
        assert (workspace / "conformance-record.txt").read_text() == "approved"
        assert second.finish_reason == "stop"
        assert "recorded approved" in second.all_text
        assert session.state.value == "idle"

    @pytest.mark.anyio
    async def test_builtin_approval_pause_and_continue(self, workspace: Path) -> None:
        """Under allow-reads a shell built-in asks first; approving runs it."""
        scenario = Scenario("test_builtin_approval_pause_and_continue", (ScenarioPrompt("Create approved.txt", (
            builtin("bash", "conf-bash-2", command="echo approved > approved.txt"),
            say("ok"),
        )),))
        async with self._run(scenario, workspace, {"permission_mode": "allow-reads"},
                             requires=frozenset({"builtin-approvals"})) as (agent, session, _):
            first = await agent.generate(session=session, prompt="Create approved.txt")
            check_stream_shape(first.parts)
            assert first.finish_reason == "awaiting-approval", first.error
            (request,) = first.approval_requests
            assert request.tool_call.tool_name == "bash" and request.tool_call.provider_executed
            native = agent.builtins["bash"].native_name
            if native != "bash":
                metadata = request.tool_call.provider_metadata or {}
                assert metadata.get(agent.harness_id, {}).get("nativeToolName") == native
            assert not (workspace / "approved.txt").exists()
            second = await agent.continue_generate(
                session=session, approval_responses=[{"approval_id": request.approval_id, "approved": True}])
        check_stream_shape(second.parts)
        assert (workspace / "approved.txt").read_text().strip() == "approved"
        assert second.finish_reason == "stop"

    @pytest.mark.anyio
    async def test_host_denial_never_executes(self, workspace: Path) -> None:
        """tool_approval 'denied': execution-denied, execute never runs, the model sees the denial."""
        scenario = Scenario("test_host_denial_never_executes", (ScenarioPrompt("Record it", (
            host("conformance_record", "conf-rec-2", text="denied"),
            say("result:", echo=True),
        )),))
        spec = {"tool_approval": {"conformance_record": "denied"}}
        async with self._run(scenario, workspace, spec) as (agent, session, _):
            result = await agent.generate(session=session, prompt="Record it")
        check_stream_shape(result.parts)
        (denied,) = _of(result.parts, ToolOutputDeniedPart)
        assert denied.tool_name == "conformance_record" and denied.reason
        assert executions(workspace) == []
        assert not (workspace / "conformance-record.txt").exists()
        assert "denied" in result.all_text.lower()
        assert result.finish_reason == "stop"

    @pytest.mark.anyio
    async def test_user_denial_reaches_model(self, workspace: Path) -> None:
        """A person's denial (with a reason) is final: the call never executes, the reason reaches the model."""
        scenario = Scenario("test_user_denial_reaches_model", (ScenarioPrompt("Record it", (
            host("conformance_record", "conf-rec-3", text="nope"),
            say("result:", echo=True),
        )),))
        spec = {"tool_approval": {"conformance_record": "user-approval"}}
        async with self._run(scenario, workspace, spec) as (agent, session, _):
            first = await agent.generate(session=session, prompt="Record it")
            (request,) = first.approval_requests
            second = await agent.continue_generate(session=session, approval_responses=[
                {"approval_id": request.approval_id, "approved": False, "reason": "not today"}])
        check_stream_shape(second.parts)
        (denied,) = _of(second.parts, ToolOutputDeniedPart)
        assert denied.reason == "not today"
        assert executions(workspace) == []
        assert "not today" in second.all_text
        assert second.finish_reason == "stop"

    @pytest.mark.anyio
    async def test_builtin_denied_by_policy(self, workspace: Path) -> None:
        """An approval policy denying shell built-ins stops the command; no approval parts appear."""
        scenario = Scenario("test_builtin_denied_by_policy", (ScenarioPrompt("Create denied.txt", (
            builtin("bash", "conf-bash-3", command="echo no > denied.txt"),
            say("after", echo=True),
        )),))
        async with self._run(scenario, workspace, {"deny_shell": True},
                             requires=frozenset({"builtin-approvals"})) as (agent, session, _):
            result = await agent.generate(session=session, prompt="Create denied.txt")
        check_stream_shape(result.parts)
        assert not (workspace / "denied.txt").exists()
        assert not _of(result.parts, ToolApprovalRequestPart)
        (denied,) = _of(result.parts, ToolOutputDeniedPart)
        assert denied.tool_name == "bash" and denied.reason == DenyShellPolicy.REASON
        assert result.finish_reason == "stop"

    @pytest.mark.anyio
    async def test_filtering(self, workspace: Path) -> None:
        """Inactive built-ins and host tools never run, whichever way the runtime enforces it."""
        scenario = Scenario("test_filtering", (ScenarioPrompt("Try everything", (
            builtin("bash", "conf-bash-4", command="echo no > filtered.txt"),
            host("conformance_record", "conf-rec-4", text="filtered"),
            say("after", echo=True),
        )),))
        spec = {"inactive_tools": ["bash", "conformance_record"]}
        async with self._run(scenario, workspace, spec, requires=frozenset({"builtin-filtering"})) as (
                agent, session, _):
            assert {"bash", "conformance_record"} <= session.inactive_tools
            result = await agent.generate(session=session, prompt="Try everything")
        check_stream_shape(result.parts)
        assert not (workspace / "filtered.txt").exists()
        assert not (workspace / "conformance-record.txt").exists()
        assert executions(workspace) == []
        for call in _of(result.parts, ToolCallPart):
            if call.tool_name in ("bash", "conformance_record"):
                finals = _final_results(result.parts, call.tool_call_id)
                assert all(not isinstance(f, ToolResultPart) for f in finals), finals
        for denied in _of(result.parts, ToolOutputDeniedPart):
            assert denied.tool_name in (denied.reason or ""), denied
        assert not _of(result.parts, ToolApprovalRequestPart)
        assert result.finish_reason == "stop"

    @pytest.mark.anyio
    async def test_suspend_and_continue_in_new_process(self, workspace: Path) -> None:
        """A paused approval suspends to JSON (no tool context inside) and continues in a fresh process."""
        scenario = Scenario("test_suspend_and_continue_in_new_process", (ScenarioPrompt("Record it", (
            host("conformance_record", "conf-rec-5", text="from-child"),
            say("child:", echo=True),
        )),))
        secret = "SECRET-CONTEXT-7f3a"
        spec = {"tool_approval": {"conformance_record": "user-approval"},
                "tools_context": {"conformance_whoami": {"user": secret}}}
        async with self._run(scenario, workspace, spec) as (agent, session, env):
            first = await agent.generate(session=session, prompt="Record it")
            assert first.finish_reason == "awaiting-approval", first.error
            (request,) = first.approval_requests
            state = await session.suspend_turn()
            assert session.state is TurnState.SUSPENDED
            text = json.dumps(state)
            assert secret not in text, "tools_context leaked into suspended state"
            assert state["version"] == 1 and request.approval_id in state["pending_approvals"]
            child = await anyio.to_thread.run_sync(lambda: self._continue_in_child(
                env, workspace, {**spec, "tools_context": {"conformance_whoami": {"user": "child-user"}}},
                json.loads(text), {"approval_responses": [{"approval_id": request.approval_id, "approved": True}]}))
        parts = [parse_part(p) for p in child["parts"]]
        check_stream_shape(parts)
        result = collect_parts(parts)
        assert result.finish_reason == "stop", result.error
        finals = _final_results(parts, request.tool_call.tool_call_id)
        assert len(finals) == 1 and isinstance(finals[0], ToolResultPart), finals
        assert (workspace / "conformance-record.txt").read_text() == "from-child"
        runs = executions(workspace)
        assert len(runs) == 1 and runs[0]["pid"] == child["pid"] != os.getpid(), runs
        assert "recorded from-child" in result.all_text
        assert child["state"] == "idle"

    @pytest.mark.anyio
    async def test_client_side_tool_suspend_and_continue_in_new_process(self, workspace: Path) -> None:
        """A client-side tool pauses the turn; its pending call survives suspension; the result continues it elsewhere."""
        scenario = Scenario("test_client_side_tool_suspend_and_continue_in_new_process", (ScenarioPrompt("Pick", (
            host("conformance_pick", "conf-pick-1", question="color?"),
            say("picked:", echo=True),
        )),))
        async with self._run(scenario, workspace) as (agent, session, env):
            first = await agent.generate(session=session, prompt="Pick")
            assert first.finish_reason == "awaiting-tool-result", first.error
            (pending,) = first.pending_tool_calls
            assert pending.tool_name == "conformance_pick"
            state = await session.suspend_turn()
            assert pending.tool_call_id in state["pending_tool_results"]
            child = await anyio.to_thread.run_sync(lambda: self._continue_in_child(
                env, workspace, {}, state,
                {"tool_result_continuations": [{"tool_call_id": pending.tool_call_id, "output": "teal"}]}))
        parts = [parse_part(p) for p in child["parts"]]
        check_stream_shape(parts)
        result = collect_parts(parts)
        assert result.finish_reason == "stop", result.error
        assert "teal" in result.all_text

    @pytest.mark.anyio
    async def test_abort(self, workspace: Path) -> None:
        """Aborting a running turn ends the stream with an abort part; the session takes the next prompt."""
        scenario = Scenario("test_abort", (
            ScenarioPrompt("Wait", (builtin("bash", "conf-bash-5", command="sleep 30"), say("never"))),
            ScenarioPrompt("Again", (say("recovered"),)),
        ))
        async with self._run(scenario, workspace) as (agent, session, _):
            result = agent.stream(session=session, prompt="Wait")
            parts: list[Part] = []
            async for part in result.full_stream:
                parts.append(part)
                if isinstance(part, ToolCallPart) and part.tool_name == "bash":
                    result.abort("conformance abort")
            assert isinstance(parts[-1], AbortPart), [p.type for p in parts]
            assert session.state is TurnState.IDLE and not session.has_unfinished_turn()
            assert await result.finish_reason == "aborted"
            again = await agent.generate(session=session, prompt="Again")
        assert again.finish_reason == "stop", again.error
        assert "recovered" in again.all_text

    @pytest.mark.anyio
    async def test_runtime_failure_keeps_session_usable(self, workspace: Path) -> None:
        """A failing model gives an error part and finish 'error'; the next prompt works."""
        scenario = Scenario("test_runtime_failure_keeps_session_usable", (
            ScenarioPrompt("Fail", (ModelResponse(fail="conformance: the model is unavailable"),)),
            ScenarioPrompt("Again", (say("back"),)),
        ))
        async with self._run(scenario, workspace) as (agent, session, _):
            failed = await agent.generate(session=session, prompt="Fail")
            again = await agent.generate(session=session, prompt="Again")
        check_stream_shape(failed.parts)
        assert failed.finish_reason == "error"
        assert _of(failed.parts, ErrorPart), [p.type for p in failed.parts]
        assert isinstance(failed.parts[-1], FinishPart)
        assert again.finish_reason == "stop", again.error
        assert "back" in again.all_text


# -- the child process -------------------------------------------------------------------------


async def _child(payload: Mapping[str, Any]) -> dict[str, Any]:
    workspace = Path(payload["workspace"])
    factory = load_factory(payload["factory"])
    target = factory(payload["env"], workspace, agent_kwargs_from_spec(payload["spec"], workspace))
    session = await target.agent.create_session(continue_from=payload["state"], **dict(target.session_kwargs))
    try:
        continuation = payload["continuation"]
        result: GenerateResult = await target.agent.continue_generate(
            session=session,
            tool_result_continuations=continuation.get("tool_result_continuations", ()),
            approval_responses=continuation.get("approval_responses", ()),
        )
        return {"parts": [p.to_json() for p in result.parts], "state": session.state.value, "pid": os.getpid(),
                "violations": list(session.contract_violations)}
    finally:
        await session.destroy()


def main() -> None:
    """Continue a suspended conformance turn: JSON payload on stdin, JSON result on stdout."""
    payload = json.loads(sys.stdin.read())
    print(json.dumps(anyio.run(_child, payload)))


if __name__ == "__main__":
    main()
