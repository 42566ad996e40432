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


def test_answers_message_and_its_key() -> None:
    message, key = harness_dbos.answers_message([{"approval_id": "a", "approved": True}])
    assert message == {"approval_responses": [{"approval_id": "a", "approved": True}], "tool_results": []}
    assert key == harness_dbos.answers_message([{"approved": True, "approval_id": "a"}])[1]
    assert key != harness_dbos.answers_message([{"approval_id": "a", "approved": False}])[1]
    with pytest.raises(ValueError, match="needs"):
        harness_dbos.answers_message()

