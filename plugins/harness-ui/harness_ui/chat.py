"""One chat request: open the chat's session, stream one result slice, detach it again.

:func:`open_chat_turn` takes the chat's record from the store (so no other worker can
continue the same paused turn), opens the session (``continue_from`` a suspended turn,
``resume_from`` a stopped session, or new), and decides what the request does:

* a new user message starts a turn (a turn still paused is aborted first: the user moved
  on instead of answering);
* a continuation answers the paused turn with the approvals and tool outputs it waits
  for, matched by approval id and tool call id; answers to anything else are left out.

:class:`ChatTurn` then streams the UI message stream and detaches the session at the end
(``suspend_turn()`` when the turn paused again, ``stop()`` when idle) into the store.
Conflicts (nothing to continue) raise :class:`ChatConflict` before anything streams.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import anyio
import attrs

from harness_core import (
    HarnessAgent,
    HarnessCapabilityUnsupportedError,
    HarnessError,
    HarnessSession,
    Sandbox,
    StreamResult,
    ToolResultContinuation,
)

from .request import ChatRequest
from .store import ChatRecord, ChatStore
from .stream import DONE, ErrorCallback, UIStreamConverter, encode_chunk

__all__ = ["ChatConflict", "ChatTurn", "SessionBinding", "open_chat_turn"]


class ChatConflict(Exception):
    """The request cannot apply to the chat as it is (answered with 409); the message
    says why and what the chat waits for."""


@attrs.frozen
class SessionBinding:
    """What the application binds to a chat's session on each request (never stored).

    Attributes:
        sandbox: the workspace the runtime works in (the app does not stop it).
        tools_context: ``{tool name: context}`` for tools with a ``context_schema``.
        options: call options for ``agent.stream(options=...)`` (``prepare_call`` sees them).
    """

    sandbox: Sandbox | None = None
    tools_context: Mapping[str, Any] | None = None
    options: Mapping[str, Any] | None = None


async def _open_session(agent: HarnessAgent, record: ChatRecord | None, binding: SessionBinding) -> HarnessSession:
    kwargs: dict[str, Any] = {"sandbox": binding.sandbox, "tools_context": binding.tools_context}
    if record is not None and record.kind == "suspended":
        kwargs["continue_from"] = record.state
    elif record is not None:
        kwargs["resume_from"] = record.state
    return await agent.create_session(**kwargs)


class ChatTurn:
    """A chat's session for one request, and the slice it streams.

    Use :meth:`chunks` as the response body and call :meth:`close` when the response is
    over (it detaches the session if the body was not consumed to the end).
    """

    def __init__(self, *, agent: HarnessAgent, store: ChatStore, request: ChatRequest, session: HarnessSession,
                 result: StreamResult, on_error: ErrorCallback | None,
                 client_results: Sequence[ToolResultContinuation] = ()) -> None:
        self.agent = agent
        self.request = request
        self.session = session
        self._store = store
        self._result = result
        self._detached = False
        message_id = request.message_id or f"msg-{secrets.token_hex(8)}"
        self.converter = UIStreamConverter(message_id=message_id, known_calls=request.known_calls,
                                           known_approvals=request.known_approvals, client_results=client_results,
                                           chat_id=request.chat_id, on_error=on_error)

    async def chunks(self) -> AsyncIterator[bytes]:
        """The UI message stream of the slice, ``data: [DONE]`` last."""
        try:
            async with self._result as result:
                async for part in result.full_stream:
                    for chunk in self.converter.convert(part):
                        yield encode_chunk(chunk)
        except Exception as exc:
            yield encode_chunk(self.converter.error_chunk(exc))
        try:
            await self.detach()
        except Exception as exc:
            # Nothing could be stored: release the runtime; the chat starts afresh next time.
            with contextlib.suppress(Exception):
                await self.session.destroy()
            yield encode_chunk(self.converter.error_chunk(exc))
        yield DONE

    async def detach(self) -> None:
        """Store the session for the next request (idempotent): a paused turn suspended,
        an idle session stopped. A runtime that cannot suspend has its turn aborted."""
        if self._detached:
            return
        self._detached = True
        session = self.session
        message_id = self.converter.message_id
        with anyio.CancelScope(shield=True):
            if session.has_unfinished_turn():
                try:
                    state = await session.suspend_turn()
                except HarnessCapabilityUnsupportedError:
                    await session.abort_turn("the runtime cannot suspend a turn between requests")
                else:
                    await self._store.put(self.request.chat_id, ChatRecord("suspended", state, message_id))
                    return
            state = await session.stop()
            await self._store.put(self.request.chat_id, ChatRecord("stopped", state, message_id))

    async def close(self) -> None:
        """Detach when the body did not run to its end (a client that went away)."""
        if not self._detached:
            with anyio.CancelScope(shield=True):
                try:
                    await self._result.aclose()
                    await self.detach()
                except Exception:
                    await self.session.destroy()
                    raise


def _describe_pending(session: HarnessSession) -> str:
    approvals = ", ".join(sorted(session.pending_approvals)) or "none"
    calls = ", ".join(sorted(session.pending_tool_calls)) or "none"
    return f"pending approvals: {approvals}; pending tool calls: {calls}"


async def open_chat_turn(*, agent: HarnessAgent, store: ChatStore, request: ChatRequest, binding: SessionBinding,
                         on_error: ErrorCallback | None = None) -> ChatTurn:
    """Open the chat's session and start the slice the request asks for.

    Raises:
        ChatConflict: a continuation for a chat with no paused turn, or whose answers
            match none of the pending approvals and tool calls; stored state the agent
            refuses (another harness or version). The stored record is kept.
    """
    record = await store.take(request.chat_id)
    if request.is_continuation and (record is None or record.kind != "suspended"):
        if record is not None:
            await store.put(request.chat_id, record)
        raise ChatConflict(f"chat {request.chat_id!r} has no paused turn to continue; send a user message")
    try:
        session = await _open_session(agent, record, binding)
    except HarnessError as exc:
        if record is not None:
            await store.put(request.chat_id, record)
        raise ChatConflict(f"chat {request.chat_id!r} cannot be continued: {exc}") from None
    results: list[ToolResultContinuation] = []
    try:
        if request.prompt is not None:
            if session.has_unfinished_turn():
                await session.abort_turn("a new user message arrived instead of answers")
            result = agent.stream(session=session, prompt=request.prompt, options=binding.options)
        else:
            approvals, results = request.answers_for(list(session.pending_approvals),
                                                     list(session.pending_tool_calls))
            if not approvals and not results:
                raise ChatConflict(f"the last message answers nothing chat {request.chat_id!r} waits for "
                                   f"({_describe_pending(session)})")
            result = agent.continue_stream(session=session, approval_responses=approvals,
                                           tool_result_continuations=results, options=binding.options)
    except BaseException:
        if record is not None:
            await store.put(request.chat_id, record)
        with contextlib.suppress(Exception):
            await session.destroy()
        raise
    return ChatTurn(agent=agent, store=store, request=request, session=session, result=result, on_error=on_error,
                    client_results=results)
