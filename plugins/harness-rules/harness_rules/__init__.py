"""harness-rules: permission rules (allow / ask / deny in TOML layers) as an approval policy.

Install it next to harness-core and every session's tool calls are decided by the rules in
``~/.config/harness/rules.toml``, ``<workspace>/.harness/rules.toml`` and
``<workspace>/.harness/rules.local.toml``; or register a :class:`RulesPolicy` with rules in
code. See docs/rules.md for the rule language and how decisions are made.
"""

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
from ._syntax import Action, CommandPattern, Rule, RuleOrigin, compile_command_pattern, parse_rule

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
