"""``harness worker`` and ``harness sessions list|show``: run and inspect durable turns.

* ``harness worker --app MODULE:ATTR [--database URL]`` imports the application module
  (which builds its :class:`~harness_dbos.DurableAgent` objects), launches DBOS (recovering
  this executor's pending turns) and serves until SIGTERM / Ctrl-C.
* ``harness sessions list`` prints the newest turns (workflow id, DBOS status, session id).
* ``harness sessions show WORKFLOW_ID`` prints a turn's status event and its parts so far
  (``--offset N`` from part N) as JSON lines.
"""

from __future__ import annotations

import importlib
import json
import signal
import sys
import threading
from typing import Any

import anyio
import click

__all__ = ["commands"]


def _load(app: str) -> Any:
    module_name, _, attribute = app.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attribute) if attribute else module


@click.command("worker")
@click.option("--app", "app", required=True, help="MODULE[:ATTR] that builds the DurableAgent(s).")
@click.option("--database", "database", default=None, help="System database URL (default: SQLite file).")
@click.option("--directory", "directory", default=None, help="Folder of the default SQLite file.")
@click.option("--executor-id", "executor_id", default=None, help="DBOS executor id (default: local).")
def worker(app: str, database: str | None, directory: str | None, executor_id: str | None) -> None:
    """Run a durable-turn worker: recover pending turns, then serve until stopped."""
    from .launch import destroy, launch

    try:
        _load(app)
    except (ImportError, AttributeError) as exc:
        raise click.ClickException(f"--app {app!r}: {exc}") from None
    launch(database, directory=directory, executor_id=executor_id)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    click.echo("harness worker: ready", err=True)
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        destroy()


@click.group("sessions")
def sessions() -> None:
    """Inspect durable turns."""


@sessions.command("list")
@click.option("--database", "database", default=None)
@click.option("--directory", "directory", default=None)
@click.option("--limit", "limit", default=50, show_default=True)
def list_turns(database: str | None, directory: str | None, limit: int) -> None:
    """The newest turns: workflow id, DBOS status, session id."""
    from .client import DurableClient

    with DurableClient(database, directory=directory) as client:
        for row in client.turns(limit=limit):
            click.echo(f"{row['workflow_id']}\t{row['status']}\t{row['session_id']}")


@sessions.command("show")
@click.argument("workflow_id")
@click.option("--database", "database", default=None)
@click.option("--directory", "directory", default=None)
@click.option("--offset", "offset", default=0, show_default=True, help="First part index.")
@click.option("--follow/--no-follow", default=False, help="Keep reading until the turn ends.")
def show(workflow_id: str, database: str | None, directory: str | None, offset: int, follow: bool) -> None:
    """A turn's status, then its parts as JSON lines."""
    from .client import DurableClient

    async def main() -> None:
        with DurableClient(database, directory=directory) as client:
            status = await client.status(workflow_id)
            click.echo(json.dumps({"status": status}))
            try:
                async for part in client.parts(workflow_id, offset=offset, timeout=None if follow else 0.5):
                    click.echo(json.dumps(part))
            except Exception as exc:  # the stream timed out: a turn still running without --follow
                if type(exc).__name__ != "DBOSStreamTimeoutError":
                    raise
            sys.stdout.flush()

    anyio.run(main)


def commands() -> list[click.Command]:
    """The commands this plugin adds."""
    return [worker, sessions]
