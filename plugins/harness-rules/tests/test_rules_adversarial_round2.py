"""The permission rules attacked, round 2: shell state changed by builtins earlier on the same
line (``shopt``, ``set -f``, ``alias``, ``enable``, ``hash -p``, ``export`` of variables that
change what runs), wildcards across directories, ``/proc``/``/dev/fd`` spellings, file reads by
options (``xargs -a``), here-strings into interpreters, tree readers given a directory holding
denied entries, writers (``sed -i``, ``tee -a``, ``install``, ``touch -r``), ``read``/``mapfile``
from files, and the file tools with tricky paths.

Every shape here was run with bash 5 in a throwaway workspace (the adversarial workspace of
``test_rules_plain_judge_adversarial``) to see whether it reaches a denied file or runs a
denied command. Shapes the policy gets right are plain tests (so they stay right). Each bypass
found (``<>`` reads, ``sed``/``tar``/``rg``/``git -c`` running commands, exported code
variables, ``set -P``, ``xargs -a``, names read from input...) was fixed; its test now
requires a refusal, and :func:`test_the_bypasses_are_real` runs it with bash to show it
reaches the denied file or command. Only git printing the work tree's tracked files
(:data:`GIT_WORK_TREE`, a documented limit) stays a strict xfail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from harness_rules import RulesPolicy

sys.path.insert(0, str(Path(__file__).parent))  # --import-mode=importlib: the helper modules sit here
from test_rules_plain_judge_adversarial import _analysed, _build, _check, _policy

BASH = shutil.which("bash")


@pytest.fixture
def adv(tmp_path: Path) -> Iterator[tuple[Path, Path, Path]]:
    """A fresh adversarial workspace per test: some shapes are run for real and write."""
    yield _build(tmp_path.resolve())


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, Path]]:
    """One adversarial workspace for the tests that only judge (nothing runs in it)."""
    yield _build(tmp_path_factory.mktemp("round2").resolve())


def _decisions(command: str, ws: Path, home: Path, patch: pytest.MonkeyPatch, rules: str = "default") -> set[str]:
    policy = _policy(rules, home)
    return {_check(policy, command, ws)["decision"], _analysed(policy, command, ws, patch)["decision"]}


def _bash(command: str, ws: Path, home: Path) -> str:
    """Run ``command`` with bash in the workspace (``HOME`` the fixture's home); stdout + stderr (round 3 uses it too)."""
    assert BASH is not None
    env = {"HOME": str(home), "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
    done = subprocess.run([BASH, "-c", command], cwd=ws, env=env, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL, check=False)
    return done.stdout + done.stderr


# -- correctly judged ----------------------------------------------------------------------

DENIED = [
    # shell options set earlier on the line, then a wildcard (docs: shopt glob options asked, deny still wins)
    "shopt -s dotglob; cat *", "shopt -s dotglob && cat *", "shopt -s globstar; cat **/key.pem",
    "shopt -s nullglob; cat .e*", "shopt -u dotglob; cat .e*", "set -f; cat .e*", "set -o noglob; cat *",
    # wildcards across directories, through links
    "cat */key.pem", "cat s*/k*", "cat l*/k*", "cat */*/x.pem", "cat .*", "cat .??*", "cat .[e]nv",
    # /dev/fd, /proc/self spellings of the input redirection or the working directory
    "cat /dev/fd/0 < .env", "cat /proc/self/fd/0 < .env", "cat /proc/self/root/proc/self/cwd/.env",
    "cat /proc/self/../self/cwd/.env", "cat /proc/thread-self/cwd/.env", "cat /dev/stdin < .env",
    "cat -- - < .env", "cat 3<.env /dev/fd/3", "cat <<< x; cat .env",
    # builtins changing later commands, descriptors opened by exec
    "hash -p /bin/cat ls; ls .env", "IFS=e; cat .env", "IFS=; cat .env", "exec 3<.env; cat <&3", "exec 3<.env",
    "exec 3<.env && cat /dev/fd/3", "exec < .env; cat", "exec >.git/config",
    "shopt -s expand_aliases\nalias ls=cat\nls .env", "shopt -s expand_aliases\nalias ls='rm victim'\nls",
    "alias ls='cat .env'; ls",
    # read/mapfile from a denied file
    "read -r line < .env", "read line < .env; echo $line", "mapfile a < .env", "mapfile -t a < .env; echo ${a[0]}",
    "readarray a < .env", "xargs echo < .env",
    # a shell reading a here-string or here-document, under any option or spelling
    "bash <<< 'cat .env'", "sh <<< 'cat .env'", "bash <<EOF\ncat .env\nEOF", "bash <<-EOF\n\tcat .env\n\tEOF",
    "sh -s <<'E'\nrm victim\nE", "bash /dev/stdin <<<'rm victim'", "bash -s -- x <<< 'rm victim'",
    "bash --norc <<< 'rm victim'", "bash -O extglob <<< 'rm victim'", "bash +x <<< 'rm victim'",
    "env bash <<< 'rm victim'", "/bin/sh <<< 'rm victim'", "dash <<< 'rm victim'", "cat <<< 'rm victim' | bash",
    "echo 'rm victim' | bash -s", "source /dev/stdin <<< 'rm victim'", ". /proc/self/fd/0 <<< 'rm victim'",
    "bash /proc/self/fd/0 <<< 'rm victim'", "bash /dev/fd/0 <<< 'rm victim'", "bash 0<<< 'rm victim'",
    "exec bash <<< 'rm victim'", "bash -c 'bash' <<< 'rm victim'", "bash -c 'sh -s' <<< 'rm victim'",
    "bash <<< 'r''m victim'", "bash <<< 'cat .e\"\"nv'", "bash -o posix -s <<< 'rm victim'", "bash -- <<< 'rm victim'",
    "bash -r <<< 'cat .env'", "bash -v /dev/stdin <<< 'rm victim'", "bash -x secrets/key.pem",
    # programs the rules know, with options that read or write a file
    "wc --files0-from=.env", "sort --random-source=.env README.md", "shuf --random-source=.env README.md",
    "git grep -Orm r README.md", "cp --backup=t README.md .git/config", "cp -rt .git src",
    "mkdir -p out; cp -r --parents src/lib .git", "diff -u README.md /dev/fd/3 3<.env", "diff README.md - < .env",
    "sed --follow-symlinks -i s/c/d/ status", "sed -i s/a/b/ gitlink/config",
    "find . -fprint .git/x", "find . -newer .env", "diff --from-file=.env README.md", "touch -r .env src/a.py",
    "tee -a .git/config < README.md", "install -D README.md .git/hooks/x", "mv -t .git README.md",
    "sort --output=.git/x README.md", "tar cf /dev/null -T .env", "rsync -a ./ /dev/null/r/", "zip -r /dev/null/x.zip .",
    "cp -r . /dev/null/x", "tar cf /dev/null .", "cat <(cat .env)", "cat README.md 1<>.git/config",
    # $(<file), brace descriptors, redirections of compound commands and functions
    'echo "$(<.env)"', "echo $(< .env)", 'printf %s "$(<secrets/key.pem)"', "x=$(<.env); echo $x", "echo `<.env`",
    'cat <<< "$(<.env)"', 'echo "$(< linkdir/key.pem)"', "cat {x}<.env /dev/fd/10", "head -n1 {x}<.env <&10",
    ": {x}>.git/config", "> .git/config", "< .env cat", "<.env wc -c", "{ cat; } < .env", "(cat) < .env",
    "while read l; do echo $l; done < .env", "if true; then cat; fi < .env", "f() { cat; }; f < .env",
    "f() { cat; } < .env; f", "rg -f .env src/lib",
    # moving, replacing or linking over .git
    "mv .git/config ../out/x", "mv .git .gitold", "mv .git/hooks ../out/h", "mkdir -p out && mv .git out/",
    "ln -f README.md .git/config", "ln -sf README.md .git/config", "cp -f README.md gitlink/config", "cp -rf src/. .git/",
    "cp -l README.md .git/x", "mv -T src .git", "cp --remove-destination README.md .git/config",
    "cp README.md .git/config~", "touch .git", "mkdir .git/x .git/y", "rg --ignore-file=.env x src/lib", "diff --exclude-from=.env src src",
]



@pytest.mark.parametrize("command", DENIED)
def test_shapes_reaching_a_denied_file_or_command_are_denied(shared: tuple[Path, Path, Path], command: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    ws, home, _ = shared
    assert _decisions(command, ws, home, monkeypatch) == {"deny"}, command


@pytest.fixture
def plain(tmp_path: Path) -> tuple[Path, Path]:
    """``(workspace, home)`` without the adversarial links (whose names, ``status``, ``diff``,
    ``log``, ``a``..., would deny a line for another reason): one link, ``linkdir -> secrets``."""
    ws, home = tmp_path.resolve() / "ws", tmp_path.resolve() / "home"
    for directory in (ws / "src", ws / "secrets" / "sub", ws / ".git", home / ".ssh"):
        directory.mkdir(parents=True)
    for name, text in {".env": "T\n", ".env.local": "T\n", "secrets/key.pem": "K\n", "secrets/sub/x.pem": "X\n",
                       ".git/config": "c\n", "README.md": "r\n", "src/a.py": "a\n"}.items():
        (ws / name).write_text(text)
    os.symlink("secrets", ws / "linkdir")
    return ws, home


LINKED = {"sed --follow-symlinks -i s/c/d/ status", "sed -i s/a/b/ gitlink/config", "cp -f README.md gitlink/config"}
"""Denied shapes that go through the adversarial workspace's links (absent from :func:`plain`)."""


@pytest.mark.parametrize("command", [c for c in DENIED if c not in LINKED])
def test_the_denied_shapes_are_denied_without_the_adversarial_links(plain: tuple[Path, Path], command: str) -> None:
    ws, home = plain
    assert _check(_policy("default", home), command, ws)["decision"] == "deny", command


ASKED = [
    "shopt -s nocaseglob; cat .EN?", "shopt -s nocaseglob; cat .ENV", "shopt -s extglob; cat .@(env)",
    "shopt -s extglob; cat +(.env)", "shopt -s extglob; cat !(README.md|src)", "enable -n echo; echo .env",
    "declare -n x=y", "cat /proc/$$/cwd/.env", "cat /proc/self/task/1/cwd/.env", "cat README.md | xargs cat",
    "BASH_ENV=.env bash -c true", "GIT_SSH_COMMAND='cat .env' git fetch", "LESSOPEN='|cat .env' less README.md",
    "export CDPATH=/; cd secrets", "shopt -s expand_aliases; alias ls=cat", "printf 'rm %s' victim | sh",
    "echo cm0gdmljdGlt | base64 -d | sh", "bash 3<<< 'rm victim' /dev/fd/3", "bash -c 'cat | sh' <<< 'rm victim'",
    "sed 's/^/r/' <<< 'm victim' | sh", "sort <<< 'rm victim' | bash", "echo .env | xargs cat",
    "tar cf - -T /dev/stdin <<< secrets/key.pem", "time cat .env", "cat $(echo .env)",
]


@pytest.mark.parametrize("command", ASKED)
def test_shapes_the_rules_cannot_follow_are_asked_about(shared: tuple[Path, Path, Path], command: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    ws, home, _ = shared
    assert _decisions(command, ws, home, monkeypatch) <= {"ask", "deny"}, command


@pytest.mark.parametrize("command", ASKED)
def test_the_asked_shapes_are_asked_without_the_adversarial_links(plain: tuple[Path, Path], command: str) -> None:
    ws, home = plain
    assert _check(_policy("default", home), command, ws)["decision"] in ("ask", "deny"), command


def test_another_process_working_directory_is_resolved(adv: tuple[Path, Path, Path]) -> None:
    """``/proc/PID/cwd`` of a live process (a dev server the agent started, its pid printed
    earlier) is the link the kernel follows: resolved, so denied."""
    ws, home, _ = adv
    policy = _policy("default", home)
    process = subprocess.Popen(["sleep", "30"], cwd=ws)
    try:
        for command in (f"cat /proc/{process.pid}/cwd/.env", f"cat /proc/{process.pid}/root{ws}/.env",
                        f"cat /proc/{process.pid}/cwd/linkdir/key.pem", f"grep -r x /proc/{process.pid}/cwd/",
                        f"echo x > /proc/{process.pid}/cwd/.git/config"):
            assert _check(policy, command, ws)["decision"] == "deny", command
        read = policy.check("read", {"file_path": f"/proc/{process.pid}/cwd/.env"}, workspace_root=ws)
        assert read.to_json()["decision"] == "deny"
    finally:
        process.kill()
        process.wait()


# -- bypasses ------------------------------------------------------------------------------

EDITS = {"allow": ["bash(cat *)", "bash(head *)", "edit(./**)"], "deny": ["read(./.env)", "read(./secrets/**)"]}
"""Edits allowed anywhere, reads of secrets denied: a ``<>`` redirection is then allowed outright."""

BYPASSES: list[tuple[str, str, str]] = [
    # (command, what bash shows when it reaches the denied file, or "" when it removes `victim`, why);
    # most severe first
    ("cat <>.env", "TOKEN=1",
     "`<>` opens the file for reading and writing: checked against edit rules only, never against read "
     "denials; with stdin on it cat prints .env (none here, allowed when edits are: see the EDITS test)"),
    ("cat 0<>.env", "TOKEN=1", "`<>` with a descriptor"),
    ("head -n1 0<>linkdir/key.pem", "KEY", "`<>` through a symlinked directory into secrets/"),
    ("cat <>~/.ssh/id_rsa", "private", "`<>` at the home's ssh key"),
    ("exec 3<>.env; cat <&3", "TOKEN=1", "`exec 3<>` then a duplication"),
    ("cat 3<>.env <&3", "TOKEN=1", "`3<>` then a duplication on the same command"),
    ("sed '1e rm victim' README.md", "",
     "GNU sed's `e` command runs a shell command: a denied `rm` runs under bash(sed *)"),
    ("sed 's/.*/cat .env/e' README.md", "TOKEN=1", "the `e` flag of `s` runs the pattern space as a command"),
    ("sed 'r .env' README.md", "TOKEN=1", "sed's `r FILE` command reads a file named inside the script"),
    ("sed 'R .env' README.md", "TOKEN=1", "sed's `R FILE` command"),
    ("sed -e 1r.env README.md", "TOKEN=1", "`r` glued to its file in an -e script"),
    ("sed 'w .git/config' README.md", "[core]\nreadme",
     "sed's `w FILE` command writes a file named inside the script (.git/config, an edit denial)"),
    ("sed -n w.git/config README.md", "readme", "`w` glued to its file"),
    ("tar cf /dev/null --checkpoint=1 --checkpoint-action=exec='rm victim' README.md", "",
     "GNU tar runs --checkpoint-action=exec=CMD: a denied `rm` runs under bash(tar *)"),
    ("tar cf /dev/null --use-compress-program='rm victim' README.md", "",
     "tar runs --use-compress-program through the shell"),
    ("tar -c -I 'rm victim' -f /dev/null README.md", "",
     "the -I spelling (`tar -I 'rm victim' -cf ...` is denied in the adversarial workspace only because "
     "its `f` link names .env.local; in a plain workspace it is allowed too)"),
    ("rg --pre rm x victim", "",
     "rg --pre PROG runs PROG with each searched file: `rm victim` runs under bash(rg *) (`rg --pre=rm x src` "
     "removes every file below src)"),
    ("tar cf - README.md -I 'cat .env'", "TOKEN=1",
     "tar -I runs its compressor through the shell: .env is printed"),
    ("tar cf out/a.tar README.md && tar xf out/a.tar --to-command='rm victim'", "",
     "tar x --to-command runs a command for every member"),
    ("echo .env | tar cf - -T -", "TOKEN=1",
     "tar -T - reads the names to archive from its standard input: .env is archived to stdout, allowed"),
    ("tar cf - -T - <<< .env", "TOKEN=1", "the names from a here-string"),
    ("printf '.env\\n' | tar -c --files-from=- -f -", "TOKEN=1", "the long spelling"),
    ("echo secrets | tar cf - -T -", "KEY", "a directory name from stdin: tar archives the denied tree"),
    ("echo .env > out/list && tar cf - -T out/list", "TOKEN=1",
     "-T FILE is checked as a file read, the names inside it are not: a list written earlier on the line"),
    ("printf '.env\\0' | sort --files0-from=-", "TOKEN=1", "sort --files0-from=- reads the names from stdin"),
    ("printf '.env\\0' | wc --files0-from=-", "1 1 8 .env", "wc reads .env named on stdin (only its counts show)"),
    ("zip out/x.zip -@ <<< .env", "adding: .env", "zip -@ reads the names from stdin (none: zip is not allowed)"),
    ("xargs -0a .env echo", "TOKEN=1", "-a inside an option cluster"),
    ("xargs -ra .env echo", "TOKEN=1", "-a after -r in a cluster"),
    ("xargs -d '\\n' -a .env echo", "TOKEN=1", "-a after another option"),
    ("bash --init-file secrets/key.pem -i < /dev/null", "KEY",
     "an interactive bash sources its --init-file/--rcfile operand: the denied file runs and its text leaks "
     "(none; `bash secrets/key.pem` is denied)"),
    ("bash --rcfile secrets/key.pem -i < /dev/null", "KEY", "the --rcfile spelling"),
    ("export ENV=secrets/key.pem; sh -i < /dev/null", "KEY", "an exported ENV: an interactive sh sources it"),
    ("xargs -a .env echo", "TOKEN=1", "xargs -a FILE reads its arguments from FILE: .env is printed, allowed"),
    ("xargs --arg-file=.env echo", "TOKEN=1", "the long spelling of xargs -a"),
    ("xargs -a.env echo", "TOKEN=1", "xargs -a with the file attached"),
    ("export BASH_ENV=secrets/key.pem; bash -c true", "KEY",
     "an exported BASH_ENV makes the later bash source the denied file (its text leaks in the error); "
     "BASH_ENV as a prefix is asked about, exported it is allowed by bash(export *)"),
    ("cp /bin/rm out/cat && export PATH=out:/usr/bin:/bin && cat victim", "",
     "an exported PATH makes `cat` run out/cat (a copy of rm): victim is removed, allowed; PATH as a "
     "prefix or a bare assignment is asked about"),
]


def _bypass_params() -> list[Any]:
    return [pytest.param(command, id=command) for command, _, _ in BYPASSES]


@pytest.mark.parametrize("command", _bypass_params())
def test_bypasses_round2(shared: tuple[Path, Path, Path], command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    ws, home, _ = shared
    assert _decisions(command, ws, home, monkeypatch) <= {"ask", "deny"}, command


@pytest.mark.skipif(BASH is None, reason="needs bash")
@pytest.mark.parametrize(("command", "shown"), [(c, s) for c, s, _ in BYPASSES])
def test_the_bypasses_are_real(adv: tuple[Path, Path, Path], command: str, shown: str) -> None:
    """Each bypass, run with bash, reaches the denied file (its text is shown) or runs the denied
    command (``victim`` is gone), while the policy allows it or has no opinion."""
    ws, home, _ = adv
    (ws / "victim").write_text("v\n")
    os.makedirs(ws / "out", exist_ok=True)
    output = _bash(command, ws, home)
    if shown.startswith("[core]"):
        assert (ws / ".git" / "config").read_text() != "[core]\n", output
    elif shown == "readme":
        assert (ws / ".git" / "config").read_text() == "readme\n", output
    elif shown:
        assert shown in output, output
    else:
        assert not (ws / "victim").exists(), output
    assert _check(_policy("default", home), command, ws)["decision"] in ("ask", "deny"), command  # refused now


@pytest.mark.parametrize("command", ["cat <>.env", "cat <>linkdir/key.pem", "cat <>src/env_link", "head 0<>secrets/key.pem"])
def test_a_read_write_redirection_of_a_denied_file_is_not_allowed(shared: tuple[Path, Path, Path], command: str) -> None:
    ws, home, _ = shared
    policy = RulesPolicy(EDITS, env={"HOME": str(home)})
    assert _check(policy, command, ws)["decision"] in ("deny", "ask"), command


PARALLEL = {"allow": ["bash(parallel *)", "bash(echo *)"], "deny": ["read(./.env)", "read(./secrets/**)", "bash(rm *)"]}


@pytest.mark.parametrize("command", ["parallel echo :::: .env", "parallel -a .env echo", "parallel --arg-file .env echo"])
def test_parallel_argument_files(shared: tuple[Path, Path, Path], command: str) -> None:
    ws, home, _ = shared
    assert _check(RulesPolicy(PARALLEL, env={"HOME": str(home)}), command, ws)["decision"] in ("deny", "ask"), command


SETS = {"allow": ["bash(set *)", "bash(shopt *)", "bash(cat *)", "bash(head *)"],
        "deny": ["read(./.env)", "read(./secrets/**)"]}
"""``set`` and ``shopt`` allowed (``set -e``, ``shopt -s nullglob`` are common), secrets denied."""

PHYSICAL = [
    # (command, what bash prints from the denied file, why)
    ("set -P; cd deep/..; cat key.pem", "KEY",
     "`set -P` (physical) makes every later cd resolve links before `..`: deep/.. is secrets/, so key.pem is "
     "secrets/key.pem; the rules track deep/.. as the workspace root (`cd -P` is handled, `set -P` is not)"),
    ("set -o physical && cd deep/.. && cat key.pem", "KEY", "the long spelling"),
    ("set -eP; cd deep/.. && cat key.pem", "KEY", "P in an option cluster"),
    ("set -P; cd deep/../sub; cat x.pem", "X", "a path below"),
    ("shopt -s cdable_vars; d=secrets; cd d; cat key.pem", "KEY",
     "with cdable_vars, `cd d` (no directory d) changes to the value of $d: secrets/"),
]


@pytest.mark.parametrize("command", [pytest.param(c, id=c) for c, _, _ in PHYSICAL])
def test_shell_options_that_change_cd(shared: tuple[Path, Path, Path], command: str) -> None:
    ws, home, _ = shared
    assert _check(RulesPolicy(SETS, env={"HOME": str(home)}), command, ws)["decision"] in ("deny", "ask"), command


@pytest.mark.skipif(BASH is None, reason="needs bash")
@pytest.mark.parametrize(("command", "shown"), [(c, s) for c, s, _ in PHYSICAL])
def test_the_cd_option_bypasses_are_real(adv: tuple[Path, Path, Path], command: str, shown: str) -> None:
    ws, home, _ = adv
    assert shown in _bash(command, ws, home)
    assert _check(RulesPolicy(SETS, env={"HOME": str(home)}), command, ws)["decision"] in ("ask", "deny"), command


@pytest.mark.parametrize("command", ["set -P; cd deep; cd ..; cat key.pem", "set -P; cat deep/../key.pem",
                                     "set -P; cd linkdir/..; cat .env"])
def test_physical_paths_the_rules_do_resolve(shared: tuple[Path, Path, Path], command: str) -> None:
    ws, home, _ = shared
    assert _check(RulesPolicy(SETS, env={"HOME": str(home)}), command, ws)["decision"] == "deny", command


GLOB_OPTIONS = [
    "shopt -s extglob\ncat +(.env)", "shopt -s extglob\ncat .@(e)nv", "shopt -s nocaseglob; cat .E*",
    "shopt -s nocaseglob\ncat SECRET?/KEY.*", "shopt -s extglob; shopt -s nocaseglob; cat .EN[V]",
    "shopt -s nullglob\ncat .E* README.md", "shopt -s extglob\ncat !(README.md|src|*.py)", "shopt -s failglob; cat .e*",
    "shopt -s globasciiranges; cat .[d-f]nv", "set +f; cat .e*", "shopt -u globskipdots; cat .*",
    "set -o noglob; set +o noglob; cat .e*", "shopt -s dotglob\ncat l*/*", "shopt -s globstar\ncat **/*.pem",
]


@pytest.mark.parametrize("command", GLOB_OPTIONS)
def test_glob_options_are_not_allowed_even_when_shopt_is(shared: tuple[Path, Path, Path], command: str) -> None:
    """A glob option set on an earlier line of the same script is in force for the next (bash -c
    runs line by line: ``shopt -s extglob`` then a newline then ``cat +(.env)`` prints .env)."""
    ws, home, _ = shared
    assert _check(RulesPolicy(SETS, env={"HOME": str(home)}), command, ws)["decision"] in ("deny", "ask"), command


DECLARES = {"allow": ["bash(declare *)", "bash(typeset *)", "bash(readonly *)", "bash(export *)", "bash(set *)",
                      "bash(cat *)", "bash(true)"], "deny": ["read(./.env)", "read(./secrets/**)", "bash(rm *)"]}
EXPORTED = [
    # every one makes the later bash source secrets/key.pem (shown: "KEY: command not found")
    ("declare -x BASH_ENV=secrets/key.pem; bash -c true", "allow"), ("typeset -x BASH_ENV=secrets/key.pem; bash -c true", "allow"),
    ("declare -gx BASH_ENV=secrets/key.pem; bash -c true", "allow"),
    ("export -- BASH_ENV=secrets/key.pem; bash -c true", "allow"), ('export "BASH_ENV=secrets/key.pem"; bash -c true', "allow"),
    ("export X=1 BASH_ENV=secrets/key.pem; bash -c true", "allow"), ("export BASH_ENV=secrets/key.pem\nbash -c true", "allow"),
    ("set -a; BASH_ENV=secrets/key.pem; bash -c true", "none"),
]


@pytest.mark.parametrize("command", [pytest.param(c, id=c) for c, _ in EXPORTED])
def test_exported_variables_that_run_code(shared: tuple[Path, Path, Path], command: str) -> None:
    ws, home, _ = shared
    assert _check(RulesPolicy(DECLARES, env={"HOME": str(home)}), command, ws)["decision"] in ("deny", "ask"), command


@pytest.mark.skipif(BASH is None, reason="needs bash")
@pytest.mark.parametrize(("command", "decision"), EXPORTED)
def test_the_exported_variable_bypasses_are_real(adv: tuple[Path, Path, Path], command: str, decision: str) -> None:
    ws, home, _ = adv
    assert "KEY: command not found" in _bash(command, ws, home)  # `decision`: what the policy said before the fix
    assert _check(RulesPolicy(DECLARES, env={"HOME": str(home)}), command, ws)["decision"] in ("ask", "deny"), command


# -- git reading the work tree -------------------------------------------------------------

GIT = shutil.which("git")


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, Path]:
    """``(work tree, home)``: a git repository whose committed .env and secrets/key.pem changed
    on disk since (the new lines, ``TOKEN=NEW`` and ``KEY2``, are only in the denied files)."""
    ws, home = tmp_path.resolve() / "repo", tmp_path.resolve() / "home"
    (ws / "secrets").mkdir(parents=True)
    (ws / "out").mkdir()
    (home / ".ssh").mkdir(parents=True)
    (ws / ".env").write_text("TOKEN=1\n")
    (ws / "secrets" / "key.pem").write_text("KEY\n")
    (ws / "README.md").write_text("r\n")
    (ws / "victim").write_text("v\n")
    assert GIT is not None
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b.invalid",
           "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b.invalid"}
    for argv in (["init", "-q"], ["add", ".env", "secrets", "README.md"], ["commit", "-qm", "init"]):
        subprocess.run([GIT, *argv], cwd=ws, env=env, check=True, capture_output=True)
    (ws / ".env").write_text("TOKEN=1\nTOKEN=NEW\n")
    (ws / "secrets" / "key.pem").write_text("KEY\nKEY2\n")
    return ws, home


@pytest.mark.skipif(GIT is None, reason="needs git")
@pytest.mark.parametrize("command", ["git diff -- .env", "git log -p -- .env", "git grep TOKEN", "git -C secrets diff",
                                     "git --git-dir=.git diff", "git diff HEAD -- secrets",
                                     "git diff --no-index .env README.md"])
def test_git_naming_a_denied_path_is_denied(repo: tuple[Path, Path], command: str) -> None:
    ws, home = repo
    assert _check(_policy("default", home), command, ws)["decision"] == "deny", command


@pytest.mark.skipif(GIT is None, reason="needs git")
def test_a_pager_variable_before_git_is_asked_about(repo: tuple[Path, Path]) -> None:
    ws, home = repo
    assert _check(_policy("default", home), "PAGER='cat .env' git log", ws)["decision"] == "ask"


GIT_ALL = {"allow": ["bash(git *)", "bash(cat *)"], "deny": ["bash(rm *)", "read(./.env)", "read(./secrets/**)"]}
"""``git`` allowed whole, ``rm`` and the secrets denied."""

GIT_BYPASSES = [
    # (command, what bash shows, or "" when it removes `victim`, rules: "default" or "git-all", why)
    ("git -c diff.external='rm victim' diff", "", "git-all",
     "a `-c` value git runs as a command (diff.external): the denied rm runs, allowed by bash(git *); "
     "none under the default rules"),
    ("git -c core.fsmonitor='rm victim' status", "", "git-all", "core.fsmonitor runs on every status"),
    ("git -c alias.x='!rm victim' x", "", "git-all", "a `!` alias defined on the line itself"),
    ("git -c diff.external='cat .env' diff", "TOKEN=1", "git-all", "the external diff reads the denied file"),
    ("export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm victim'; git status", "",
     "default", "GIT_CONFIG_* exported (asked about as a prefix): the denied rm runs, allowed by bash(export *) "
                "and bash(git status *)"),
    ("GIT_EXTERNAL_DIFF='rm victim' git diff", "", "git-all",
     "GIT_EXTERNAL_DIFF is not among the variables asked about: none, and the denied rm runs"),
    ("git diff", "TOKEN=NEW", "default", "git diff without a path reads every tracked file of the work tree, .env and "
                              "secrets/key.pem included, and prints their changed lines: allowed by bash(git diff *)"),
    ("git diff HEAD", "KEY2", "default", "the same against HEAD"),
    ("git diff .", "TOKEN=NEW", "default", "`.` as the pathspec: not walked like a tree reader's directory"),
    ("git diff -R", "TOKEN=NEW", "default", "an option does not change it"),
    ("echo 'rm victim' > out/p; export GIT_EXTERNAL_DIFF='sh out/p'; git diff", "", "default",
     "an exported GIT_EXTERNAL_DIFF makes git diff run a script: a denied rm runs; as a prefix the "
     "variable would be asked about"),
]


GIT_WORK_TREE = frozenset({"git diff", "git diff HEAD", "git diff .", "git diff -R"})
"""Not guarded (docs/rules.md, "What is not a boundary"): git prints what it tracks. The
rules would have to ask git which files it tracks; kept as strict xfails."""


@pytest.mark.skipif(GIT is None, reason="needs git")
@pytest.mark.parametrize("command", [pytest.param(c, marks=pytest.mark.xfail(strict=True, raises=AssertionError,
                                                                             reason=why), id=c)
                                     if c in GIT_WORK_TREE else pytest.param(c, id=c)
                                     for c, _, _, why in GIT_BYPASSES])
def test_git_bypasses(repo: tuple[Path, Path], command: str) -> None:
    ws, home = repo
    rules = next(r for c, _, r, _ in GIT_BYPASSES if c == command)
    assert _check(_git_policy(rules, home), command, ws)["decision"] in ("deny", "ask"), command


def _git_policy(rules: str, home: Path) -> RulesPolicy:
    return RulesPolicy(GIT_ALL, env={"HOME": str(home)}) if rules == "git-all" else _policy(rules, home)


@pytest.mark.skipif(GIT is None or BASH is None, reason="needs git and bash")
@pytest.mark.parametrize(("command", "shown", "rules"), [(c, s, r) for c, s, r, _ in GIT_BYPASSES])
def test_the_git_bypasses_are_real(repo: tuple[Path, Path], command: str, shown: str, rules: str) -> None:
    ws, home = repo
    output = _bash(command, ws, home)
    if shown:
        assert shown in output, output
    else:
        assert not (ws / "victim").exists(), output
    refused = {"ask", "deny"} if command not in GIT_WORK_TREE else {"allow", "none"}  # the documented limit
    assert _check(_git_policy(rules, home), command, ws)["decision"] in refused, command


# -- the file tools --------------------------------------------------------------------------

TOOL_DENIED: list[tuple[str, dict[str, Any]]] = [
    ("read", {"file_path": ".env/"}), ("read", {"file_path": ".env//"}), ("read", {"file_path": "{ws}//.env"}),
    ("read", {"file_path": "//{ws}/.env"}), ("read", {"file_path": "{ws}/./.env"}), ("read", {"file_path": "./././.env"}),
    ("read", {"file_path": "src/a.py/../../.env"}), ("read", {"file_path": "linkdir/../.env"}),
    ("read", {"file_path": "deep/../key.pem"}), ("read", {"file_path": "deep/../../.env"}),
    ("read", {"file_path": "outlink/../ws/.env"}), ("read", {"file_path": "./" * 5000 + ".env"}),
    ("read", {"file_path": "src/" + "../src/" * 2000 + "../.env"}), ("read", {"file_path": "~//.ssh/id_rsa"}),
    ("read", {"file_path": "{wslink}/linkdir/key.pem"}), ("read", {"file_path": "/proc/self/root{ws}/.env"}),
    ("read", {"file_path": "/proc/self/cwd/../ws/.env"}), ("read", {"file_path": "loop/../.env"}),
    ("read", {"file_path": "c44/../.env"}), ("read", {"file_path": "dangling/../.env"}),
    ("read", {"file_path": "README.md/../.env"}), ("read", {"file_path": ".env\n"}), ("read", {"file_path": ""}),
    ("read", {"file_path": "README.md", "path": ".env"}), ("read", {"file_path": "README.md", "notebook_path": ".env"}),
    ("edit", {"file_path": ".git/config/"}), ("edit", {"file_path": ".git/./config"}), ("edit", {"file_path": "gitdangle"}),
    ("edit", {"file_path": "dangling/../.git/x"}), ("write", {"file_path": "nothere/../.git/x"}),
    ("write", {"file_path": "gitdangle/x"}), ("write", {"file_path": ".git"}),
    ("grep", {"pattern": "x", "path": "src", "glob": "../.env"}), ("grep", {"pattern": "x", "path": "src", "exclude": ["."]}),
    ("grep", {"pattern": "x", "path": "..", "glob": "ws/.env"}), ("glob", {"pattern": "*/.env", "path": ".."}),
    ("glob", {"pattern": "src/{a.py,../.env}"}), ("glob", {"pattern": "src/[.]./.env"}), ("glob", {"pattern": "s[e]crets/*"}),
    ("apply_patch", {"patch": "*** Begin Patch\n*** Update File: src/a.py\n*** Move to: .git/hooks/pre-commit\n@@\n"
                              "-a = 1\n+x\n*** End Patch"}),
]
TOOL_ASKED: list[tuple[str, dict[str, Any]]] = [
    ("read", {"file_path": ".env\x00"}), ("read", {"file_path": ".env\x00.txt"}), ("read", {"file_path": "/dev/fd/3"}),
    ("read", {"file_path": "/proc/self/environ"}), ("read", {"file_path": "c44/key.pem"}),
    ("read", {"file_path": [".env"]}), ("read", {"file_path": 1}),
]


def _tool(policy: Any, tool: str, data: dict[str, Any], ws: Path, wslink: Path) -> str:
    filled = {key: value.replace("{ws}", str(ws)).replace("{wslink}", str(wslink)) if isinstance(value, str) else value
              for key, value in data.items()}
    return str(policy.check(tool, filled, workspace_root=ws).to_json()["decision"])


@pytest.mark.parametrize(("tool", "data"), TOOL_DENIED, ids=[f"{t}-{i}" for i, (t, _) in enumerate(TOOL_DENIED)])
def test_tool_paths_under_tricky_spellings_are_denied(shared: tuple[Path, Path, Path], tool: str,
                                                      data: dict[str, Any]) -> None:
    ws, home, wslink = shared
    assert _tool(_policy("default", home), tool, data, ws, wslink) == "deny", (tool, data)


@pytest.mark.parametrize(("tool", "data"), TOOL_ASKED, ids=[f"{t}-{i}" for i, (t, _) in enumerate(TOOL_ASKED)])
def test_tool_paths_that_cannot_be_resolved_are_asked_about(shared: tuple[Path, Path, Path], tool: str,
                                                            data: dict[str, Any]) -> None:
    ws, home, wslink = shared
    assert _tool(_policy("default", home), tool, data, ws, wslink) == "ask", (tool, data)


@pytest.mark.parametrize("path", [".ENV", "\u2024env", ".env\u200b", ".\uff45nv", " .env", "\\.env", "SECRETS/key.pem",
                                  "$HOME/.ssh/id_rsa", "dangling/../../.env"])
def test_look_alike_tool_paths_name_other_files(shared: tuple[Path, Path, Path], path: str) -> None:
    """Look-alikes (case on this case-sensitive file system, unicode, spaces, a literal ``$HOME``)
    are other files, none of which exists: the rules have no opinion, and no such read reaches
    a denied file (checked: each fails with ENOENT)."""
    ws, home, wslink = shared
    if os.path.lexists(ws / path):
        pytest.skip("a case-insensitive file system: the look-alike is the denied file")
    assert _tool(_policy("default", home), "read", {"file_path": path}, ws, wslink) == "none", path
