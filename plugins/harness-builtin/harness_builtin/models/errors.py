"""Turning the vendor SDKs' exceptions into :class:`~harness_builtin.models.base.ModelError`
with a message that says what to do.

Both official SDKs (``anthropic``, ``openai``) raise ``APIStatusError`` subclasses carrying
the HTTP status and the provider's error body, ``APIConnectionError`` (and its
``APITimeoutError`` subclass) when the server cannot be reached, and let transport errors
through while a stream is being read. Classification uses the status and the body's error
type, so it works for in-stream error events (HTTP 200) too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from .base import ModelError, ModelEvent

__all__ = ["classify_sdk_error", "guard_stream", "incomplete_response", "mid_stream"]

_RETRY_HINT = "The response stream ended before the model finished; try again"

_BODY_TYPES: Mapping[str, str] = {
    "authentication_error": "authentication",
    "invalid_api_key": "authentication",
    "permission_error": "permission",
    "not_found_error": "not-found",
    "model_not_found": "not-found",
    "rate_limit_error": "rate-limit",
    "rate_limit_exceeded": "rate-limit",
    "insufficient_quota": "rate-limit",
    "overloaded_error": "overloaded",
    "invalid_request_error": "bad-request",
    "request_too_large": "bad-request",
    "api_error": "server-error",
    "server_error": "server-error",
    "timeout_error": "timeout",
}


def _status_type(status: int | None) -> str | None:
    if status is None:
        return None
    if status == 401:
        return "authentication"
    if status == 403:
        return "permission"
    if status == 404:
        return "not-found"
    if status in (408, 504):
        return "timeout"
    if status == 429:
        return "rate-limit"
    if status in (503, 529):
        return "overloaded"
    if status >= 500:
        return "server-error"
    if 400 <= status < 500:
        return "bad-request"
    return None


def _body_error(body: Any) -> tuple[str | None, str | None]:
    """(type, message) from a provider error body, either ``{"error": {...}}`` or ``{...}``."""
    if not isinstance(body, Mapping):
        return None, None
    error = body.get("error", body)
    if not isinstance(error, Mapping):
        return None, str(error) if error else None
    kind = error.get("type") or error.get("code")
    message = error.get("message")
    return (str(kind) if kind else None), (str(message) if message else None)


_SPECIFIC_STATUSES = frozenset({401, 403, 404, 408, 429, 503, 504, 529})


def _body_code(body: Any) -> str | None:
    error = body.get("error", body) if isinstance(body, Mapping) else None
    code = error.get("code") if isinstance(error, Mapping) else None
    return str(code) if code else None


def _hint(error_type: str, provider: str, model: str, env_var: str, base_url: str | None, max_retries: int) -> str:
    where = base_url or f"the {provider} API"
    hints = {
        "authentication": f"Check {env_var} (or pass api_key=...): {where} rejected the key",
        "permission": f"The key has no access to model {model!r} or to this feature; check the account",
        "not-found": f"Check the model name {model!r}" + (f" and the base URL {base_url}" if base_url else ""),
        "rate-limit": (
            f"The provider is rate-limiting this key; wait and try again (the SDK retried {max_retries} "
            "time(s); raise max_retries= to retry more)"
        ),
        "overloaded": f"The provider is overloaded; try again in a moment (retried {max_retries} time(s))",
        "bad-request": "The provider refused the request; check the model name and the settings",
        "server-error": f"The provider failed; try again later (retried {max_retries} time(s))",
        "connection": f"Could not reach {where}: check the network, the base URL, and that the server is running",
        "timeout": "The request timed out; try again, or raise the client timeout",
        "incomplete-response": _RETRY_HINT,
    }
    return hints.get(error_type, "")


def classify_sdk_error(
    exc: BaseException,
    *,
    provider: str,
    model: str,
    env_var: str,
    base_url: str | None,
    max_retries: int,
) -> ModelError | None:
    """The :class:`ModelError` for an SDK or transport exception, or ``None`` when ``exc``
    is neither (a bug to let through)."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    module = type(exc).__module__
    status: int | None = getattr(exc, "status_code", None)
    if "APITimeoutError" in names or "TimeoutException" in names:
        error_type, detail = "timeout", str(exc)
    elif "APIConnectionError" in names:
        error_type, detail = "connection", str(exc)
    elif "APIStatusError" in names or "APIError" in names:
        body_type, body_message = _body_error(getattr(exc, "body", None))
        body_code = _body_code(getattr(exc, "body", None))
        by_status = _status_type(status) if status and status >= 400 else None
        error_type = (
            (by_status if status in _SPECIFIC_STATUSES else None)
            or _BODY_TYPES.get(body_code or "")
            or _BODY_TYPES.get(body_type or "")
            or by_status
            or "server-error"
        )
        detail = body_message or getattr(exc, "message", None) or str(exc)
    elif module.startswith(("httpx", "httpcore", "h11")):
        error_type = "incomplete-response" if "Protocol" in type(exc).__name__ or "Read" in type(exc).__name__ else "connection"
        detail = f"{type(exc).__name__}: {exc}"
    else:
        return None
    status_text = f", HTTP {status}" if status and status >= 400 else ""
    detail = detail.rstrip(". ")
    message = f"{provider} model {model!r} failed ({error_type}{status_text}): {detail}"
    return ModelError(
        error_type,
        message,
        provider=provider,
        status=status if status and status >= 400 else None,
        hint=_hint(error_type, provider, model, env_var, base_url, max_retries),
    )


def mid_stream(error: ModelError) -> ModelError:
    """A connection error after the response had started is an incomplete response."""
    if error.error_type != "connection":
        return error
    return ModelError(
        "incomplete-response",
        str(error).split(". Could not reach", 1)[0].replace("failed (connection", "failed (incomplete-response")
        + " (the connection broke mid-response)",
        provider=error.provider,
        hint=_RETRY_HINT,
    )


def incomplete_response(provider: str, model: str, what: str) -> ModelError:
    """The error for a stream that ended without its final event."""
    return ModelError(
        "incomplete-response",
        f"{provider} model {model!r} failed (incomplete-response): {what}",
        provider=provider,
        hint=_RETRY_HINT,
    )


async def guard_stream(
    events: AsyncIterator[ModelEvent], classify: Callable[[BaseException], ModelError | None]
) -> AsyncIterator[ModelEvent]:
    """Yield ``events``, turning an SDK exception into a :class:`ModelError`.

    Args:
        events: a client's raw event stream.
        classify: maps an exception to a ``ModelError`` (``None``: not an SDK error, re-raised).

    Raises:
        ModelError: the classified error; after the first event it is marked as a
            mid-stream failure (:func:`mid_stream`).
    """
    received = False
    try:
        async for event in events:
            received = True
            yield event
    except ModelError:
        raise
    except Exception as exc:
        error = classify(exc)
        if error is None:
            raise
        raise (mid_stream(error) if received else error) from exc
