"""The restricted view host tools receive: closures over the real sandbox, nothing else.

:func:`restricted_view` builds, for each sandbox, a fresh class whose methods are closures
over that sandbox, and returns its only instance. The instance has no ``__dict__`` and no
slots (``__slots__ = ()``), so ``vars()``, ``__slots__`` names, ``_``-prefixed attributes,
``object.__getattribute__`` and ``gc.get_referents(view)`` (which yields only the class)
find nothing that holds the sandbox; the class itself is sealed (its attributes cannot be
set or deleted), so nobody can add a ``stop`` to it either.

What this is not: a boundary against code that digs into function internals
(``view.read_text_file.__func__.__closure__``). A host tool is trusted Python code in the
host's interpreter; the guarantee is that no attribute of the view reaches the sandbox.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

from harness_core.sandbox.protocol import CommandResult, SandboxView

__all__ = ["kill_spawned", "restricted_view"]


class _SealedClass(type):
    """The metaclass of view classes: their attributes cannot be set or deleted."""

    def __setattr__(cls, name: str, value: Any) -> NoReturn:
        raise AttributeError(f"{cls.__name__} is sealed: cannot set {name!r}")

    def __delattr__(cls, name: str) -> NoReturn:
        raise AttributeError(f"{cls.__name__} is sealed: cannot delete {name!r}")


_MADE: weakref.WeakSet[type] = weakref.WeakSet()
"""The view classes :func:`restricted_view` made (subclasses of them are not views)."""

_SPAWNED: weakref.WeakKeyDictionary[type, set[Any]] = weakref.WeakKeyDictionary()
"""Per view class: the processes spawned through that view and not yet closed."""


async def kill_spawned(view: object) -> int:
    """Kill (``aclose``) every process spawned through ``view`` that is still open.

    The session calls it when it is destroyed, so a host tool's long-running process ends
    with the session even though the sandbox (the caller's) lives on.

    Returns:
        How many processes were closed (0 for an object :func:`restricted_view` did not make).
    """
    processes = _SPAWNED.get(type(view))
    if not processes:
        return 0
    closed = 0
    for process in list(processes):
        processes.discard(process)
        await process.aclose()
        closed += 1
    return closed


def restricted_view(sandbox: SandboxView) -> SandboxView:
    """A :class:`SandboxView` over ``sandbox`` with only ``root``, ``read_text_file``,
    ``write_text_file``, ``run_command`` and ``spawn`` (processes spawned through it are
    remembered for :func:`kill_spawned`).

    Each method forwards to ``sandbox`` (same arguments, same errors: ``PermissionError``
    outside the workspace, ``RuntimeError`` once the sandbox was stopped...). The view
    holds no attribute that reaches ``sandbox``; setting an attribute on it raises
    ``AttributeError``. Any :class:`~harness_core.sandbox.Sandbox` implementation may use
    it for its ``restricted()``.

    Args:
        sandbox: the real sandbox (or any object with the four members).

    Returns:
        A new view; two views of one sandbox share nothing but the sandbox. A view this
        function made is returned as it is (wrapping it again would add nothing).
    """
    if type(sandbox) in _MADE:
        return sandbox
    read = sandbox.read_text_file
    write = sandbox.write_text_file
    run = sandbox.run_command
    spawner = getattr(sandbox, "spawn", None)
    spawned: set[Any] = set()
    label = f"SandboxView({str(sandbox.root)!r})"

    def root(self: object) -> Path:
        """The workspace root directory."""
        return sandbox.root

    async def read_text_file(self: object, path: str) -> str:
        """Read a UTF-8 text file inside the workspace (see ``LocalSandbox.read_text_file``)."""
        return await read(path)

    async def write_text_file(self: object, path: str, content: str) -> None:
        """Create or replace a UTF-8 text file inside the workspace (parents created)."""
        await write(path, content)

    async def run_command(
        self: object,
        command: str | list[str],
        *,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        """Run a command with the workspace as working directory; ``timeout`` in seconds."""
        return await run(command, timeout=timeout, env=env)

    async def spawn(self: object, command: str | list[str], *, env: Mapping[str, str] | None = None) -> Any:
        """Start a long-running process in the sandbox (see ``LocalSandbox.spawn``); it is
        killed when the session ends. ``NotImplementedError`` when the sandbox cannot spawn."""
        if spawner is None:
            raise NotImplementedError(f"{label}: this sandbox has no spawn()")
        process = await spawner(command, env=env)
        spawned.add(process)
        return process

    def __repr__(self: object) -> str:
        return label

    namespace: dict[str, Any] = {
        "__slots__": (),
        "__doc__": "The restricted view of a session sandbox handed to host tools.",
        "__module__": __name__,
        "__repr__": __repr__,
        "root": property(root),
        "read_text_file": read_text_file,
        "write_text_file": write_text_file,
        "run_command": run_command,
        "spawn": spawn,
    }
    view_class = _SealedClass("SandboxView", (), namespace)
    _MADE.add(view_class)
    _SPAWNED[view_class] = spawned
    view: SandboxView = view_class()
    return view
