"""DurableAgent's construction checks (fail closed), the plugin outside durable turns,
recorded failures, database URLs. In-process; nothing here launches DBOS."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap

import harness_dbos
import pytest
from harness_builtin import create_model_client
from harness_builtin import plugin as builtin_plugin
from harness_dbos import plugin as dbos_plugin
from harness_dbos._recorded import Failure, Outcome

from harness_core import HarnessAgent, HarnessConfigurationError, create_plugin_manager


def _client() -> object:
    return create_model_client("openai:scripted", base_url="http://127.0.0.1:9/v1", api_key="x")


def test_the_builtin_model_must_be_durable() -> None:
    manager = create_plugin_manager(load_entry_points=False, env={}, plugins=[dbos_plugin, builtin_plugin])
    agent = HarnessAgent(harness="builtin", harness_options={"model": _client()}, plugin_manager=manager)
    with pytest.raises(HarnessConfigurationError, match="durable_model"):
        harness_dbos.DurableAgent(agent, name="unwrapped")


def test_the_plugin_must_be_registered() -> None:
    manager = create_plugin_manager(load_entry_points=False, env={}, plugins=[builtin_plugin])
    agent = HarnessAgent(harness="builtin", harness_options={"model": harness_dbos.durable_model(_client())},
                         plugin_manager=manager)
    with pytest.raises(HarnessConfigurationError, match="'dbos' plugin"):
        harness_dbos.DurableAgent(agent, name="no-plugin")


def test_other_harnesses_need_an_explicit_opt_in() -> None:
    from harness_core.testing import ScriptedAdapter

    agent = ScriptedAdapter([]).agent(plugins=[dbos_plugin])
    with pytest.raises(HarnessConfigurationError, match="allow_unrecorded_runtime"):
        harness_dbos.DurableAgent(agent, name="scripted-refused")
    durable = harness_dbos.DurableAgent(agent, name="scripted-accepted", allow_unrecorded_runtime=True)
    assert durable.workflow_name == "harness.turn.scripted-accepted"


def test_durable_model_refuses_what_is_not_a_client() -> None:
    with pytest.raises(TypeError, match="model client"):
        harness_dbos.durable_model("openai:gpt")  # type: ignore[arg-type]
    client = harness_dbos.durable_model(_client())  # type: ignore[arg-type]
    assert harness_dbos.durable_model(client) is client
    assert client.name == "openai:scripted"


def test_outside_a_durable_turn_tools_and_models_pass_through_without_importing_dbos() -> None:
    code = textwrap.dedent("""
        import sys
        from harness_core import create_plugin_manager, define_harness_tool
        from harness_core.testing import CallHost, EchoResults, ScriptedAdapter
        import harness_dbos.plugin
        tool = define_harness_tool(name="echo", description="Echo.", input={"type": "object"},
                                   execute=lambda input, ctx: "echoed")
        runtime = ScriptedAdapter([[[CallHost("echo", {})], [EchoResults()]]])
        manager = create_plugin_manager(load_entry_points=False, env={}, plugins=[harness_dbos.plugin])
        agent = runtime.agent(tools=[tool], plugin_manager=manager)
        result = agent.run_sync("go", approve=lambda r: True)
        assert result.text == "echo: echoed", result.text
        assert "dbos" not in sys.modules, "dbos was imported"
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_outside_a_durable_turn_builtin_calls_pass_through_without_importing_dbos(tmp_path) -> None:
    # the built-in harness's own bash goes through harness_execute_builtin, which the
    # plugin wraps; outside a durable turn the command runs as without the plugin
    code = textwrap.dedent(f"""
        import sys
        from harness_builtin import plugin as builtin_plugin
        from harness_core import HarnessAgent, LocalSandbox, create_plugin_manager
        from harness_core.testing import ModelTurn, ScriptedModelServer, ToolCallSpec
        import harness_dbos.plugin
        script = [ModelTurn(tool_calls=[ToolCallSpec("bash", {{"command": "echo ran >> effects.txt"}})]), "done"]
        with ScriptedModelServer(script) as server:
            manager = create_plugin_manager(load_entry_points=False, env={{}},
                                            plugins=[builtin_plugin, harness_dbos.plugin])
            agent = HarnessAgent(harness="builtin", plugin_manager=manager, include_plugin_tools=False,
                                 harness_options={{"model": "openai:x", "base_url": server.openai_base_url,
                                                   "api_key": "k", "max_retries": 0}})
            result = agent.run_sync("go", sandbox=LocalSandbox({str(tmp_path)!r}))
        assert result.finish_reason == "stop", result.parts
        assert "dbos" not in sys.modules, "dbos was imported"
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
    assert (tmp_path / "effects.txt").read_text() == "ran\n"


class _Picky(Exception):
    def __init__(self, kind: str, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.unpicklable = lambda: None


def test_a_recorded_failure_rebuilds_an_exception_whose_init_does_not_unpickle() -> None:
    original = _Picky("rate-limit", "slow down", status=429)
    outcome = pickle.loads(pickle.dumps(Outcome(failure=Failure.of(original))))
    with pytest.raises(_Picky, match="slow down") as raised:
        outcome.unwrap()
    assert (raised.value.kind, raised.value.status) == ("rate-limit", 429)
    assert not hasattr(raised.value, "unpicklable")
    lost = Failure("no.such.module", "Gone", "message", {}).rebuild()
    assert isinstance(lost, RuntimeError) and "no.such.module.Gone: message" in str(lost)


def test_database_urls(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv(harness_dbos.DATABASE_ENV, raising=False)
    assert harness_dbos.database_url(directory=tmp_path) == f"sqlite:///{tmp_path / 'harness-dbos.sqlite'}"
    monkeypatch.setenv(harness_dbos.DATABASE_ENV, "postgresql://u@127.0.0.1/db")
    assert harness_dbos.database_url() == "postgresql://u@127.0.0.1/db"
    with pytest.raises(HarnessConfigurationError, match="sqlite:/// or postgresql://"):
        harness_dbos.database_url("mysql://x")


@pytest.mark.parametrize(("level", "number"), [("NORMAL", 1), ("FULL", 2)])
def test_sqlite_connections_run_in_wal_mode_at_the_synchronous_level(tmp_path, level: str, number: int) -> None:
    import sqlite3

    from harness_dbos.launch import sqlite_connect_args

    factory = sqlite_connect_args(level)["factory"]  # type: ignore[arg-type]
    assert issubclass(factory, sqlite3.Connection)
    connection = sqlite3.connect(tmp_path / "wal.sqlite", factory=factory)
    try:
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert connection.execute("PRAGMA synchronous").fetchone() == (number,)
    finally:
        connection.close()
    with pytest.raises(HarnessConfigurationError, match="sqlite_synchronous"):
        sqlite_connect_args("OFF")  # type: ignore[arg-type]


def test_answers_message_and_its_key() -> None:
    message, key = harness_dbos.answers_message([{"approval_id": "a", "approved": True}])
    assert message == {"approval_responses": [{"approval_id": "a", "approved": True}], "tool_results": []}
    assert key == harness_dbos.answers_message([{"approved": True, "approval_id": "a"}])[1]
    assert key != harness_dbos.answers_message([{"approval_id": "a", "approved": False}])[1]
    with pytest.raises(ValueError, match="needs"):
        harness_dbos.answers_message()



@pytest.mark.parametrize(("approvals", "results", "message"), [
    ("garbage", (), r"approval_responses must be a list of mappings, got str"),
    (["x"], (), r"approval_responses\[0\]: expected a mapping, got str"),
    ([{"approved": True}], (), r"approval_responses\[0\]: 'approval_id' must be a non-empty string, got None"),
    ([{"approval_id": "a", "approved": "yes"}], (), r"approval_responses\[0\]: 'approved' must be true or false"),
    ((), [{"output": "x"}], r"tool_results\[0\]: 'tool_call_id' must be a non-empty string, got None"),
])
def test_malformed_answers_are_refused_before_they_are_sent(approvals: object, results: object, message: str) -> None:
    # a malformed answer is refused in the caller's process, naming the entry, instead of
    # being delivered to the waiting turn (or failing with dict()'s own error)
    from harness_dbos.messages import answers_message

    with pytest.raises((TypeError, ValueError), match=message):
        answers_message(approvals, results)  # type: ignore[arg-type]
    assert answers_message([{"approvalId": "a", "approved": False}], [{"toolCallId": "c", "output": 1}])[0]


@pytest.mark.anyio
@pytest.mark.parametrize("prompt", [123, None, "", "  "])
async def test_a_prompt_that_is_not_text_is_refused_before_a_turn_is_recorded(prompt: object) -> None:
    # start_turn(123) used to record a PENDING workflow that a worker would recover and fail
    from harness_core.testing import ScriptedAdapter

    agent = ScriptedAdapter([]).agent(plugins=[dbos_plugin])
    durable = harness_dbos.DurableAgent(agent, name=f"bad-prompt-{abs(hash(repr(prompt)))}", allow_unrecorded_runtime=True)
    with pytest.raises(TypeError, match="start_turn\\(\\) takes the prompt as a non-empty string"):
        await durable.start_turn(prompt, session_id="s")  # type: ignore[arg-type]


@pytest.mark.parametrize("harness", ["acp"])
def test_runtimes_without_resume_support_are_refused_with_the_reason(harness: str) -> None:
    from harness_dbos.resumers import NOT_RESUMABLE

    agent = HarnessAgent(harness=harness)
    with pytest.raises(HarnessConfigurationError, match="cannot be made durable") as refused:
        harness_dbos.DurableAgent(agent, name=f"refused-{harness}")
    assert NOT_RESUMABLE[harness] in str(refused.value)
    assert "allow_unrecorded_runtime=True" in str(refused.value)


def test_a_codex_turn_needs_a_durable_codex_home(tmp_path) -> None:
    from harness_codex import codex

    with pytest.raises(HarnessConfigurationError, match="durable folder"):
        harness_dbos.DurableAgent(HarnessAgent(harness="codex"), name="codex-temporary-home")
    agent = HarnessAgent(harness=codex(codex_home=tmp_path / ".codex"))
    assert harness_dbos.DurableAgent(agent, name="codex-durable-home").workflow_name == "harness.turn.codex-durable-home"
