"""The ACP adapter and its factory, :func:`acp`."""

from __future__ import annotations

from typing import Any

from harness_core import StartRequest

from ._capabilities import acp_capabilities
from ._session import AcpSession
from ._settings import HARNESS_ID, HOST_PREFIX, AcpSettings

__all__ = ["AcpAdapter", "acp"]


class AcpAdapter:
    """Drives any Agent Client Protocol agent (build it with :func:`acp`).

    Built-in approvals go through ``session/request_permission`` when the agent asks for
    permission (the profile says so; assumed for a plain command); built-in filtering is
    not native (the core filters through approvals).

    Attributes:
        harness_id: ``"acp"``.
        settings: the checked factory settings.
    """

    harness_id: str = HARNESS_ID
    supports_builtin_filtering: bool = False
    host_tool_prefix: str = HOST_PREFIX
    """Host tools reach the runtime as ``mcp__harness__<name>`` (the core keeps the
    prefixed name within the provider's 64 characters)."""

    def __init__(self, settings: AcpSettings) -> None:
        self.settings = settings
        self.capabilities = acp_capabilities(settings)
        """What this agent supports (skills and stop conditions depend on its profile)."""
        profile = settings.profile
        writes = settings.base_url is not None
        self.supports_builtin_approvals: bool = profile.can_ask(writes) if profile is not None else True

    async def start(self, request: StartRequest) -> AcpSession:
        """Spawn the agent and open the ACP session (new, or loaded from ``resume_from``).

        Raises:
            HarnessConfigurationError: the agent cannot be started.
            HarnessCapabilityUnsupportedError: host tools on an agent that ignores MCP
                servers, resuming without ``session/load``, continuing in another process; a
                sandbox without runtime confinement, or one without network when the model
                endpoint is not a loopback ``base_url`` (the agent runs wholly inside the
                sandbox: :mod:`harness_acp._confine`).
        """
        session = AcpSession(self.settings, request)
        try:
            await session.open()
        except BaseException:
            await session.destroy()
            raise
        return session

    def __repr__(self) -> str:
        return f"<AcpAdapter {self.settings.name}: {' '.join(self.settings.command)}>"


def acp(**settings: Any) -> AcpAdapter:
    """Build an ACP adapter (harness id ``acp``).

    Keyword Args:
        agent (str): a profile, ``"codex-acp"`` (the default when no ``command`` is given) or
            ``"pi-acp"`` (see ``docs/acp.md``).
        command (list[str] | str): the agent's argv, for any other ACP agent (or to override
            a profile's executable).
        env (dict[str, str]): environment overrides for the agent process.
        cwd (path): the workspace when the session has no sandbox.
        name (str): a display name for the agent.
        permission_mode_mapping (dict): ``{permission mode: agent session mode id}``; the
            adapter sets that mode (``session/set_mode``) for sessions in the mode.
        mcp_servers (dict): ``{name: {"command", "args", "env", "cwd"}}`` (stdio) or
            ``{"type": "http", "url", "headers"}``, passed in ``session/new``.
        base_url / model / api_key (str): for profiles that write the agent's config: the
            model server (an OpenAI Responses endpoint for codex-acp, Chat Completions for
            pi-acp), the model id and its key; the agent then runs isolated in a scratch home.
        home (path): the agent's ``HOME``.
        stderr (callable): receives each line the agent writes to stderr.
        startup_timeout / cancel_timeout (float): seconds (defaults 60 and 5).

    Raises:
        HarnessConfigurationError: an unknown setting or a bad value, naming it.
        HarnessCapabilityUnsupportedError: a ``permission_mode_mapping`` entry the agent
            cannot honour, naming the agent and the mode.
    """
    checked = AcpSettings.from_kwargs(**settings)
    profile = checked.profile
    if checked.mcp_servers and profile is not None and not profile.can_reach_mcp(checked.base_url is not None):
        from harness_core import HarnessCapabilityUnsupportedError

        raise HarnessCapabilityUnsupportedError(
            HARNESS_ID, f"mcp_servers on agent {checked.name!r}",
            f"{checked.name} ignores the MCP servers of session/new (with base_url= the adapter writes them into "
            "the agent's own config instead)")
    return AcpAdapter(checked)
