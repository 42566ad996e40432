"""The approval policy: rules from files and code, deciding ``harness_approve_call``."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness_core import (
    ApprovalContext,
    ApprovalDecision,
    BuiltinTool,
    HarnessTool,
    ToolCall,
    ToolResources,
    hookimpl,
)

from ._engine import DEFAULT_SEARCH_LIMIT, CallFacts, RuleEngine, RuleVerdict
from ._extract import baseline_resources, malformed_path, missing_input
from ._facts import canonical_names
from ._files import RuleLayer, discover_rule_files, rules_from_mapping
from ._names import SEARCH_TOOLS
from ._protect import protecting_rules
from ._reload import settled_load

__all__ = ["RELOAD_INTERVAL", "RulesPolicy"]

RELOAD_INTERVAL = 1.0
"""Seconds between checks of a workspace's rules files for changes: within that time a
decision reuses the engine without any ``stat()``; a changed file is picked up by the
first decision after it."""

_Stamp = tuple[str, int, int] | tuple[str, None, None]


def _stamp(path: Path) -> _Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return (str(path), None, None)
    return (str(path), st.st_mtime_ns, st.st_size)


class RulesPolicy:
    """Permission rules as a harness-core approval policy (a pluggy plugin object).

    Register it like any plugin: ``create_plugin_manager(plugins=[RulesPolicy(...)])`` or
    ``HarnessAgent(..., plugins=[...])`` where the agent takes plugins. The installed
    ``harness-rules`` distribution also registers one through its entry point, with
    ``discover=True``, so the user/project/local files hold for every session.

    Args:
        rules: rules passed in code, ``{"allow": [...], "ask": [...], "deny": [...]}``
            (the ``code`` layer); checked now.
        cwd: the workspace root used when a call's context has none (default: the process
            working directory at decision time).
        files: rules files to load as ``file`` layers (``harness rules check --rules``);
            a missing file is an error.
        discover: also load the ``user`` (``$XDG_CONFIG_HOME/harness/rules.toml`` or
            ``~/.config/harness/rules.toml``), ``project`` (``<root>/.harness/rules.toml``)
            and ``local`` (``<root>/.harness/rules.local.toml``) files, relative to each
            call's workspace root.
        env: environment for ``HOME`` and ``XDG_CONFIG_HOME`` (default ``os.environ``).
        search_limit: directory entries a search-root walk may look at before asking.
        guard_arguments: deny shell commands whose arguments name (or may expand to) a
            path a ``read``/``edit``/``write`` deny rule covers (``cat .env``), and ask when
            an argument is only known at run time; on by default, ``False`` opts out (see
            :class:`RuleEngine` and docs/rules.md for what that gives up).
        reload_interval: seconds between checks of the rules files for changes (default
            :data:`RELOAD_INTERVAL`); ``0`` checks at every decision.

    Files are re-read when their modification time or size changes, checked at most once
    per :data:`RELOAD_INTERVAL` (one second) per workspace root: decisions in between make no
    ``stat()`` call.

    Raises:
        RulesFileError: a rule passed in code or an explicit file is invalid (at
            construction); a discovered file is invalid (at decision time: the core then
            denies the call naming the plugin and the file:line, failing closed).
    """

    def __init__(
        self,
        rules: Mapping[str, Sequence[str]] | None = None,
        *,
        cwd: str | os.PathLike[str] | None = None,
        files: Sequence[str | os.PathLike[str]] = (),
        discover: bool = False,
        env: Mapping[str, str] | None = None,
        search_limit: int = DEFAULT_SEARCH_LIMIT,
        guard_arguments: bool = True,
        reload_interval: float = RELOAD_INTERVAL,
    ) -> None:
        self._env = env
        self.cwd = None if cwd is None else os.path.abspath(os.fspath(cwd))
        self.discover = discover
        self.search_limit = search_limit
        self.guard_arguments = guard_arguments
        self.reload_interval = reload_interval
        self._code = rules_from_mapping(rules) if rules is not None else None
        self._files = [Path(f) for f in files]
        self._lock = threading.Lock()
        self._layer_cache: dict[str, tuple[_Stamp, RuleLayer]] = {}
        self._source_cache: dict[tuple[str, str | None, str | None], list[tuple[str, Path]]] = {}
        self._engines: dict[tuple[str, tuple[_Stamp, ...]], RuleEngine] = {}
        self._fresh: dict[str, tuple[float, RuleEngine]] = {}
        for path in self._files:
            self._load(path, "file", missing_ok=False)

    # -- configuration -----------------------------------------------------------------

    @property
    def env(self) -> Mapping[str, str]:
        """The environment consulted for ``HOME`` and ``XDG_CONFIG_HOME``."""
        return os.environ if self._env is None else self._env

    @property
    def home(self) -> str:
        """The home directory ``~`` resolves to."""
        return self.env.get("HOME") or os.path.expanduser("~")

    def workspace_root(self, context: ApprovalContext | None = None) -> str:
        """The root for a call: the context's workspace root, else ``cwd``, else the
        process working directory."""
        if context is not None and context.workspace_root:
            root = context.workspace_root
            found = _ABSOLUTE.get(root)
            if found is None:
                found = os.path.abspath(root)
                if root.startswith("/"):  # a pure string function for an absolute path (bounded cache)
                    if len(_ABSOLUTE) > 256:
                        _ABSOLUTE.clear()
                    _ABSOLUTE[root] = found
            return found
        return self.cwd or os.getcwd()

    def _sources(self, root: str) -> list[tuple[str, Path]]:
        env = self.env
        key = (root, env.get("HOME"), env.get("XDG_CONFIG_HOME"))
        sources = self._source_cache.get(key)
        if sources is None:
            sources = discover_rule_files(root, env) if self.discover else []
            sources.extend(("file", path) for path in self._files)
            if len(self._source_cache) > 64:
                self._source_cache.clear()
            self._source_cache[key] = sources
        return sources

    def _load(self, path: Path, layer: str, *, missing_ok: bool) -> RuleLayer:
        stamp = _stamp(path)
        key = f"{layer}\x00{path}"
        cached = self._layer_cache.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        loaded = settled_load(path, layer, None if cached is None else cached[1], missing_ok=missing_ok)
        self._layer_cache[key] = (stamp, loaded)
        return loaded

    def layers(self, workspace_root: str | os.PathLike[str] | None = None) -> list[RuleLayer]:
        """The rule layers in force for ``workspace_root``, in order: user, project, local,
        code, then explicit files.

        Raises:
            RulesFileError: a file is invalid.
        """
        root = os.path.abspath(os.fspath(workspace_root)) if workspace_root is not None else self.workspace_root()
        with self._lock:
            layers = [self._load(path, layer, missing_ok=layer != "file") for layer, path in self._sources(root)]
        if self._code is not None:
            index = 3 if self.discover else 0
            layers.insert(index, self._code)
        return layers

    def engine(self, workspace_root: str) -> RuleEngine:
        """The :class:`RuleEngine` for a workspace root (cached until a file changes).

        Raises:
            RulesFileError: a file is invalid.
        """
        now = time.monotonic()
        fresh = self._fresh.get(workspace_root)
        if fresh is not None and now - fresh[0] < self.reload_interval:
            return fresh[1]
        engine = self._engine(workspace_root)
        if len(self._fresh) > 64:
            self._fresh.clear()
        self._fresh[workspace_root] = (now, engine)
        return engine

    def _engine(self, workspace_root: str) -> RuleEngine:
        stamps = tuple(_stamp(path) for _, path in self._sources(workspace_root))
        key = (workspace_root, stamps)
        with self._lock:
            engine = self._engines.get(key)
        if engine is not None:
            return engine
        layers = self.layers(workspace_root)
        protect = protecting_rules(self._sources(workspace_root))
        engine = RuleEngine([*(r for layer in layers for r in layer.rules), *protect], home=self.home,
                            search_limit=self.search_limit, guard_arguments=self.guard_arguments)
        with self._lock:
            if len(self._engines) > 64:
                self._engines.clear()
            self._engines[key] = engine
        return engine

    # -- deciding ------------------------------------------------------------------------

    def evaluate(self, call: ToolCall, context: ApprovalContext) -> RuleVerdict:
        """The rules' verdict on one call (``none`` when no rule has an opinion).

        Raises:
            RulesFileError: a rules file is invalid.
        """
        root = self.workspace_root(context)
        return self.engine(root).decide(facts_for(call, context, root))

    @hookimpl
    def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> ApprovalDecision | None:
        """The ``harness_approve_call`` hook: allow → approved, ask → user-approval,
        deny → denied (explicit decisions, ``fallback=False``), no match → ``None``.

        ``details`` carries ``rule``, ``source``, ``line``, ``layer``, ``decision``,
        ``subject`` and every match.
        """
        return self.evaluate(call, context).to_approval()

    def check(self, tool: str | HarnessTool | BuiltinTool, tool_input: Any, *,
              workspace_root: str | os.PathLike[str] | None = None,
              resources: ToolResources | None = None) -> RuleVerdict:
        """Decide a call outside a session (``harness rules check`` uses it).

        Args:
            tool: a tool name (common, native, host or MCP name: common and native built-in
                names use the baseline extractors), or a declared tool.
            tool_input: the call's input.
            workspace_root: the root (default: ``cwd`` or the process working directory).
            resources: what the call touches, overriding any extractor.

        Raises:
            RulesFileError: a rules file is invalid.
        """
        root = os.path.abspath(os.fspath(workspace_root)) if workspace_root is not None else self.workspace_root()
        if isinstance(tool, str):
            builtin = baseline_resources([tool], tool_input) is not None
            call = ToolCall(tool_call_id="check", tool_name=tool, input=tool_input, provider_executed=builtin)
            declared: HarnessTool | BuiltinTool | None = None
        else:
            declared = tool
            native = tool.native_name if isinstance(tool, BuiltinTool) else None
            call = ToolCall(tool_call_id="check", tool_name=tool.name, input=tool_input,
                            provider_executed=isinstance(tool, BuiltinTool), native_tool_name=native)
        if resources is None and declared is not None:
            resources = declared.resources_for(tool_input)
        context = ApprovalContext(harness_id="rules-check", tool=declared, resources=resources,
                                  workspace_root=root)
        return self.engine(root).decide(facts_for(call, context, root))


def facts_for(call: ToolCall, context: ApprovalContext, root: str) -> CallFacts:
    """The :class:`CallFacts` of a call: its names, kind, resources and root.

    Built-in calls without resources get the baseline extractors'
    (:mod:`harness_rules._extract`); host tools without resources are matched by name. A
    built-in call whose input lacks what it needs to be judged (a ``bash`` call without a
    command, a ``read`` without a path) is marked ``missing`` (see
    :func:`~harness_rules._extract.missing_input`).
    """
    tool = context.tool
    names = {call.tool_name}
    if call.native_tool_name:
        names.add(call.native_tool_name)
    if isinstance(tool, BuiltinTool):
        names.update((tool.name, tool.native_name))
    elif isinstance(tool, HarnessTool):
        names.add(tool.name)
    builtin = call.provider_executed or isinstance(tool, BuiltinTool)
    resources = context.resources
    frozen = frozenset(names)
    if resources is None and builtin:
        resources = baseline_resources(sorted(names), call.input)
    canonical = canonical_names(frozen)
    malformed = malformed_path(names, canonical, call.input) if builtin else None
    if malformed is not None:  # never judge the text an extractor made of a list or a number
        resources = ToolResources(paths=(".",) if canonical & SEARCH_TOOLS else ())
    missing = malformed or (missing_input(names, call.input, resources, canonical) if builtin else None)
    excludes: tuple[str, ...] = ()
    can_exclude = False
    if builtin and isinstance(tool, BuiltinTool):
        can_exclude = _takes_exclude(tool)
        raw = call.input.get("exclude") if can_exclude and isinstance(call.input, Mapping) else None
        if can_exclude and isinstance(raw, Sequence) and not isinstance(raw, str):
            excludes = tuple(e for e in raw if isinstance(e, str))
    return CallFacts(frozen, builtin, resources, root, call.tool_name, missing, excludes, can_exclude)


_ABSOLUTE: dict[str, str] = {}
"""Absolute workspace roots, normalized (:func:`os.path.abspath`), by root as given."""
_EXCLUDING: dict[int, tuple[BuiltinTool, bool]] = {}
"""Whether a built-in tool declares an ``exclude`` input, by the tool's identity (the entry
keeps the tool alive, so the identity is not reused; a tool is frozen, schema included)."""


def _takes_exclude(tool: BuiltinTool) -> bool:
    entry = _EXCLUDING.get(id(tool))
    if entry is not None and entry[0] is tool:
        return entry[1]
    properties = tool.input_schema.get("properties") if isinstance(tool.input_schema, Mapping) else None
    found = isinstance(properties, Mapping) and "exclude" in properties
    if len(_EXCLUDING) > 256:
        _EXCLUDING.clear()
    _EXCLUDING[id(tool)] = (tool, found)
    return found
