"""The scripted adapter's names, as they were importable before the ``scripted`` package.

Everything lives in :mod:`harness_core.testing.scripted` (one module per concept); this
module re-exports the same objects, so ``from harness_core.testing.scripted_adapter import
ScriptedAdapter`` and patches of ``ScriptedTurn`` attributes keep working.
"""

from __future__ import annotations

from harness_core.testing.scripted import *  # noqa: F403  (the same objects, one list of names)
from harness_core.testing.scripted import __all__ as __all__
