"""The permission rules attacked, round 4: an execution-differential fuzzer (:mod:`shell_fuzz`).

Thousands of generated command lines (seeded) were judged under round 3's ``broad`` and
``wild`` rule sets, and every line allowed was run with bash in a shimmed workspace
(:func:`shell_fuzz.run`). The classes it and the hand-picked follow-ups found:

* **a command or process substitution spanning lines**: bashlex reads only the first line
  of ``$(true<newline>rm victim)`` (and of the backtick form), so the later
  lines were never judged: ``echo "$(true<newline>rm victim)"`` was allowed by
  ``bash(echo *)`` and ``bash(true)``;
* **shell options that change how later commands are read**: ``set -k`` / ``set -o
  keyword`` (an assignment anywhere on a command line goes to the environment: ``cat victim
  PATH=out:...`` runs ``out/cat``), the same through ``bash -k``, ``shopt -so keyword``;
  ``set -o posix`` (aliases expanded in a non-interactive shell). ``set``, ``shopt`` and
  ``bash -o``/``-O`` options are now allow-lists (:mod:`harness_rules._shell_options`);
* **builtins that run commands**: ``history -s 'cat .env'; fc -s`` runs the text put in
  the history (``fc -e CMD`` runs CMD as the editor; only ``fc -l`` is inert now), and
  ``jobs -x CMD`` runs CMD (now a harmless wrapper: CMD is judged);
* **programs running a program named by an option**: ``sort --compress-program=bash``
  (bash runs the sorted lines of a large input), ``split --filter=CMD``, ``install
  --strip-program=bash`` (runs the installed file as a script), and GNU long-option abbreviations of the
  options the rules already ask about (``tar --checkpoint-ac=exec=CMD``, ``--use-compress=``,
  ``wc --files0=``);
* **bash's own tables assigned as variables**: ``BASH_CMDS`` (the command hash: ``cat``
  runs ``/bin/rm``) and ``BASH_ALIASES``, assigned by ``declare -A NAME='(...)'`` (a quoted
  compound assignment); every ``BASH_*`` name, ``DIRSTACK`` and ``POSIXLY_CORRECT`` are now
  code variables.

The fuzzer also compared the fast lexer's words with the argv bash gives a command for
thousands of lines of its subset (``#``, ``=`` words, quotes, ``\\r``, ``\\v``, ``\\f``,
non-ASCII blanks): no difference (:func:`test_the_fast_lexer_reads_words_as_bash_does`).
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # --import-mode=importlib: the helper modules sit here
import shell_fuzz
from harness_rules._fastlex import lex
from test_rules_adversarial_round2 import _bash
from test_rules_adversarial_round3 import _decisions, _policy
from test_rules_plain_judge_adversarial import _build, _check

BASH = shutil.which("bash")
EVIL_CAT = "cp /bin/rm out/cat"
"""Setup: a ``cat`` that removes its operands in ``out/`` (round 3's)."""

BYPASSES: list[tuple[str, str, str, str, str]] = [
    # (setup, command judged and run, what bash shows ("": victim removed), rules, why)
    ("", 'echo "$(true\nrm victim)"', "", "broad",
     "bashlex reads only the first line of a command substitution: `rm victim` was never judged"),
    ("", "echo $(true\ncat .env)", "TOKEN=1", "broad", "unquoted, reading .env"),
    ("", "x=`true\nrm victim`", "", "broad", "the backtick form, in an assignment"),
    ("", "echo $(true # )\nrm victim)", "", "broad",
     "a comment hides a `)` from a textual scan of the substitution (found checking the first fix)"),
    ("", 'echo "$(true # )\ncat .env)"', "TOKEN=1", "wild", "the same, reading .env"),
    ("", 'printf %s "$(hash -d cat 2>/dev/null\nhead -c99 .env)"', "TOKEN=1", "wild",
     "the fuzzer's own find (seed 3), before minimizing"),
    (EVIL_CAT, "set -k; cat victim PATH=out:/usr/bin:/bin", "", "broad",
     "`set -k` puts assignment words anywhere in the environment: cat is looked up in out/"),
    (EVIL_CAT, "set -o keyword; cat victim PATH=out:/usr/bin:/bin", "", "broad", "the -o spelling"),
    (EVIL_CAT, "bash -k -c 'cat victim PATH=out:/usr/bin:/bin'", "", "broad", "a shell started with -k"),
    (EVIL_CAT, "shopt -so keyword; cat victim PATH=out:/usr/bin:/bin", "", "wild", "shopt -o sets set's options"),
    ("", "declare -A BASH_CMDS='([cat]=/bin/rm)'; cat victim", "", "broad",
     "BASH_CMDS is the command hash: a quoted compound assignment makes cat run /bin/rm"),
    ("", "declare -A BASH_CMDS='([basename]=/bin/cat)'; basename .env", "TOKEN=1", "wild",
     "basename never opens its arguments, so .env is not guarded: it runs cat"),
    ("", "set -o posix; declare -A BASH_ALIASES='([ls]=\"cat .env\")'\nls", "TOKEN=1", "broad",
     "posix mode expands aliases in bash -c; BASH_ALIASES defines one without `alias`"),
    ("", "history -s 'cat .env'; fc -s", "TOKEN=1", "wild",
     "`fc -s` runs the last history entry, which `history -s` set to any text (even in bash -c)"),
    ("", "tar --checkpoint=1 --checkpoint-ac=exec='cat .e''nv' -c --file=/dev/null README.md", "TOKEN=1", "broad",
     "GNU tar takes any unambiguous prefix of a long option: `--checkpoint-ac` is `--checkpoint-action`"),
    ("yes 'read -r l < .env; echo $l >&2' | head -n 12000 > out/x", "sort -S 64k -T out --compress-program=bash out/x > /dev/null",
     "TOKEN=1", "broad", "sort pipes its temporary files through the program named: bash runs the sorted lines"),
    ("", "split --filter='cat .e\"\"nv' README.md", "TOKEN=1", "broad", "split --filter runs a shell command per piece"),
    ("", "split --f='rm victim' README.md out/p", "", "broad", "`--f` abbreviates `--filter`"),
    ("printf 'cat .env\\n' > out/s", "install -s --strip-program=bash out/s out/t", "TOKEN=1", "broad",
     "install runs the strip program on the installed file: bash runs it as a script the line does not name"),
    ("", "jobs -x cat .env", "TOKEN=1", "wild",
     "`jobs -x CMD` runs CMD; jobs was a command that never opens its arguments, so .env was not guarded"),
]


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """One adversarial workspace for the tests that only judge."""
    return _build(tmp_path_factory.mktemp("round4").resolve())


@pytest.mark.parametrize(("rules", "command"), [pytest.param(r, c, id=c) for _, c, _, r, _ in BYPASSES])
def test_bypasses_round4(shared: tuple[Path, Path, Path], rules: str, command: str,
                         monkeypatch: pytest.MonkeyPatch) -> None:
    ws, home, _ = shared
    assert _decisions(command, ws, home, monkeypatch, rules) <= {"ask", "deny"}, command


@pytest.mark.skipif(BASH is None, reason="needs bash")
@pytest.mark.parametrize(("setup", "command", "shown", "rules"),
                         [pytest.param(s, c, w, r, id=c) for s, c, w, r, _ in BYPASSES])
def test_the_round4_bypasses_are_real(tmp_path: Path, setup: str, command: str, shown: str, rules: str) -> None:
    """Each bypass, run with bash after its setup, removes ``victim`` or prints the denied file."""
    ws, home, _ = _build(tmp_path.resolve())
    (ws / "victim").write_text("v\n")
    output = _bash(f"{setup}\n{command}" if setup else command, ws, home)
    assert (shown in output) if shown else not (ws / "victim").exists(), output
    assert _check(_policy(rules, home), command, ws)["decision"] in ("ask", "deny"), command  # refused now


ASKED = [
    "set -o posix", "set -eo allexport", "set -ek", "shopt -s xpg_echo", "shopt -s extdebug", "shopt -so posix",
    "shopt -s -o keyword", "history -s x; fc -e 'rm victim'", "bash --posix -c 'ls'", "bash -o posix -c 'ls'", "bash -O xpg_echo -c 'echo x'",
    "bash -O expand_aliases build.sh", "POSIXLY_CORRECT=1; ls", "export POSIXLY_CORRECT=1", "read -a BASH_ALIASES <<< x",
    "declare -A BASH_ALIASES='([ls]=pwd)'", "BASH_CMDS[ls]=/bin/ls; ls", "export BASH_XTRACEFD=3", "DIRSTACK[1]=secrets",
    'echo "$(true\necho x)"', "echo `true\necho x`", "set -- $(true\necho x)",
]


@pytest.mark.parametrize("command", ASKED)
def test_shapes_the_rules_cannot_follow_are_asked_about(shared: tuple[Path, Path, Path], command: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    ws, home, _ = shared
    assert _decisions(command, ws, home, monkeypatch, "wild") <= {"ask", "deny"}, command


DENIED = ["bash -O extglob <<< 'rm victim'", "bash -k -c 'rm victim'", "set -k; rm victim",
          'echo "$(true\ncat .env)"', "echo $(echo x\nrm victim)", "cat <(true\nrm victim)"]


@pytest.mark.parametrize("command", DENIED)
def test_deny_still_wins_under_options_and_multiline_substitutions(shared: tuple[Path, Path, Path], command: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    ws, home, _ = shared
    assert _decisions(command, ws, home, monkeypatch) == {"deny"}, command


ALLOWED = [
    ("broad", "set -euo pipefail; cat README.md"), ("broad", "set -e"), ("broad", "set -x; echo hi"),
    ("broad", "set +e"), ("broad", "set -o pipefail"), ("broad", "set -- a b; echo $1"), ("broad", "set x -k"),
    ("broad", "set -o"), ("broad", "set -eux -o pipefail; wc -l README.md"), ("broad", "echo \"$(cat README.md)\""),
    ("broad", "echo $(wc -l README.md)"), ("broad", "echo $(cat README.md\n)"), ("broad", "echo $(echo a |\ncat)"),
    ("broad", "echo \"$(cat <<'EOF'\nmsg (don't)\nEOF\n)\""), ("broad", "x=`head -1 README.md`; echo $x"),
    ("broad", "export FOO_BASH=1"), ("wild", "shopt -s lastpipe; echo x"), ("wild", "shopt -s inherit_errexit"),
    ("wild", "shopt -q extglob"), ("wild", "shopt -p"), ("wild", "bash -euo pipefail -c 'cat README.md'"),
    ("wild", "bash -lc 'cat README.md'"), ("wild", "fc -l"), ("wild", "fc -ln -5"),
    ("broad", "jobs -x cat README.md"), ("wild", "jobs -l"), ("broad", "tar --checkpoint=10 -c --file=/dev/null README.md"),
    ("broad", "sort -S 64k -o out/s README.md"), ("broad", "split -l 10 README.md out/p"),
    ("broad", "install -m644 README.md out/t"), ("broad", "tar -c --file=/dev/null --format=posix README.md"), ("wild", "bash -O lastpipe -c 'echo x'"), ("wild", "bash -e -x script.sh"),
]


@pytest.mark.parametrize(("rules", "command"), ALLOWED)
def test_harmless_shapes_stay_allowed(shared: tuple[Path, Path, Path], rules: str, command: str,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    ws, home, _ = shared
    assert _decisions(command, ws, home, monkeypatch, rules) == {"allow"}, command


# -- the fuzzer, bounded: a later regression of a class it reaches fails here ------------------

FUZZ_SEED, FUZZ_CASES = 4, 1500


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_fuzzed_lines_the_rules_allow_do_nothing_denied(tmp_path: Path) -> None:
    """Generated lines (seeded) judged under ``broad`` and ``wild``; each one allowed is run
    with bash in a shimmed workspace and must show no denied command, file or write."""
    ws, home, _, _ = shell_fuzz.workspace(tmp_path.resolve() / "judge")
    policies = {name: _policy(name, home) for name in ("broad", "wild")}
    rng = random.Random(FUZZ_SEED)
    bypasses, allowed = [], 0
    for case in range(FUZZ_CASES):
        line = shell_fuzz.generate(rng)
        for name, policy in policies.items():
            if _check(policy, line, ws)["decision"] != "allow":
                continue
            allowed += 1
            shown = shell_fuzz.run(line, tmp_path / f"run{case}{name}", curl_denied=name == "broad")
            if shown:
                bypasses.append((name, line, shown))
    assert allowed > 10  # the generator still reaches the allow path
    assert not bypasses, bypasses


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_the_fast_lexer_reads_words_as_bash_does(tmp_path: Path) -> None:
    """For generated lines the fast lexer accepts, every command bash runs got the words
    the lexer read (commands are all ``p``, a program logging its argv)."""
    (tmp_path / "bin").mkdir()
    (tmp_path / "out").mkdir()
    log = tmp_path / "log"
    program = tmp_path / "bin" / "p"
    program.write_text(f'#!{sys.executable}\nimport sys\nopen({str(log)!r}, "a").write(repr(sys.argv[1:]) + "\\n")\n')
    program.chmod(0o755)
    assert BASH is not None
    taken = 0
    for line in shell_fuzz.lexer_lines(random.Random(7), 400):
        lines = lex(line)
        if lines is None:
            continue
        taken += 1
        read = Counter(repr(cmd.words[1:]) for items in lines for item in items if not isinstance(item, str)
                       for cmd in item if cmd.words and cmd.words[0] == "p")
        log.unlink(missing_ok=True)
        subprocess.run([BASH, "-c", f"{line}\nwait"], cwd=tmp_path, env={"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin"},
                       capture_output=True, timeout=10, check=False)
        ran = Counter(log.read_text().splitlines() if log.exists() else [])
        assert not ran - read, (line, ran, read)  # `||`/`&&` may skip commands, never run others
    assert taken > 100
