"""Host tool names as the provider sees them: the adapter's prefix included.

Providers cap tool names at :data:`PROVIDER_NAME_LIMIT` characters (the Anthropic and
OpenAI APIs both use ``^[a-zA-Z0-9_-]{1,64}$``). :func:`~harness_core.define_harness_tool`
keeps a bare name within it, but an adapter that offers host tools under a prefix (Claude
Code's and ACP's ``mcp__harness__``) can push a name over: the runtime would send it as is
and the provider refuse the whole request. An adapter declares its prefix with an optional
``host_tool_prefix: str`` attribute; the agent refuses, at construction, a host tool whose
prefixed name is too long.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from harness_core.errors import HarnessConfigurationError

__all__ = ["PROVIDER_NAME_LIMIT", "check_prefixed_names", "host_tool_prefix"]

PROVIDER_NAME_LIMIT: Final = 64
"""The longest tool name a provider accepts, in characters."""


def host_tool_prefix(adapter: object) -> str:
    """The adapter's ``host_tool_prefix`` attribute, ``""`` when it has none (or not a string)."""
    prefix = getattr(adapter, "host_tool_prefix", "")
    return prefix if isinstance(prefix, str) else ""


def check_prefixed_names(adapter: object, harness_id: str, names: Iterable[str]) -> None:
    """Refuse host tool ``names`` the adapter's prefix pushes over the provider's limit.

    Raises:
        HarnessConfigurationError: naming every such tool, its prefixed name's length and
            how many characters the bare name may have on this harness.
    """
    prefix = host_tool_prefix(adapter)
    if not prefix:
        return
    room = PROVIDER_NAME_LIMIT - len(prefix)
    too_long = sorted(name for name in names if len(name) > room)
    if too_long:
        shown = ", ".join(f"{name!r} ({len(prefix) + len(name)} characters as {prefix}{name})" for name in too_long)
        raise HarnessConfigurationError(
            f"harness {harness_id!r} offers host tools as {prefix}<name> and providers accept tool names of at "
            f"most {PROVIDER_NAME_LIMIT} characters, so a host tool name may have at most {room} characters here; "
            f"too long: {shown}. Rename the tool(s)."
        )
