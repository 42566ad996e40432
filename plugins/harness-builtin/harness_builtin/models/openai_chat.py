"""OpenAI Chat Completions through the official ``openai`` SDK, streaming.

Also the client for OpenAI-compatible local servers (Ollama, vLLM, llama.cpp server, LM
Studio): give ``base_url``. Wire reference: Chat Completions streaming chunks
(``choices[].delta.content`` / ``tool_calls``, ``finish_reason``, the usage chunk with
``stream_options.include_usage``). Reasoning arrives as ``reasoning_content`` or
``reasoning`` on the delta from the servers that send it.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from harness_core import FinishReason, Usage

from ..conversation import (
    AssistantMessage,
    Message,
    ToolResultRecord,
    ToolResultsMessage,
    UserMessage,
)
from .base import (
    ModelError,
    ModelEvent,
    ModelRequest,
    ReasoningDelta,
    ReasoningDone,
    ResponseDone,
    TextDelta,
    ToolCallDelta,
    ToolCallStart,
)
from .errors import classify_sdk_error, guard_stream, incomplete_response

__all__ = ["OpenAIChatClient", "to_openai_messages"]

_FINISH: Mapping[str, FinishReason] = {
    "stop": "stop",
    "tool_calls": "tool-calls",
    "function_call": "tool-calls",
    "length": "length",
    "content_filter": "content-filter",
}
ENV_VAR = "OPENAI_API_KEY"


def to_openai_messages(system: str, messages: Sequence[Message], *, images: bool = False) -> list[dict[str, Any]]:
    """The conversation as Chat Completions ``messages``, system prompt first.

    With ``images``, the images of tool results (which a ``tool`` message cannot carry) go
    in a ``user`` message right after the results, as ``image_url`` parts with ``data:``
    URLs; the results' text keeps a placeholder line where each image was.
    """
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        if isinstance(message, UserMessage):
            out.append({"role": "user", "content": message.text})
        elif isinstance(message, ToolResultsMessage):
            out.extend(
                {"role": "tool", "tool_call_id": r.call_id, "content": _result_text(r)}
                for r in message.results
            )
            attached = [{"type": "image_url", "image_url": {"url": f"data:{i.media_type};base64,{i.data}"}}
                        for r in message.results for i in r.items if images and i.type == "image" and i.data]
            if attached:
                out.append({"role": "user", "content": [
                    {"type": "text", "text": "The images of the tool results above:"}, *attached]})
        else:
            out.append(_assistant(message))
    return out


def _result_text(record: ToolResultRecord) -> str:
    """A result as a tool message's text: Chat Completions tool messages take text only, so
    an image item (stored by another client) reads as a placeholder line."""
    if not record.items:
        return record.content or "(no output)"
    lines = [item.text or "" if item.type == "text" else f"[image: {item.media_type}, {len(item.data or '') * 3 // 4} bytes]"
             for item in record.items]
    return "\n".join(lines) or "(no output)"


def _assistant(message: AssistantMessage) -> dict[str, Any]:
    entry: dict[str, Any] = {"role": "assistant", "content": message.text or ("" if not message.tool_calls else None)}
    if message.tool_calls:
        entry["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
            for c in message.tool_calls
        ]
    return entry


class OpenAIChatClient:
    """A :class:`~harness_builtin.models.base.ModelClient` for Chat Completions.

    Args:
        model: the model id (``gpt-4.1``, ``qwen2.5-coder``...).
        api_key: the key; default ``OPENAI_API_KEY``; a local server (``base_url`` given)
            needs none.
        base_url: an OpenAI-compatible endpoint, e.g. ``http://localhost:11434/v1``.
        max_retries: the SDK's retries for connection errors, 408, 409, 429 and 5xx (2).
        timeout: seconds for one request (600).
        image_input: the model reads images: a tool result's images are sent in a ``user``
            message after the results (``image_url`` parts; see :func:`to_openai_messages`).
            Off by default: a text-only model would refuse the request.

    Raises:
        ModelError: ``configuration`` when no key is set and no ``base_url`` is given.
    """

    provider = "openai"
    tool_result_content: frozenset[str] = frozenset({"text"})
    """Chat Completions tool messages take text only: an image item is replaced by a
    placeholder line, with a warning (logged, and on the ``tool-result`` part), unless
    ``image_input`` is set."""

    def __init__(self, model: str, *, api_key: str | None = None, base_url: str | None = None,
                 max_retries: int = 2, timeout: float = 600.0, image_input: bool = False) -> None:
        import openai

        self.image_input = image_input
        if image_input:
            self.tool_result_content = frozenset({"text", "image"})

        self.model = model
        self.name = f"openai:{model}"
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL")
        key = api_key or os.environ.get(ENV_VAR)
        if not key:
            if not self.base_url:
                raise ModelError(
                    "configuration",
                    f"no API key for {self.name}",
                    provider=self.provider,
                    hint=f"Set {ENV_VAR} (or pass api_key=...), or give base_url= for a local server",
                )
            key = "not-needed"
        self.max_retries = max_retries
        self._client = openai.AsyncOpenAI(api_key=key, base_url=self.base_url, max_retries=max_retries, timeout=timeout)

    def _error(self, exc: BaseException) -> ModelError | None:
        return classify_sdk_error(
            exc, provider=self.provider, model=self.model, env_var=ENV_VAR,
            base_url=self.base_url, max_retries=self.max_retries,
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Stream one response (see :class:`~harness_builtin.models.base.ModelClient`)."""
        params: dict[str, Any] = {
            "model": self.model,
            "messages": to_openai_messages(request.system, request.messages, images=self.image_input),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        # Local servers often know only the older name.
        params["max_tokens" if self.base_url else "max_completion_tokens"] = request.max_output_tokens
        if request.tools:
            params["tools"] = [
                {"type": "function", "function": {"name": t.name, "description": t.description,
                                                  "parameters": t.input_schema}}
                for t in request.tools
            ]
        async for event in guard_stream(self._events(params), self._error):
            yield event

    async def _events(self, params: dict[str, Any]) -> AsyncIterator[ModelEvent]:
        stream = await self._client.chat.completions.create(**params)
        usage = Usage()
        finish: str | None = None
        started: dict[int, int] = {}
        reasoning_open = False
        try:
            async for chunk in stream:
                if chunk.usage is not None:
                    u = chunk.usage
                    cached = getattr(u.prompt_tokens_details, "cached_tokens", None) if u.prompt_tokens_details else None
                    reasoning = (
                        getattr(u.completion_tokens_details, "reasoning_tokens", None)
                        if u.completion_tokens_details else None
                    )
                    usage = Usage(
                        input_tokens=u.prompt_tokens, output_tokens=u.completion_tokens,
                        total_tokens=u.total_tokens, cached_input_tokens=cached or None,
                        reasoning_tokens=reasoning or None,
                    )
                for choice in chunk.choices[:1]:
                    delta = choice.delta
                    extra = delta.model_extra or {}
                    thought = extra.get("reasoning_content") or extra.get("reasoning")
                    if isinstance(thought, str) and thought:
                        reasoning_open = True
                        yield ReasoningDelta(thought)
                    if delta.content:
                        if reasoning_open:
                            reasoning_open = False
                            yield ReasoningDone()
                        yield TextDelta(delta.content)
                    for call in delta.tool_calls or ():
                        if call.index not in started:
                            if reasoning_open:
                                reasoning_open = False
                                yield ReasoningDone()
                            position = len(started)
                            started[call.index] = position
                            name = call.function.name if call.function and call.function.name else ""
                            yield ToolCallStart(position, call.id or f"call_{position}", name)
                        if call.function and call.function.arguments:
                            yield ToolCallDelta(started[call.index], call.function.arguments)
                    if choice.finish_reason:
                        finish = choice.finish_reason
        finally:
            await stream.close()
        if reasoning_open:
            yield ReasoningDone()
        if finish is None:
            raise incomplete_response(self.provider, self.model, "no finish_reason arrived")
        if usage.total_tokens is None and (usage.input_tokens is not None or usage.output_tokens is not None):
            usage = usage.model_copy(update={"total_tokens": (usage.input_tokens or 0) + (usage.output_tokens or 0)})
        yield ResponseDone(_FINISH.get(finish, "other"), usage, finish)

    async def aclose(self) -> None:
        """Close the SDK client's connections."""
        await self._client.close()
