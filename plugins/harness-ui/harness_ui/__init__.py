"""harness-ui: serve any harness to AI SDK ``useChat`` front ends.

* :class:`UIStreamConverter` turns parts into UI message stream v1 chunks;
* :func:`parse_chat_request` reads a ``useChat`` POST body;
* :class:`ChatStore` / :class:`SqliteChatStore` keep paused turns by chat id;
* :func:`create_chat_app` is the Starlette app (``POST /api/chat``, the page at ``/``);
* ``harness serve`` runs it with uvicorn on 127.0.0.1.

See ``docs/ui.md``.
"""

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
