"""``harness serve``: the chat app with uvicorn, on 127.0.0.1 by default.

``--demo`` serves the offline demo scenario of :mod:`harness_ui.demo` (a throwaway copy of
a small project with a failing test, the scripted model on 127.0.0.1, permission mode ``allow-edits`` so each shell
command asks for an approval in the page). Without it, the harness runs on ``--cwd``
with ``--model`` / ``--base-url`` / ``-o KEY=VALUE`` settings like ``harness run``.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

__all__ = ["serve"]


def _parse_options(options: tuple[str, ...]) -> dict[str, Any]:
    parsed: dict[str, Any] = {}
    for option in options:
        key, sep, value = option.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{option!r} is not KEY=VALUE", param_hint="--option")
        try:
            parsed[key] = json.loads(value)
        except ValueError:
            parsed[key] = value
    return parsed


@contextlib.contextmanager
def _demo(store: Path | None) -> Iterator[tuple[dict[str, Any], Path, Path, str]]:
    """Prepare the demo: ``(harness_options, workspace, store path, prompt)`` while the
    scripted model server runs."""
    from harness_core.testing import ScriptedModelServer

    from .demo import DEMO_PROMPT, demo_responder, prepare_demo_workspace

    workspace, git = prepare_demo_workspace()
    with ScriptedModelServer(demo_responder(workspace, git=git)) as server:
        options: dict[str, Any] = {"base_url": server.base_url, "api_key": "harness-demo",
                                   "model": "anthropic:harness-demo"}
        yield options, workspace, store or workspace.parent / "chats.sqlite", DEMO_PROMPT


@click.command("serve")
@click.option("--harness", "harness", default="builtin", show_default=True, help="The harness (adapter) to serve.")
@click.option("--demo", "demo", is_flag=True, help="Serve the offline demo scenario (scripted model, demo project).")
@click.option("--port", "port", type=click.IntRange(1, 65535), default=8765, show_default=True)
@click.option("--host", "host", default="127.0.0.1", show_default=True,
              help="Interface to bind. Anything but loopback exposes the agent: add authentication first.")
@click.option("--model", "model", default=None, help="provider:model for the harness (as in `harness run`).")
@click.option("--base-url", "base_url", default=None, help="Model endpoint.")
@click.option("--cwd", "cwd", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Workspace directory (default: the current directory).")
@click.option("--permission-mode", "permission_mode", type=click.Choice(["allow-all", "allow-edits", "allow-reads"]),
              default="allow-edits", show_default=True, help="What built-in tools may do without asking.")
@click.option("--store", "store", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="SQLite file for paused turns (default: .harness/chats.sqlite in the workspace).")
@click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE", help="Extra adapter setting.")
def serve(harness: str, demo: bool, port: int, host: str, model: str | None, base_url: str | None,
          cwd: Path | None, permission_mode: str, store: Path | None, options: tuple[str, ...]) -> None:
    """Serve a harness to AI SDK useChat front ends: the chat page at / and POST /api/chat."""
    import uvicorn

    from harness_core import HarnessAgent, HarnessConfigurationError, LocalSandbox

    from .app import create_chat_app
    from .chat import SessionBinding
    from .store import SqliteChatStore

    harness_options = _parse_options(options)
    with contextlib.ExitStack() as stack:
        suggestion = None
        if demo and harness != "builtin":
            # Other runtimes need their home and config kept out of the user's own (as
            # `harness demo` does); until that is public, the demo serves builtin only.
            click.echo(f"harness: error: --demo serves harness 'builtin' only for now, not {harness!r}", err=True)
            sys.exit(2)
        if demo:
            demo_options, workspace, store_path, suggestion = stack.enter_context(_demo(store))
            harness_options = {**demo_options, **harness_options}
        else:
            workspace = (cwd or Path.cwd()).resolve()
            if not workspace.is_dir():
                raise click.BadParameter(f"{str(workspace)!r} is not a directory", param_hint="--cwd")
            store_path = store or workspace / ".harness" / "chats.sqlite"
        if model is not None:
            harness_options["model"] = model
        if base_url is not None:
            harness_options["base_url"] = base_url
        try:
            agent = HarnessAgent(harness=harness, harness_options=harness_options or None,
                                 permission_mode=permission_mode)
        except (HarnessConfigurationError, ValueError, TypeError) as exc:
            click.echo(f"harness: error: {exc}", err=True)
            sys.exit(2)
        sandbox = LocalSandbox(workspace)
        app = create_chat_app(agent, store=SqliteChatStore(store_path),
                              bind=lambda request, chat_id: SessionBinding(sandbox=sandbox),
                              prompt_suggestion=suggestion, title=f"harness chat: {harness}")
        if host not in ("127.0.0.1", "localhost", "::1"):
            click.echo(f"harness serve: warning: binding {host}: anyone who reaches it can run the agent; "
                       "`harness serve` has no authentication", err=True)
        click.echo(f"harness serve: {harness} on {workspace}")
        click.echo(f"  store      {store_path}")
        click.echo(f"  listening  http://{host}:{port}/", nl=True)
        sys.stdout.flush()
        uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="off")
