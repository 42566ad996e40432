"""ScriptedModelServer: one threaded HTTP server answering all three wire formats."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Collection, Iterable, Sequence
from types import TracebackType
from typing import Any, TypeAlias

from harness_core.testing._errors import ScriptError, ToolNotOfferedError
from harness_core.testing._faults import Fault, FaultPlan, plan_faults
from harness_core.testing._http import Answer, HTTPAnswerServer, IncomingRequest
from harness_core.testing._loader import load_script
from harness_core.testing._recording import RecordedRequest, RequestKind, redact_headers
from harness_core.testing._request import ModelRequest, WireFormat
from harness_core.testing._responder import CODECS, build_reply, choose_turn, parse_request
from harness_core.testing._script import ModelTurn, Responder, Script
from harness_core.testing._wire import default_error_message

__all__ = ["ScriptLike", "ScriptedModelServer", "coerce_script", "route"]

logger = logging.getLogger("harness_core.testing")

ScriptLike: TypeAlias = Script | Sequence[ModelTurn | str] | Responder | str | os.PathLike[str]
"""What a server accepts as its script: a :class:`Script`; a sequence of turns
(a str item is a text turn); a callable ``(ModelRequest) -> ModelTurn | str | None``;
or the path (str or ``PathLike``) of a YAML / JSON script file."""


def coerce_script(script: ScriptLike) -> Script:
    """Turn any :data:`ScriptLike` into a :class:`Script`; file errors raise :class:`ScriptError`."""
    if isinstance(script, Script):
        return script
    if isinstance(script, str | os.PathLike):
        return load_script(script)
    if callable(script):
        return Script(respond=script)
    return Script.of(*script)


def route(method: str, path: str) -> RequestKind:
    """Classify a request by method and path (the query string is ignored)."""
    clean = path.rstrip("/")
    if method == "HEAD":
        return "head"
    if method == "GET" and (clean.endswith("/models") or "/models/" in clean):
        return "models"
    if method != "POST":
        return "unknown"
    if clean.endswith("/messages/count_tokens"):
        return "count_tokens"
    if clean.endswith("/messages"):
        return "anthropic"
    if clean.endswith("/chat/completions"):
        return "chat"
    if clean.endswith("/responses"):
        return "responses"
    return "unknown"


class ScriptedModelServer:
    """A scripted model server on ``host`` (default 127.0.0.1), port 0 unless given.

    Answers ``POST */v1/messages`` (Anthropic Messages), ``*/chat/completions``,
    ``*/responses`` (streaming or not, by the body's ``stream``), ``POST
    */messages/count_tokens``, ``GET */models``, and ``HEAD`` on any path; any
    other request is logged and answered 404. ``formats`` restricts which wire
    formats are served (others get 404). ``faults`` add to the script's faults;
    ``chunk_size`` is the characters per text / argument delta; ``on_request`` is
    called with each :class:`RecordedRequest`.

    Use it as a context manager (``with ScriptedModelServer(script) as server:``)
    or call :meth:`start` / :meth:`stop`. Raises :class:`ScriptError` for a bad
    script file.
    """

    def __init__(
        self,
        script: ScriptLike = (),
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        faults: Iterable[Fault] = (),
        chunk_size: int = 16,
        formats: Collection[WireFormat] | None = None,
        on_request: Callable[[RecordedRequest], None] | None = None,
    ) -> None:
        self.script = coerce_script(script)
        self.host = host
        self.chunk_size = chunk_size
        self.formats = frozenset(formats) if formats is not None else None
        self._requested_port = port
        self._on_request = on_request
        self._faults: list[Fault] = [*self.script.faults, *faults]
        self._lock = threading.Condition()
        self._records: list[RecordedRequest] = []
        self._errors: list[Exception] = []
        self._model_calls = 0
        self._seen_models: list[str] = []
        self._http: HTTPAnswerServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle -----------------------------------------------------------------

    def start(self) -> ScriptedModelServer:
        """Bind and serve in a daemon thread; returns ``self``. Raises ``OSError`` if binding fails."""
        if self._http is not None:
            return self
        self._http = HTTPAnswerServer((self.host, self._requested_port), self._dispatch)
        self._thread = threading.Thread(
            target=self._http.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"scripted-model-server-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, close the socket and end open connections (keep-alive ones
        included, so the server is as dead as a crashed one); safe to call twice."""
        http, thread = self._http, self._thread
        self._http = self._thread = None
        if http is not None:
            http.shutdown()
            http.server_close()
            http.close_connections()
        if thread is not None:
            thread.join(timeout=5)

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound port; raises ``RuntimeError`` before :meth:`start`."""
        if self._http is None:
            raise RuntimeError("the scripted model server is not running; call start()")
        return int(self._http.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``: the Anthropic base URL (no ``/v1``)."""
        return f"http://{self.host}:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``: the OpenAI base URL."""
        return self.base_url + "/v1"

    # recording -----------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, oldest first (a copy)."""
        with self._lock:
            return list(self._records)

    @property
    def model_requests(self) -> list[ModelRequest]:
        """The parsed model calls (side requests included), oldest first."""
        return [r.parsed for r in self.requests if r.parsed is not None]

    @property
    def model_calls(self) -> int:
        """How many model calls (POSTs to a model endpoint) were received."""
        with self._lock:
            return self._model_calls

    @property
    def unhandled(self) -> list[RecordedRequest]:
        """Requests answered 404 because no route matched."""
        return [r for r in self.requests if r.kind == "unknown"]

    def offered_tools(self, i: int = -1) -> list[str]:
        """Tool names offered by the ``i``-th model call that offered tools (side requests skipped).

        Raises ``IndexError`` when there is no such call.
        """
        with_tools = [r for r in self.model_requests if not r.is_side_request]
        return list(with_tools[i].tool_names)

    def last_tool_result(self) -> str | None:
        """The newest tool result text sent by the runtime, or ``None`` if none was sent."""
        for request in reversed(self.model_requests):
            if request.last_tool_result is not None:
                return request.last_tool_result
        return None

    def wait_for_model_calls(self, count: int, timeout: float = 10.0) -> None:
        """Block until ``count`` model calls are recorded; ``TimeoutError`` after ``timeout`` s."""
        with self._lock:
            if not self._lock.wait_for(lambda: self._recorded_calls() >= count, timeout):
                raise TimeoutError(
                    f"expected {count} model calls within {timeout}s, got {self._recorded_calls()}"
                )

    def _recorded_calls(self) -> int:
        return sum(1 for record in self._records if record.model_call is not None)

    @property
    def errors(self) -> list[Exception]:
        """Script errors (e.g. :class:`ToolNotOfferedError`) answered with HTTP 500, oldest first."""
        with self._lock:
            return list(self._errors)

    def clear_errors(self) -> list[Exception]:
        """Forget the recorded errors and return them."""
        with self._lock:
            errors, self._errors = self._errors, []
        return errors

    def raise_errors(self) -> None:
        """Re-raise the first recorded script error, if any."""
        errors = self.errors
        if errors:
            raise errors[0]

    def inject(self, *faults: Fault) -> None:
        """Add faults while the server runs; they apply to model calls not yet received."""
        with self._lock:
            self._faults.extend(faults)

    # dispatch ------------------------------------------------------------------

    def _record(
        self, incoming: IncomingRequest, body: Any, kind: RequestKind, status: int, **extra: Any
    ) -> None:
        with self._lock:
            record = RecordedRequest(
                index=len(self._records),
                method=incoming.method,
                path=incoming.path,
                query=incoming.query,
                headers=redact_headers(incoming.headers),
                body=body,
                kind=kind,
                status=status,
                **extra,
            )
            self._records.append(record)
            self._lock.notify_all()
        if kind == "unknown":
            logger.warning(
                "scripted model server: no route for %s %s", incoming.method, incoming.path
            )
        else:
            logger.debug(
                "scripted model server: %s %s -> %s %s",
                incoming.method,
                incoming.path,
                status,
                body,
            )
        if self._on_request is not None:
            self._on_request(record)

    def _dispatch(self, incoming: IncomingRequest) -> Answer:
        kind = route(incoming.method, incoming.path)
        if kind in ("anthropic", "chat", "responses") and (
            self.formats is None or kind in self.formats
        ):
            return self._model_call(incoming, kind)
        try:
            body = incoming.json()
        except ValueError:
            body = None
        if kind == "head":
            self._record(incoming, None, kind, 200)
            return Answer()
        if kind == "models":
            self._record(incoming, body, kind, 200)
            return Answer(body=self._models_body())
        if kind == "count_tokens":
            self._record(incoming, body, kind, 200)
            return Answer(body={"input_tokens": max(1, len(incoming.raw_body) // 4)})
        self._record(incoming, body, "unknown", 404)
        message = f"scripted model server: no route for {incoming.method} {incoming.path}"
        return Answer(status=404, body={"error": {"message": message, "type": "not_found_error"}})

    def _models_body(self) -> dict[str, Any]:
        with self._lock:
            ids = list(dict.fromkeys([*self.script.models, *self._seen_models]))
        data = [
            {
                "id": model,
                "object": "model",
                "type": "model",
                "display_name": model,
                "created": 0,
                "created_at": "2024-01-01T00:00:00Z",
                "owned_by": "scripted",
            }
            for model in ids
        ]
        return {
            "object": "list",
            "data": data,
            "has_more": False,
            "first_id": ids[0] if ids else None,
            "last_id": ids[-1] if ids else None,
        }

    def _model_call(self, incoming: IncomingRequest, fmt: WireFormat) -> Answer:
        codec = CODECS[fmt]
        with self._lock:
            index = self._model_calls
            self._model_calls += 1
            faults = list(self._faults)
        plan = plan_faults(faults, index)
        try:
            body = incoming.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            message = "scripted model server: the request body is not a JSON object"
            self._record(incoming, body, fmt, 400, model_call=index, error=message)
            return Answer(status=400, body=codec.error_body(400, None, message))
        request = parse_request(fmt, body, index)
        with self._lock:
            if request.model not in self._seen_models:
                self._seen_models.append(request.model)
        if plan.status is not None:
            return self._fault_answer(incoming, request, plan)
        try:
            turn, source = choose_turn(self.script, request)
            reply = build_reply(turn, request, len(incoming.raw_body))
            answer = (
                Answer(
                    events=tuple(codec.stream(reply, self.chunk_size)),
                    plan=plan,
                    stream_error=lambda position: codec.stream_error(
                        reply, 500, None, default_error_message(500), position
                    ),
                )
                if request.stream
                else Answer(body=codec.body(reply), plan=plan)
            )
        except Exception as error:
            return self._error_answer(incoming, request, error)
        self._record(incoming, body, fmt, 200, model_call=index, parsed=request, source=source)
        return answer

    def _fault_answer(
        self, incoming: IncomingRequest, request: ModelRequest, plan: FaultPlan
    ) -> Answer:
        status = plan.status or 500
        message = plan.message or default_error_message(status)
        headers: tuple[tuple[str, str], ...] = ()
        if plan.retry_after is not None:
            headers = (("retry-after", f"{plan.retry_after:g}"),)
        self._record(
            incoming,
            dict(request.body),
            request.format,
            status,
            model_call=request.index,
            parsed=request,
        )
        return Answer(
            status=status,
            body=CODECS[request.format].error_body(status, plan.error_type, message),
            headers=headers,
            plan=FaultPlan(delay=plan.delay),
        )

    def _error_answer(
        self, incoming: IncomingRequest, request: ModelRequest, error: Exception
    ) -> Answer:
        with self._lock:
            self._errors.append(error)
        message = f"scripted model server: {error}"
        logger.error("%s", message)
        self._record(
            incoming,
            dict(request.body),
            request.format,
            500,
            model_call=request.index,
            parsed=request,
            error=message,
        )
        body = CODECS[request.format].error_body(500, None, message)
        detail = body["error"]
        if isinstance(error, ToolNotOfferedError):
            detail["tool"] = error.name
            detail["offered"] = list(error.offered)
        elif isinstance(error, ScriptError):
            detail["script_error"] = error.message
        return Answer(status=500, body=body)
