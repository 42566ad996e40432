"""The ASGI chat app: ``POST /api/chat`` for ``useChat``, the bundled page at ``/``.

Authentication is the application's job: wrap the app in Starlette middleware (pass
``middleware=[Middleware(...)]``) or put it behind your gateway, and use ``bind`` to
turn the authenticated request into the session's sandbox, tool context and call
options (raise :class:`starlette.exceptions.HTTPException` there to refuse a request).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Sequence
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from harness_core import HarnessAgent

from .chat import ChatConflict, ChatTurn, SessionBinding, open_chat_turn
from .request import BadChatRequest, parse_chat_request
from .store import ChatStore, SqliteChatStore
from .stream import UI_MESSAGE_STREAM_HEADERS, ErrorCallback

__all__ = ["BindSession", "create_chat_app", "static_dir"]

BindSession = Callable[[Request, str], "SessionBinding | Awaitable[SessionBinding]"]
"""``bind(request, chat_id) -> SessionBinding`` (or an awaitable of one)."""

_MAX_BODY = 8 * 1024 * 1024


def static_dir() -> Path:
    """The directory of the bundled chat page (``index.html``, ``app.js``, ``app.css``)."""
    return Path(str(resources.files("harness_ui").joinpath("static")))


class _ChatResponse(StreamingResponse):
    """A UI message stream response that detaches the session however the response ends."""

    def __init__(self, turn: ChatTurn, busy: set[str]) -> None:
        super().__init__(turn.chunks(), headers=dict(UI_MESSAGE_STREAM_HEADERS),
                         media_type="text/event-stream")
        self._turn = turn
        self._busy = busy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            try:
                await self._turn.close()
            finally:
                self._busy.discard(self._turn.request.chat_id)


def _bad_request(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def create_chat_app(
    agent: HarnessAgent,
    *,
    store: ChatStore | None = None,
    bind: BindSession | None = None,
    on_error: ErrorCallback | None = None,
    serve_page: bool = True,
    middleware: Sequence[Middleware] = (),
    title: str = "harness chat",
    prompt_suggestion: str | None = None,
) -> Starlette:
    """A Starlette app that serves ``agent`` to ``useChat`` front ends.

    Args:
        agent: the configured agent (its tool approvals and permission mode apply).
        store: where sessions wait between requests; default an SQLite file
            ``.harness/chats.sqlite`` in the current directory.
        bind: called per request with the Starlette request and the chat id; returns the
            :class:`SessionBinding` (sandbox, tool context, call options). Default: no
            sandbox, the agent's own tool context.
        on_error: receives an :class:`ErrorReport` for each error; clients only see a
            masked message with the report's reference.
        serve_page: serve the bundled chat page at ``/`` (and ``/static``).
        middleware: Starlette middleware (authentication goes here).
        title: the page title.
        prompt_suggestion: text the page's input starts with (the demo's prompt).

    Routes: ``POST /api/chat`` (UI message stream v1; 400 for a malformed body, 409 when
    the chat has nothing to continue or is streaming in this process, 413 for a body over 8 MiB), ``GET /api/health``,
    ``GET /`` and ``/static/*``.
    """
    chat_store: ChatStore = store if store is not None else SqliteChatStore(Path(".harness") / "chats.sqlite")
    busy: set[str] = set()   # chats streaming in this process (another request for one gets 409)

    async def binding_for(request: Request, chat_id: str) -> SessionBinding:
        if bind is None:
            return SessionBinding()
        value = bind(request, chat_id)
        if inspect.isawaitable(value):
            value = await value
        if not isinstance(value, SessionBinding):
            raise TypeError(f"bind must return a SessionBinding, got {type(value).__name__}")
        return value

    async def chat(request: Request) -> Response:
        raw = await request.body()
        if len(raw) > _MAX_BODY:
            return _bad_request(f"the request body is over {_MAX_BODY} bytes", 413)
        try:
            body: Any = json.loads(raw)
        except ValueError as exc:
            return _bad_request(f"the request body is not JSON: {exc}")
        try:
            parsed = parse_chat_request(body)
        except BadChatRequest as exc:
            return _bad_request(str(exc))
        binding = await binding_for(request, parsed.chat_id)
        if parsed.chat_id in busy:
            return _bad_request(f"chat {parsed.chat_id!r} is running a turn; wait for it to finish", 409)
        busy.add(parsed.chat_id)
        try:
            turn = await open_chat_turn(agent=agent, store=chat_store, request=parsed, binding=binding,
                                        on_error=on_error)
        except ChatConflict as exc:
            busy.discard(parsed.chat_id)
            return _bad_request(str(exc), 409)
        except BaseException:
            busy.discard(parsed.chat_id)
            raise
        return _ChatResponse(turn, busy)

    async def health(request: Request) -> Response:
        return JSONResponse({"ok": True, "harness": agent.harness_id})

    async def page(request: Request) -> Response:
        html = (static_dir() / "index.html").read_text(encoding="utf-8")
        html = html.replace("{{title}}", escape(title)).replace("{{suggestion}}", escape(prompt_suggestion or ""))
        return Response(html, media_type="text/html")

    routes: list[Route | Mount] = [
        Route("/api/chat", chat, methods=["POST"]),
        Route("/api/health", health, methods=["GET"]),
    ]
    if serve_page:
        routes += [Route("/", page, methods=["GET"]), Mount("/static", StaticFiles(directory=static_dir()))]
    app = Starlette(routes=routes, middleware=list(middleware))
    app.state.harness_store = chat_store
    return app
