"""The exception hierarchy of harness-core.

Every error the framework raises on purpose derives from :class:`HarnessError`, so an
application can catch one base class. Each subclass names one kind of failure; the
message always says what was wrong and where (plugin, tool, argument, JSON path).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "HarnessCapabilityUnsupportedError",
    "HarnessConfigurationError",
    "HarnessError",
    "PluginLoadError",
    "ToolDefinitionError",
    "ToolInputError",
    "ToolNameConflictError",
    "StateIntegrityError",
    "TurnStateError",
]


class HarnessError(Exception):
    """Base class of every error raised on purpose by harness-core and its plugins."""


class PluginLoadError(HarnessError):
    """A plugin could not be imported or registered.

    Raised only in strict mode (``HARNESS_STRICT_PLUGINS=1``); otherwise the failure is a
    warning and the plugin is listed as failed by ``harness plugins``.

    Attributes:
        plugin: the entry-point name.
        distribution: ``"name version"`` of the distribution that declares it, or ``None``.
    """

    def __init__(self, message: str, *, plugin: str, distribution: str | None) -> None:
        super().__init__(message)
        self.plugin = plugin
        self.distribution = distribution


class ToolDefinitionError(HarnessError, ValueError):
    """``define_harness_tool`` (or a built-in declaration) got an invalid option."""


class ToolNameConflictError(HarnessError):
    """Two plugins (or a plugin and the application) contribute a tool with the same name."""


class ToolInputError(HarnessError, ValueError):
    """Tool-call arguments do not match the tool's input schema.

    Attributes:
        tool_name: the tool whose schema rejected the arguments.
        problems: one ``(json_path, message)`` pair per problem, e.g. ``("$.city", "...")``.
    """

    def __init__(self, tool_name: str, problems: Sequence[tuple[str, str]]) -> None:
        self.tool_name = tool_name
        self.problems: tuple[tuple[str, str], ...] = tuple(problems)
        lines = "; ".join(f"{path}: {message}" for path, message in self.problems)
        super().__init__(f"invalid input for tool {tool_name!r}: {lines}")


class HarnessConfigurationError(HarnessError, ValueError):
    """An agent, session or adapter was configured inconsistently (raised at construction)."""


class HarnessCapabilityUnsupportedError(HarnessError, NotImplementedError):
    """The runtime behind an adapter lacks a capability the caller asked for.

    Attributes:
        harness_id: the adapter's harness id.
        capability: a short name such as ``"compact"`` or ``"built-in approvals"``.
    """

    def __init__(self, harness_id: str, capability: str, detail: str = "") -> None:
        self.harness_id = harness_id
        self.capability = capability
        message = f"harness {harness_id!r} does not support {capability}"
        super().__init__(f"{message}: {detail}" if detail else message)


class TurnStateError(HarnessError, RuntimeError):
    """A session method was called in a turn state that does not allow it.

    For example a new prompt while a turn is unfinished, continuing an idle session, or
    any call on a destroyed session.
    """


class StateIntegrityError(HarnessConfigurationError):
    """Continuation or resume state failed its integrity check (``HarnessAgent(state_secret=...)``).

    Raised by ``create_session(continue_from=...)`` / ``resume_from=`` when the state's HMAC
    signature is missing, malformed or does not match (the state was altered, or signed with
    another secret), or when signed state reaches an agent that has no secret to verify it.
    Nothing of the state is used.
    """
