"""``harness demo``: the main job, offline, on real files.

It copies a small Python project with a failing test into a temporary git repository,
starts a scripted model server on 127.0.0.1, and runs ``harness run`` on it with the real
built-in harness (or ``--harness NAME``) under permission mode ``allow-edits``: the
harness reads the code, runs the tests (a shell command, so an approval), fixes the bug
with ``edit``, shows the diff with ``git_diff`` (harness-tools-git), runs the tests again,
and answers. Only the model is scripted. It prints the workspace path and a summary, and
checks on its own that the tests pass.

``--sandbox NAME`` runs the harness's commands (tests, git) in that sandbox, e.g.
``--sandbox bwrap`` (harness-sandbox-bwrap: bubblewrap, no network); default ``local``.

Approvals: ``--yes`` approves every request. Without it, a terminal gets the usual prompt
(approve, deny, always for this tool); without a terminal (CI, pipes) the demo approves
automatically and says so: it is scripted and works in a throwaway copy.

Exit status: 0 when the turn finished and the project's tests pass afterwards, else 1
(or ``harness run``'s own status: 2 configuration, 130 interrupted). An unknown
``--harness`` fails at once (exit 2, ``harness: error: ...`` listing the installed ones),
before any workspace, banner or model server. After Ctrl-C the summary says the run was
aborted and claims only what really happened (the edit only when an ``edit`` call
succeeded), from the outcome ``harness run`` leaves in ``ctx.meta["harness.run"]``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from rich.text import Text

# rich and the scenario load when the demo runs: `harness` collects this command at plugin
# discovery, and `harness plugins` must not pay for them.

__all__ = ["demo"]


def _stdin_is_tty() -> bool:
    return sys.stdin.isatty()


def _run_command(ctx: click.Context) -> click.Command:
    root = ctx.find_root()
    command = root.command.get_command(root, "run") if isinstance(root.command, click.Group) else None
    if command is None:
        from harness_core.cli import cli

        command = cli.get_command(root, "run")
    if command is None:  # pragma: no cover - harness-core always has run
        raise click.ClickException("this harness-core has no `harness run` command")
    return command


def _check_harness(ctx: click.Context, harness: str) -> None:
    """Fail before doing anything when no installed plugin provides ``harness``."""
    from harness_core import HarnessConfigurationError, get_plugin_manager

    try:
        get_plugin_manager().hooks.adapter_factory(harness)
    except HarnessConfigurationError as exc:
        click.echo(f"harness: error: {exc}", err=True)
        ctx.exit(2)


def _summary(outcome: dict[str, Any], code: int, passed: bool, report: str, workspace: Any) -> Text:
    """The closing summary: only what the run's outcome shows really happened."""
    from rich.text import Text

    aborted = code == 130 or bool(outcome.get("aborted"))
    summary = Text("\nsummary\n", style="bold")
    if aborted:
        summary.append("  run            aborted (Ctrl-C): the turn was stopped before it finished\n", style="yellow")
    summary.append(f"  tool calls     {outcome.get('builtin_calls', 0)} built-in, {outcome.get('host_calls', 0)} host\n")
    summary.append(f"  approvals      {outcome.get('approvals', 0)} approved, {outcome.get('denials', 0)} denied\n")
    changes = outcome.get("file_changes", [])
    listed = ", ".join(f"{c.get('kind')} {c.get('path')}" for c in changes) or "none reported"
    succeeded = {str(name).lower(): count for name, count in dict(outcome.get("succeeded_tools", {})).items()}
    edited = "calc/stats.py edited with edit" if succeeded.get("edit") else "calc/stats.py not edited"
    summary.append(f"  file changes   {listed} (by bash); {edited}\n")
    verdict = "pass" if passed else "FAIL"
    summary.append(f"  tests now      {verdict} ({workspace.python} -m unittest: {report})\n",
                   style="green" if passed else "red")
    summary.append(f"  workspace      {workspace.path}  (look around: cd there and run git diff)\n")
    return summary


def _runtime_home_options(harness: str, workspace: Path) -> tuple[str, ...]:
    """Keep a runtime's home and config out of the user's own: a scripted demo must not
    write transcripts or settings into ``~/.claude``."""
    home = workspace.parent / "runtime-home"
    if harness == "acp":  # the ACP agent (codex-acp, pi-acp) writes its config under this home
        home.mkdir(parents=True, exist_ok=True)
        return (f"home={home}",)
    if harness == "codex":
        (home / ".codex").mkdir(parents=True, exist_ok=True)
        return (f"home={home}", f"codex_home={home / '.codex'}")
    if harness != "claude-code":
        return ()
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    return (f"home={home}", f"config_dir={home / '.claude'}")


@click.command("demo")
@click.option("--harness", "harness", default="builtin", show_default=True,
              help="Run the scenario through this harness (e.g. claude-code once installed).")
@click.option("--yes", "-y", "yes", is_flag=True, help="Approve every request without asking.")
@click.option("--workspace-dir", "parent", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Create the demo workspace under this directory (default: the system temp directory).")
@click.option("--json", "as_json", is_flag=True, help="Write the stream parts as NDJSON on stdout.")
@click.option("--option", "-o", "extra", multiple=True, metavar="KEY=VALUE",
              help="A harness option, passed on to `harness run` (e.g. -o agent=pi-acp for --harness acp).")
@click.option("--sandbox", "sandbox", default="local", show_default=True,
              help="Run the harness's commands in this sandbox (e.g. bwrap, from harness-sandbox-bwrap).")
@click.pass_context
def demo(ctx: click.Context, harness: str, yes: bool, parent: Path | None, as_json: bool,
         extra: tuple[str, ...] = (), sandbox: str = "local") -> None:
    """Watch a harness fix a failing test, offline: real files, real tools, scripted model."""
    from rich.console import Console
    from rich.text import Text

    from harness_core.testing import ScriptedModelServer

    from .scenario import DEMO_PROMPT, demo_script, prepare_workspace, run_project_tests

    _check_harness(ctx, harness)
    console = Console(file=sys.stderr if as_json else sys.stdout, highlight=False, soft_wrap=True)
    if parent is not None:
        parent.mkdir(parents=True, exist_ok=True)
    workspace = prepare_workspace(parent)
    interactive = _stdin_is_tty() and not yes
    approve = "ask" if interactive else "allow"
    with ScriptedModelServer(demo_script(workspace)) as server:
        header = Text("harness demo", style="bold")
        header.append(": a harness fixes a failing test, offline\n", style="bold")
        header.append(f"  workspace  {workspace.path}", style="")
        header.append("  (a git repository)\n" if workspace.git else "  (git not found: no git_diff step)\n", style="dim")
        header.append(f"  harness    {harness}, permission mode allow-edits: shell commands need an approval\n")
        header.append(f"  sandbox    {sandbox}\n")
        header.append(f"  model      scripted model server at {server.base_url} (no network, no API key)\n")
        if yes:
            header.append("  approvals  approved by --yes\n")
        elif not interactive:
            header.append("  approvals  approved automatically: no terminal to ask on, and the demo is scripted "
                          "and runs in a throwaway copy\n", style="yellow")
        else:
            header.append("  approvals  you decide: y(es), n(o), a(lways for this tool)\n")
        header.append(f"\nprompt: {DEMO_PROMPT}\n", style="italic")
        console.print(header)
        # pi serves any model from an OpenAI-compatible endpoint it is given (with /v1); Codex
        # speaks the Responses API there, with a model it knows (so it offers apply_patch).
        openai_style = harness in ("pi", "codex")
        options: dict[str, Any] = {
            "prompt": DEMO_PROMPT,
            "harness": harness,
            "model": {"builtin": "anthropic:harness-demo", "codex": "gpt-5.5"}.get(
                harness, "harness-demo" if openai_style else None),
            "base_url": server.openai_base_url if openai_style else server.base_url,
            "cwd": workspace.path,
            "permission_mode": "allow-edits",
            "approve": approve,
            "as_json": as_json,
            "sandbox_name": sandbox,
            "options": ("api_key=harness-demo", *_runtime_home_options(harness, workspace.path), *extra),
        }
        code = 0
        try:
            ctx.invoke(_run_command(ctx), **options)
        except click.exceptions.Exit as exit_:
            code = exit_.exit_code
    outcome: dict[str, Any] = ctx.meta.get("harness.run", {})
    if code == 2:
        ctx.exit(2)
    passed, report = run_project_tests(workspace)
    console.print(_summary(outcome, code, passed, report, workspace))
    ctx.exit(0 if passed and code == 0 else (code or 1))
