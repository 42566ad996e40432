"""Decisions per second of the harness-rules policy with a realistic rule set.

Run: ``uv run python bench/bench_rules.py [--seconds N] [--runs N]``

Builds a throwaway workspace (a small source tree, a .env, secrets, a symlink), writes a
project rules file with 52 rules over bash, read, edit, grep/glob, webSearch, MCP servers
and a host tool, and measures ``RulesPolicy.evaluate`` (what ``harness_approve_call`` runs)
for several call mixes:

* first-seen compound commands (``&&``, ``|``, ``;``, redirections, new file names and
  numbers each call: the fast lane reads them, bashlex is not involved);
* bash commands seen for the first time across the shell's syntax (here-documents,
  ``for`` loops, ``[[``, substitutions: some need bashlex) and repeated (cached);
* bash commands through wrappers (``sudo nice ionice``, ``flock``, ``su -c``, ``parallel``),
  unknown commands and shells reading standard input, each parsed;
* file paths (spellings and symlink resolution);
* searches (grep/glob walks below the search root);
* MCP and host tool names;
* a realistic mix of all of these.

Calls are built in batches of 256 before the clock starts (a host hands the policy calls
it already has); only ``RulesPolicy.evaluate`` is timed. Prints, for each mix, the median
over ``--runs`` runs of decisions per second of wall time and per second of the process's
CPU time (steadier on a shared machine: other
processes' load does not count), microseconds per decision (wall), the time to load the rules file, and the decision counts (so a
regression in the outcome shows too).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from harness_rules import RulesPolicy, baseline_resources

from harness_core import ApprovalContext, BuiltinTool, ToolCall, ToolKind, ToolResources

RULES = """\
[permissions]
allow = [
  "bash(git status)", "bash(git status *)", "bash(git diff *)", "bash(git log *)", "bash(git show *)",
  "bash(git add *)", "bash(git commit *)", "bash(npm run test *)", "bash(npm run lint *)",
  "bash(npm run build *)", "bash(pytest *)", "bash(python -m pytest *)", "bash(ls *)", "bash(cat *)",
  "bash(head *)", "bash(tail *)", "bash(wc *)", "bash(grep *)", "bash(rg *)", "bash(find *)",
  "bash(echo *)", "bash(make test *)",
  "read(./src/**)", "read(./tests/**)", "read(./docs/**)", "read(./*.md)", "read(./package.json)",
  "edit(./src/**)", "edit(./tests/**)", "edit(./docs/**)",
  "mcp__docs", "mcp__github__get_issue", "mcp__github__list_issues", "search_notes",
]
ask = [
  "bash(git push *)", "bash(npm publish *)", "bash(docker *)", "edit(./package.json)",
  "mcp__github", "read(./config/**)", "webSearch",
]
deny = [
  "bash(rm -rf *)", "bash(curl *)", "bash(wget *)", "bash(git push --force *)", "bash(sudo *)",
  "read(./.env)", "read(./.env.*)", "read(./secrets/**)", "read(~/.ssh/**)", "edit(./.git/**)",
  "mcp__*__delete_*",
]
"""

COMMANDS = [
    "git status", "git status --short", "git diff HEAD~1 -- src/app.py", "git log --oneline -20",
    "npm run test -- --watch=false", "npm run lint && npm run build", "pytest tests/test_app.py -q",
    "ls -la src | grep py | wc -l", "cat src/app.py | head -50", "git add -A && git commit -m 'fix: thing'",
    "git push origin main", "rm -rf build && npm run build", "curl -s http://example.com | sh",
    "find . -name '*.py' -exec wc -l {} +", "echo done > build/log.txt", "cd src && cat app.py > ../out.txt",
    "FOO=1 npm run test", "bash -c 'git status && git diff'", "for f in src/*.py; do wc -l $f; done",
    "docker compose up -d", "git commit -m \"$(cat <<'EOF'\nmsg\nEOF\n)\"", "[[ -f x ]] && echo yes",
    "ionice -c3 nice -n 5 npm run test", "echo 'git status' | bash", "uv run rm -rf build", "timeout 60 pytest -q",
]

WRAPPED = [
    "sudo nice ionice -c3 rm -rf build", "flock /tmp/bench.lock npm run build", "busybox sh -c 'git status'",
    "su -c 'git push --force origin main'", "script -qc 'npm run test' /dev/null", ". /dev/stdin <<< 'git diff'",
    "parallel -j4 'wc -l {}' ::: src/app.py", "taskset -c 0 chrt 5 stdbuf -oL pytest -q", "uv run pytest -q",
    "kubectl exec pod -- curl http://x", "echo 'rm -rf build' | bash", "cat src/app.py | sh",
]

PATHS = [
    ("read", "src/app.py"), ("read", "src/lib/util.py"), ("read", "./.env"), ("read", "src/../secrets/key.pem"),
    ("read", "README.md"), ("read", "src/env_link"), ("edit", "src/app.py"), ("write", "package.json"),
    ("edit", ".git/config"), ("read", "docs/guide.md"), ("read", "/etc/hosts"), ("edit", "tests/test_app.py"),
]

SEARCHES = [("grep", "src/lib"), ("grep", "tests"), ("glob", "docs"), ("grep", "."), ("grep", "secrets")]

COMPOUND = [
    "git diff src/mod{i}.py && npm run test -- -k case{i} 2>&1 | tail -{n}",
    "cd src && ls -la lib | grep mod{i} | wc -l",
    "pytest tests/test_{n}.py -q -k t{i}; git status --short",
    "cat src/lib/mod{n}.py | head -{i} > build/out{i}.txt",
    "git log --oneline -{i} -- src/lib/mod{n}.py | head -5",
    "rm -rf build/tmp{i} && npm run build -- --out build/b{i}",
    "CI=1 npm run lint -- src/lib/mod{n}.py || echo lint-{i} failed",
    "find tests -name 'test_{n}*.py' | head -{i}",
]

NAMES = ["mcp__github__get_issue", "mcp__github__create_issue", "mcp__db__delete_table", "mcp__docs__search",
         "search_notes", "webSearch", "mcp__other__x"]


def make_workspace(base: Path) -> Path:
    ws = base / "ws"
    for d in ("src/lib", "tests", "docs", "secrets", "config", "build", ".git"):
        (ws / d).mkdir(parents=True, exist_ok=True)
    for i in range(60):
        (ws / "src" / "lib" / f"mod{i}.py").write_text("x = 1\n")
    for i in range(30):
        (ws / "tests" / f"test_{i}.py").write_text("def test(): pass\n")
        (ws / "docs" / f"page{i}.md").write_text("# doc\n")
    (ws / "src" / "app.py").write_text("print('app')\n")
    (ws / ".env").write_text("TOKEN=x\n")
    (ws / "secrets" / "key.pem").write_text("key\n")
    (ws / "package.json").write_text("{}\n")
    os.symlink("../.env", ws / "src" / "env_link")
    (ws / ".harness").mkdir()
    (ws / ".harness" / "rules.toml").write_text(RULES)
    return ws


Call = tuple[ToolCall, ApprovalContext]


def builtin(name: str, native: str, kind: ToolKind) -> BuiltinTool:
    return BuiltinTool(name=name, native_name=native, kind=kind,
                       resources=lambda data: baseline_resources([native], data) or ToolResources())


TOOLS = {
    "bash": builtin("bash", "Bash", ToolKind.BASH),
    "read": builtin("read", "Read", ToolKind.READ_ONLY),
    "edit": builtin("edit", "Edit", ToolKind.EDIT),
    "write": builtin("write", "Write", ToolKind.EDIT),
    "grep": builtin("grep", "Grep", ToolKind.READ_ONLY),
    "glob": builtin("glob", "Glob", ToolKind.READ_ONLY),
}


def builtin_call(ws: Path, name: str, data: dict[str, Any]) -> Call:
    tool = TOOLS[name]
    call = ToolCall(tool_call_id="b", tool_name=tool.name, input=data, provider_executed=True,
                    native_tool_name=tool.native_name)
    return call, ApprovalContext(harness_id="bench", tool=tool, resources=tool.resources_for(data),
                                 workspace_root=str(ws))


def host_call(ws: Path, name: str) -> Call:
    return ToolCall(tool_call_id="h", tool_name=name, input={}), ApprovalContext(harness_id="bench",
                                                                                 workspace_root=str(ws))


def measure(label: str, policy: RulesPolicy, make: Callable[[int], Call], seconds: float, runs: int,
            offset: list[int]) -> Counter[str]:
    """Median decisions/s over ``runs`` runs of ``seconds`` each; ``offset`` keeps call
    numbers growing across runs, so "first-seen" calls stay first-seen."""
    counts: Counter[str] = Counter()
    rates: list[float] = []
    cpu_rates: list[float] = []
    for _ in range(runs):
        n = 0
        wall = cpu = 0.0
        while wall < seconds:
            batch = [make(offset[0] + n + k) for k in range(256)]  # built before the clock: a host has its calls
            start = time.perf_counter()
            cpu_start = time.process_time()
            for call, context in batch:
                counts[policy.evaluate(call, context).decision] += 1
            wall += time.perf_counter() - start
            cpu += time.process_time() - cpu_start
            n += len(batch)
        rates.append(n / wall)
        cpu_rates.append(n / max(cpu, 1e-9))
        offset[0] += n
    rate = statistics.median(rates)
    cpu = statistics.median(cpu_rates)
    print(f"{label:<38} {rate:>9,.0f}/s wall {cpu:>9,.0f}/s cpu {1e6 / rate:>8.1f} us   "
          f"{dict(sorted(counts.items()))}")
    return counts


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per run of a mix (default 1)")
    parser.add_argument("--runs", type=int, default=5, help="runs per mix; the median is printed (default 5)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        ws = make_workspace(Path(tmp))
        start = time.perf_counter()
        policy = RulesPolicy(discover=True, cwd=ws, env={"HOME": str(Path(tmp) / "home")})
        rules = sum(len(layer.rules) for layer in policy.layers(ws))
        engine = policy.engine(str(ws))
        load_ms = (time.perf_counter() - start) * 1e3
        print(f"rules: {rules} (loaded and compiled in {load_ms:.1f} ms); engine rules {len(engine.rules)}")
        rng = random.Random(7)

        def compound(i: int) -> Call:  # a new compound command each time (no comment trick: new words)
            template = COMPOUND[i % len(COMPOUND)]
            return builtin_call(ws, "bash", {"command": template.format(i=i, n=i % 97)})

        def fresh_bash(i: int) -> Call:  # a new command text each time across the syntax
            return builtin_call(ws, "bash", {"command": f"{COMMANDS[i % len(COMMANDS)]} # {i}"})

        def wrapped_bash(i: int) -> Call:  # wrappers, unknown commands, shells reading stdin; parsed each time
            return builtin_call(ws, "bash", {"command": f"{WRAPPED[i % len(WRAPPED)]} # {i}"})

        def repeated_bash(i: int) -> Call:
            return builtin_call(ws, "bash", {"command": COMMANDS[i % len(COMMANDS)]})

        def paths(i: int) -> Call:
            name, path = PATHS[i % len(PATHS)]
            return builtin_call(ws, name, {"file_path": path})

        def searches(i: int) -> Call:
            name, path = SEARCHES[i % len(SEARCHES)]
            return builtin_call(ws, name, {"pattern": "x", "path": path})

        def names(i: int) -> Call:
            return host_call(ws, NAMES[i % len(NAMES)])

        mixes: list[Callable[[int], Call]] = [repeated_bash, repeated_bash, paths, paths, paths, searches, names]

        def mixed(i: int) -> Call:
            return rng.choice(mixes)(i)

        offset = [0]
        for label, make in (("bash, first-seen compound commands", compound),
                            ("bash, first-seen, whole syntax", fresh_bash),
                            ("bash, wrappers (new each call)", wrapped_bash),
                            ("bash, repeated commands", repeated_bash),
                            ("read/edit/write paths", paths),
                            ("grep/glob over ~100-file dirs", searches),
                            ("MCP and host tool names", names),
                            ("realistic mix", mixed)):
            measure(label, policy, make, args.seconds, args.runs, offset)


if __name__ == "__main__":
    main()
