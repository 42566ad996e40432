"""Pieces shared by the two OpenAI wire formats."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["openai_error_body", "parse_arguments"]


def parse_arguments(text: Any) -> Any:
    """Parse a JSON ``arguments`` string; return it unchanged when it is not JSON."""
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def openai_error_body(status: int, error_type: str | None, message: str) -> dict[str, Any]:
    """The ``{"error": {...}}`` body OpenAI answers errors with."""
    if error_type is not None:
        kind, code = error_type, error_type
    elif status == 429:
        kind, code = "requests", "rate_limit_exceeded"
    elif status == 401:
        kind, code = "invalid_request_error", "invalid_api_key"
    elif status >= 500:
        kind, code = "server_error", "server_error"
    else:
        kind, code = "invalid_request_error", None
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}
