"""The runtime-crash tests every adapter with a runtime process subclasses.

A harness whose runtime is a process of its own (Claude Code, Codex, pi, an ACP agent) must
survive that process dying at any moment. :class:`RuntimeFaultSuite` kills the real runtime
with ``SIGKILL`` at three moments: while a model request is in flight, while a host tool runs
and while a built-in call's approval waits. Each time the stream must carry a
``runtime-crashed`` error within :attr:`RuntimeFaultSuite.prompt_seconds` of the kill (not when
the host tool finally returns), no ``KeyError`` may reach the stream, the turn finishes with
``finish_reason="error"`` in a well-formed stream, an approved call whose runtime died is not
run and not asked about again, and the same session answers the next prompt (the adapter
starts a new runtime process on the same conversation).

Subclass it as ``Test...`` in your plugin's tests and provide:

* a ``make_fault_agent`` pytest fixture returning ``build(server, **agent_kwargs) ->
  HarnessAgent`` (``server`` is a running :class:`~harness_core.testing.ScriptedModelServer`;
  the agent's workspace must be the ``workspace`` fixture's folder);
* :meth:`RuntimeFaultSuite.kill_runtime`, which SIGKILLs the runtime process of a session.

Example::

    class TestPiFaults(RuntimeFaultSuite):
        @pytest.fixture
        def make_fault_agent(self, pi_agent):
            return pi_agent

        async def kill_runtime(self, session):
            os.kill(session.adapter_session.pi_pid, signal.SIGKILL)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, ClassVar

import anyio
import pytest

from harness_core.agent.harness_agent import HarnessAgent
from harness_core.parts.models import ErrorPart, FinishPart, Part, ToolApprovalRequestPart
from harness_core.testing._request import ModelRequest
from harness_core.testing._script import ModelTurn, Script, ToolCallSpec
from harness_core.testing._server import ScriptedModelServer
from harness_core.testing.conformance.checks import check_stream_shape
from harness_core.tools.definition import define_harness_tool

__all__ = ["RuntimeFaultSuite"]

AgentBuilder = Callable[..., HarnessAgent]


class RuntimeFaultSuite:
    """SIGKILL the real runtime mid-turn three ways; see the module docs.

    Class attributes:
        prompt_seconds: the most seconds from the kill to the ``runtime-crashed`` error part.
        host_tool_prefix: what the runtime puts before a host tool's name in the model's tool
            list (Claude Code: ``"mcp__harness__"``).
        shell_tool: the name the model calls the runtime's shell by (the scripted servers
            translate ``"bash"`` for most runtimes).
    """

    prompt_seconds: ClassVar[float] = 1.0
    host_tool_prefix: ClassVar[str] = ""
    shell_tool: ClassVar[str] = "bash"

    async def kill_runtime(self, session: Any) -> None:
        """SIGKILL ``session``'s runtime process (wait for it to exist first if need be)."""
        raise NotImplementedError(f"{type(self).__name__} must implement kill_runtime()")

    def server_options(self) -> dict[str, Any]:
        """Keyword arguments for the :class:`ScriptedModelServer` (say ``formats=[...]``)."""
        return {}

    def session_options(self, workspace: Path) -> dict[str, Any]:
        """Keyword arguments for ``agent.create_session`` (say a sandbox on ``workspace``)."""
        return {}

    def call_id(self, name: str) -> str:
        """The model's id for the scripted call named ``name`` (override for a runtime that
        checks the id's shape)."""
        return f"fault-{name}"

    @pytest.fixture
    def anyio_backend(self) -> str:
        return "asyncio"

    @pytest.mark.anyio
    async def test_kill_while_a_host_tool_runs(self, make_fault_agent: AgentBuilder, workspace: Path) -> None:
        started, release = threading.Event(), threading.Event()

        def slow(input: dict[str, Any], ctx: Any) -> str:
            started.set()
            release.wait(30)
            return "slow done"

        tool = define_harness_tool(name="slow", description="Take a while.",
                                   input={"type": "object", "properties": {}}, execute=slow)

        async def tool_running(part: Part) -> bool:
            if part.type != "tool-call":
                return False
            await anyio.to_thread.run_sync(lambda: started.wait(30))
            return True

        call = ToolCallSpec(self.host_tool_prefix + "slow", {}, id=self.call_id("slow"))
        try:
            with ScriptedModelServer(Script.of(ModelTurn(tool_calls=[call]), "Recovered.", "Again."),
                                     **self.server_options()) as server:
                agent = make_fault_agent(server, tools=[tool])
                async with await agent.create_session(**self.session_options(workspace)) as session:
                    parts, crashed_after = await self._stream_and_kill(agent, session, "slow", tool_running)
                    self._check_crashed(parts, crashed_after)
                    release.set()
                    await self._check_usable(agent, session)
        finally:
            release.set()

    @pytest.mark.anyio
    async def test_kill_during_a_model_request(self, make_fault_agent: AgentBuilder, workspace: Path) -> None:
        in_request = threading.Event()

        def respond(request: ModelRequest) -> ModelTurn:
            if not in_request.is_set():
                in_request.set()
                time.sleep(4)  # the runtime dies while it waits for this answer
            return ModelTurn("Recovered.")

        async def requesting(part: Part) -> bool:
            if part.type not in ("start", "start-step"):
                return False
            await anyio.to_thread.run_sync(lambda: in_request.wait(30))
            return True

        with ScriptedModelServer(Script(turns=(), respond=respond), **self.server_options()) as server:
            agent = make_fault_agent(server)
            async with await agent.create_session(**self.session_options(workspace)) as session:
                parts, crashed_after = await self._stream_and_kill(agent, session, "hello", requesting)
                self._check_crashed(parts, crashed_after)
                await self._check_usable(agent, session)

    @pytest.mark.anyio
    async def test_kill_while_an_approval_waits(self, make_fault_agent: AgentBuilder, workspace: Path) -> None:
        call = ToolCallSpec(self.shell_tool, {"command": "echo hi > hi.txt"}, id=self.call_id("hi"))
        with ScriptedModelServer(Script.of(ModelTurn(tool_calls=[call]), "Recovered.", "Again."),
                                     **self.server_options()) as server:
            agent = make_fault_agent(server, permission_mode="allow-reads")
            async with await agent.create_session(**self.session_options(workspace)) as session:
                first = await agent.generate(session=session, prompt="shell")
                assert first.finish_reason == "awaiting-approval", first.error
                await self.kill_runtime(session)
                killed_at = time.monotonic()
                (request,) = first.approval_requests
                stream = agent.continue_stream(session=session, approval_responses=[
                    {"approval_id": request.approval_id, "approved": True}])
                parts = [part async for part in stream.full_stream]
                crashed_after = time.monotonic() - killed_at
                assert self._crash_errors(parts), [p.to_json() for p in parts]
                self._check_crashed(parts, crashed_after)
                assert not (workspace / "hi.txt").exists(), "an approved call ran although its runtime died"
                assert not [p for p in parts if isinstance(p, ToolApprovalRequestPart)], "asked again"
                await self._check_usable(agent, session)

    async def _stream_and_kill(self, agent: HarnessAgent, session: Any, prompt: str,
                               ready: Callable[[Part], Awaitable[bool]]) -> tuple[list[Part], float]:
        """Stream ``prompt``; once ``ready(part)`` says so, kill the runtime; return the parts
        and the seconds from the kill to the ``runtime-crashed`` error part."""
        stream = agent.stream(session=session, prompt=prompt)
        parts: list[Part] = []
        killed_at: float | None = None
        crashed_after: float | None = None
        async for part in stream.full_stream:
            parts.append(part)
            if killed_at is None and await ready(part):
                await self.kill_runtime(session)
                killed_at = time.monotonic()
            if killed_at is not None and crashed_after is None and self._crash_errors([part]):
                crashed_after = time.monotonic() - killed_at
        assert killed_at is not None, [p.type for p in parts]
        assert crashed_after is not None, " | ".join(f"{p.type}:{getattr(p, 'error', '')}" for p in parts)
        return parts, crashed_after

    @staticmethod
    def _crash_errors(parts: list[Part]) -> list[ErrorPart]:
        return [p for p in parts if isinstance(p, ErrorPart) and p.error_type == "runtime-crashed"]

    def _check_crashed(self, parts: list[Part], crashed_after: float) -> None:
        assert crashed_after < self.prompt_seconds, f"runtime-crashed came {crashed_after:.2f} s after the kill"
        text = str([p.to_json() for p in parts])
        assert "KeyError" not in text, text
        finishes = [p for p in parts if isinstance(p, FinishPart)]
        assert finishes and finishes[-1].finish_reason == "error"
        check_stream_shape(parts)

    @staticmethod
    async def _check_usable(agent: HarnessAgent, session: Any) -> None:
        result = await agent.generate(session=session, prompt="again")
        assert result.finish_reason == "stop", result.error
        assert result.all_text  # the model answered through a new runtime process
