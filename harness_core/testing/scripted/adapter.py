"""A scripted, in-process adapter: a fake *runtime* for testing the host side.

:class:`ScriptedAdapter` implements the whole adapter contract
(:mod:`harness_core.adapter`) without a model: each prompt plays the next scripted turn.
A turn is a list of steps; a step is a list of actions (or a function of the previous
step's results returning one). The runtime behaves like a real one:

* text and reasoning stream as native events, projected by the adapter's own
  ``harness_project_event`` implementation;
* built-in calls (:class:`CallBuiltin`) run for real in the workspace (the session
  sandbox's root, else ``workspace=``): ``bash`` in a subprocess, ``read`` / ``write`` /
  ``edit`` / ``glob`` on real files; with ``StartRequest.builtin_approvals`` each call first
  asks through :class:`~harness_core.adapter.BuiltinApprovalRequest` and honours the
  answer; with a native :class:`~harness_core.adapter.BuiltinFilter` an inactive built-in
  is "not offered" and the call fails like a runtime's "No such tool";
* host calls (:class:`CallHost`) become :class:`~harness_core.adapter.HostToolCall` events
  (even for tools the host did not offer, so the agent's own defences can be tested);
* the calls of a step are parallel: all requests, then
  :class:`~harness_core.adapter.AwaitingAnswers`, then the runtime waits until every
  request is answered;
* :class:`Fail` ends the turn with a runtime error, :class:`Crash` makes the event
  stream raise, :class:`Sleep` blocks (abort tests);
* ``suspend_turn()`` / ``resume_turn()`` round-trip through JSON, so a turn suspended in
  one process continues in another built with the same script; ``stop()`` / resume
  continue with the next scripted turn.

Everything the runtime receives is recorded (:attr:`ScriptedAdapter.starts`,
:attr:`~ScriptedAdapter.prompts`, :attr:`~ScriptedAdapter.tool_results`,
:attr:`~ScriptedAdapter.approvals`...) for assertions.

Example::

    from harness_core.testing import CallBuiltin, CallHost, EchoResults, Say, ScriptedAdapter

    adapter = ScriptedAdapter([
        [  # turn 1 (first prompt)
            [Say("Checking."), CallBuiltin("bash", {"command": "echo hi > out.txt"})],  # step 1
            [EchoResults("Result:")],                                                  # step 2
        ],
    ], workspace=tmp_path)
    agent = adapter.agent(tools=[...])          # an isolated plugin manager, adapter registered
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness_core.adapter import PromptRequest, StartRequest
from harness_core.capabilities import Capability, CapabilitySupport, supported, unsupported
from harness_core.errors import HarnessCapabilityUnsupportedError
from harness_core.hook_contexts import ProjectionContext
from harness_core.hookspecs import hookimpl
from harness_core.parts.models import Part
from harness_core.testing.scripted.actions import Turn
from harness_core.testing.scripted.builtins import default_builtins
from harness_core.testing.scripted.native import project_scripted_event
from harness_core.testing.scripted.session import ScriptedSession
from harness_core.tools.definition import BuiltinTool
from harness_core.tools.output import ToolOutput

if TYPE_CHECKING:
    from harness_core.agent.harness_agent import HarnessAgent

__all__ = ["ScriptedAdapter"]


class ScriptedAdapter:
    """An in-process adapter playing a script; also its own plugin (register it).

    Args:
        script: one entry per prompt (see the module docs).
        harness_id: its harness id (default ``scripted``).
        supports_builtin_approvals: built-in calls can be paused for a decision.
        supports_builtin_filtering: the runtime can be told not to offer built-ins.
        supports_suspend: ``suspend_turn`` / ``resume_turn`` work (else they raise
            :class:`~harness_core.errors.HarnessCapabilityUnsupportedError`).
        supports_compaction: ``compact()`` works (else it raises likewise).
        builtins: the declared built-ins (default :func:`default_builtins`).
        workspace: where built-ins run when the session has no sandbox.
        host_tool_prefix: the runtime's prefix for host tool names (e.g. ``mcp__host__``);
            host calls then carry it as ``native_tool_name``.
        bash_timeout: seconds before a built-in ``bash`` call is killed.
    """

    def __init__(
        self,
        script: Sequence[Turn],
        *,
        harness_id: str = "scripted",
        supports_builtin_approvals: bool = True,
        supports_builtin_filtering: bool = False,
        supports_suspend: bool = True,
        supports_compaction: bool = True,
        builtins: Sequence[BuiltinTool] | None = None,
        workspace: str | os.PathLike[str] | None = None,
        host_tool_prefix: str | None = None,
        bash_timeout: float = 60.0,
    ) -> None:
        self.script: list[Turn] = list(script)
        self.harness_id = harness_id
        self.supports_builtin_approvals = supports_builtin_approvals
        self.supports_builtin_filtering = supports_builtin_filtering
        self.supports_suspend = supports_suspend
        self.supports_compaction = supports_compaction
        self.capabilities: dict[Capability, CapabilitySupport] = {
            Capability.STRUCTURED_OUTPUT: supported("the script's last step says the JSON answer (the prompt's "
                                                    "output_schema is recorded in `prompts`)"),
            Capability.STOP_CONDITIONS: supported("evaluated by the core after each finished step"),
            Capability.PLAN_MODE: unsupported("the scripted runtime has no read-only mode"),
            Capability.COMPACTION: supported() if supports_compaction else unsupported("supports_compaction=False"),
            Capability.CROSS_PROCESS_CONTINUATION: (supported() if supports_suspend
                                                    else unsupported("supports_suspend=False")),
        }
        """The capability declarations (:mod:`harness_core.capabilities`)."""
        self.declared_builtins: list[BuiltinTool] = list(builtins) if builtins is not None else default_builtins()
        self.workspace = Path(workspace) if workspace is not None else None
        self.host_tool_prefix = host_tool_prefix
        self.bash_timeout = bash_timeout
        self.starts: list[StartRequest] = []
        """Every :class:`~harness_core.adapter.StartRequest` received."""
        self.prompts: list[PromptRequest] = []
        """Every :class:`~harness_core.adapter.PromptRequest` received."""
        self.tool_results: dict[str, list[ToolOutput]] = {}
        """Host tool results received, by call id (a list, to catch double submissions)."""
        self.approvals: dict[str, list[tuple[bool, str | None]]] = {}
        """Built-in approval answers received, by approval id."""
        self.executed: list[str] = []
        """Call ids of built-in calls the runtime actually ran."""
        self.aborted: list[int] = []
        """Turn indexes that were aborted."""
        self.live_processes: set[int] = set()
        """Process ids of built-in commands still running."""
        self.sessions: list[ScriptedSession] = []

    # -- plugin side ---------------------------------------------------------------------

    @hookimpl
    def harness_adapters(self) -> Mapping[str, Callable[..., ScriptedAdapter]]:
        """This adapter, under its harness id."""
        return {self.harness_id: lambda **_: self}

    @hookimpl
    def harness_declare_builtins(self, harness_id: str) -> Sequence[BuiltinTool] | None:
        """The declared built-ins, for this adapter's harness id."""
        return list(self.declared_builtins) if harness_id == self.harness_id else None

    @hookimpl
    def harness_project_event(self, event: object, context: ProjectionContext) -> Sequence[Part] | None:
        """Project the scripted runtime's native events."""
        return project_scripted_event(event, context)

    def agent(self, **kwargs: Any) -> HarnessAgent:
        """A :class:`~harness_core.agent.harness_agent.HarnessAgent` on an isolated plugin manager.

        Installed plugins are not discovered (only the core defaults, this adapter and
        ``plugins=``), so tests see exactly what they configure.
        """
        from harness_core.agent.harness_agent import HarnessAgent
        from harness_core.plugins.manager import create_plugin_manager

        manager = kwargs.pop("plugin_manager", None) or create_plugin_manager(load_entry_points=False)
        manager.register(self, name=f"scripted-adapter-{self.harness_id}")
        return HarnessAgent(harness=self, plugin_manager=manager, **kwargs)

    # -- adapter side --------------------------------------------------------------------

    async def start(self, request: StartRequest) -> ScriptedSession:
        """Open a session (resumed or continued from state when given)."""
        self.starts.append(request)
        next_turn = 0
        if request.resume_from is not None:
            next_turn = int(request.resume_from.get("next_turn", 0))
        session = ScriptedSession(self, request, next_turn)
        if request.continue_from is not None:
            if not self.supports_suspend:
                raise HarnessCapabilityUnsupportedError(self.harness_id, "continuing a suspended turn")
            session.next_turn = int(request.continue_from["turn"]["turn_index"]) + 1
        self.sessions.append(session)
        return session

    def workspace_for(self, request: StartRequest) -> Path | None:
        """The directory built-ins run in."""
        if request.sandbox is not None:
            return Path(request.sandbox.root)
        return self.workspace
