"""The one event loop every durable turn of a process runs on: DBOS's.

DBOS runs the workflows it starts itself (a turn recovered at launch, or handed to this
process by its recovery queue, also while another execution of it is still running here)
on its own loop: the loop :func:`harness_dbos.launch` was called in while that loop runs,
else DBOS's background loop thread. ``DBOS.start_workflow_async`` instead runs a workflow
on the caller's loop. A turn started from ``asyncio.run(...)`` after a launch outside any
loop would then run on one loop and its recovery (or the next ``asyncio.run``'s turn) on
another, while the agent they share keeps loop-bound objects across turns: the model
client's pooled HTTP connections (anyio streams whose ``asyncio.Event`` belongs to the loop
that opened them). A request on another loop fails with "... is bound to a different event
loop", or on a closed loop. So :class:`~harness_dbos.DurableAgent` starts and awaits its
turns through :func:`on_turn_loop`: every execution of every turn of a process runs on the
same loop.

DBOS has no public name for that loop; :func:`turn_loop` reads it from the DBOS instance
(``_background_event_loop.target_loop()``, DBOS 3.4), as DBOS itself does before submitting
a workflow.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from harness_core import HarnessConfigurationError

__all__ = ["on_turn_loop", "turn_loop"]

T = TypeVar("T")


def turn_loop() -> asyncio.AbstractEventLoop:
    """The loop DBOS runs the workflows it starts itself on (see the module docstring).

    Raises:
        HarnessConfigurationError: DBOS is not launched in this process (no loop yet), or
            this DBOS version has no such loop (the turn is not started: fail closed).
    """
    try:
        from dbos._dbos import _get_dbos_instance  # not public: DBOS's own submission loop

        loop: asyncio.AbstractEventLoop | None = _get_dbos_instance()._background_event_loop.target_loop()
    except Exception as exc:
        raise HarnessConfigurationError(
            f"harness-dbos: DBOS's event loop is not available ({type(exc).__name__}: {exc}); "
            "launch DBOS with harness_dbos.launch(...) before starting turns"
        ) from None
    if loop is None or loop.is_closed():
        raise HarnessConfigurationError("harness-dbos: DBOS is not launched: call harness_dbos.launch(...) first")
    return loop


async def on_turn_loop(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Await ``make()`` on :func:`turn_loop`: directly when the caller runs there, else as a
    task of that loop (with a copy of the caller's context variables), awaited from the
    caller's loop; cancelling the caller cancels that task.

    Raises:
        HarnessConfigurationError: see :func:`turn_loop`; whatever ``make()`` raises.
    """
    loop = turn_loop()
    if asyncio.get_running_loop() is loop:
        return await make()
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(make(), loop))
