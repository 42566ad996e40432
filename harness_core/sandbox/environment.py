"""The environment a sandboxed command gets: which host variables pass, which never do."""

from __future__ import annotations

import fnmatch
from typing import Final

__all__ = ["DEFAULT_ENV_ALLOWLIST", "SECRET_ENV_PATTERNS", "is_secret_env_name"]

DEFAULT_ENV_ALLOWLIST: Final[tuple[str, ...]] = (
    "PATH",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "TZ",
    "USER",
    "LOGNAME",
    "SHELL",
    "TMPDIR",
    "VIRTUAL_ENV",
    "SYSTEMROOT",
    "COMSPEC",
    "PATHEXT",
)
"""Host environment variables a :class:`~harness_core.sandbox.LocalSandbox` passes to
commands by default.

Everything else of the host environment is left out; ``HOME`` is replaced (see
:class:`~harness_core.sandbox.LocalSandbox`)."""

SECRET_ENV_PATTERNS: Final[tuple[str, ...]] = (
    "*_API_KEY",
    "*_APIKEY",
    "*_TOKEN",
    "*_TOKEN_*",
    "*SECRET*",
    "*PASSWORD*",
    "*PASSWD*",
    "*CREDENTIAL*",
    "*_PRIVATE_KEY",
    "*_ACCESS_KEY*",
    "AWS_*",
    "AZURE_*",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GH_*",
    "GITHUB_*",
    "SSH_AUTH_SOCK",
    "NPM_CONFIG__AUTH*",
)
"""Name patterns (``fnmatch``, case-insensitive) never inherited from the host, even when
allowlisted: API keys, tokens, secrets, passwords, cloud credentials, the SSH agent."""


def is_secret_env_name(name: str) -> bool:
    """True when ``name`` matches one of :data:`SECRET_ENV_PATTERNS` (case-insensitive)."""
    upper = name.upper()
    return any(fnmatch.fnmatchcase(upper, pattern) for pattern in SECRET_ENV_PATTERNS)
