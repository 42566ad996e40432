"""``harness rules``: check a call against the rules, list the rules in force.

* ``harness rules check TOOL INPUT_JSON [--rules FILE ...] [--cwd DIR] [--harness ID]
  [--mode MODE] [--json]`` prints the decision (``allow``, ``ask``, ``deny`` or ``none``),
  the deciding rule with its file and line, and the reason. ``--rules`` uses only the given
  files; otherwise the user, project and local files of ``--cwd`` (default: the current
  directory) are used. ``--harness`` takes the built-in declarations (and their resource
  extractors) of that harness's adapter; without it common and native built-in names use
  the baseline extractors, and other names are looked up among the installed host tools.
  ``--mode`` also prints the merged decision of every installed policy under that
  permission mode.
* ``harness rules list [--rules FILE ...] [--cwd DIR] [--json]`` shows the rules in force,
  layer by layer, with their lines.

INPUT_JSON must be a JSON object; it is checked against the tool's input schema (a
``--harness`` built-in's declared schema, an installed host tool's schema, or the shapes the
baseline extractors read: ``bash`` needs ``command``, ``read``/``write``/``edit`` a path,
``grep``/``glob`` a ``pattern``), so a misspelt key is reported instead of judged as a call
touching nothing.

Exit status: 0 whatever the decision; 1 for a runtime error (an invalid rules file, whose
message gives ``file:line``; a missing ``--rules`` file), printed as ``harness: error:
MESSAGE`` like the core command line's errors; 2 for usage errors in click's format (bad
JSON, an input that is not an object or that the tool's schema rejects, an unknown option,
mode or harness).
"""

from __future__ import annotations

import difflib
import json
import os
import sys
from pathlib import Path
from typing import IO, Any

import click

from harness_core import (
    ApprovalContext,
    BuiltinTool,
    HarnessError,
    HarnessTool,
    PermissionMode,
    ToolCall,
    ToolInputError,
    ToolResources,
)

from ._engine import RuleVerdict
from ._errors import RulesError
from ._extract import BASELINE_BUILTINS, baseline_resources
from ._inputs import input_problem
from ._names import COMMON_NAMES, NATIVE_ALIASES, canonical_tool
from ._policy import RulesPolicy
from ._syntax import Rule

__all__ = ["CommandFailed", "rules"]


@click.group(name="rules")
def rules() -> None:
    """Check calls against permission rules and list the rules in force."""


class CommandFailed(click.ClickException):
    """A runtime error of ``harness rules``: printed as ``harness: error: MESSAGE`` on
    standard error (the core command line's style), exit status 1."""

    def show(self, file: IO[Any] | None = None) -> None:
        """Print ``harness: error: MESSAGE`` to standard error."""
        click.echo(f"harness: error: {self.format_message()}", err=True)


def _policy(rules_files: tuple[str, ...], cwd: str | None) -> RulesPolicy:
    try:
        if rules_files:
            return RulesPolicy(files=list(rules_files), cwd=cwd)
        return RulesPolicy(discover=True, cwd=cwd)
    except RulesError as exc:
        raise CommandFailed(str(exc)) from None


def _parse_input(text: str) -> dict[str, Any]:
    """INPUT_JSON (``-``: standard input) as a JSON object.

    Raises:
        click.BadParameter: not JSON, or JSON that is not an object (exit status 2).
    """
    if text == "-":
        text = sys.stdin.read()
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"not valid JSON: {exc}", param_hint="INPUT_JSON") from None
    if not isinstance(value, dict):
        kind = {str: "string", list: "array", bool: "boolean", int: "number", float: "number"}.get(
            type(value), "null")
        raise click.BadParameter(
            f"must be a JSON object holding the call's arguments, such as '{{\"command\": \"git status\"}}', "
            f"not a JSON {kind} ({_clip(text)})",
            param_hint="INPUT_JSON",
        )
    return value


def _clip(text: str, limit: int = 60) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _bad_input(problem: str) -> click.BadParameter:
    return click.BadParameter(problem, param_hint="INPUT_JSON")


def _resolve(tool: str, tool_input: dict[str, Any], harness_id: str | None,
             ) -> tuple[ToolCall, HarnessTool | BuiltinTool | None, ToolResources | None]:
    """The call, the tool it names and the resources it touches.

    Raises:
        click.BadParameter: an unknown harness, or an input the tool's schema rejects.
    """
    if harness_id is not None:
        from harness_core import get_plugin_manager

        manager = get_plugin_manager()
        declared = manager.hooks.builtins(harness_id)
        if not declared and harness_id not in manager.hooks.adapters():
            raise click.BadParameter(f"no installed adapter provides harness {harness_id!r}", param_hint="--harness")
        for builtin in declared:
            if tool in (builtin.name, builtin.native_name):
                return _builtin_call(builtin, tool_input, tool, harness_id)
    if tool in COMMON_NAMES or tool in NATIVE_ALIASES:
        problem = input_problem(tool, tool_input)
        if problem is not None:
            raise _bad_input(problem)
        canonical = canonical_tool(tool)
        baseline = next(b for b in BASELINE_BUILTINS if b.name == canonical)
        call = ToolCall(tool_call_id="check", tool_name=canonical, input=tool_input, provider_executed=True,
                        native_tool_name=tool if tool != canonical else None)
        return call, baseline, baseline_resources([tool], tool_input)
    from harness_core import get_plugin_manager

    host = get_plugin_manager().hooks.tools().get(tool)
    if host is not None:
        host_tool = host[1]
        try:
            validated = host_tool.validate(tool_input)
        except ToolInputError as exc:
            raise _bad_input(str(exc)) from None
        call = ToolCall(tool_call_id="check", tool_name=tool, input=validated)
        return call, host_tool, host_tool.resources_for(validated)
    return ToolCall(tool_call_id="check", tool_name=tool, input=tool_input), None, None


def _builtin_call(builtin: BuiltinTool, tool_input: dict[str, Any], called_as: str, harness_id: str,
                  ) -> tuple[ToolCall, BuiltinTool, ToolResources | None]:
    problem = input_problem(called_as, tool_input, builtin.input_schema)
    if problem is not None:
        raise _bad_input(problem)
    native = builtin.native_name if builtin.native_name != builtin.name else None
    call = ToolCall(tool_call_id="check", tool_name=builtin.name, input=tool_input, provider_executed=True,
                    native_tool_name=native)
    try:
        resources = builtin.resources_for(tool_input)
    except Exception as exc:  # the adapter's extractor, on an input its schema accepts
        raise CommandFailed(
            f"harness {harness_id!r} cannot tell what its {called_as!r} built-in touches for this input (its "
            f"resources extractor raised {type(exc).__name__}: {exc}); the call cannot be judged"
        ) from None
    return call, builtin, resources


def _where(verdict: RuleVerdict) -> str:
    if verdict.rule is None:
        return "-"
    origin = verdict.rule.origin
    location = f"{origin.source}:{origin.line}" if origin.line is not None else origin.source
    return f"{location} ({origin.layer} layer)"


@rules.command("check")
@click.argument("tool")
@click.argument("input_json")
@click.option("--rules", "rules_files", multiple=True, type=click.Path(dir_okay=False),
              help="Use only this rules file (repeatable).")
@click.option("--cwd", type=click.Path(file_okay=False, exists=True), default=None,
              help="Workspace root: relative paths and project files resolve here (default: .).")
@click.option("--harness", "harness_id", default=None,
              help="Use this harness's built-in declarations and resource extractors.")
@click.option("--mode", type=click.Choice([m.value for m in PermissionMode]), default=None,
              help="Also show the merged decision of every installed policy under this permission mode.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object.")
def check(tool: str, input_json: str, rules_files: tuple[str, ...], cwd: str | None, harness_id: str | None,
          mode: str | None, as_json: bool) -> None:
    """Decide a call of TOOL with INPUT_JSON and say which rule decided it.

    TOOL is a built-in name (common or native: read, Bash, exec_command...), a host tool
    or an MCP tool name. INPUT_JSON is the call's input as JSON; - reads it from standard
    input. The decision is allow, ask, deny or none (no rule has an opinion).

    \b
    Example:
      harness rules check bash '{"command": "git status && rm -rf build"}'
    """
    tool_input = _parse_input(input_json)
    policy = _policy(rules_files, cwd)
    root = policy.workspace_root()
    try:
        call, declared, resources = _resolve(tool, tool_input, harness_id)
        context = ApprovalContext(harness_id=harness_id or "rules-check", tool=declared, resources=resources,
                                  workspace_root=root)
        verdict = policy.evaluate(call, context)
        merged = _merged(policy, call, context, mode) if mode is not None else None
    except HarnessError as exc:
        raise CommandFailed(str(exc)) from None
    if as_json:
        out = verdict.to_json()
        if merged is not None:
            out["merged"] = merged
        click.echo(json.dumps(out, indent=2))
        return
    rule = verdict.rule.text if verdict.rule is not None else "-"
    click.echo(f"decision: {verdict.decision}")
    click.echo(f"rule:     {rule}")
    click.echo(f"source:   {_where(verdict)}")
    click.echo(f"reason:   {verdict.reason}")
    if merged is not None:
        click.echo(f"merged:   {merged['status']} under {mode} (plugin {merged['plugin'] or '-'}): {merged['reason']}")


def _merged(policy: RulesPolicy, call: ToolCall, context: ApprovalContext, mode: str) -> dict[str, Any]:
    """Every installed policy's decision, merged, under permission ``mode``."""
    from harness_core import create_plugin_manager

    env = dict(os.environ)
    if not policy.discover:
        # --rules: decide with the given files instead of the discovered ones
        disabled = env.get("HARNESS_DISABLE_PLUGINS", "")
        env["HARNESS_DISABLE_PLUGINS"] = ",".join(filter(None, [disabled, "rules"]))
    manager = create_plugin_manager(env=env)
    if not policy.discover:
        manager.register(policy, name="rules-files")
    moded = ApprovalContext(harness_id=context.harness_id, permission_mode=PermissionMode(mode), tool=context.tool,
                            resources=context.resources, workspace_root=context.workspace_root)
    decision = manager.hooks.approve_call(call, moded)
    return {"status": decision.status.value, "plugin": decision.plugin, "reason": decision.reason}


def _known_tool_names() -> set[str]:
    """Built-in names of every installed adapter and every installed host tool."""
    from harness_core import get_plugin_manager

    names: set[str] = set(COMMON_NAMES) | set(NATIVE_ALIASES)
    hooks = get_plugin_manager().hooks
    try:
        for harness_id in hooks.adapters():
            for builtin in hooks.builtins(harness_id):
                names.update((builtin.name, builtin.native_name))
        names.update(hooks.tools())
    except HarnessError:  # a conflicting plugin set: notes are a courtesy, skip them
        pass
    return names


def _note(rule: Rule, known: set[str]) -> str | None:
    """A note for a rule naming no known tool (a typo matches nothing, silently otherwise)."""
    if rule.name_regex is not None or rule.mcp_server is not None or rule.tool.startswith("mcp__"):
        return None
    if rule.tool in known:
        return None
    close = difflib.get_close_matches(rule.tool, sorted(known), n=1)
    hint = f"; did you mean `{close[0]}`?" if close else ""
    return f"no installed built-in or host tool is named `{rule.tool}`{hint}"


@rules.command("list")
@click.option("--rules", "rules_files", multiple=True, type=click.Path(dir_okay=False),
              help="List only this rules file (repeatable).")
@click.option("--cwd", type=click.Path(file_okay=False, exists=True), default=None,
              help="Workspace root whose project and local files to list (default: .).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object.")
def list_rules(rules_files: tuple[str, ...], cwd: str | None, as_json: bool) -> None:
    """Show the rules in force, layer by layer (user, project, local), with their lines.

    A rule naming a tool that no installed adapter or tool pack provides gets a note (a
    misspelt tool name would otherwise match nothing).
    """
    policy = _policy(rules_files, cwd)
    root = policy.workspace_root()
    try:
        layers = policy.layers(root)
    except RulesError as exc:
        raise CommandFailed(str(exc)) from None
    known = _known_tool_names()
    if as_json:
        click.echo(json.dumps({
            "workspace_root": root,
            "layers": [
                {"layer": layer.layer, "source": layer.source, "exists": layer.exists,
                 "rules": [{"action": r.action.value, "rule": r.text, "line": r.origin.line,
                            "note": _note(r, known)} for r in layer.rules]}
                for layer in layers
            ],
        }, indent=2))
        return
    click.echo(f"workspace root: {root}")
    for layer in layers:
        status = "" if layer.exists else " (not found)"
        shown = layer.source if layer.source.startswith("<") else str(Path(layer.source))
        click.echo(f"{layer.layer}: {shown}{status}")
        if layer.exists and not layer.rules:
            click.echo("  (no rules)")
        for rule in layer.rules:
            line = f"{rule.origin.line:>4}" if rule.origin.line is not None else "   -"
            click.echo(f"  {line}  {rule.action.value:<5}  {rule.text}")
            note = _note(rule, known)
            if note is not None:
                click.echo(f"              note: {note}")
