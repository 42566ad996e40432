"""Fixtures of the harness-dbos tests (helpers in dbos_helpers.py)."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dbos_helpers import Workers


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    """A fresh system database: a SQLite file, or a fresh database on the Postgres server
    of ``HARNESS_DBOS_TEST_POSTGRES_URL`` when that is set."""
    return f"sqlite:///{tmp_path / 'system.sqlite'}"


@pytest.fixture
def workflow_id() -> str:
    return f"turn-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def make_workers(tmp_path: Path, database_url: str) -> Iterator[Callable[[str], Workers]]:
    made: list[Workers] = []

    def make(model_url: str) -> Workers:
        workers = Workers(tmp_path, model_url, database_url)
        made.append(workers)
        return workers

    yield make
    for workers in made:
        workers.close()
