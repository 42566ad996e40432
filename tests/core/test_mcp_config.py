"""The shared MCP server configuration: validation, secrets, naming, filtering by server."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness_core import (
    BuiltinFilter,
    BuiltinFilterMode,
    HarnessConfigurationError,
    McpHttpServer,
    McpStdioServer,
    mcp_name_matches,
    mcp_tool_name,
    parse_mcp_servers,
    split_mcp_name,
)
from harness_core.testing import ScriptedAdapter

SECRET = "sk-very-secret-value-123"


def test_stdio_and_http_mappings_become_configs() -> None:
    servers = parse_mcp_servers({
        "ctx": {"command": "python", "args": ["-m", "ctx"], "env": {"TOKEN": SECRET}, "cwd": "/tmp"},
        "docs": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": SECRET}},
        "plain": {"url": "https://example.invalid/mcp"},
    })
    assert servers["ctx"] == McpStdioServer(command="python", args=("-m", "ctx"), env={"TOKEN": SECRET}, cwd="/tmp")
    assert isinstance(servers["docs"], McpHttpServer) and servers["docs"].headers["Authorization"] == SECRET
    assert servers["plain"].transport == "http"
    assert list(servers) == ["ctx", "docs", "plain"]


@pytest.mark.parametrize(("config", "message"), [
    ({"args": ["x"]}, r"\['bad'\]: a stdio server needs a non-empty string 'command'"),
    ({"command": "x", "args": "x y"}, r"'args' must be a list of strings"),
    ({"command": "x", "envv": {}}, r"unknown field 'envv'; did you mean 'env'\?"),
    ({"type": "http", "url": "ftp://x"}, r"'url' starting with http:// or https://"),
    ({"type": "sse", "url": "http://x"}, r"unknown server type 'sse'"),
    ({"command": "x", "env": {"TOKEN": 3}}, r"env\['TOKEN'\] must be a string"),
    ("python", r"expected McpStdioServer, McpHttpServer or a mapping"),
])
def test_a_bad_entry_names_the_server_and_the_field(config: object, message: str) -> None:
    with pytest.raises(HarnessConfigurationError, match=message):
        parse_mcp_servers({"bad": config}, where="builtin(mcp_servers=...)")


@pytest.mark.parametrize("name", ["", "a__b", "with space", "harness", 3])
def test_bad_or_reserved_server_names_are_refused(name: object) -> None:
    with pytest.raises(HarnessConfigurationError, match="mcp_servers"):
        parse_mcp_servers({name: {"command": "x"}})


def test_secrets_never_appear_in_errors_or_reprs() -> None:
    with pytest.raises(HarnessConfigurationError) as info:
        parse_mcp_servers({"s": {"command": "x", "env": {"A": SECRET, "B": 1}}})
    assert SECRET not in str(info.value)
    with pytest.raises(HarnessConfigurationError) as info:
        parse_mcp_servers({"s": {"type": "http", "url": "http://x", "headers": {"A": SECRET}, "hedaers": 1}})
    assert SECRET not in str(info.value)
    stdio = McpStdioServer(command="x", env={"TOKEN": SECRET})
    http = McpHttpServer(url="http://x", headers={"Authorization": SECRET})
    for text in (repr(stdio), repr(http), str(stdio.describe()), str(http.describe())):
        assert SECRET not in text
    assert "'TOKEN': '***'" in repr(stdio) and stdio.describe()["env_keys"] == ["TOKEN"]


def test_configs_are_frozen() -> None:
    stdio = McpStdioServer(command="x", env={"A": "1"})
    with pytest.raises(TypeError):
        stdio.env["A"] = "2"  # type: ignore[index]


def test_names_and_prefix_matching() -> None:
    assert mcp_tool_name("ctx", "lookup") == "mcp__ctx__lookup"
    assert split_mcp_name("mcp__ctx__lookup") == ("ctx", "lookup")
    assert split_mcp_name("mcp__ctx") == ("ctx", None)
    assert split_mcp_name("bash") is None and split_mcp_name("mcp__") is None
    assert mcp_name_matches("mcp__ctx", "mcp__ctx__lookup")
    assert not mcp_name_matches("mcp__ctx", "mcp__ctx2__lookup")
    assert not mcp_name_matches("mcp__ctx__a", "mcp__ctx__b")
    inactive = BuiltinFilter(BuiltinFilterMode.INACTIVE, {"mcp__ctx"})
    assert not inactive.allows("mcp__ctx__lookup") and inactive.allows("mcp__docs__lookup")
    active = BuiltinFilter(BuiltinFilterMode.ACTIVE, {"bash", "mcp__docs"})
    assert active.allows("mcp__docs__x") and not active.allows("mcp__ctx__x") and not active.allows("read")


def _adapter_with_servers(tmp_path: Path) -> ScriptedAdapter:
    adapter = ScriptedAdapter([[["done"]]], workspace=tmp_path)
    adapter.mcp_servers = parse_mcp_servers({"ctx": {"command": "x"}})  # type: ignore[attr-defined]
    return adapter


def test_a_server_prefix_is_a_valid_filter_entry(tmp_path: Path) -> None:
    agent = _adapter_with_servers(tmp_path).agent(inactive_tools=["mcp__ctx"])
    assert agent.inactive_tools == frozenset({"mcp__ctx"})
    agent = _adapter_with_servers(tmp_path).agent(inactive_tools=["mcp__ctx__lookup"])
    assert agent.inactive_tools == frozenset({"mcp__ctx__lookup"})


def test_an_unknown_server_is_still_refused(tmp_path: Path) -> None:
    with pytest.raises(HarnessConfigurationError, match=r"'mcp__other'.*MCP servers: mcp__ctx"):
        _adapter_with_servers(tmp_path).agent(inactive_tools=["mcp__other"])
