"""The HTTP layer: a threaded stdlib server and its request handler."""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from harness_core.testing._faults import FaultPlan
from harness_core.testing._wire import SseEvent, json_dumps

__all__ = ["Answer", "HTTPAnswerServer", "IncomingRequest"]

logger = logging.getLogger("harness_core.testing")


@dataclass(frozen=True)
class IncomingRequest:
    """A received request, before it is answered."""

    method: str
    path: str
    query: str
    headers: tuple[tuple[str, str], ...]
    raw_body: bytes

    def json(self) -> Any:
        """The body parsed as JSON; ``None`` when empty; raises ``ValueError`` when not JSON."""
        if not self.raw_body.strip():
            return None
        return json.loads(self.raw_body)


_NO_FAULTS = FaultPlan()


@dataclass(frozen=True)
class Answer:
    """What to send back: a JSON body, an event stream, or an empty body.

    ``events`` makes it a ``text/event-stream`` answer, sent as chunks; ``plan``
    shapes it (drops, cut, in-stream error, delays). ``stream_error`` builds the
    in-stream error event (given the number of events before it) when the plan
    asks for one.
    """

    status: int = 200
    body: Mapping[str, Any] | None = None
    events: tuple[SseEvent, ...] | None = None
    headers: tuple[tuple[str, str], ...] = ()
    plan: FaultPlan = _NO_FAULTS
    stream_error: Callable[[int], SseEvent] | None = None


Dispatcher = Callable[[IncomingRequest], Answer]


class HTTPAnswerServer(ThreadingHTTPServer):
    """A ``ThreadingHTTPServer`` whose handler asks ``dispatch`` for every answer."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], dispatch: Dispatcher) -> None:
        self.dispatch = dispatch
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        """Track the connection (so :meth:`close_connections` can end it), then serve it."""
        with self._connections_lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        """Forget the connection and close it."""
        with self._connections_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        """End every open client connection (keep-alive ones included): a stopped server
        answers nothing more, as a dead one would."""
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):  # already closed by the client
                connection.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Log handler failures; a client hanging up is routine and logged at debug level."""
        error = sys.exc_info()[1]
        if isinstance(error, ConnectionError):
            logger.debug("scripted model server: %s hung up: %s", client_address, error)
        else:
            logger.exception("scripted model server: error answering %s", client_address)


def _stream_events(events: Iterable[SseEvent], answer: Answer) -> list[SseEvent]:
    plan = answer.plan
    kept = [event for position, event in enumerate(events) if not plan.drops(position, event.label)]
    if plan.error_event_after is not None and answer.stream_error is not None:
        kept = kept[: plan.error_event_after]
        kept.append(answer.stream_error(len(kept)))
    return kept


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "ScriptedModelServer/1"
    # TCP_NODELAY: headers and body go out in separate writes; with Nagle's algorithm the
    # second write waits for the client's delayed ACK (about 40 ms a request).
    disable_nagle_algorithm = True
    server: HTTPAnswerServer

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("%s - %s", self.address_string(), format % args)

    def _read_body(self) -> bytes:
        length = self.headers.get("content-length")
        if length is not None:
            return self.rfile.read(int(length))
        if "chunked" in (self.headers.get("transfer-encoding") or "").lower():
            parts: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        return b""

    def _handle(self) -> None:
        split = urlsplit(self.path)
        request = IncomingRequest(
            method=self.command,
            path=split.path,
            query=split.query,
            headers=tuple(self.headers.items()),
            raw_body=self._read_body() if self.command != "HEAD" else b"",
        )
        answer = self.server.dispatch(request)
        try:
            if answer.plan.delay:
                time.sleep(answer.plan.delay)
            if answer.events is not None:
                self._send_stream(answer, answer.events)
            else:
                self._send_body(answer)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    do_GET = do_POST = do_HEAD = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _handle

    def _send_body(self, answer: Answer) -> None:
        data = b"" if answer.body is None else json_dumps(answer.body).encode()
        self.send_response(answer.status)
        if answer.body is not None:
            self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in answer.headers:
            self.send_header(name, value)
        self.end_headers()
        if self.command == "HEAD":
            return
        if answer.plan.cut_after_events is not None:
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(data)

    def _send_stream(self, answer: Answer, events: Iterable[SseEvent]) -> None:
        self.send_response(answer.status)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        for name, value in answer.headers:
            self.send_header(name, value)
        self.end_headers()
        cut = answer.plan.cut_after_events
        kept = _stream_events(events, answer)
        for position, event in enumerate(kept):
            data = event.encode()
            if cut is not None and position == cut:
                self._write_chunk(data[: max(1, len(data) // 2)])
                self.close_connection = True
                return
            self._write_chunk(data)
            if answer.plan.event_delay:
                time.sleep(answer.plan.event_delay)
        if cut is not None:
            self.close_connection = True
            return
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()
