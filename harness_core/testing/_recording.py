"""What the server records about each request it receives."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from harness_core.testing._request import ModelRequest

__all__ = ["SECRET_HEADERS", "RecordedRequest", "RequestKind", "redact_headers"]

SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "cookie",
        "set-cookie",
        "x-goog-api-key",
    }
)
"""Header names (lower case) whose values are never recorded."""

REDACTED = "<redacted>"

RequestKind = Literal["anthropic", "chat", "responses", "count_tokens", "models", "head", "unknown"]
"""What a request was: a model call in one of the three wire formats, a token count,
a model listing, a ``HEAD`` probe, or anything else (answered 404)."""


def redact_headers(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Lower-case header names and replace secret values with ``"<redacted>"``."""
    return {
        name.lower(): REDACTED if name.lower() in SECRET_HEADERS else value
        for name, value in headers
    }


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received, recorded before its answer is sent.

    ``path`` has no query string (``query`` holds it); ``headers`` are lower-cased
    with secrets redacted; ``body`` is the parsed JSON body (``None`` when
    empty or not JSON). For model calls, ``model_call`` is the 0-based model-call
    index, ``parsed`` the :class:`ModelRequest` and ``source`` where the answer
    came from (``"script"``, ``"final"``, ``"side"``, ``"responder"``; ``None``
    when a fault or an error answered). ``status`` is the HTTP status sent and
    ``error`` the message of a script error that answered 500.
    """

    index: int
    method: str
    path: str
    query: str
    headers: Mapping[str, str]
    body: Any
    kind: RequestKind
    status: int
    model_call: int | None = None
    parsed: ModelRequest | None = field(default=None, repr=False)
    source: str | None = None
    error: str | None = None

    @property
    def is_model_call(self) -> bool:
        """True for POSTs to a model endpoint (whatever the answer was)."""
        return self.model_call is not None
