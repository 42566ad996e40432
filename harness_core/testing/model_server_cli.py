"""``harness model-server``: run a scripted model server from the command line."""

from __future__ import annotations

import threading
from pathlib import Path

import click

from harness_core.testing._errors import ScriptError
from harness_core.testing._recording import RecordedRequest
from harness_core.testing._request import WireFormat
from harness_core.testing._script import Script
from harness_core.testing._server import ScriptedModelServer

__all__ = ["model_server"]

_FORMATS: dict[str, tuple[WireFormat, ...] | None] = {
    "any": None,
    "anthropic": ("anthropic",),
    "chat": ("chat",),
    "responses": ("responses",),
}


def _print_request(record: RecordedRequest) -> None:
    turn = f" turn={record.parsed.turn_index}" if record.parsed is not None else ""
    source = f" answer={record.source}" if record.source else ""
    error = f" error={record.error}" if record.error else ""
    click.echo(f"{record.method} {record.path} -> {record.status}{turn}{source}{error}", err=True)


@click.command(name="model-server")
@click.option(
    "--script",
    "script_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="YAML or JSON script file; without it every request gets the final text.",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="Port (0 picks a free one).",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option(
    "--format",
    "wire_format",
    type=click.Choice(sorted(_FORMATS)),
    default="any",
    show_default=True,
    help="Serve only this wire format; the printed base URL suits it (OpenAI ones end in /v1).",
)
@click.option("--quiet", is_flag=True, help="Do not log requests to stderr.")
def model_server(
    script_path: Path | None, port: int, host: str, wire_format: str, quiet: bool
) -> None:
    """Serve a scripted model on HOST:PORT, print its base URL, and run until Ctrl-C."""
    try:
        server = ScriptedModelServer(
            script_path if script_path is not None else Script(),
            host=host,
            port=port,
            formats=_FORMATS[wire_format],
            on_request=None if quiet else _print_request,
        )
    except ScriptError as error:
        raise click.ClickException(str(error)) from None
    with server:
        url = server.openai_base_url if wire_format in ("chat", "responses") else server.base_url
        click.echo(url)
        click.echo(
            f"scripted model server: {len(server.script.turns)} turns; "
            f"Anthropic base URL {server.base_url}, OpenAI base URL {server.openai_base_url}; "
            "Ctrl-C stops it",
            err=True,
        )
        try:
            # Wake up now and then: a SIGINT delivered to a server thread only runs its
            # handler once the main thread executes again, and an untimed wait never does.
            never = threading.Event()
            while not never.wait(0.2):
                pass
        except KeyboardInterrupt:
            click.echo("scripted model server: stopped", err=True)
