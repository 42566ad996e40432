"""Per-plugin attribution of hook calls, without bypassing pluggy.

Every hook is called through ``pm.hook.<name>(...)``, so ``wrapper=True``, ``tryfirst`` and
``trylast`` work on all of them. pluggy calls each implementation as
``impl.function(*args)`` (arguments by the implementation's own names) and hands results to
the wrappers without saying which plugin produced them. So, when a plugin is registered,
:func:`attribute` replaces the ``function`` of each of its implementations with an
*attributing* function that calls the original and:

* turns an exception into a :class:`PluginHookError` naming the plugin and the hook;
* ``harness_approve_call``: stamps the plugin on the decision (and a default reason), and
  turns an exception or a result that is not an
  :class:`~harness_core.approval.ApprovalDecision` into a DENIED decision naming the plugin;
* ``harness_filter_tools``: refuses a result that is not an iterable of tool names (a
  ``str`` such as ``"bash"``, a number, non-``str`` items) with a :class:`PluginHookError`:
  the facade fails closed;
* ``harness_execute_tool``: refuses a result that is neither ``None`` nor awaitable (the
  awaitable's own exceptions are the call's errors, handled by the ``on_error`` policy);
* ``harness_project_event``: refuses a result that is not a sequence of parts;
* collect hooks (``harness_adapters``, ``harness_tools``, ``harness_declare_builtins``,
  ``harness_cli_commands``): keeps the registration shape checks, records which plugin
  returned which result in the :class:`HookLedger` the facade opened for the call, and
  records a failure there instead of raising, so the facade decides per plugin (a tool
  pack is skipped, a policy fails closed) while the other plugins' results still reach
  the wrappers.

Wrapper implementations (generators) are wrapped with ``yield from``: they see and may
change the inner results exactly as before; an exception escaping their body becomes a
:class:`PluginHookError` naming them (an inner :class:`PluginHookError` passes through
unchanged), and the ledger remembers the outermost wrapper that returned, so a result it
made up is attributed to it.

Why this design: calling the implementations one by one (as the core once did) bypasses
the wrappers; pluggy's hook-call monitoring sees a whole hook call, not each
implementation's result; registering proxy objects would make ``pm.get_plugin(name)``
return the proxy rather than the plugin. ``HookImpl.function`` is a public attribute that
pluggy reads on every call, so replacing it after validation keeps pluggy's ordering,
wrappers and argument passing untouched.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
from collections.abc import Callable, Generator, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import attrs
import pluggy

from harness_core.errors import HarnessConfigurationError
from harness_core.plugins.records import describe_error
from harness_core.plugins.validation import check_result

if TYPE_CHECKING:
    # Imported where used: discovering plugins (``harness plugins``) must not define the
    # pydantic part models or load the tool-schema machinery.
    from harness_core.approval import ApprovalDecision

__all__ = ["COLLECT_HOOKS", "HookLedger", "PluginHookError", "attribute", "denial", "filter_names", "recording"]

COLLECT_HOOKS: frozenset[str] = frozenset(
    {"harness_adapters", "harness_tools", "harness_declare_builtins", "harness_cli_commands", "harness_sandboxes"}
)
"""Hooks whose per-plugin failures are recorded in the ledger rather than raised."""

_ATTRIBUTED = "__harness_attributed__"


class PluginHookError(HarnessConfigurationError):
    """A plugin's hook implementation raised or returned the wrong shape.

    Attributes:
        plugin: the plugin's registered name (``"a <hook> wrapper"`` when unknown).
        hook: the hook name, e.g. ``"harness_filter_tools"``.
        cause: the exception it raised, or ``None`` for a wrong result.
    """

    def __init__(self, plugin: str, hook: str, cause: BaseException | None = None, *, problem: str | None = None) -> None:
        what = problem if problem is not None else describe_error(cause, origin=True) if cause is not None else "failed"
        super().__init__(f"plugin {plugin!r} failed in {hook}: {what}")
        self.plugin = plugin
        self.hook = hook
        self.cause = cause


@attrs.define
class HookLedger:
    """What one facade call learned: which plugin returned which result, who failed.

    Attributes:
        results: ``(result, plugin)`` pairs in call order (results held, so identity holds).
        failures: per-plugin failures of collect hooks.
        wrapper: the outermost wrapper that returned (the last to finish), if any.
    """

    results: list[tuple[object, str]] = attrs.field(factory=list)
    failures: list[PluginHookError] = attrs.field(factory=list)
    wrapper: str | None = None

    def plugin_of(self, result: object, hook: str) -> str:
        """The plugin that returned ``result``; else the outermost wrapper's name."""
        for candidate, plugin in self.results:
            if candidate is result:
                return plugin
        return self.wrapper or f"a {hook} wrapper"


_LEDGER: contextvars.ContextVar[HookLedger | None] = contextvars.ContextVar("harness_hook_ledger", default=None)


class recording:
    """Open a ledger for the hook calls made inside the ``with`` block."""

    __slots__ = ("_ledger", "_token")

    def __enter__(self) -> HookLedger:
        self._ledger = HookLedger()
        self._token = _LEDGER.set(self._ledger)
        return self._ledger

    def __exit__(self, *exc_info: object) -> None:
        _LEDGER.reset(self._token)


def denial(plugin: str, problem: str) -> ApprovalDecision:
    """The DENIED decision standing in for a policy that failed."""
    from harness_core.approval import ApprovalDecision, ApprovalStatus

    return ApprovalDecision(ApprovalStatus.DENIED, f"approval policy {plugin!r} {problem}; denied for safety", plugin=plugin)


def _stamp(plugin: str, decision: object) -> ApprovalDecision | None:
    if decision is None:
        return None
    from harness_core.approval import ApprovalDecision, ApprovalStatus

    if not isinstance(decision, ApprovalDecision):
        return denial(plugin, f"returned {type(decision).__name__}, not an ApprovalDecision")
    if not decision.plugin:
        decision = attrs.evolve(decision, plugin=plugin)
    if decision.reason is None and decision.status in (ApprovalStatus.DENIED, ApprovalStatus.USER_APPROVAL):
        verb = "denied" if decision.status is ApprovalStatus.DENIED else "approval requested"
        decision = attrs.evolve(decision, reason=f"{verb} by approval policy {decision.plugin!r}")
    return decision


def filter_names(plugin: str, result: object) -> list[str] | None:
    """``result`` of ``harness_filter_tools`` as a list of names, or ``None``.

    Raises:
        PluginHookError: a ``str`` (``"bash"`` is not a list of names), a non-iterable, or
            an item that is not a ``str``.
    """
    if result is None:
        return None
    hook = "harness_filter_tools"
    if isinstance(result, str | bytes):
        raise PluginHookError(plugin, hook, problem=f"returned the string {result!r}, not a list of tool names")
    if not isinstance(result, Iterable):
        raise PluginHookError(plugin, hook, problem=f"returned {type(result).__name__}, not a list of tool names")
    names = list(result)
    bad = [item for item in names if not isinstance(item, str)]
    if bad:
        raise PluginHookError(plugin, hook, problem=f"returned {type(bad[0]).__name__} {bad[0]!r} among the tool names")
    return names


def _checked_parts(plugin: str, result: object) -> object:
    if result is None:
        return None
    from harness_core.parts.models import Part

    if isinstance(result, Part):
        return [result]
    # A list is the common answer: checked without the (costlier) Sequence ABC test.
    sequence = type(result) is list or (isinstance(result, Sequence) and not isinstance(result, str | bytes))
    if not sequence or not all(isinstance(item, Part) for item in result):  # type: ignore[attr-defined]
        raise PluginHookError(plugin, "harness_project_event", problem=f"returned {type(result).__name__}, not a list of parts")
    return result


def _awaitable(plugin: str, result: object) -> object:
    if result is not None and not inspect.isawaitable(result):
        raise PluginHookError(plugin, "harness_execute_tool", problem=f"returned {type(result).__name__}, not an awaitable")
    return result


_CHECKS: dict[str, Callable[[str, object], object]] = {
    "harness_filter_tools": filter_names,
    "harness_execute_tool": _awaitable,
    "harness_project_event": _checked_parts,
}
"""Per-hook result checks of non-collect hooks: return the result to pass on, or raise."""


def _approval(function: Callable[..., Any], plugin: str) -> Callable[..., Any]:
    @functools.wraps(function)
    def attributed(*args: Any) -> Any:
        try:
            return _stamp(plugin, function(*args))
        except Exception as exc:
            return denial(plugin, f"failed ({describe_error(exc)})")

    return attributed


def _failed(ledger: HookLedger | None, error: PluginHookError, cause: BaseException) -> None:
    """Record ``error`` in the open ledger (the facade decides), or raise it."""
    if ledger is None:
        raise error from cause
    ledger.failures.append(error)


def _collecting(function: Callable[..., Any], plugin: str, hook: str) -> Callable[..., Any]:
    @functools.wraps(function)
    def attributed(*args: Any) -> Any:
        ledger = _LEDGER.get()
        try:
            result = function(*args)
        except PluginHookError:
            raise
        except Exception as exc:
            return _failed(ledger, PluginHookError(plugin, hook, exc), exc)
        try:
            check_result(hook, result)
        except TypeError as exc:
            return _failed(ledger, PluginHookError(plugin, hook, problem=str(exc)), exc)
        if ledger is not None and result is not None:
            ledger.results.append((result, plugin))
        return result

    return attributed


def _plain(function: Callable[..., Any], plugin: str, hook: str) -> Callable[..., Any]:
    """The attributing function for a non-wrapper implementation of ``hook``."""
    if hook == "harness_approve_call":
        return _approval(function, plugin)
    if hook in COLLECT_HOOKS:
        return _collecting(function, plugin, hook)
    check = _CHECKS.get(hook)

    @functools.wraps(function)
    def attributed(*args: Any) -> Any:
        try:
            result = function(*args)
        except PluginHookError:
            raise
        except Exception as exc:
            raise PluginHookError(plugin, hook, exc) from exc
        return result if check is None else check(plugin, result)

    return attributed


def _wrapper(function: Callable[..., Any], plugin: str, hook: str) -> Callable[..., Any]:
    @functools.wraps(function)
    def attributed(*args: Any) -> Generator[Any, Any, Any]:
        try:
            result = yield from function(*args)
        except PluginHookError:
            raise
        except Exception as exc:
            raise PluginHookError(plugin, hook, exc) from exc
        if (ledger := _LEDGER.get()) is not None:
            ledger.wrapper = plugin
        return result

    return attributed


def attribute(pm: pluggy.PluginManager, plugin: object) -> None:
    """Give every implementation of the registered ``plugin`` an attributing function.

    Idempotent: an implementation already attributed is left alone.
    """
    for caller in pm.get_hookcallers(plugin) or ():
        for impl in caller.get_hookimpls():
            if impl.plugin is not plugin or getattr(impl.function, _ATTRIBUTED, False):
                continue
            if impl.wrapper or impl.hookwrapper:
                function = _wrapper(impl.function, impl.plugin_name, caller.name)
            else:
                function = _plain(impl.function, impl.plugin_name, caller.name)
            setattr(function, _ATTRIBUTED, True)
            # pluggy calls impl.function(*args); HookImpl.function is a plain slot.
            object.__setattr__(impl, "function", function)
