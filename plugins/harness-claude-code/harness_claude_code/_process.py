"""The Claude Code CLI process of one session: started, reused, restarted and stopped.

A :class:`SessionProcess` holds at most one :class:`~._runtime.Runtime`. :meth:`ensure`
reuses it while it runs with the same :class:`~._options.ProcessSpec` and otherwise
closes it and starts another (resuming the Claude Code session id the spec names). When a
resume fails because Claude Code never saved that session, a new Claude Code session is
started instead and :attr:`SessionProcess.lost_session` says which one was lost. Messages
and the exit of the current process go to the ``on_message`` / ``on_exit`` callbacks; those
of a process already replaced are dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, cast

import anyio
import attrs

from harness_core import HostToolSpec

from ._callbacks import RuntimeCallbacks
from ._external_mcp import McpCatalog, sdk_server_config
from ._mcp import build_host_server
from ._options import ProcessSpec, build_options
from ._runtime import Runtime, RuntimeStartError
from ._settings import HOST_SERVER, ClaudeCodeSettings

__all__ = ["SessionProcess"]

_MISSING_SESSION: Final = "No conversation found"


MCP_WAIT: Final = 60.0
"""Seconds a new process waits for its external MCP servers to connect."""


class SessionProcess:
    """The session's CLI process (see the module docstring).

    Args:
        settings: the adapter's settings.
        callbacks: the permission callback, hook and host tool handler of the session.
        on_message: receives every SDK message of the current process.
        on_exit: called when the current process's stream ends (the error, or ``None``).

    Attributes:
        mcp: what the CLI reported about the external MCP servers (kinds, failures).
        lost_session: the Claude Code session id a resume could not find (the last
            :meth:`ensure` started a new session instead), else ``None``.
    """

    def __init__(self, settings: ClaudeCodeSettings, callbacks: RuntimeCallbacks,
                 on_message: Callable[[object], None], on_exit: Callable[[BaseException | None], None]) -> None:
        self._settings = settings
        self._callbacks = callbacks
        self._on_message = on_message
        self._on_exit = on_exit
        self._runtime: Runtime | None = None
        self._spec: ProcessSpec | None = None
        self._cost_seen = 0.0
        self._lock = anyio.Lock()
        self.lost_session: str | None = None
        self.mcp = McpCatalog(settings.mcp_servers)

    @property
    def pids(self) -> list[int]:
        """The live CLI process and its descendants (empty when none runs)."""
        return self._runtime.process_tree() if self._runtime is not None else []

    def turn_cost(self, total_cost_usd: float | None) -> float | None:
        """A turn's cost in US dollars from the process's cumulative ``total_cost_usd``."""
        if total_cost_usd is None:
            return None
        cost = max(0.0, total_cost_usd - self._cost_seen)
        self._cost_seen = total_cost_usd
        return round(cost, 10)

    def describe_exit(self, error: BaseException | None, claude_session_id: str | None) -> str:
        """A clear message about an unexpected CLI exit, with its stderr tail."""
        runtime = self._runtime
        pid = f" (pid {runtime.pid})" if runtime is not None and runtime.pid else ""
        tail = "; ".join(runtime.stderr_tail) if runtime is not None else ""
        cause = f": {error}" if error is not None else ""
        resume = (f"; the next prompt restarts it and resumes session {claude_session_id}"
                  if claude_session_id else "; the next prompt starts it again")
        return f"Claude Code{pid} exited unexpectedly{cause}" + (f" (stderr: {tail})" if tail else "") + resume

    async def ensure(self, host_tools: Sequence[HostToolSpec], spec: ProcessSpec) -> Runtime:
        """A running process for ``spec``: the current one if it matches, else a new one.

        Raises:
            RuntimeStartError: the CLI could not be started (the message says why).
        """
        async with self._lock:
            self.lost_session = None
            runtime = self._runtime
            if runtime is not None and runtime.running and self._spec is not None and spec.same_process(self._spec) \
                    and not spec.continue_interrupted:
                return runtime
            await self.close()
            runtime = self._new_runtime(host_tools, spec)
            try:
                await runtime.start()
            except RuntimeStartError as error:
                if spec.resume is None or spec.continue_interrupted or _MISSING_SESSION not in str(error):
                    raise
                # Claude Code writes its transcript lazily: a process that died early may
                # never have saved the conversation. Start a new Claude Code session.
                self.lost_session, spec = spec.resume, attrs.evolve(spec, resume=None)
                runtime = self._new_runtime(host_tools, spec)
                await runtime.start()
            self._runtime, self._spec, self._cost_seen = runtime, spec, 0.0
            if self._settings.mcp_servers:
                await self._record_mcp(runtime)
            return runtime

    async def _record_mcp(self, runtime: Runtime) -> None:
        """Wait (up to ``MCP_WAIT`` seconds) until the CLI has connected or failed every
        external MCP server, and record what it reports."""
        with anyio.move_on_after(MCP_WAIT):
            while True:
                status = await runtime.mcp_status()
                self.mcp.record(status)
                if not any(s.get("status") == "pending" for s in status.get("mcpServers") or []):
                    return
                await anyio.sleep(0.2)

    def _new_runtime(self, host_tools: Sequence[HostToolSpec], spec: ProcessSpec) -> Runtime:
        from claude_agent_sdk import HookMatcher

        servers: dict[str, Any] = {name: sdk_server_config(config) for name, config in self._settings.mcp_servers.items()}
        if host_tools:
            servers[HOST_SERVER] = build_host_server(HOST_SERVER, host_tools, self._callbacks.host_call)
        holder: list[Runtime] = []

        def on_message(message: object) -> None:
            if holder and holder[0] is self._runtime:
                self._on_message(message)

        def on_exit(error: BaseException | None) -> None:
            if holder and holder[0] is self._runtime:
                self._on_exit(error)

        def stderr(line: str) -> None:
            if holder:
                holder[0].record_stderr(line)
            if self._settings.stderr is not None:
                self._settings.stderr(line)

        options = build_options(
            self._settings, spec, mcp_servers=servers, can_use_tool=self._callbacks.can_use_tool,
            hooks={"PreToolUse": [HookMatcher(matcher=None, hooks=[cast(Any, self._callbacks.pre_tool_use)])]},
            stderr=stderr,
        )
        runtime = Runtime(options, on_message, on_exit)
        holder.append(runtime)
        return runtime

    async def send(self, text: str, *, message_id: str | None = None) -> None:
        """Send a user message (with ``uuid`` ``message_id``, when given) to the running CLI.

        Raises:
            RuntimeError: no CLI runs (call :meth:`ensure` first), or the SDK failed to send.
        """
        if self._runtime is None:
            raise RuntimeError("Claude Code is not running")
        await self._runtime.send(text, message_id=message_id)

    async def abort(self) -> None:
        """Interrupt the CLI (so it stops its tools), then kill its whole process tree."""
        runtime, self._runtime = self._runtime, None
        if runtime is None:
            return
        if runtime.running:
            await runtime.interrupt(self._settings.interrupt_timeout)
        await runtime.kill()

    async def kill(self) -> None:
        """Kill the CLI's process tree at once (nothing is flushed)."""
        runtime, self._runtime = self._runtime, None
        if runtime is not None:
            await runtime.kill()

    async def close(self) -> None:
        """Close the CLI gracefully (it flushes its transcript); nothing of its tree survives."""
        runtime, self._runtime = self._runtime, None
        if runtime is not None:
            await runtime.close()
