"""Model clients of the built-in harness, and how a ``provider:model`` name picks one.

* ``anthropic:<model>``: Anthropic Messages (:class:`AnthropicClient`), key from
  ``ANTHROPIC_API_KEY``;
* ``openai:<model>``: OpenAI Chat Completions (:class:`OpenAIChatClient`), key from
  ``OPENAI_API_KEY``; with ``base_url`` any OpenAI-compatible server (Ollama, vLLM,
  llama.cpp server, LM Studio), no key needed;
* any object implementing :class:`ModelClient` (e.g. :class:`ScriptedModelClient`).

SDKs are imported when a client is built.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Final

from harness_core import HarnessConfigurationError

from .base import (
    ModelClient,
    ModelError,
    ModelEvent,
    ModelRequest,
    ReasoningDelta,
    ReasoningDone,
    ResponseDone,
    TextDelta,
    ToolCallDelta,
    ToolCallStart,
    ToolSpec,
)
from .scripted import ScriptedModelClient

__all__ = [
    "DEFAULT_MODELS",
    "PROVIDERS",
    "ModelClient",
    "ModelError",
    "ModelEvent",
    "ModelRequest",
    "ReasoningDelta",
    "ReasoningDone",
    "ResponseDone",
    "ScriptedModelClient",
    "TextDelta",
    "ToolCallDelta",
    "ToolCallStart",
    "ToolSpec",
    "create_model_client",
    "default_model_name",
    "parse_model_name",
]

PROVIDERS: Final = ("anthropic", "openai")
"""Providers a ``provider:model`` name may start with."""

DEFAULT_MODELS: Final[Mapping[str, str]] = {
    "anthropic": "anthropic:claude-sonnet-4-5",
    "openai": "openai:gpt-4.1",
}
"""The model used when only a provider's key is configured."""

MODEL_ENV: Final = "HARNESS_MODEL"


def parse_model_name(name: str) -> tuple[str, str]:
    """Split ``provider:model``.

    Raises:
        HarnessConfigurationError: no provider, an unknown provider, or no model.
    """
    provider, sep, model = name.partition(":")
    if not sep or not model.strip() or not provider.strip():
        raise HarnessConfigurationError(
            f"model {name!r}: name it as provider:model, e.g. anthropic:claude-sonnet-4-5, "
            "openai:gpt-4.1, or openai:qwen2.5-coder with a base URL"
        )
    if provider not in PROVIDERS:
        raise HarnessConfigurationError(
            f"model {name!r}: unknown provider {provider!r} (known: {', '.join(PROVIDERS)}; "
            "OpenAI-compatible servers use openai: with a base URL)"
        )
    return provider, model.strip()


def default_model_name(env: Mapping[str, str] | None = None) -> str | None:
    """The model to use when none is named: ``HARNESS_MODEL``, else the default model of
    the first provider whose key is set (Anthropic, then OpenAI), else ``None``."""
    env = os.environ if env is None else env
    if env.get(MODEL_ENV):
        return env[MODEL_ENV]
    if env.get("ANTHROPIC_API_KEY"):
        return DEFAULT_MODELS["anthropic"]
    if env.get("OPENAI_API_KEY"):
        return DEFAULT_MODELS["openai"]
    return None


def create_model_client(
    model: str | ModelClient,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    max_retries: int = 2,
    timeout: float = 600.0,
) -> ModelClient:
    """The client for ``model`` (a ``provider:model`` name, or a client returned as is).

    Raises:
        HarnessConfigurationError: a malformed name.
        ModelError: ``configuration``: the provider needs a key that is not set.
    """
    if not isinstance(model, str):
        if isinstance(model, ModelClient):
            return model
        raise HarnessConfigurationError(
            f"model must be a 'provider:model' name or a ModelClient, got {type(model).__name__}"
        )
    provider, model_id = parse_model_name(model)
    if provider == "anthropic":
        from .anthropic import AnthropicClient

        return AnthropicClient(model_id, api_key=api_key, base_url=base_url, max_retries=max_retries, timeout=timeout)
    from .openai_chat import OpenAIChatClient

    return OpenAIChatClient(model_id, api_key=api_key, base_url=base_url, max_retries=max_retries, timeout=timeout)
