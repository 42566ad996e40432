"""Fixtures of the harness-dbos tests (helpers in dbos_helpers.py)."""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from harness_core.testing import runtime_required

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dbos_helpers import Workers

POSTGRES_ENV = "HARNESS_DBOS_TEST_POSTGRES_URL"


@pytest.fixture(params=["sqlite"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh system database: a SQLite file; parametrize with ``"postgres"`` (indirect)
    for a fresh database on the server of ``HARNESS_DBOS_TEST_POSTGRES_URL`` (started by
    ``.ci/postgres``; skipped without it unless CI requires the ``postgres`` runtime)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'system.sqlite'}"
    admin = os.environ.get(POSTGRES_ENV)
    if not admin:
        reason = f"{POSTGRES_ENV} is not set (bash .ci/postgres starts a server and prints its URL)"
        if runtime_required("postgres"):
            pytest.fail(reason)
        pytest.skip(reason)
    name = f"harness_dbos_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return admin.rsplit("/", 1)[0] + "/" + name


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
