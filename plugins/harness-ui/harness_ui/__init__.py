"""harness-ui: serve any harness to AI SDK ``useChat`` front ends.

* :class:`UIStreamConverter` turns parts into UI message stream v1 chunks;
* :func:`parse_chat_request` reads a ``useChat`` POST body;
* :class:`ChatStore` / :class:`SqliteChatStore` keep paused turns by chat id;
* :func:`create_chat_app` is the Starlette app (``POST /api/chat``, the page at ``/``);
* ``harness serve`` runs it with uvicorn on 127.0.0.1.

See ``docs/ui.md``.

Names are imported on first use (PEP 562): the ``harness`` command imports this package to
list its plugin, which must not load Starlette.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness_core import lazy_exports

if TYPE_CHECKING:
    from .app import BindSession, create_chat_app, static_dir
    from .chat import ChatConflict, ChatTurn, SessionBinding, open_chat_turn
    from .request import BadChatRequest, ChatRequest, parse_chat_request
    from .store import ChatRecord, ChatStore, MemoryChatStore, SqliteChatStore
    from .stream import (
        DONE,
        UI_MESSAGE_STREAM_HEADERS,
        ErrorReport,
        UIStreamConverter,
        encode_chunk,
        map_finish_reason,
    )

_LAZY: dict[str, str] = {
    "BindSession": "harness_ui.app",
    "create_chat_app": "harness_ui.app",
    "static_dir": "harness_ui.app",
    "ChatConflict": "harness_ui.chat",
    "ChatTurn": "harness_ui.chat",
    "SessionBinding": "harness_ui.chat",
    "open_chat_turn": "harness_ui.chat",
    "BadChatRequest": "harness_ui.request",
    "ChatRequest": "harness_ui.request",
    "parse_chat_request": "harness_ui.request",
    "ChatRecord": "harness_ui.store",
    "ChatStore": "harness_ui.store",
    "MemoryChatStore": "harness_ui.store",
    "SqliteChatStore": "harness_ui.store",
    "DONE": "harness_ui.stream",
    "UI_MESSAGE_STREAM_HEADERS": "harness_ui.stream",
    "ErrorReport": "harness_ui.stream",
    "UIStreamConverter": "harness_ui.stream",
    "encode_chunk": "harness_ui.stream",
    "map_finish_reason": "harness_ui.stream",
}
"""Public name -> the submodule defining it."""

__all__ = [
    "DONE",
    "UI_MESSAGE_STREAM_HEADERS",
    "BadChatRequest",
    "BindSession",
    "ChatConflict",
    "ChatRecord",
    "ChatRequest",
    "ChatStore",
    "ChatTurn",
    "ErrorReport",
    "MemoryChatStore",
    "SessionBinding",
    "SqliteChatStore",
    "UIStreamConverter",
    "create_chat_app",
    "encode_chunk",
    "map_finish_reason",
    "open_chat_turn",
    "parse_chat_request",
    "static_dir",
]


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
