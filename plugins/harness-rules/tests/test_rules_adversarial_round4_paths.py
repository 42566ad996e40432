"""Adversarial round 4: everything but shell parsing - file-tool paths, searches and their
``exclude`` lists, tool names, rules files and their reloading, the approval hook path.

Each bypass found is proven for real (real files and symlinks, the built-in harness's own
tools where their results matter) and kept here as a test that fails on the old code.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from harness_rules import RulesPolicy

from harness_core import (
    ApprovalContext,
    BuiltinTool,
    HarnessAgent,
    LocalSandbox,
    ToolCall,
    ToolKind,
    ToolResources,
)
from harness_core.testing import ModelTurn, Script, ToolCallSpec

SECRET = "TOKEN=hunter2"

GREP = BuiltinTool(name="grep", native_name="grep", kind=ToolKind.READ_ONLY,
                   input_schema={"type": "object", "properties": {"pattern": {"type": "string"},
                                                                 "path": {"type": "string"},
                                                                 "exclude": {"type": "array"}}},
                   resources=lambda data: ToolResources(paths=(data.get("path") or ".",)))


def _search(policy: RulesPolicy, data: dict[str, Any], root: Path | str) -> Any:
    call = ToolCall(tool_call_id="g", tool_name="grep", input=data, provider_executed=True, native_tool_name="grep")
    context = ApprovalContext(harness_id="test", tool=GREP, resources=GREP.resources_for(data),
                              workspace_root=str(root))
    return policy.evaluate(call, context)


@pytest.fixture
def alias_ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """ws/areal/.env (denied) and ws/zlink -> areal: the link sorts after the directory."""
    base = tmp_path.resolve()
    home = base / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    ws = base / "ws"
    (ws / "areal").mkdir(parents=True)
    (ws / "areal" / ".env").write_text(SECRET + "\n")
    (ws / "src").mkdir()
    (ws / "src" / "a.py").write_text("print('a')  # TOKEN\n")
    os.symlink("areal", ws / "zlink")
    (ws / ".harness").mkdir()
    (ws / ".harness" / "rules.toml").write_text('[permissions]\ndeny = ["read(.env)"]\n')
    return ws


# -- 1. a search's `exclude` naming a denied file through a linked directory --------------


def test_excluding_a_denied_file_by_a_linked_directory_leaves_it_in_the_search(alias_ws: Path) -> None:
    policy = RulesPolicy({"deny": ["read(.env)"]}, cwd=alias_ws, env={"HOME": str(alias_ws.parent / "home")})
    first = _search(policy, {"pattern": "TOKEN"}, alias_ws)
    assert first.decision == "deny"
    # the built-in grep never follows linked directories: `zlink/.env` leaves nothing out
    for exclude in (["zlink/.env"], ["zlink"], ["./zlink/../zlink/.env"]):
        verdict = _search(policy, {"pattern": "TOKEN", "exclude": exclude}, alias_ws)
        assert verdict.decision == "deny", (exclude, verdict.reason)
    # the denial's own hint names the file where the tool finds it
    assert '"areal/.env"' in first.reason and '"zlink/.env"' not in first.reason
    # excluding the real file is enough, the link needs no exclusion (the tool does not follow it)
    assert _search(policy, {"pattern": "TOKEN", "exclude": ["areal/.env"]}, alias_ws).decision == "none"
    assert _search(policy, {"pattern": "TOKEN", "exclude": ["areal"]}, alias_ws).decision == "none"


def test_an_exclude_spelled_through_a_linked_workspace_root_is_judged_as_the_tool_reads_it(
        alias_ws: Path) -> None:
    link_root = alias_ws.parent / "ws_link"
    os.symlink(alias_ws, link_root)
    policy = RulesPolicy({"deny": ["read(.env)"]}, cwd=link_root, env={"HOME": str(alias_ws.parent / "home")})
    # relative entries: the tool joins them to its resolved root, and so do the rules
    assert _search(policy, {"pattern": "T", "exclude": ["areal/.env"]}, link_root).decision == "none"
    # an absolute entry through the link: the tool compares it with resolved paths, excluding nothing
    absolute = _search(policy, {"pattern": "T", "exclude": [str(link_root / "areal" / ".env")]}, link_root)
    assert absolute.decision == "deny", absolute.reason


def _agent(server: Any) -> HarnessAgent:
    options = {"model": "anthropic:fake-model", "base_url": server.base_url, "api_key": "test-key", "max_retries": 0}
    return HarnessAgent(harness="builtin", harness_options=options, include_plugin_tools=False,
                        permission_mode="allow-all")


@pytest.mark.anyio
async def test_the_builtin_grep_never_returns_a_file_excluded_only_by_its_alias(
        scripted_model_server: Any, alias_ws: Path) -> None:
    pytest.importorskip("harness_builtin")
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("grep", {"pattern": "TOKEN", "path": "."})]),
        ModelTurn(tool_calls=[ToolCallSpec("grep", {"pattern": "TOKEN", "path": ".", "exclude": ["zlink/.env"]})]),
        ModelTurn(tool_calls=[ToolCallSpec("glob", {"pattern": "**/.env", "exclude": ["zlink"]})]),
        ModelTurn(tool_calls=[ToolCallSpec("grep", {"pattern": "TOKEN", "path": ".", "exclude": ["areal"]})]),
        "Done.",
    ))
    agent = _agent(server)
    async with await agent.create_session(sandbox=LocalSandbox(alias_ws)) as session:
        result = await agent.generate(session=session, prompt="search")
    assert result.finish_reason == "stop", result.parts
    denied = [p for p in result.parts if p.type == "tool-output-denied"]
    outputs = [str(getattr(p, "output", "")) for p in result.parts if p.type == "tool-result"]
    bodies = "\n".join(json.dumps(r.body) for r in server.requests if r.is_model_call)
    assert "hunter2" not in bodies, outputs
    assert len(denied) == 3, outputs
    assert len(outputs) == 1 and "src/a.py" in outputs[0]


# -- 2. a rules file read while it is being rewritten ---------------------------------------

_WRITER = """
import pathlib, sys, time
path, text, seconds = pathlib.Path(sys.argv[1]), sys.argv[2], float(sys.argv[3])
end = time.monotonic() + seconds
while time.monotonic() < end:
    path.write_text(text)  # in place: truncated, then written
    time.sleep(0.001)
"""


def test_a_rules_file_rewritten_in_place_never_leaves_a_decision_without_its_rules(tmp_path: Path) -> None:
    import subprocess
    import sys
    import time

    ws = tmp_path.resolve() / "ws"
    (ws / ".harness").mkdir(parents=True)
    (ws / ".env").write_text(SECRET)
    rules = ws / ".harness" / "rules.toml"
    text = '[permissions]\ndeny = ["read(./.env)"]\n'
    rules.write_text(text)
    policy = RulesPolicy(discover=True, env={"HOME": str(tmp_path)}, reload_interval=0)
    assert policy.check("read", {"file_path": ".env"}, workspace_root=ws).decision == "deny"
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(rules), text, "1.5"])
    seen: dict[str, int] = {}
    try:
        end = time.monotonic() + 1.5
        while time.monotonic() < end:
            try:
                decision = policy.check("read", {"file_path": ".env"}, workspace_root=ws).decision
            except Exception as exc:  # a file caught changing is an error: the core denies the call
                decision = type(exc).__name__
            seen[decision] = seen.get(decision, 0) + 1
    finally:
        writer.wait(timeout=30)
    assert set(seen) <= {"deny", "RulesFileError"}, seen
    # a rewrite that really removes the rule takes effect
    rules.write_text("[permissions]\n")
    assert policy.check("read", {"file_path": ".env"}, workspace_root=ws).decision == "none"


def test_a_rules_file_caught_truncated_or_renamed_away_is_read_again_after_a_pause(tmp_path: Path) -> None:
    import itertools
    import time

    from harness_rules._files import load_rules_file
    from harness_rules._reload import settled_load

    path = tmp_path / "rules.toml"
    full = '[permissions]\ndeny = ["read(./.env)"]\nask = ["bash(git push *)"]\n'
    path.write_text(full)
    previous = load_rules_file(path, "project")

    def finish_writing(_: float) -> None:
        path.write_text(full)

    for caught in ("", "[permissions]\n", '[permissions]\ndeny = ["read(./.env)"]\n', None):
        if caught is None:
            path.unlink()  # an editor's rename-and-write, caught in between
        else:
            path.write_text(caught)
        layer = settled_load(path, "project", previous, missing_ok=True, sleep=finish_writing)
        assert sorted(r.text for r in layer.rules) == ["bash(git push *)", "read(./.env)"], caught
    # removed for real (left as it is over the pause, its times old): the rules go
    later = lambda: time.time() + 1.0  # noqa: E731 - half a second after any change
    path.write_text("[permissions]\n")
    assert settled_load(path, "project", previous, missing_ok=True, sleep=lambda _: None, clock=later).rules == ()
    path.unlink()
    assert not settled_load(path, "project", previous, missing_ok=True, sleep=lambda _: None, clock=later).exists
    # the same, but changed a moment ago (a writer stalled between truncating and writing): not yet
    path.write_text("[permissions]\n")
    with pytest.raises(Exception, match="not left untouched"):
        settled_load(path, "project", previous, missing_ok=True, sleep=lambda _: None, limit=0.1)
    # still changing after every pause: an error (the core denies), never the partial file
    counter = itertools.count()

    def keep_changing(_: float) -> None:
        path.write_text("[permissions]\n" + "#" * next(counter))

    path.write_text("[permissions]\n")
    with pytest.raises(Exception, match="not left untouched"):
        settled_load(path, "project", previous, missing_ok=True, sleep=keep_changing, clock=later, limit=0.2)
    # adding rules, and a first read, are taken at once
    calls: list[float] = []
    path.write_text(full + 'allow = ["read(./src/**)"]\n'.replace("allow", "# allow"))
    assert len(settled_load(path, "project", previous, missing_ok=True, sleep=calls.append).rules) == 2
    assert settled_load(path, "project", None, missing_ok=True, sleep=calls.append).exists and not calls


# -- 3. a rules file that is not a file, or too large -----------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "zero", "directory", "huge"])
def test_a_rules_file_that_is_a_fifo_device_or_huge_is_an_error_not_a_hang(tmp_path: Path, kind: str) -> None:
    import threading

    ws = tmp_path.resolve() / "ws"
    (ws / ".harness").mkdir(parents=True)
    path = ws / ".harness" / "rules.toml"
    if kind == "fifo":
        os.mkfifo(path)  # reading waits for a writer forever
    elif kind == "zero":
        os.symlink("/dev/zero", path)  # reading never ends
    elif kind == "directory":
        path.mkdir()
    else:
        path.write_text('[permissions]\ndeny = ["read(./.env)"]\n' + "#" * (2 << 20) + "\n")
    policy = RulesPolicy(discover=True, env={"HOME": str(tmp_path)})
    outcome: list[BaseException | str] = []

    def decide() -> None:
        try:
            outcome.append(policy.check("read", {"file_path": ".env"}, workspace_root=ws).decision)
        except Exception as exc:
            outcome.append(exc)

    worker = threading.Thread(target=decide, daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert outcome, "the decision never returned"
    assert isinstance(outcome[0], Exception) and "rules file" in str(outcome[0]), outcome


# -- 4. paths that are not strings ------------------------------------------------------------


def test_a_builtin_path_that_is_not_a_string_is_never_judged_as_its_text(tmp_path: Path) -> None:
    pytest.importorskip("harness_builtin")
    from harness_builtin.tools import builtin_declarations

    tools = {t.name: t for t in builtin_declarations()}
    ws = tmp_path.resolve()
    (ws / ".env").write_text(SECRET)
    (ws / "src").mkdir()
    policy = RulesPolicy({"deny": ["read(./.env)"], "allow": ["read(./**)"]}, cwd=ws, env={"HOME": str(ws)})
    # the built-in extractors read `str(["..."])`, a path under the root that `read(./**)` allowed
    for value in ([".env"], {"p": ".env"}, 3, True):
        verdict = policy.check(tools["read"], {"file_path": value}, workspace_root=ws)
        assert verdict.decision == "ask" and "not a path string" in verdict.reason, (value, verdict.reason)
        for search in ("grep", "glob", "ls"):  # a search falls back to the root, which holds .env
            data: dict[str, Any] = {"pattern": "x", "path": value} if search != "ls" else {"path": value}
            assert policy.check(tools[search], data, workspace_root=ws).decision == "deny", (search, value)
    # strings, and lists of strings where a tool takes `paths`, are judged as before
    assert policy.check(tools["read"], {"file_path": "src/a.py"}, workspace_root=ws).decision == "allow"
    assert policy.check("grep", {"pattern": "x", "paths": ["src"]}, workspace_root=ws).decision == "allow"
    assert policy.check("read", {"file_path": None, "path": "src/a.py"}, workspace_root=ws).decision == "allow"


# -- 5. another process's open files ----------------------------------------------------------


def test_a_denied_file_held_open_by_another_process_is_not_read_through_proc_pid_fd(tmp_path: Path) -> None:
    import subprocess

    ws = tmp_path.resolve()
    env_file = ws / ".env"
    env_file.write_text(SECRET + "\n")
    policy = RulesPolicy({"deny": ["read(./.env)"]}, cwd=ws, env={"HOME": str(ws)})
    with env_file.open("rb") as held:
        child = subprocess.Popen(["sleep", "30"], stdin=held)
    try:
        fd_path = f"/proc/{child.pid}/fd/0"
        live = policy.check("read", {"file_path": fd_path}, workspace_root=ws)
        assert live.decision == "deny", live.reason  # the link names .env: followed
        replacement = ws / ".env.new"
        replacement.write_text("TOKEN=rotated\n")
        os.replace(replacement, env_file)  # an atomic save: the child still holds the old file
        with open(fd_path) as opened:  # what a file tool would read: the old secret
            assert opened.read().strip() == SECRET
        held_old = policy.check("read", {"file_path": fd_path}, workspace_root=ws)
        assert held_old.decision == "ask", held_old.reason
        assert "another process" in held_old.reason
        # its working directory and root are still followed as links
        cwd = policy.check("read", {"file_path": f"/proc/{child.pid}/root{ws}/.env"}, workspace_root=ws)
        assert cwd.decision == "deny", cwd.reason
    finally:
        child.kill()
        child.wait()


# -- 6. tool names ------------------------------------------------------------------------------


def test_a_denied_mcp_server_holds_for_a_tool_with_an_empty_name() -> None:
    from harness_core.mcp import mcp_name_matches, mcp_tool_name

    policy = RulesPolicy({"allow": ["mcp__*"], "ask": ["mcp__github__create_*"],
                          "deny": ["mcp__evil", "mcp__*__delete_*"]}, cwd="/")
    empty = mcp_tool_name("evil", "")  # what the built-in harness names a server's tool called ""
    assert mcp_name_matches("mcp__evil", empty)  # the core's own filters count it as evil's
    for name in (empty, "mcp__evil", "mcp__evil__x", "mcp__evil___x"):
        declared = BuiltinTool(name=name, native_name=name, kind=ToolKind.EDIT, input_schema={"type": "object"})
        for tool in (name, declared):
            assert policy.check(tool, {}).decision == "deny", name
    # several patterns: deny wins over ask and allow; other servers and names stay as they were
    assert policy.check("mcp__github__create_delete_x", {}).decision == "ask"
    assert policy.check("mcp__github__delete_repo", {}).decision == "deny"
    assert policy.check("mcp__evil2__x", {}).decision == "allow"
    assert policy.check("mcp__github__list", {}).decision == "allow"


# -- 7. the agent rewriting the rules that bind it ------------------------------------------------


_ATTACKS = {
    # allow-edits: edits run without asking, shell commands are asked about; an allow rule written
    # by the agent would pre-approve every command
    "allow-in-local": ("allow-edits", ToolCallSpec("write", {"file_path": ".harness/rules.local.toml",
                                                             "content": '[permissions]\nallow = ["bash(*)"]\n'})),
    # allow-all: only the deny rules stand between the agent and `rm`
    "drop-project-deny": ("allow-all", ToolCallSpec("write", {"file_path": ".harness/rules.toml",
                                                              "content": "[permissions]\n"})),
    "shell-redirect": ("allow-all", ToolCallSpec("bash", {"command": "echo '[permissions]' > .harness/rules.toml"})),
    "shell-copy": ("allow-all", ToolCallSpec("bash", {"command": "cp evil.toml .harness/rules.toml"})),
    "shell-move": ("allow-all", ToolCallSpec("bash", {"command": "mv evil.toml .harness/rules.toml"})),
}


@pytest.mark.anyio
@pytest.mark.parametrize("attack", sorted(_ATTACKS))
async def test_the_agent_cannot_rewrite_the_rules_files_that_bind_it(
        scripted_model_server: Any, alias_ws: Path, attack: str) -> None:
    import anyio

    pytest.importorskip("harness_builtin")
    rules_toml = alias_ws / ".harness" / "rules.toml"
    original = '[permissions]\ndeny = ["bash(rm *)", "read(.env)"]\n'
    rules_toml.write_text(original)
    (alias_ws / "victim").write_text("precious\n")
    (alias_ws / "evil.toml").write_text('[permissions]\nallow = ["bash(*)"]\n')
    mode, first = _ATTACKS[attack]
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[first]), "Rules changed.",
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "touch pwned; rm victim"})]), "Done.",
    ))
    options = {"model": "anthropic:fake-model", "base_url": server.base_url, "api_key": "test-key", "max_retries": 0}
    agent = HarnessAgent(harness="builtin", harness_options=options, include_plugin_tools=False, permission_mode=mode)
    async with await agent.create_session(sandbox=LocalSandbox(alias_ws)) as session:
        first_result = await agent.generate(session=session, prompt="change the rules")
        await anyio.sleep(1.1)  # the rules files are checked for changes once a second
        await agent.generate(session=session, prompt="now remove the victim")
    assert (alias_ws / "victim").exists(), "the rules were rewritten and `rm victim` ran"
    assert not (alias_ws / "pwned").exists(), "the rules were rewritten and a command ran without asking"
    assert rules_toml.read_text() == original
    assert not (alias_ws / ".harness" / "rules.local.toml").exists()
    denied = [p for p in first_result.parts if p.type == "tool-output-denied"]
    assert len(denied) == 1 and denied[0].reason and "rules files" in denied[0].reason, first_result.parts


def test_the_rules_files_are_denied_to_edits_under_every_spelling_and_readable(alias_ws: Path) -> None:
    home = alias_ws.parent / "home"
    os.symlink(".harness", alias_ws / "hlink")
    policy = RulesPolicy(discover=True, env={"HOME": str(home)}, reload_interval=0)

    def decide(tool: str, data: dict[str, Any]) -> str:
        return policy.check(tool, data, workspace_root=alias_ws).decision

    for path in (".harness/rules.toml", ".harness/rules.local.toml", "./src/../.harness/x", "hlink/rules.local.toml",
                 f"{alias_ws}/.harness", str(home / ".config" / "harness" / "rules.toml")):
        assert decide("write", {"file_path": path}) == "deny", path
        assert decide("edit", {"file_path": path}) == "deny", path
    for command in ("tee .harness/rules.local.toml < evil", "sed -i d .harness/rules.toml", "rm -f .harness/rules.toml",
                    "mv .harness old", "cd .harness && echo x > rules.local.toml", "ln -sf /tmp/x .harness/rules.toml"):
        assert decide("bash", {"command": command}) == "deny", command
    # reading them with the file tools, and editing everything else, is as the other rules say (the
    # shell guard denies any argument an edit deny rule covers: `cat .harness/rules.toml` too)
    assert decide("read", {"file_path": ".harness/rules.toml"}) == "none"
    assert decide("grep", {"pattern": "deny", "path": ".harness"}) == "none"
    (alias_ws / "areal" / ".env").unlink()
    for command in ("grep -r TODO .", "rg TODO", "tar czf /tmp/a.tgz .", "cp -r src out", "ls -la"):
        verdict = policy.check("bash", {"command": command}, workspace_root=alias_ws)
        assert verdict.decision == "none", (command, verdict.reason)  # a tree holding them is read
    # the project files of a workspace below this one are protected too
    assert decide("write", {"file_path": "sub/.harness/rules.local.toml"}) == "deny"
    assert decide("write", {"file_path": "sub/.harness/notes.md"}) == "none"
    assert decide("write", {"file_path": "src/new.py"}) == "none"
    assert decide("bash", {"command": "echo x > src/out.txt"}) == "none"
    # rules in code only: there is no file to protect
    assert RulesPolicy({"allow": ["edit(./**)"]}).check(
        "write", {"file_path": ".harness/rules.toml"}, workspace_root=alias_ws).decision == "allow"


# -- 8. the hook path: an exception inside the policy denies ------------------------------------


def test_an_exception_inside_the_rules_policy_denies_through_the_core(tmp_path: Path) -> None:
    from harness_core import ApprovalStatus, create_plugin_manager

    manager = create_plugin_manager(load_entry_points=False, plugins=[
        RulesPolicy({"allow": ["read(./**)", "bash(*)"]}, env={"HOME": str(tmp_path)})])
    call = ToolCall(tool_call_id="c", tool_name="read", input={"file_path": "x"}, provider_executed=True)
    # a workspace root no path function accepts: the engine raises while resolving it
    broken = ApprovalContext(harness_id="test", workspace_root=str(tmp_path) + "/\x00bad")
    decision = manager.hooks.approve_call(call, broken)
    assert decision.status is ApprovalStatus.DENIED, decision
    assert decision.reason is not None and "failed" in decision.reason
    fine = ApprovalContext(harness_id="test", workspace_root=str(tmp_path))
    assert manager.hooks.approve_call(call, fine).status is ApprovalStatus.APPROVED


# -- 9. a link in a searched tree through /proc/self/cwd ----------------------------------------


@pytest.mark.anyio
async def test_a_link_through_proc_self_cwd_inside_a_searched_tree_is_not_read_by_grep(
        scripted_model_server: Any, alias_ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("harness_builtin")
    (alias_ws / ".env").write_text(SECRET + "\n")
    os.symlink("/proc/self/cwd/.env", alias_ws / "src" / "cwd_env")
    monkeypatch.chdir(alias_ws)  # `harness` run from the project directory: the tools' process works there
    policy = RulesPolicy({"deny": ["read(.env)"]}, cwd=alias_ws, env={"HOME": str(alias_ws.parent / "home")})
    verdict = _search(policy, {"pattern": "TOKEN", "path": "src"}, alias_ws)
    assert verdict.decision != "none", verdict.reason
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("grep", {"pattern": "TOKEN", "path": "src"})]), "Done."))
    agent = _agent(server)
    async with await agent.create_session(sandbox=LocalSandbox(alias_ws)) as session:
        await agent.generate(session=session, prompt="search")
    bodies = "\n".join(json.dumps(r.body) for r in server.requests if r.is_model_call)
    assert "hunter2" not in bodies


def test_links_a_search_cannot_resolve_are_asked_about_and_loops_are_not(alias_ws: Path) -> None:
    policy = RulesPolicy({"deny": ["read(.env)"]}, cwd=alias_ws, env={"HOME": str(alias_ws.parent / "home")})
    os.symlink("loop_b", alias_ws / "src" / "loop_a")
    os.symlink("loop_a", alias_ws / "src" / "loop_b")
    assert _search(policy, {"pattern": "x", "path": "src"}, alias_ws).decision == "none"  # ELOOP: opens nothing
    os.symlink("/proc/self/fd/3", alias_ws / "src" / "fd_link")
    asked = _search(policy, {"pattern": "x", "path": "src"}, alias_ws)
    assert asked.decision == "ask" and "fd_link" in asked.reason, asked.reason


# -- 10. layers: deny wins wherever it is written; a broken layer denies ------------------------


def test_the_same_rule_in_several_layers_and_a_broken_layer(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    (home / ".config" / "harness").mkdir(parents=True)
    (ws / ".harness").mkdir(parents=True)
    (home / ".config" / "harness" / "rules.toml").write_text('[permissions]\nallow = ["bash(rm *)"]\n')
    (ws / ".harness" / "rules.toml").write_text('[permissions]\ndeny = ["bash(rm *)"]\nallow = ["bash(ls)"]\n')
    local = ws / ".harness" / "rules.local.toml"
    local.write_text('[permissions]\nallow = ["bash(rm *)"]\nask = ["bash(rm *)"]\n')
    policy = RulesPolicy({"allow": ["bash(rm *)"]}, discover=True, env={"HOME": str(home)}, reload_interval=0)
    verdict = policy.check("bash", {"command": "rm x"}, workspace_root=ws)
    assert verdict.decision == "deny" and verdict.rule is not None and verdict.rule.origin.layer == "project"
    # a layer that stops loading takes every decision with it, the harmless ones too
    for broken in ('[permissions]\nallow = "bash(ls)"\n', "[permissions\n", '[permissions]\nalow = []\n',
                   '[permissions]\ndeny = ["bash()"]\n'):
        local.write_text(broken)
        with pytest.raises(Exception, match=r"rules\.local\.toml"):
            policy.check("bash", {"command": "ls"}, workspace_root=ws)


def test_a_rules_file_that_is_a_dangling_link_is_an_error_not_an_empty_layer(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".harness").mkdir(parents=True)
    shared = tmp_path / "shared" / "rules.toml"  # e.g. on a share that is not mounted now
    os.symlink(shared, ws / ".harness" / "rules.toml")
    policy = RulesPolicy(discover=True, env={"HOME": str(tmp_path)}, reload_interval=0)
    with pytest.raises(Exception, match="symbolic link to a missing file"):
        policy.check("bash", {"command": "rm -rf x"}, workspace_root=ws)
    shared.parent.mkdir()
    shared.write_text('[permissions]\ndeny = ["bash(rm *)"]\n')
    assert policy.check("bash", {"command": "rm -rf x"}, workspace_root=ws).decision == "deny"


def test_the_protection_alone_asks_about_nothing_known_only_at_run_time(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".harness").mkdir(parents=True)
    (ws / ".harness" / "rules.toml").write_text('[permissions]\nallow = ["bash(git status)"]\n')
    policy = RulesPolicy(discover=True, env={"HOME": str(tmp_path)})

    def decide(command: str) -> str:
        return policy.check("bash", {"command": command}, workspace_root=ws).decision

    for command in ('cat "$F"', "ls $DIR", "for f in *.py; do wc -l \"$f\"; done", 'cd "$D" && make'):
        assert decide(command) == "none", command
    assert decide("cp evil.toml .harness/rules.toml") == "deny"
    # with a deny rule of its own, what is known only at run time is asked about, as before
    (ws / ".harness" / "rules.toml").write_text('[permissions]\ndeny = ["read(./.env)"]\n')
    fresh = RulesPolicy(discover=True, env={"HOME": str(tmp_path)})
    assert fresh.check("bash", {"command": 'cat "$F"'}, workspace_root=ws).decision == "ask"


def test_a_new_rules_file_caught_with_its_allow_lines_only_is_read_again(tmp_path: Path) -> None:
    import time

    from harness_rules._files import load_rules_file
    from harness_rules._reload import settled_load

    path = tmp_path / "rules.local.toml"
    previous = load_rules_file(path, "local", missing_ok=True)  # not there yet
    full = '[permissions]\nallow = ["bash(*)"]\ndeny = ["bash(rm *)"]\n'
    path.write_text('[permissions]\nallow = ["bash(*)"]\n')  # caught before its deny line

    def finish_writing(_: float) -> None:
        if path.read_text() != full:
            path.write_text(full)

    layer = settled_load(path, "local", previous, missing_ok=True, sleep=finish_writing)
    assert sorted(r.text for r in layer.rules) == ["bash(*)", "bash(rm *)"]
    # a new file that really holds only allow rules is taken once left untouched
    path.write_text('[permissions]\nallow = ["bash(ls)"]\n')
    later = lambda: time.time() + 1.0  # noqa: E731
    layer = settled_load(path, "local", previous, missing_ok=True, sleep=lambda _: None, clock=later)
    assert [r.text for r in layer.rules] == ["bash(ls)"]
