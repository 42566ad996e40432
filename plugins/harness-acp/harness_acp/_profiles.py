"""Named agent profiles: how a known ACP agent is found, isolated and what it supports.

A profile turns the adapter's settings into the agent's argv and environment for one
session (:meth:`AgentProfile.launch`), writing the agent's own config files into a
scratch directory when the adapter is pointed at a model server (``base_url``). Profiles
are plain data plus one function; add one by adding an :class:`AgentProfile` to
:data:`PROFILES` (see ``docs/acp.md``, "Adding an agent").
"""

from __future__ import annotations

import json
import os
import platform
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import attrs

from harness_core import MAX_OUTPUT_CHARS, Skill, install_skills

__all__ = ["PROFILES", "AgentProfile", "Launch", "LaunchRequest", "find_codex_acp_binary", "result_content"]

_DROPPED_PREFIXES: Final = ("OPENAI_", "CODEX_", "PI_", "ANTHROPIC_")


@attrs.frozen(kw_only=True)
class LaunchRequest:
    """What a profile needs to launch the agent for one session.

    Attributes:
        command: the argv from the settings (the profile's default or the user's).
        scratch: a fresh directory owned by the session (removed at ``destroy``).
        builtin_approvals: the host wants built-in calls to go through approvals.
        base_url / model / api_key / home: the isolation settings (``None`` when unset).
    """

    command: tuple[str, ...]
    scratch: Path
    builtin_approvals: bool
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    home: Path | None = None
    mcp_servers: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict)
    """Stdio / HTTP MCP servers (the relay included), for profiles that write them into
    the agent's own config (``mcp_in_config``)."""
    skills: Sequence[Skill] = ()
    """Skills to install where the agent reads them (profiles with ``skills_how``; only
    when the profile writes the agent's config, so always into its isolated home)."""


@attrs.frozen
class Launch:
    """The agent's argv and the environment entries to set (merged over ``os.environ``)."""

    argv: tuple[str, ...]
    env: Mapping[str, str] = attrs.field(factory=dict)
    isolated: bool = False
    """True when the profile wrote the agent's config: inherited credentials are dropped."""


def _never(text: str) -> bool:
    return False


def _codex_noise(text: str) -> bool:
    return text.startswith("Model metadata for `") and "not found" in text


def _pi_noise(text: str) -> bool:
    return text.startswith("pi v") and "\n---\n" in text  # pi-acp's startup banner (version, extensions)


def _no_call(request: Any) -> Any:
    return None


_PI_APPROVAL_TITLE: Final = "harness-acp approval"
_PI_KINDS: Final = {"bash": "execute", "read": "read", "edit": "edit", "write": "edit", "grep": "search",
                    "find": "search", "ls": "search"}


@attrs.frozen
class _PiCall:
    tool_call_id: str
    kind: str
    title: str
    raw_input: Any


def _pi_permission_call(tool_call: Any) -> Any:
    """pi-acp's extension ``confirm`` request from the harness-approvals extension -> the pi tool call."""
    raw = getattr(tool_call, "raw_input", None)
    if not isinstance(raw, Mapping) or raw.get("title") != _PI_APPROVAL_TITLE:
        return None
    try:
        call = json.loads(str(raw.get("message")))
    except ValueError:
        return None
    name = str(call.get("toolName") or "tool")
    return _PiCall(tool_call_id=str(call.get("toolCallId")), kind=_PI_KINDS.get(name, "other"), title=name,
                   raw_input=call.get("input") if isinstance(call.get("input"), Mapping) else {})


def _plain(request: LaunchRequest) -> Launch:
    return Launch(request.command)


@attrs.frozen(kw_only=True)
class AgentProfile:
    """A known ACP agent.

    Attributes:
        name: the profile name (``agent=`` setting).
        command: default argv.
        install: how to install it (docs).
        session_modes: the session mode ids the agent offers (``permission_mode_mapping``
            targets); empty when it has none meant for permissions.
        honours_mcp_servers: the agent connects to ``session/new`` MCP servers (host tools
            need it).
        mcp_in_config: when the profile writes the agent's config (``base_url`` given), it
            writes the MCP servers there too, so they work although ``session/new`` ones
            are ignored.
        approvals_in_config: likewise, it installs what makes the agent ask
            ``session/request_permission`` before built-in calls.
        permission_call: turns an agent-specific permission request into the tool call
            it is about (an object with ``tool_call_id``, ``kind``, ``title``,
            ``raw_input``), or ``None`` when the request is an ordinary ACP one.
        asks_permission: the agent sends ``session/request_permission`` before the built-in
            calls the host wants to decide (so the adapter supports built-in approvals).
        reject_ends_turn: rejecting a permission request makes the agent end the prompt
            (``stopReason: cancelled``); the adapter then tells the agent why and continues.
        writes_config: :attr:`launch` writes the agent's config from ``base_url``/``model``.
        result_content: the rich host tool result items (``text``, ``image``) the relay
            passes as MCP content, because the agent sends them on to its model (checked
            against the scripted model server); others become placeholders.
        launch: builds the :class:`Launch` for a session.
        noise: tells agent message text that is the agent talking about itself (a startup
            banner, a config warning), dropped from the stream.
        skills_how: where :attr:`launch` installs skills in the isolated home it writes
            (the ``skills`` capability's detail), or ``""`` when it does not.
        step_signal: how the adapter finds model-step boundaries (stop conditions):
            ``"usage"`` (a ``usage_update`` ends each model response, then the step's calls
            finish), ``"calls"`` (the agent announces a response's calls before running
            them: the step ends when they all finished), or ``""`` (unknown: refused).
    """

    name: str
    command: tuple[str, ...]
    install: str
    session_modes: frozenset[str] = frozenset()
    result_content: frozenset[str] = frozenset({"text", "image"})
    honours_mcp_servers: bool = True
    mcp_in_config: bool = False
    approvals_in_config: bool = False
    asks_permission: bool = True
    reject_ends_turn: bool = False
    writes_config: bool = False
    launch: Callable[[LaunchRequest], Launch] = _plain
    noise: Callable[[str], bool] = _never
    permission_call: Callable[[Any], Any] = _no_call
    skills_how: str = ""
    step_signal: str = ""

    def can_reach_mcp(self, writes_config: bool) -> bool:
        """True when MCP servers (and so host tools) reach the agent."""
        return self.honours_mcp_servers or (self.mcp_in_config and writes_config)

    def can_ask(self, writes_config: bool) -> bool:
        """True when the agent asks permission before built-in calls."""
        return self.asks_permission or (self.approvals_in_config and writes_config)


def find_codex_acp_binary(command: str = "codex-acp") -> str:
    """The native codex-acp binary behind the npm wrapper, or ``command`` when not found.

    The npm wrapper (``bin/codex-acp.js``) spawns the native binary and does not forward
    signals, so killing the wrapper orphans it; running the binary directly avoids that
    (the adapter kills the whole process group anyway).
    """
    found = shutil.which(command)
    if found is None:
        return command
    real = Path(found).resolve()
    if real.suffix != ".js":
        return str(real)
    system = {"Linux": "linux", "Darwin": "darwin"}.get(platform.system(), platform.system().lower())
    machine = {"x86_64": "x64", "AMD64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine(), "x64")
    native = real.parent.parent.parent / f"codex-acp-{system}-{machine}" / "bin" / "codex-acp"
    return str(native) if native.is_file() else found


def _toml(value: str) -> str:
    return json.dumps(value)


_CODEX_SAFE_HEADS: Final = (
    "base64", "cat", "cd", "cut", "echo", "expr", "false", "find", "git", "grep", "head", "id", "ls", "nl",
    "numfmt", "paste", "pwd", "rev", "rg", "sed", "seq", "stat", "tac", "tail", "tr", "true", "uname", "uniq",
    "wc", "which", "whoami",
)
"""Commands Codex runs without asking under ``untrusted`` (its known-safe list, read-only)."""


def _codex_rules(codex_home: Path, ask_everything: bool) -> None:
    """Make Codex ask before its known-safe commands too (exec-policy ``prompt`` rules), or not."""
    rules = codex_home / "rules" / "harness-approvals.rules"
    if not ask_everything:
        rules.unlink(missing_ok=True)
        return
    rules.parent.mkdir(parents=True, exist_ok=True)
    lines = [f'prefix_rule(pattern=["{head}"], decision="prompt")' for head in _CODEX_SAFE_HEADS]
    rules.write_text("# written by harness-acp: the host decides every command\n" + "\n".join(lines) + "\n",
                     encoding="utf-8")


_UNASKED_CODEX_KEYS: Final = ("tools.view_image", "features.view_image", "features.unified_exec",
                               "features.multi_agent")
"""Switched off under approvals: ``view_image`` reads a file with no permission request,
``write_stdin`` types into a tty command the host approved (``sh``) with none, and
sub-agents (``spawn_agent``) run a Codex of their own."""


def _codex_launch(request: LaunchRequest) -> Launch:
    head, *rest = request.command
    argv = [find_codex_acp_binary(head) if Path(head).name == "codex-acp" else head, *rest]
    # "untrusted" asks before every command Codex does not know to be read-only, and
    # before every edit; "never" runs everything (the host asked for no approvals).
    policy = "untrusted" if request.builtin_approvals else "never"
    argv += ["-c", f"approval_policy={_toml(policy)}"]
    if request.builtin_approvals:  # tools that never ask: off (see harness-codex's _UNASKED_FEATURES)
        argv += [arg for key in _UNASKED_CODEX_KEYS for arg in ("-c", f"{key}=false")]
    # Codex cuts tool outputs over this many tokens out of the middle: room for a host
    # result the core already cut at MAX_OUTPUT_CHARS characters, so the model gets it whole.
    argv += ["-c", f"tool_output_token_limit={MAX_OUTPUT_CHARS // 2}"]
    env: dict[str, str] = {}
    if request.home is not None:
        env["HOME"] = str(request.home)
    if request.base_url is None:
        return Launch(tuple(argv), env)
    # under ``home`` the Codex sessions survive the adapter session (resume_from loads them)
    codex_home = request.home / ".codex" if request.home is not None else request.scratch / "codex-home"
    codex_home.mkdir(parents=True, exist_ok=True)
    lines = [
        *([f"model = {_toml(request.model)}"] if request.model else []),
        'model_provider = "harness"',
        'sandbox_mode = "danger-full-access"',
        '[model_providers.harness]',
        'name = "harness"',
        f"base_url = {_toml(request.base_url)}",
        'wire_api = "responses"',
        'env_key = "HARNESS_ACP_API_KEY"',
        "request_max_retries = 0",
        "stream_max_retries = 0",
    ]
    (codex_home / "config.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if request.skills:
        install_skills(request.skills, codex_home / "skills")  # Codex's user skills, in the isolated home
    _codex_rules(codex_home, request.builtin_approvals)
    env.update(CODEX_HOME=str(codex_home), HARNESS_ACP_API_KEY=request.api_key or "unused")
    env.setdefault("HOME", str(request.scratch))
    return Launch(tuple(argv), env, isolated=True)


def _pi_launch(request: LaunchRequest) -> Launch:
    env: dict[str, str] = {}
    if request.home is not None:
        env["HOME"] = str(request.home)
    if request.base_url is None:
        return Launch(request.command, env)
    home = request.home or request.scratch / "pi-home"
    agent_dir = home / ".pi" / "agent"
    agent_dir.mkdir(parents=True, exist_ok=True)
    model = request.model or "default"
    provider = {"baseUrl": request.base_url, "api": "openai-completions", "apiKey": request.api_key or "unused",
                "models": [{"id": model, "contextWindow": 128000, "maxTokens": 4096,
                            "input": ["text", "image"]}]}  # host tool images reach the model
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"harness": provider}}), encoding="utf-8")
    # no agent-level retries against the configured server (like Codex's request_max_retries = 0)
    settings = {"defaultProvider": "harness", "defaultModel": model, "retry": {"enabled": False}}
    (agent_dir / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    servers: dict[str, Any] = {}
    for name, config in request.mcp_servers.items():
        entry: dict[str, Any] = ({"url": config["url"], "headers": dict(config.get("headers", {}))}
                                 if config.get("type") == "http"
                                 else {"command": config["command"], "args": list(config.get("args", [])),
                                       "env": dict(config.get("env", {}))})
        if config.get("cwd"):
            entry["cwd"] = config["cwd"]
        servers[name] = {**entry, "exposure": "direct"}
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    if request.skills:
        install_skills(request.skills, agent_dir / "skills")  # pi's user skills, in the isolated home
    extension = agent_dir / "extensions" / "harness-approvals.ts"
    if request.builtin_approvals:
        extension.parent.mkdir(exist_ok=True)
        source = Path(__file__).with_name("pi") / "harness-approvals.ts"
        extension.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    elif extension.exists():
        extension.unlink()
    env.update(HOME=str(home), PI_CODING_AGENT_DIR=str(agent_dir), PI_OFFLINE="1")
    return Launch(request.command, env, isolated=True)


def isolated_environ(launch: Launch, overrides: Mapping[str, str]) -> dict[str, str]:
    """The agent's full environment: ``os.environ``, minus credentials when isolated, plus the launch's and ``overrides``."""
    env = dict(os.environ)
    if launch.isolated:
        env = {k: v for k, v in env.items() if not k.endswith("_API_KEY") and not k.startswith(_DROPPED_PREFIXES)}
    env.update(launch.env)
    env.update(overrides)
    return env


PROFILES: Final[Mapping[str, AgentProfile]] = {
    "codex-acp": AgentProfile(
        name="codex-acp",
        command=("codex-acp",),
        install="npm install @zed-industries/codex-acp@0.16.0 (bundles the native binary); reads the Codex config",
        session_modes=frozenset({"read-only", "auto", "full-access"}),
        reject_ends_turn=True,
        writes_config=True,
        launch=_codex_launch,
        noise=_codex_noise,
        skills_how="installed in CODEX_HOME/skills/<name>/SKILL.md of the Codex home the adapter writes",
        step_signal="usage",
    ),
    "pi-acp": AgentProfile(
        name="pi-acp",
        command=("pi-acp",),
        install="npm install pi-acp@0.0.34 @earendil-works/pi-coding-agent@1.6.0 (pi >= 0.81, node >= 22.19)",
        honours_mcp_servers=False,
        asks_permission=False,
        mcp_in_config=True,
        approvals_in_config=True,
        permission_call=_pi_permission_call,
        writes_config=True,
        launch=_pi_launch,
        noise=_pi_noise,
        skills_how="installed in pi's skills folder of the private home the adapter writes "
                   "(PI_CODING_AGENT_DIR/skills); pi lists them in its system prompt",
        step_signal="calls",
    ),
}
"""The known agent profiles, by name."""


def result_content(profile: AgentProfile | None) -> frozenset[str]:
    """The rich host tool result items relayed as MCP content: the profile's, text only
    for a plain ``command`` agent (what it does with an image is unknown)."""
    return profile.result_content if profile is not None else frozenset({"text"})
