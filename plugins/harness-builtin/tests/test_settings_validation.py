"""Settings of the built-in harness are checked when given, and ``harness run -o`` reports a
wrong one in one line (exit 2), never a traceback or a crash in the middle of a turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from harness_builtin import create_builtin_adapter
from harness_builtin.settings import ToolSettings, TurnLimits

from harness_core import HarnessConfigurationError
from harness_core.cli import cli
from harness_core.testing import Script


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"max_steps": "abc"}, "'max_steps' must be a positive integer, got 'abc' (str)"),
        ({"max_steps": -1}, "'max_steps' must be a positive integer, got -1"),
        ({"max_steps": True}, "'max_steps' must be a positive integer, got True (bool)"),
        ({"tool_concurrency": 1.5}, "'tool_concurrency' must be a positive integer, got 1.5 (float)"),
        ({"max_turn_tokens": "many"}, "'max_turn_tokens' must be a positive integer or None"),
        ({"max_repairs": -1}, "'max_repairs' must be an integer >= 0"),
        ({"call_deadline": "soon"}, "'call_deadline' must be a positive number"),
        ({"on_error": "explode"}, "'on_error' must be 'return-to-model' or 'fail', got 'explode'"),
        ({"timeout": "abc"}, "'timeout' must be a positive number of seconds, got 'abc' (str)"),
        ({"timeout": 0}, "'timeout' must be a positive number of seconds, got 0"),
        ({"max_retries": "2"}, "'max_retries' must be an integer >= 0, got '2' (str)"),
        ({"api_key": 5}, "'api_key' must be a string, got 5 (int)"),
        ({"base_url": ["x"]}, "'base_url' must be a string"),
        ({"instructions": 1}, "'instructions' must be a string"),
        ({"model": 7}, "'model' must be 'provider:model' or a ModelClient, got 7 (int)"),
        ({"model": " "}, "'model' must be 'provider:model' (not empty)"),
        ({"cwd": 3}, "'cwd' must be a directory path"),
        ({"detect_file_changes": "yes"}, "'detect_file_changes' must be true or false"),
        ({"tool_settings": 3}, "'tool_settings' must be a ToolSettings or a mapping of its fields"),
        ({"tool_settings": {"nope": 1}}, "'tool_settings' has unknown field(s) nope (known: read_max_lines"),
        ({"tool_settings": {"bash_max_timeout": "x"}}, "'bash_max_timeout' must be a positive number"),
        ({"extra_tools": ["x"]}, "'extra_tools' must be a mapping of names to HarnessTool"),
        ({"extra_tools": {"x": "not a tool"}}, "\"extra_tools['x']\" must be a HarnessTool"),
    ],
)
def test_the_factory_names_a_wrong_setting(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(HarnessConfigurationError) as info:
        create_builtin_adapter(**settings)
    assert str(info.value).startswith("builtin harness setting ")
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)  # still a ValueError for existing callers


def test_good_settings_pass_and_tool_settings_may_be_a_mapping() -> None:
    adapter = create_builtin_adapter(model="anthropic:x", timeout=30, max_retries=0, max_turn_tokens=None,
                                     call_deadline=2.5, tool_settings={"bash_max_timeout": 60})
    assert adapter.tool_settings == ToolSettings(bash_max_timeout=60)
    assert adapter.limits == TurnLimits(call_deadline=2.5)


def _run(project: Path, server: Any, *options: str) -> Any:
    argv = ["run", "hi", "--model", "anthropic:fake", "--base-url", server.base_url, "-o", "api_key=k",
            "--cwd", str(project)]
    for option in options:
        argv += ["-o", option]
    return CliRunner().invoke(cli, argv)


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("max_steps=abc", "'max_steps' must be a positive integer, got 'abc'"),
        ("max_steps=-1", "'max_steps' must be a positive integer, got -1"),
        ('timeout="abc"', "'timeout' must be a positive number of seconds, got 'abc'"),
        ("on_error=explode", "'on_error' must be 'return-to-model' or 'fail'"),
    ],
)
def test_harness_run_reports_a_wrong_option_in_one_line(scripted_model_server, workspace: Path, option: str,
                                                         message: str) -> None:
    server = scripted_model_server(Script.of("never asked"))
    result = _run(workspace, server, option)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("harness: error: builtin harness setting ") and message in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
    assert result.stdout == ""
    assert server.requests == []  # it failed before the turn, not in the middle of it
