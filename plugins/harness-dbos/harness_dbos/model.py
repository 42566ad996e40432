"""Model requests of the built-in harness as DBOS steps.

The built-in harness (``harness_builtin``) accepts any object with its ``ModelClient``
shape as ``harness_options={"model": ...}``: a ``name``, ``stream(request)`` returning an
async iterator of model events, and ``aclose()``. :class:`DurableModelClient` wraps such a
client: inside a durable turn, each ``stream(request)`` is one DBOS step
(``model-request``) that reads the whole response and records its events; a replay yields
the recorded events without sending the request again. Outside a durable turn it streams
straight from the wrapped client.

What changes inside a durable turn: a response's text deltas reach the stream when the
response is complete (the step records it whole), not token by token.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol, runtime_checkable

from ._context import current_turn
from ._recorded import run_recorded_step

__all__ = ["DurableModelClient", "ModelClientLike", "durable_model"]


@runtime_checkable
class ModelClientLike(Protocol):
    """The built-in harness's model-client shape (``harness_builtin.models.ModelClient``)."""

    name: str

    def stream(self, request: Any) -> AsyncIterator[Any]:
        """Stream one response's events."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...


class DurableModelClient:
    """A model client whose requests are DBOS steps inside a durable turn.

    Args:
        inner: the real client (``harness_builtin.create_model_client("openai:...")`` or
            any object of that shape). Its events must pickle (the built-in harness's do).

    Attributes:
        name: the inner client's name.
    """

    def __init__(self, inner: ModelClientLike) -> None:
        if not isinstance(inner, ModelClientLike):
            raise TypeError(f"durable_model() needs a model client (name, stream, aclose), got {type(inner).__name__}")
        self.inner = inner
        self.name = inner.name

    def __repr__(self) -> str:
        return f"DurableModelClient({self.name!r})"

    def stream(self, request: Any) -> AsyncIterator[Any]:
        """The response's events: recorded once per step inside a durable turn.

        Raises:
            whatever the inner client raises (rebuilt from the record on a replay).
        """
        return self._stream(request)

    async def _stream(self, request: Any) -> AsyncIterator[Any]:
        if current_turn.get() is None:
            async for event in self.inner.stream(request):
                yield event
            return

        async def collect() -> list[Any]:
            return [event async for event in self.inner.stream(request)]

        events: list[Any] = await run_recorded_step("model-request", collect)
        for event in events:
            yield event

    async def aclose(self) -> None:
        """Nothing: the built-in harness closes its model client with each session, and a
        durable agent opens a session per turn, so the wrapped client stays open for the
        next turn. Close it with :meth:`close`."""

    async def close(self) -> None:
        """Close the inner client (when the process is done with it)."""
        await self.inner.aclose()


def durable_model(client: ModelClientLike) -> DurableModelClient:
    """Wrap ``client`` so its requests are recorded steps of durable turns.

    Raises:
        TypeError: ``client`` is not a model client.
    """
    return client if isinstance(client, DurableModelClient) else DurableModelClient(client)
