"""Fixtures to import into a plugin's ``conftest.py`` (not registered automatically).

``from harness_core.testing import anyio_backend`` in a ``conftest.py`` makes every
``@pytest.mark.anyio`` test of that folder run on asyncio only, as the core's own tests do
(anyio's default fixture runs each test once per installed backend, trio included).
"""

from __future__ import annotations

import pytest

__all__ = ["anyio_backend"]


@pytest.fixture
def anyio_backend() -> str:
    """The anyio backend of the tests: ``"asyncio"`` (what every harness runtime uses)."""
    return "asyncio"
