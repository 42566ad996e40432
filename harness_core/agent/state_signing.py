"""HMAC signatures on suspended-turn and stopped-session state (``HarnessAgent(state_secret=...)``).

A signed state carries one extra top-level key::

    "signature": {"alg": "hmac-sha256", "value": "<64 hex digits>"}

The MAC is HMAC-SHA256 (RFC 2104) over the state's canonical JSON without the
``signature`` key: keys sorted, no whitespace (``separators=(",", ":")``), UTF-8, NaN and
Infinity refused. Verification uses a constant-time comparison. A signature proves the state
was produced by an agent holding the same secret and not altered since; it does not stop
the same state from being continued twice (see
:mod:`harness_core.agent.continuation_store` for that) and does not hide its content.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from typing import Any

from harness_core.errors import HarnessConfigurationError, StateIntegrityError

__all__ = ["ALGORITHM", "SIGNATURE_KEY", "StateSigner", "check_signature"]

SIGNATURE_KEY = "signature"
ALGORITHM = "hmac-sha256"
MIN_SECRET_BYTES = 16


def _canonical(state: Mapping[str, Any]) -> bytes:
    body = {k: v for k, v in state.items() if k != SIGNATURE_KEY}
    try:
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StateIntegrityError(f"state is not canonical JSON data ({exc})") from None
    return text.encode("utf-8")


class StateSigner:
    """Signs and verifies continuation state with one secret.

    Args:
        secret: at least 16 bytes (a ``str`` is UTF-8 encoded). Keep it out of the state
            store; rotate it and every stored state signed with the old one is refused.

    Raises:
        HarnessConfigurationError: a secret that is not ``str``/``bytes`` or is shorter than 16 bytes.
    """

    def __init__(self, secret: str | bytes) -> None:
        if isinstance(secret, str):
            secret = secret.encode("utf-8")
        if not isinstance(secret, bytes):
            raise HarnessConfigurationError(f"state_secret must be str or bytes, got {type(secret).__name__}")
        if len(secret) < MIN_SECRET_BYTES:
            raise HarnessConfigurationError(
                f"state_secret must be at least {MIN_SECRET_BYTES} bytes, got {len(secret)}")
        self._secret = secret

    def __repr__(self) -> str:
        return "StateSigner(<secret>)"

    def _mac(self, state: Mapping[str, Any]) -> str:
        return hmac.new(self._secret, _canonical(state), hashlib.sha256).hexdigest()

    def sign(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """``state`` with its ``signature`` (any previous one replaced)."""
        body = {k: v for k, v in state.items() if k != SIGNATURE_KEY}
        return {**body, SIGNATURE_KEY: {"alg": ALGORITHM, "value": self._mac(body)}}

    def verify(self, state: Mapping[str, Any], what: str) -> dict[str, Any]:
        """``state`` without its signature, once the signature matches.

        Raises:
            StateIntegrityError: no signature, an unknown algorithm, or a mismatch (the
                message names ``what``, e.g. ``continue_from``).
        """
        signature = state.get(SIGNATURE_KEY)
        if signature is None:
            raise StateIntegrityError(f"{what}: the state is not signed, but this agent has a state_secret and "
                                      "only accepts state it signed")
        if not isinstance(signature, Mapping) or signature.get("alg") != ALGORITHM \
                or not isinstance(signature.get("value"), str):
            raise StateIntegrityError(f"{what}: malformed signature (expected {{'alg': {ALGORITHM!r}, 'value': hex}})")
        if not hmac.compare_digest(signature["value"], self._mac(state)):
            raise StateIntegrityError(f"{what}: the signature does not match: the state was altered or signed with "
                                      "another state_secret; nothing of it was used")
        return {k: v for k, v in state.items() if k != SIGNATURE_KEY}


def check_signature(data: object, signer: StateSigner | None, what: str) -> object:
    """The state to parse: verified and unsigned with a ``signer``; as given without one.

    ``data`` is a mapping or its JSON text (other shapes are returned for the state parser
    to refuse).

    Raises:
        StateIntegrityError: see :meth:`StateSigner.verify`; also signed state given to an
            agent without a secret (it cannot be checked, so it is refused).
    """
    mapping: object = data
    if isinstance(data, str | bytes):
        try:
            mapping = json.loads(data)
        except ValueError:
            return data
    if not isinstance(mapping, Mapping):
        return data
    if signer is not None:
        return signer.verify(mapping, what)
    if SIGNATURE_KEY in mapping:
        raise StateIntegrityError(f"{what}: the state is signed, but this agent has no state_secret to verify it; "
                                  "pass the same state_secret=")
    return data
