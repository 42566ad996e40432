"""harness-rules: permission rules (allow / ask / deny in TOML layers) as an approval policy.

Install it next to harness-core and every session's tool calls are decided by the rules in
``~/.config/harness/rules.toml``, ``<workspace>/.harness/rules.toml`` and
``<workspace>/.harness/rules.local.toml``; or register a :class:`RulesPolicy` with rules in
code. See docs/rules.md for the rule language and how decisions are made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness_core import lazy_exports

if TYPE_CHECKING:
    from ._engine import CallFacts, RuleEngine, RuleMatch, RuleVerdict
    from ._errors import RulesError, RulesFileError, RuleSyntaxError
    from ._extract import BASELINE_BUILTINS, baseline_resources
    from ._files import (
        LAYERS,
        RuleLayer,
        discover_rule_files,
        load_rules_file,
        parse_rules_text,
        rules_from_mapping,
        user_rules_path,
    )
    from ._names import canonical_tool
    from ._policy import RulesPolicy, facts_for
    from ._shell import ShellAnalysis, analyze_command
    from ._syntax import (
        Action,
        CommandPattern,
        Rule,
        RuleOrigin,
        compile_command_pattern,
        parse_rule,
    )

__all__ = [
    "BASELINE_BUILTINS",
    "LAYERS",
    "Action",
    "CallFacts",
    "CommandPattern",
    "Rule",
    "RuleEngine",
    "RuleLayer",
    "RuleMatch",
    "RuleOrigin",
    "RuleSyntaxError",
    "RuleVerdict",
    "RulesError",
    "RulesFileError",
    "RulesPolicy",
    "ShellAnalysis",
    "analyze_command",
    "baseline_resources",
    "canonical_tool",
    "compile_command_pattern",
    "discover_rule_files",
    "facts_for",
    "load_rules_file",
    "parse_rule",
    "parse_rules_text",
    "rules_from_mapping",
    "user_rules_path",
]

_LAZY: dict[str, str] = {
    "Action": "._syntax",
    "BASELINE_BUILTINS": "._extract",
    "CallFacts": "._engine",
    "CommandPattern": "._syntax",
    "LAYERS": "._files",
    "Rule": "._syntax",
    "RuleEngine": "._engine",
    "RuleLayer": "._files",
    "RuleMatch": "._engine",
    "RuleOrigin": "._syntax",
    "RuleSyntaxError": "._errors",
    "RuleVerdict": "._engine",
    "RulesError": "._errors",
    "RulesFileError": "._errors",
    "RulesPolicy": "._policy",
    "ShellAnalysis": "._shell",
    "analyze_command": "._shell",
    "baseline_resources": "._extract",
    "canonical_tool": "._names",
    "compile_command_pattern": "._syntax",
    "discover_rule_files": "._files",
    "facts_for": "._policy",
    "load_rules_file": "._files",
    "parse_rule": "._syntax",
    "parse_rules_text": "._files",
    "rules_from_mapping": "._files",
    "user_rules_path": "._files",
}
"""Public name -> defining module, imported on first use (PEP 562): plugin discovery imports
:mod:`harness_rules.plugin` through this package and must not load the engine or bashlex."""


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
