"""The pi adapter and its factory, :func:`pi`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness_core import (
    HarnessCapabilityUnsupportedError,
    HarnessConfigurationError,
    McpServerConfig,
    StartRequest,
    runtime_confinement,
)

from ._capabilities import CAPABILITIES
from ._confine import check_reachable
from ._launch import find_pi, pi_version
from ._session import PiSession
from ._settings import HARNESS_ID, PiSettings

__all__ = ["PiAdapter", "pi"]


class PiAdapter:
    """Drives the real pi coding agent over ``pi --mode rpc``.

    Built-in approvals go through the generated extension's ``tool_call`` gate; built-in
    filtering is native (``--exclude-tools``). Build it with :func:`pi`.

    Attributes:
        harness_id: ``"pi"``.
        settings: the checked factory settings.
    """

    harness_id: str = HARNESS_ID
    supports_builtin_approvals: bool = True
    supports_builtin_filtering: bool = True
    capabilities = CAPABILITIES

    def __init__(self, settings: PiSettings) -> None:
        self.settings = settings

    @property
    def mcp_servers(self) -> Mapping[str, McpServerConfig]:
        """The MCP servers pi is given (the agent accepts ``mcp__<server>`` names in its filters)."""
        return self.settings.mcp_servers

    def command(self) -> list[str]:
        """The argv prefix that runs pi.

        Raises:
            HarnessConfigurationError: no pi found.
        """
        prefix = find_pi(self.settings)
        if prefix is None:
            raise HarnessConfigurationError(
                "pi: no pi executable found (install @earendil-works/pi-coding-agent so `pi` is on PATH, "
                "or pass pi(pi_path=...))"
            )
        return prefix

    def version(self) -> tuple[int, ...]:
        """pi's version, ``(major, minor, patch)``.

        Raises:
            HarnessConfigurationError: pi is missing or does not run.
        """
        return pi_version(self.command(), self.settings)

    async def start(self, request: StartRequest) -> PiSession:
        """Open a session (new, resumed from ``resume_from``, or continuing ``continue_from``).

        pi starts at the session's first turn, not here.

        Raises:
            HarnessConfigurationError: no pi, bad state or a missing workspace.
            HarnessCapabilityUnsupportedError: MCP servers on pi 0.x; a sandbox that offers no
                runtime confinement, or one without network whose pi could not reach its model
                (pi then runs wholly inside the sandbox: :mod:`harness_pi._confine`).
        """
        confinement = runtime_confinement(self.harness_id, request.sandbox)  # never run unconfined silently
        if confinement is not None:
            check_reachable(confinement, self.settings)
        prefix = self.command()
        version = pi_version(prefix, self.settings)
        if self.settings.mcp_servers and version < (1,):
            raise HarnessCapabilityUnsupportedError(
                HARNESS_ID, "mcp_servers", f"pi {'.'.join(map(str, version))} reads no mcp.json (pi 1.x does)"
            )
        return PiSession(self.settings, prefix, version, request, confinement=confinement)

    def __repr__(self) -> str:
        return f"<PiAdapter {self.settings.provider_name or 'pi default'}/{self.settings.model or 'default model'}>"


def pi(**settings: Any) -> PiAdapter:
    """Build a pi adapter (harness id ``pi``).

    Keyword Args:
        model (str): the model id (``--model``); ``"provider/id"`` or ``"provider:id"`` also
            names the provider.
        provider (str): pi's provider name (``--provider``); with ``base_url`` the adapter
            defines it in the session's ``models.json`` (default name ``harness``).
        base_url (str): an endpoint serving ``model`` (e.g. ``http://127.0.0.1:8000/v1``).
        api_key (str): the key, passed to pi as the ``HARNESS_PI_API_KEY`` variable that
            ``models.json`` names; never on the command line or on disk.
        api (str): the wire API of ``base_url``: ``openai-completions`` (default),
            ``openai-responses`` or ``anthropic-messages``.
        context_window, max_tokens (int): the model's limits in ``models.json``.
        reasoning (bool): the model reasons (``models.json``); thinking (str): ``--thinking``.
        mcp_servers (dict): ``{name: {"command", "args", "env", "cwd"}}`` (stdio) or
            ``{"type": "http", "url", "headers"}``; pi 1.x only, written to ``mcp.json``
            with direct exposure (tools ``mcp__<server>__<tool>``).
        pi_path (path): pi's executable or its ``dist/cli.js`` (default: ``pi`` on PATH).
        node_path (path): the node that runs pi's script (its folder also leads ``PATH``).
        env (dict): extra environment variables for pi (nothing else is inherited but PATH).
        cwd (path): the workspace when the session has no sandbox.
        extensions (list): more pi extension files (``-e``); their tools are dynamic calls.
        max_retries, retry_delay_ms (int): pi's automatic retry (``settings.json`` ``retry``).
        keep_recent_tokens (int): pi's ``compaction.keepRecentTokens``.
        abort_timeout (float): seconds an abort waits for pi before killing it (default 5).
        stderr (callable): receives each line pi writes to stderr.

    Returns:
        A :class:`PiAdapter`.

    Raises:
        HarnessConfigurationError: an unknown setting or a bad value, naming it.
    """
    return PiAdapter(PiSettings.from_kwargs(**settings))
