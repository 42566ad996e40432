"""Fail-closed check for adapters whose runtime cannot be confined by a session sandbox.

A runtime that runs its own tools in its own process (Codex, pi, an ACP agent) is not
confined by a harness-core sandbox unless its adapter maps the sandbox's policy onto the
runtime's own mechanism. :func:`require_path_sandbox` lets such an adapter refuse, at session
creation, any sandbox that asks for more than path confinement (an OS-level sandbox such as
``harness_sandbox_bwrap.BwrapSandbox``), so it never runs unconfined silently.
"""

from __future__ import annotations

from harness_core.errors import HarnessCapabilityUnsupportedError
from harness_core.sandbox.local import LocalSandbox

__all__ = ["require_path_sandbox"]


def require_path_sandbox(harness_id: str, sandbox: object | None) -> None:
    """Accept ``None`` or a plain :class:`LocalSandbox`; refuse anything else.

    Raises:
        HarnessCapabilityUnsupportedError: ``sandbox`` is another sandbox type (it may declare
            an OS-level policy, such as a network policy, that this runtime would not honour).
    """
    if sandbox is None or type(sandbox) is LocalSandbox:
        return
    policy = getattr(sandbox, "network", None)
    declared = f" (network={policy!r})" if isinstance(policy, str) else ""
    raise HarnessCapabilityUnsupportedError(
        harness_id, f"the {type(sandbox).__name__} sandbox",
        f"its runtime runs its own tools and this adapter cannot map that sandbox's policy{declared} onto it, "
        "so commands would run unconfined; use a LocalSandbox, or the builtin or claude-code harness",
    )
