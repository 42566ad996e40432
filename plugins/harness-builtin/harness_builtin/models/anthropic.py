"""Anthropic Messages through the official ``anthropic`` SDK, streaming.

Wire reference: the Messages API's streaming events (``message_start``,
``content_block_start`` / ``_delta`` / ``_stop``, ``message_delta``, ``message_stop``).
The SDK is imported when the first client is built, not when this module is imported.
"""

from __future__ import annotations

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

__all__ = ["AnthropicClient", "to_anthropic_messages"]

_FINISH: Mapping[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool-calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content-filter",
    "pause_turn": "other",
}
ENV_VAR = "ANTHROPIC_API_KEY"


def to_anthropic_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The conversation as Anthropic ``messages`` (adjacent same-role messages merged,
    tool results first in their user message)."""
    out: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})

    for message in messages:
        if isinstance(message, UserMessage):
            add("user", [{"type": "text", "text": message.text or "(empty)"}])
        elif isinstance(message, ToolResultsMessage):
            add("user", [
                {"type": "tool_result", "tool_use_id": r.call_id, "content": _result_content(r),
                 **({"is_error": True} if r.is_error else {})}
                for r in message.results
            ])
        else:
            add("assistant", _assistant_blocks(message))
    return out


def _result_content(record: ToolResultRecord) -> str | list[dict[str, Any]]:
    """A result's ``tool_result`` content: its text, or for a rich result its items as
    ``text`` and base64 ``image`` blocks (in order)."""
    if not record.items:
        return record.content or "(no output)"
    blocks: list[dict[str, Any]] = []
    for item in record.items:
        if item.type == "image" and item.data is not None:
            blocks.append({"type": "image", "source": {"type": "base64", "media_type": item.media_type or "image/png",
                                                       "data": item.data}})
        elif item.text:
            blocks.append({"type": "text", "text": item.text})
    return blocks or "(no output)"


def _assistant_blocks(message: AssistantMessage) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for block in message.reasoning:
        if block.redacted is not None:
            blocks.append({"type": "redacted_thinking", "data": block.redacted})
        elif block.signature is not None:
            blocks.append({"type": "thinking", "thinking": block.text, "signature": block.signature})
    if message.text:
        blocks.append({"type": "text", "text": message.text})
    blocks.extend(
        {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments} for call in message.tool_calls
    )
    return blocks or [{"type": "text", "text": "(no content)"}]


class AnthropicClient:
    """A :class:`~harness_builtin.models.base.ModelClient` for Anthropic Messages.

    Args:
        model: the model id (``claude-sonnet-4-5``).
        api_key: the key; default ``ANTHROPIC_API_KEY``.
        base_url: another endpoint (a proxy, a scripted server); default the SDK's
            (``ANTHROPIC_BASE_URL`` or the public API).
        max_retries: the SDK's retries for connection errors, 408, 409, 429 and 5xx (2).
        timeout: seconds for one request (600).
        thinking_budget: tokens of extended thinking per response, or ``None`` (off).

    Raises:
        ModelError: ``configuration`` when no key is set.
    """

    provider = "anthropic"
    tool_result_content: frozenset[str] = frozenset({"text", "image"})
    """Rich tool results go as ``tool_result`` content blocks: text and base64 images."""

    def __init__(self, model: str, *, api_key: str | None = None, base_url: str | None = None,
                 max_retries: int = 2, timeout: float = 600.0, thinking_budget: int | None = None) -> None:
        import anthropic

        self.model = model
        self.name = f"anthropic:{model}"
        key = api_key or os.environ.get(ENV_VAR) or os.environ.get("ANTHROPIC_AUTH_TOKEN")
        self.base_url = base_url or os.environ.get("ANTHROPIC_BASE_URL")
        if not key:
            if not self.base_url:
                raise ModelError(
                    "configuration",
                    f"no API key for {self.name}",
                    provider=self.provider,
                    hint=f"Set {ENV_VAR} (or pass api_key=...), or give base_url= for a local server",
                )
            # A local or loopback server (a scripted model, a proxy that adds its own
            # credentials) may need no key; the server answers 401 if it does.
            key = "not-needed"
        self.max_retries = max_retries
        self.thinking_budget = thinking_budget
        self._client = anthropic.AsyncAnthropic(
            api_key=key, base_url=self.base_url, max_retries=max_retries, timeout=timeout
        )

    def _error(self, exc: BaseException) -> ModelError | None:
        return classify_sdk_error(
            exc, provider=self.provider, model=self.model, env_var=ENV_VAR,
            base_url=self.base_url, max_retries=self.max_retries,
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Stream one response (see :class:`~harness_builtin.models.base.ModelClient`)."""
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.max_output_tokens,
            "messages": to_anthropic_messages(request.messages),
            "stream": True,
        }
        if request.system:
            params["system"] = request.system
        if request.tools:
            params["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in request.tools
            ]
        if self.thinking_budget:
            params["thinking"] = {"type": "enabled", "budget_tokens": self.thinking_budget}
        async for event in guard_stream(self._events(params), self._error):
            yield event

    async def _events(self, params: dict[str, Any]) -> AsyncIterator[ModelEvent]:
        stream = await self._client.messages.create(**params)
        usage = Usage()
        finish: str | None = None
        blocks: dict[int, str] = {}
        tool_index: dict[int, int] = {}
        signatures: dict[int, str] = {}
        stopped = False
        try:
            async for event in stream:
                kind = event.type
                if kind == "message_start":
                    u = event.message.usage
                    usage = Usage(
                        input_tokens=(u.input_tokens or 0) + (u.cache_read_input_tokens or 0)
                        + (u.cache_creation_input_tokens or 0),
                        output_tokens=u.output_tokens,
                        cached_input_tokens=u.cache_read_input_tokens,
                        cache_creation_input_tokens=u.cache_creation_input_tokens,
                    )
                elif kind == "content_block_start":
                    block = event.content_block
                    blocks[event.index] = block.type
                    if block.type == "tool_use":
                        position = len(tool_index)
                        tool_index[event.index] = position
                        yield ToolCallStart(position, block.id, block.name)
                    elif block.type == "text" and block.text:
                        yield TextDelta(block.text)
                    elif block.type == "thinking" and block.thinking:
                        yield ReasoningDelta(block.thinking)
                    elif block.type == "redacted_thinking":
                        yield ReasoningDone(redacted=block.data)
                elif kind in ("content_block_delta", "content_block_stop") and event.index not in blocks:
                    # Its block never started: a tool call (or text) would be lost silently.
                    raise incomplete_response(self.provider, self.model, (
                        f"a {kind} for content block {event.index} arrived without its content_block_start "
                        f"(block {event.index}'s content would be lost)"))
                elif kind == "content_block_delta":
                    delta = event.delta
                    if delta.type == "text_delta":
                        yield TextDelta(delta.text)
                    elif delta.type == "input_json_delta":
                        if event.index in tool_index and delta.partial_json:
                            yield ToolCallDelta(tool_index[event.index], delta.partial_json)
                    elif delta.type == "thinking_delta":
                        yield ReasoningDelta(delta.thinking)
                    elif delta.type == "signature_delta":
                        signatures[event.index] = signatures.get(event.index, "") + delta.signature
                elif kind == "content_block_stop":
                    if blocks.get(event.index) == "thinking":
                        yield ReasoningDone(signature=signatures.get(event.index))
                elif kind == "message_delta":
                    finish = event.delta.stop_reason or finish
                    if event.usage is not None and event.usage.output_tokens is not None:
                        usage = usage.model_copy(update={"output_tokens": event.usage.output_tokens})
                elif kind == "message_stop":
                    stopped = True
        finally:
            await stream.close()
        if finish is None:
            what = "no stop reason arrived" if not stopped else "the message ended without a stop reason"
            raise incomplete_response(self.provider, self.model, what)
        if finish == "tool_use" and not tool_index:
            raise incomplete_response(self.provider, self.model,
                                      "the response stopped for tool use but no tool_use content_block_start arrived")
        total = (usage.input_tokens or 0) + (usage.output_tokens or 0)
        yield ResponseDone(_FINISH.get(finish, "other"), usage.model_copy(update={"total_tokens": total}), finish)

    async def aclose(self) -> None:
        """Close the SDK client's connections."""
        await self._client.close()
