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
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Final

import attrs

__all__ = ["PROFILES", "AgentProfile", "Launch", "LaunchRequest", "find_codex_acp_binary"]

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
    return text.startswith("pi v") and text.rstrip().endswith("---")


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
        asks_permission: the agent sends ``session/request_permission`` before the built-in
            calls the host wants to decide (so the adapter supports built-in approvals).
        reject_ends_turn: rejecting a permission request makes the agent end the prompt
            (``stopReason: cancelled``); the adapter then tells the agent why and continues.
        writes_config: :attr:`launch` writes the agent's config from ``base_url``/``model``.
        launch: builds the :class:`Launch` for a session.
        noise: tells agent message text that is the agent talking about itself (a startup
            banner, a config warning), dropped from the stream.
    """

    name: str
    command: tuple[str, ...]
    install: str
    session_modes: frozenset[str] = frozenset()
    honours_mcp_servers: bool = True
    asks_permission: bool = True
    reject_ends_turn: bool = False
    writes_config: bool = False
    launch: Callable[[LaunchRequest], Launch] = _plain
    noise: Callable[[str], bool] = _never


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


def _codex_launch(request: LaunchRequest) -> Launch:
    head, *rest = request.command
    argv = [find_codex_acp_binary(head) if Path(head).name == "codex-acp" else head, *rest]
    # "untrusted" asks before every command Codex does not know to be read-only, and
    # before every edit; "never" runs everything (the host asked for no approvals).
    policy = "untrusted" if request.builtin_approvals else "never"
    argv += ["-c", f"approval_policy={_toml(policy)}"]
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
                "models": [{"id": model, "contextWindow": 128000, "maxTokens": 4096}]}
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"harness": provider}}), encoding="utf-8")
    settings = {"defaultProvider": "harness", "defaultModel": model}
    (agent_dir / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
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
    ),
    "pi-acp": AgentProfile(
        name="pi-acp",
        command=("pi-acp",),
        install="npm install pi-acp@0.0.34 @earendil-works/pi-coding-agent@1.6.0 (pi >= 0.81, node >= 22.19)",
        honours_mcp_servers=False,
        asks_permission=False,
        writes_config=True,
        launch=_pi_launch,
        noise=_pi_noise,
    ),
}
"""The known agent profiles, by name."""
