"""``harness plugins`` and ``harness tools``: what is installed, as a table or as JSON.

Both commands read the process-wide plugin manager. Plugins that failed to load are not
errors here: they appear in the listing with their error (the warnings discovery emits
about them are captured, so they do not clutter the output). ``--json`` prints one JSON
document on stdout::

    harness plugins --json  ->  {"plugins": [PluginRecord.to_json() + {"problems": [str]}, ...],
                                 "conflicts": [PluginConflict.to_json(), ...]}
    harness tools --json    ->  {"tools": [{"name", "description", "pack", "distribution",
                                            "version", "read_only", "input_schema"}, ...]}

``harness plugins`` reports conflicts (a tool name or harness id several plugins
contribute) without failing: each plugin involved lists them under ``problems`` and the
table shows them in red. ``harness tools`` cannot list a tool two packs contribute, so it
fails on a conflict.

Both print every failed plugin on stderr, one line each (``harness: plugin 'name'
(dist version) failed: <error>``), after the listing, and then exit with status 1: a tool
pack that failed to load (or whose ``harness_tools`` raised now) is missing from the
listing, and a failed policy makes agents refuse to start.

Exit status: 0 on success, 1 when a plugin failed or on an error (one line on stderr, e.g.
``harness tools`` with a tool name two packs both contribute), 2 on a usage error.
"""

from __future__ import annotations

import json
import warnings
from typing import TYPE_CHECKING, Any

import click

from harness_core.plugins.manager import (
    HarnessPluginManager,
    PluginConflict,
    PluginLoadWarning,
    PluginRecord,
    get_plugin_manager,
)

if TYPE_CHECKING:
    from rich.console import Console

# rich is imported where a table is printed: ``--json`` never loads it (start-up, issue 17).

__all__ = ["COMMANDS", "plugins_command", "tools_command"]

_STATUS_STYLE = {"loaded": "green", "failed": "bold red", "disabled": "yellow"}


def _report_failures(manager: HarnessPluginManager) -> None:
    """Print every failed plugin on stderr and exit with status 1 if there is one."""
    failed = [record for record in manager.records() if record.status == "failed"]
    for record in failed:
        click.echo(f"harness: plugin {record.label} failed: {record.error}", err=True)
    if failed:
        raise SystemExit(1)


def _manager() -> HarnessPluginManager:
    # Failures are shown in the listing itself; the warning would only repeat them.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PluginLoadWarning)
        return get_plugin_manager()


def _console() -> Console:
    # Columns use overflow="fold": long values wrap inside their cell and are never cut.
    from rich.console import Console

    return Console(highlight=False)


def _dist_label(record: PluginRecord | None) -> str:
    if record is None or record.distribution is None:
        return "-"
    return " ".join(part for part in (record.distribution, record.version) if part)


def _echo_json(document: dict[str, Any]) -> None:
    click.echo(json.dumps(document, indent=2, ensure_ascii=False))


def _problems_by_plugin(conflicts: list[PluginConflict]) -> dict[str, list[str]]:
    """Each plugin's conflicts as messages, keyed by plugin name."""
    problems: dict[str, list[str]] = {}
    for conflict in conflicts:
        for plugin in dict.fromkeys(conflict.plugins):
            problems.setdefault(plugin, []).append(conflict.message)
    return problems


def _status_text(record: PluginRecord, problems: dict[str, list[str]]) -> str:
    """The Status cell: the status, then the error and each conflict on lines of their own."""
    lines = [record.status, *([record.error] if record.error else [])]
    lines += [f"conflict: {problem}" for problem in problems.get(record.name, [])]
    return "\n".join(lines)


def _print_plain(records: list[PluginRecord], problems: dict[str, list[str]], conflicts: list[PluginConflict],
                 summary: str) -> bool:
    """Print the listing without rich when stdout is not a terminal and the plain renderer
    draws exactly what rich would (:mod:`harness_core.cli.plain_table`); False otherwise."""
    from harness_core.cli.plain_table import console_width, render_plain_table

    width = console_width()
    if width is None:
        return False
    rows = [[record.name, _dist_label(record), record.kind,
             "\n".join(hook.removeprefix("harness_") for hook in record.hooks) or "-", _status_text(record, problems)]
            for record in records]
    text = render_plain_table(
        "harness plugins", ["Name", "Distribution", "Kind", "Hooks (harness_*)", "Status"], rows, width,
        markup_free=[False, False, False, False, True], ellipsis=[False, False, True, False, False],
        after=[*(f"conflict: {conflict.message}" for conflict in conflicts), summary],
    )
    if text is None:
        return False
    click.echo(text, nl=False)
    return True


@click.command("plugins")
@click.option("--json", "as_json", is_flag=True, help="Print the listing as JSON.")
@click.option("--capabilities", "show_capabilities", is_flag=True,
              help="Show what each installed adapter supports (structured output, plan mode...).")
def plugins_command(as_json: bool, show_capabilities: bool = False) -> None:
    """List every plugin: name, distribution and version, kind, hooks, status.

    Plugins that failed to load are listed with their error; disabled ones
    (HARNESS_DISABLE_PLUGINS) are listed as disabled. Conflicts (a tool name or harness
    id two plugins contribute, which makes agents refuse to start) are shown in red on
    each plugin involved and after the table; they do not change the exit status. Every
    failed plugin is also named on stderr, and the exit status is then 1. With
    --capabilities, each adapter's capability table instead.
    """
    manager = _manager()
    if show_capabilities:
        from harness_core.cli.capabilities_view import capability_report, print_capabilities

        report = capability_report(manager)
        if as_json:
            _echo_json({"capabilities": report})
        else:
            print_capabilities(_console(), report)
        _report_failures(manager)
        return
    records = manager.records()
    conflicts = manager.hooks.conflicts()
    problems = _problems_by_plugin(conflicts)
    if as_json:
        _echo_json({
            "plugins": [record.to_json() | {"problems": problems.get(record.name, [])} for record in records],
            "conflicts": [conflict.to_json() for conflict in conflicts],
        })
        _report_failures(manager)
        return
    failed = sum(1 for record in records if record.status == "failed")
    summary = f"{len(records)} plugin(s), {failed} failed"
    if conflicts:
        summary += f", {len(conflicts)} conflict(s)"
    if _print_plain(records, problems, conflicts, summary):
        _report_failures(manager)
        return
    from rich.table import Table
    from rich.text import Text

    table = Table(title="harness plugins", title_justify="left", expand=False)
    table.add_column("Name", style="bold", overflow="fold")
    table.add_column("Distribution", overflow="fold")
    table.add_column("Kind")
    table.add_column("Hooks (harness_*)", overflow="fold")
    table.add_column("Status", overflow="fold")
    for record in records:
        status = Text(record.status, style=_STATUS_STYLE.get(record.status, ""))
        if record.error:
            status.append(f"\n{record.error}", style="red")
        for problem in problems.get(record.name, []):
            status.append(f"\nconflict: {problem}", style="bold red")
        hooks = "\n".join(hook.removeprefix("harness_") for hook in record.hooks) or "-"
        table.add_row(record.name, _dist_label(record), record.kind, hooks, status)
    console = _console()
    console.print(table)
    for conflict in conflicts:
        console.print(Text(f"conflict: {conflict.message}", style="bold red"))
    console.print(summary, style="red" if failed or conflicts else None)
    _report_failures(manager)


@click.command("tools")
@click.option("--json", "as_json", is_flag=True, help="Print the listing as JSON.")
def tools_command(as_json: bool) -> None:
    """List the host tools every tool pack contributes: name, pack, read-only flag and
    input schema.

    Fails (exit status 1) when two packs contribute the same tool name, or when a
    plugin failed (each is named on stderr).
    """
    manager = _manager()
    with warnings.catch_warnings():
        # A pack whose harness_tools fails now is marked failed and reported below.
        warnings.simplefilter("ignore", PluginLoadWarning)
        tools = manager.hooks.tools()
    rows: list[dict[str, Any]] = []
    for name in sorted(tools):
        pack, tool = tools[name]
        record = manager.record(pack)
        rows.append(
            {
                "name": name,
                "description": tool.description,
                "pack": pack,
                "distribution": record.distribution if record else None,
                "version": record.version if record else None,
                "read_only": tool.read_only,
                "input_schema": tool.json_schema,
            }
        )
    if as_json:
        _echo_json({"tools": rows})
        _report_failures(manager)
        return
    console = _console()
    if not rows:
        console.print("No host tools installed (tool packs contribute them through harness_tools).")
        _report_failures(manager)
        return
    from rich.table import Table

    table = Table(title="harness tools", title_justify="left", expand=False)
    table.add_column("Name", style="bold", overflow="fold")
    table.add_column("Pack", overflow="fold")
    table.add_column("Read-only")
    table.add_column("Input (* required)", overflow="fold")
    for row in rows:
        record = manager.record(row["pack"])
        pack = row["pack"] if record is None or record.distribution is None else f"{row['pack']}\n({_dist_label(record)})"
        table.add_row(row["name"], pack, "yes" if row["read_only"] else "no", _summarize_input(row["input_schema"]))
    console.print(table)
    console.print("Full input schemas: harness tools --json")
    _report_failures(manager)


def _type_label(schema: Any) -> str:
    """A short type for one property schema: ``string``, ``array<integer>``, ``"a"|"b"``..."""
    if not isinstance(schema, dict):
        return "any"
    if "enum" in schema:
        return "|".join(json.dumps(value) for value in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"])
    for union in ("anyOf", "oneOf"):
        if isinstance(schema.get(union), list):
            return "|".join(_type_label(option) for option in schema[union])
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        return "|".join(str(k) for k in kind)
    if kind == "array":
        return f"array<{_type_label(schema.get('items'))}>"
    if "minimum" in schema or "maximum" in schema:
        return f"{kind} ({schema.get('minimum', '')}..{schema.get('maximum', '')})"
    return str(kind)


def _summarize_input(schema: dict[str, Any]) -> str:
    """One line per top-level property: ``name*: type`` (``*`` marks required ones)."""
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    lines = [f"{name}{'*' if name in required else ''}: {_type_label(prop)}" for name, prop in properties.items()]
    return "\n".join(lines) or "(no arguments)"


COMMANDS: dict[str, click.Command] = {"plugins": plugins_command, "tools": tools_command}
"""Core subcommands this module adds to ``harness`` (wired in :mod:`harness_core.cli.main`)."""
