"""The factory's settings (:func:`harness_pi.pi`), checked once when the adapter is built."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final, Literal

import attrs

from harness_core import (
    HarnessConfigurationError,
    McpServerConfig,
    describe_unknown_names,
    parse_mcp_servers,
)

__all__ = ["API_KINDS", "DEFAULT_PROVIDER", "HARNESS_ID", "PiSettings"]

HARNESS_ID: Final = "pi"
"""The adapter's harness id (``HarnessAgent(harness="pi")``)."""

DEFAULT_PROVIDER: Final = "harness"
"""The provider name the adapter writes into the session's ``models.json`` for ``base_url``."""

API_KINDS: Final = ("openai-completions", "openai-responses", "anthropic-messages")
"""The wire APIs a ``base_url`` endpoint may speak (pi's ``api`` values)."""

ApiKind = Literal["openai-completions", "openai-responses", "anthropic-messages"]

_NAME: Final = re.compile(r"^[A-Za-z0-9_-]+$")
_THINKING: Final = ("off", "minimal", "low", "medium", "high", "xhigh", "max")


def _fail(name: str, message: str) -> HarnessConfigurationError:
    return HarnessConfigurationError(f"pi({name}=...): {message}")


def _opt_str(settings: Mapping[str, Any], name: str) -> str | None:
    value = settings.get(name)
    if value is not None and (not isinstance(value, str) or not value):
        raise _fail(name, f"expected a non-empty string, got {type(value).__name__}")
    return value


def _opt_path(settings: Mapping[str, Any], name: str, *, must_exist: bool = False) -> Path | None:
    value = settings.get(name)
    if value is None:
        return None
    if not isinstance(value, str | os.PathLike) or not str(value):
        raise _fail(name, f"expected a path, got {value!r}")
    path = Path(value).expanduser()
    if must_exist and not path.exists():
        raise _fail(name, f"{str(path)!r} does not exist")
    return path


def _opt_int(settings: Mapping[str, Any], name: str, default: int | None, minimum: int) -> int | None:
    value = settings.get(name, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise _fail(name, f"expected an int >= {minimum}, got {value!r}")
    return value


def _str_mapping(settings: Mapping[str, Any], name: str) -> dict[str, str]:
    value = settings.get(name)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _fail(name, "expected a mapping of str to str")
    bad = [key for key, item in value.items() if not isinstance(key, str) or not isinstance(item, str)]
    if bad:
        raise _fail(name, f"keys and values must be strings; bad keys: {', '.join(map(repr, map(str, bad)))}")
    return dict(value)


@attrs.frozen(kw_only=True)
class PiSettings:
    """Settings of one pi adapter (see :func:`harness_pi.pi` for their meaning).

    Build with :meth:`from_kwargs`, which checks every value and raises
    :class:`~harness_core.HarnessConfigurationError` naming the bad setting.
    """

    model: str | None = None
    provider: str | None = None
    base_url: str | None = None
    api_key: str | None = attrs.field(default=None, repr=False)
    api: ApiKind = "openai-completions"
    context_window: int = 128000
    max_tokens: int = 4096
    reasoning: bool = False
    thinking: str | None = None
    mcp_servers: Mapping[str, McpServerConfig] = attrs.field(factory=dict, repr=False)
    pi_path: Path | None = None
    node_path: Path | None = None
    env: Mapping[str, str] = attrs.field(factory=dict, repr=False)
    cwd: Path | None = None
    extensions: tuple[Path, ...] = ()
    max_retries: int | None = None
    retry_delay_ms: int | None = None
    keep_recent_tokens: int | None = None
    abort_timeout: float = 5.0
    stderr: Callable[[str], None] | None = None

    @classmethod
    def from_kwargs(cls, **settings: Any) -> PiSettings:
        """Check and normalize the factory's keyword settings.

        Raises:
            HarnessConfigurationError: an unknown setting or a bad value (the message names it).
        """
        known = {field.name for field in attrs.fields(cls)}
        unknown = sorted(set(settings) - known)
        if unknown:
            raise HarnessConfigurationError(describe_unknown_names("pi()", "setting", unknown, known))
        model, provider = _opt_str(settings, "model"), _opt_str(settings, "provider")
        if model is not None and provider is None:
            for separator in ("/", ":"):
                head, sep, tail = model.partition(separator)
                if sep and head and tail and _NAME.fullmatch(head):
                    provider, model = head, tail
                    break
        if provider is not None and not _NAME.fullmatch(provider):
            raise _fail("provider", f"letters, digits, '_' and '-' only, got {provider!r}")
        base_url = _opt_str(settings, "base_url")
        if base_url is not None and not base_url.startswith(("http://", "https://")):
            raise _fail("base_url", f"expected an http(s) URL, got {base_url!r}")
        if base_url is not None and model is None:
            raise _fail("model", "a base_url endpoint needs the model id it serves")
        api = settings.get("api", "openai-completions")
        if api not in API_KINDS:
            raise _fail("api", f"expected one of {', '.join(API_KINDS)}, got {api!r}")
        thinking = _opt_str(settings, "thinking")
        if thinking is not None and thinking not in _THINKING:
            raise _fail("thinking", f"expected one of {', '.join(_THINKING)}, got {thinking!r}")
        reasoning = settings.get("reasoning", False)
        if not isinstance(reasoning, bool):
            raise _fail("reasoning", f"expected a bool, got {reasoning!r}")
        stderr = settings.get("stderr")
        if stderr is not None and not callable(stderr):
            raise _fail("stderr", "expected a callable taking one line")
        timeout = settings.get("abort_timeout", 5.0)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout < 0:
            raise _fail("abort_timeout", f"expected seconds >= 0, got {timeout!r}")
        extensions = settings.get("extensions") or ()
        if isinstance(extensions, str | os.PathLike) or not isinstance(extensions, list | tuple):
            raise _fail("extensions", "expected a list of extension file paths")
        paths = []
        for index, item in enumerate(extensions):
            path = _opt_path({"extensions": item}, "extensions", must_exist=True)
            if path is None:
                raise _fail("extensions", f"item {index} is empty")
            paths.append(path.resolve())
        return cls(
            model=model, provider=provider, base_url=base_url, api_key=_opt_str(settings, "api_key"), api=api,
            context_window=_opt_int(settings, "context_window", 128000, 1) or 128000,
            max_tokens=_opt_int(settings, "max_tokens", 4096, 1) or 4096,
            reasoning=reasoning, thinking=thinking,
            mcp_servers=parse_mcp_servers(settings.get("mcp_servers"), where="pi(mcp_servers=...)"),
            pi_path=_opt_path(settings, "pi_path", must_exist=True),
            node_path=_opt_path(settings, "node_path", must_exist=True),
            env=_str_mapping(settings, "env"), cwd=_opt_path(settings, "cwd"),
            extensions=tuple(paths),
            max_retries=_opt_int(settings, "max_retries", None, 0),
            retry_delay_ms=_opt_int(settings, "retry_delay_ms", None, 0),
            keep_recent_tokens=_opt_int(settings, "keep_recent_tokens", None, 0),
            abort_timeout=float(timeout), stderr=stderr,
        )

    @property
    def provider_name(self) -> str | None:
        """The ``--provider`` pi gets: ``provider``, else :data:`DEFAULT_PROVIDER` for ``base_url``."""
        if self.provider is not None:
            return self.provider
        return DEFAULT_PROVIDER if self.base_url is not None else None
