"""Running a coroutine function as a DBOS step whose outcome (value or exception) is
recorded in a form that always unpickles.

DBOS pickles a step's return value, and an exception it raised, into the system
database. Many exceptions (the built-in harness's ``ModelError``, say, whose ``__init__``
takes more arguments than its ``args``) cannot be unpickled, which would make a replay
fail. So a step returns an :class:`Outcome`: the value, or a :class:`Failure` naming the
exception's class, its message and its attributes, rebuilt on the way out (without running
its ``__init__``).
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import attrs

__all__ = ["Failure", "Outcome", "run_recorded_step"]

T = TypeVar("T")


@attrs.frozen
class Failure:
    """An exception as recorded: ``module.qualname``, ``str(exc)`` and its ``__dict__``
    (attributes that do not pickle are left out)."""

    module: str
    qualname: str
    message: str
    attributes: dict[str, Any]

    @classmethod
    def of(cls, exc: BaseException) -> Failure:
        """Record ``exc``."""
        import pickle

        attributes: dict[str, Any] = {}
        for name, value in vars(exc).items():
            try:
                pickle.dumps(value)
            except Exception:
                continue
            attributes[name] = value
        kind = type(exc)
        return cls(kind.__module__, kind.__qualname__, str(exc), attributes)

    def rebuild(self) -> BaseException:
        """The exception again: same class (a ``RuntimeError`` naming it when the class
        cannot be found), message and attributes."""
        try:
            kind: Any = importlib.import_module(self.module)
            for part in self.qualname.split("."):
                kind = getattr(kind, part)
            if not (isinstance(kind, type) and issubclass(kind, BaseException)):
                raise TypeError(self.qualname)
            exc: BaseException = kind.__new__(kind)
            BaseException.__init__(exc, self.message)
            exc.__dict__.update(self.attributes)
            return exc
        except Exception:
            return RuntimeError(f"{self.module}.{self.qualname}: {self.message}")


@attrs.frozen
class Outcome:
    """A step's recorded outcome: ``value``, or ``failure`` when it raised."""

    value: Any = None
    failure: Failure | None = None

    def unwrap(self) -> Any:
        """The value, or raise the rebuilt exception."""
        if self.failure is not None:
            raise self.failure.rebuild()
        return self.value


async def run_recorded_step(name: str, function: Callable[[], Awaitable[T]]) -> T:
    """Run ``function`` as the DBOS step ``name`` of the current workflow and return its
    value, or raise its exception; on a replay, the recorded outcome without running it.

    Raises:
        whatever ``function`` raised (rebuilt from the record on a replay);
        ``asyncio.CancelledError`` / ``KeyboardInterrupt``-like base exceptions are not
        recorded: they propagate and the step stays unrecorded (it runs again on recovery).
    """
    from dbos import DBOS

    async def step() -> Outcome:
        try:
            return Outcome(value=await function())
        except Exception as exc:
            return Outcome(failure=Failure.of(exc))

    outcome: Outcome = await DBOS.run_step_async({"name": name}, step)
    value: T = outcome.unwrap()
    return value
