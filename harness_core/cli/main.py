"""The ``harness`` command line.

Core subcommands live in their own modules, imported only when used (:data:`CORE_COMMANDS`); plugins add theirs through the
``harness_cli_commands`` hook. Runtime errors print one line to stderr,
``harness: error: <message>`` (no traceback unless ``--debug``), and exit with status 1
(or the status the command chose: ``harness run`` uses 2 for configuration errors); this
covers a :class:`~harness_core.errors.HarnessError` and a ``click.ClickException`` raised by
any subcommand, core or plugin. Usage errors keep click's ``Usage: ... Error: ...`` form
and exit with 2 (click's convention).
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from harness_core.errors import HarnessError

__all__ = ["CORE_COMMANDS", "PLUGIN_COMMANDS", "cli", "main"]

CORE_COMMANDS: dict[str, tuple[str, str]] = {
    "plugins": ("harness_core.cli.plugins_command", "plugins_command"),
    "tools": ("harness_core.cli.plugins_command", "tools_command"),
    "run": ("harness_core.cli.run_command", "run_command"),
    "model-server": ("harness_core.testing.model_server_cli", "model_server"),
}
"""Core subcommand name -> (module, attribute), imported only when the command is used."""

PLUGIN_COMMANDS: dict[str, str] = {"demo": "harness-builtin", "serve": "harness-ui"}
"""Subcommands that first-party plugins add -> the distribution that adds them. When one is
asked for and no installed plugin provides it, ``harness`` says which distribution to install
instead of click's bare "No such command"."""


def _missing_plugin_command(name: str, distribution: str) -> click.Command:
    """A stand-in for ``harness <name>`` when ``distribution`` is not installed: it exits 1
    with one line naming the distribution to install."""

    @click.command(
        name,
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
        help=f"(not installed: pip install {distribution})",
    )
    def missing() -> None:
        raise click.ClickException(
            f"`harness {name}` is provided by the {distribution} plugin, which is not installed "
            f"(or failed to load: see `harness plugins`); install it with `pip install {distribution}`"
        )

    return missing


class HarnessGroup(click.Group):
    """A click group that adds core and plugin subcommands lazily and reports errors cleanly."""

    def _core_command(self, name: str) -> click.Command | None:
        """The core subcommand ``name``, importing only its module (start-up stays small)."""
        where = CORE_COMMANDS.get(name)
        if where is None:
            return None
        try:
            module = importlib.import_module(where[0])
        except ImportError:  # pragma: no cover - an optional part (testing) missing
            return None
        command: click.Command = getattr(module, where[1])
        return command

    def _core_commands(self) -> dict[str, click.Command]:
        found = {name: self._core_command(name) for name in CORE_COMMANDS}
        return {name: command for name, command in found.items() if command is not None}

    def _all_commands(self, ctx: click.Context) -> dict[str, click.Command]:
        cache: dict[str, click.Command] | None = ctx.meta.get("harness.commands")
        if cache is not None:
            return cache
        commands = dict(self.commands)
        commands.update(self._core_commands())
        from harness_core.plugins.manager import get_plugin_manager

        for plugin, command in get_plugin_manager().hooks.cli_commands():
            name = command.name or plugin
            if name in commands:
                click.echo(
                    f"harness: plugin {plugin!r} adds command {name!r}, which already exists; skipped",
                    err=True,
                )
                continue
            commands[name] = command
        ctx.meta["harness.commands"] = commands
        return commands

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self._all_commands(ctx))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        # Core commands resolve without discovering plugins, so `harness plugins` can
        # capture discovery warnings itself and show failures in its listing.
        core = self._core_command(cmd_name)
        if core is not None:
            return core
        found = self._all_commands(ctx).get(cmd_name)
        if found is None and cmd_name in PLUGIN_COMMANDS:
            return _missing_plugin_command(cmd_name, PLUGIN_COMMANDS[cmd_name])
        return found

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.UsageError, click.Abort):
            raise
        except click.ClickException as exc:
            # A subcommand's runtime error (core or plugin): the same one-line style as ours.
            click.echo(f"harness: error: {exc.format_message()}", err=True)
            ctx.exit(exc.exit_code)
        except HarnessError as exc:
            if ctx.meta.get("harness.debug") or ctx.params.get("debug"):
                raise
            click.echo(f"harness: error: {exc}", err=True)
            ctx.exit(1)
        except KeyboardInterrupt:
            click.echo("harness: interrupted", err=True)
            ctx.exit(130)


@click.group(cls=HarnessGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="harness-agent-core", prog_name="harness")
@click.option("--debug", is_flag=True, help="Show full tracebacks on errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Program coding-agent harnesses through one API: list plugins and tools, run turns,
    run the offline demo."""
    ctx.meta["harness.debug"] = debug


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: ``harness``."""
    try:
        cli.main(args=argv, prog_name="harness", standalone_mode=True)
    except HarnessError as exc:  # raised while resolving a subcommand
        if "--debug" in (sys.argv[1:] if argv is None else argv):
            raise
        click.echo(f"harness: error: {exc}", err=True)
        sys.exit(1)


if __name__ == "__main__":  # pragma: no cover
    main()
