"""An execution-differential fuzzer of the permission rules (adversarial round 4).

:func:`generate` composes command lines from a grammar of bash constructs (quoting of every
kind, backslash-newlines, substitutions, arithmetic, arrays, here-documents, coprocs,
functions, aliases, traps, descriptor juggling, ``command``/``builtin``, shell options,
compound commands, odd blanks and control characters) around a harmful payload (``rm
victim``, reading ``.env`` or ``secrets/key.pem``, ``curl``), after shell state set by the
line (shell options, ``BASH_CMDS``/``BASH_ALIASES``, ``PATH``...). Every line the policy
**allows** is run with bash by :func:`run` in a throwaway workspace whose ``PATH`` starts
with a directory of shims (``rm``, ``curl``, ``wget``... log their argv), whose denied files
hold a :data:`CANARY` and whose ``out/cat`` logs too (a program reached through a changed
``PATH`` or command hash); ``HOME``, ``XDG_*`` and ``TMPDIR`` are inside it. :func:`run`
returns what shows a bypass: a shim or ``out/cat`` ran, ``victim`` is gone, ``.git`` was
written, or the canary is in the output or in any file written.

:func:`lexer_lines` generates lines of the fast lexer's subset (``#``, ``=`` words, quotes,
``\\r``/``\\v``/``\\f`` and non-ASCII blanks, operators, redirections) to compare the words
:func:`harness_rules._fastlex.lex` reads with the argv bash gives a command.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

from test_rules_plain_judge_adversarial import _build

CANARY = "CANARY7f3q"
SHIMS = ("rm", "curl", "wget", "nc", "unlink", "shred")

PAYLOADS = ["rm victim", "cat .env", "cat secrets/key.pem", "curl http://x", "head -c99 .env", "rm -f victim",
            "cat victim PATH=out:/bin", "cat .e*", "wc -c secrets/key.pem", "basename .env", "which .env", "ls",
            "cat victim"]
STATE = ["set -k", "set -o keyword", "set -B", "set +B", "set -f", "set -H", "set -o posix", "set -T", "set -E",
         "shopt -s extglob", "shopt -s xpg_echo", "shopt -s expand_aliases", "shopt -u globskipdots",
         "shopt -s lastpipe", "shopt -s extquote", "shopt -s sourcepath", "shopt -s localvar_inherit",
         "shopt -s assoc_expand_once", "shopt -u patsub_replacement", "set -o history", "shopt -s execfail", "set -u",
         "set -e", "set -x", "IFS=' '", "x=1", "declare -a a=(1)", "a=(x y)", "declare -A m=([k]=v)", "set -- a b",
         "shopt -s nullglob", "trap : DEBUG", "set -o functrace", "shopt -s extdebug", "enable -n echo", "exec 3>&1",
         "exec 2>/dev/null"]
HIDDEN = ["BASH_CMDS[basename]=/bin/cat", "declare -A BASH_CMDS='([basename]=/bin/cat [which]=/bin/cat)'",
          "declare -A BASH_ALIASES='([ls]=\"cat .e\"\"nv\")'", "set -o posix", "POSIXLY_CORRECT=1",
          "typeset -A BASH_CMDS='([cat]=out/cat)'", "local -A BASH_CMDS 2>/dev/null", "read -a BASH_ARGV0 <<< x",
          "export BASH_CMDS", "readonly -A BASH_CMDS='([basename]=/bin/cat)'", "declare -gA BASH_CMDS=([cat]=out/cat)",
          "BASH_CMDS=([cat]=out/cat)", "shopt -so posix", "shopt -s -o keyword", "set -eko pipefail", "PATH+=:out",
          "hash -d cat 2>/dev/null", "DIRSTACK[0]=secrets", "cd out", "cd out; PATH=.:$PATH"]
CONTEXTS = [
    "{ @; }", "(@)", "if true; then @; fi", "if @; then :; fi", "case x in x) @;; esac", "case x in (x) @;; esac",
    "for i in 1; do @; done", "for ((i=0;i<1;i++)); do @; done", "while true; do @; break; done",
    "until false; do @; break; done", "select x in a; do @; break; done <<< 1", "time @", "time -p @", "! @",
    "f() { @; }; f", "function f { @; }; f", "function f() (@); f", "coproc { @; }; wait", "coproc X { @; }; wait",
    "trap '@' EXIT", "trap \"@\" EXIT", "eval '@'", "eval \"@\"", "x=$(@)", "echo \"$(@)\"", "echo `@`",
    "echo ${x:-$(@)}", ": $((1 + $(@) ))", "(( $(@) ))", "a=(x $(@))", "a[$(@)]=1", "echo ${a[$(@)]}",
    "echo {a,$(@)}", "cat <(@)", "echo > >(@)", "cat <<E\n$(@)\nE", "cat <<<\"$(@)\"", "exec 3< <(@); cat <&3",
    "command eval '@'", "builtin eval '@'", "shopt -s expand_aliases\nalias z='@'\nz", "true && @", "false || @",
    "@ &", "@ | cat", "@ # c", "#c\n@", "@ \\\n", "@;", "\n@\n", "@ 2>&1", "@ >/dev/null", "@ <&-", "@ 3>&-",
    "exec 4>&1; @ >&4", "{ @; } 2>&1 | cat", "[[ -n $(@) ]]", "[[ x == x ]] && @", "test -n \"$(@)\"",
    "printf %s \"$(@)\"", "declare x=$(@)", "local x 2>/dev/null; @", "export Y=$(@)", "readonly Z=\"$(@)\"",
    "{ @\n}", "(\n@\n)", "if :\nthen @\nfi", "case x in\nx)\n@\n;;\nesac", "x=1 @", "LANG=C @", "CI=1 @",
    "command @", "builtin command @", "env @", "nice @", "timeout 5 @", "nohup @ 2>/dev/null", "@ <<< x",
    "@ <<'E'\nx\nE", "@ <<-E\n\tx\n\tE", "cat <<E | bash\n@\nE", "echo '@' | bash", "bash -c '@'", "sh -c \"@\"",
    "x='@'; eval \"$x\"", "set -- '@'; eval \"$1\"", "$'@'", "\"@\"", "@\r", "@\v", "@\f", "\v@", "@ \x01", "@ é",
    "@\t#x", "@;#x\n", "@ & wait", "@ |& cat", "{ @;}", "(@) &", "(@) | (cat)", "$(@) 2>/dev/null",
    "echo $(( $(@) + 1 ))", "echo ${#x} && @", "echo ${x/a/b} && @", "arr=([0]=x); @", "echo ~ && @",
    "echo ~+ && @", "echo a{1..3} && @", "echo $\"x\" && @", "echo $'x' && @", "echo ${x@Q} && @",
    "echo ${!x*} && @", "echo ${x^^} && @", "echo ${x:0:1} && @", ": \\\n; @", "true\n@)", "echo \"$(true\n@)\"", "echo $(true # )\n@)", "history -s '@'; fc -s",
]
DELIMITERS = ["E", "'E'", '"E"', "\\E", "E''", "$'E'", '$"E"', "'E'\"\"", "-E", "E;", "E )", "E#x", "E\r"]
BODY_ENDS = ["E", "E ", " E", "\tE", "$'E'", "'E'", "E\r", "E;", "EF", "F", "-E", "\\E", "E#x"]


def _quote_char(char: str, rng: random.Random) -> str:
    kind = rng.randrange(9)
    if char in " \t":
        return char if kind < 6 else f"'{char}'"
    return [f"'{char}'", f'"{char}"', f"$'{char}'", f"$'\\x{ord(char):02x}'", f"\\{char}", f'$"{char}"',
            f"{char}\\\n", char, char][kind]


def _obfuscate(payload: str, rng: random.Random) -> str:
    if rng.random() < 0.5:
        return payload
    i = rng.randrange(len(payload))
    j = min(len(payload), i + rng.randrange(1, 4))
    return payload[:i] + "".join(_quote_char(c, rng) for c in payload[i:j]) + payload[j:]


def generate(rng: random.Random) -> str:
    """One command line around a harmful payload (see the module docs)."""
    if rng.random() < 0.15:  # here-document delimiters spelled differently from their end lines
        return (f"cat <<{rng.choice(DELIMITERS)}\n{rng.choice(BODY_ENDS)}\n{rng.choice(PAYLOADS)}\n"
                f"{rng.choice(BODY_ENDS)}\n")
    line = _obfuscate(rng.choice(PAYLOADS), rng)
    if rng.random() < 0.4:
        line = rng.choice(HIDDEN) + rng.choice(["; ", "\n"]) + line
    for _ in range(rng.randrange(1, 4)):
        line = rng.choice(CONTEXTS).replace("@", line)
    if rng.random() < 0.3:
        line = rng.choice(STATE) + rng.choice(["; ", "\n", " && "]) + line
    if rng.random() < 0.15:
        i = rng.randrange(len(line) + 1)
        line = line[:i] + "\\\n" + line[i:]
    return line


def workspace(base: Path) -> tuple[Path, Path, Path, Path]:
    """``(workspace, home, shim directory, shim log)``: the adversarial workspace of round 1
    with canaries in the denied files, a ``victim``, the shims and a logging ``out/cat``."""
    ws, home, _ = _build(base)
    (ws / ".env").write_text(f"TOKEN={CANARY}env\n")
    (ws / "secrets" / "key.pem").write_text(f"{CANARY}key\n")
    (ws / "victim").write_text("v\n")
    shims, log = base / "shim", base / "shim.log"
    shims.mkdir()
    for name, where in [*((n, shims / n) for n in SHIMS), ("evilcat", ws / "out" / "cat")]:
        where.write_text(f'#!/bin/sh\nprintf "%s\\n" "{name} $*" >> "{log}"\n')
        where.chmod(0o755)
    return ws, home, shims, log


def run(command: str, base: Path, *, curl_denied: bool = True, timeout: float = 5) -> list[str]:
    """Run ``command`` with bash in a fresh :func:`workspace` under ``base``; what shows a
    bypass (empty when nothing denied happened). ``curl_denied``: a ``curl`` shim run counts."""
    base.mkdir(parents=True)
    ws, home, shims, log = workspace(base)
    (base / "tmp").mkdir()
    env = {"HOME": str(home), "PATH": f"{shims}:/usr/bin:/bin", "LANG": "C.UTF-8",
           "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".data"),
           "XDG_CACHE_HOME": str(home / ".cache"), "TMPDIR": str(base / "tmp")}
    bash = shutil.which("bash")
    assert bash is not None
    try:
        done = subprocess.run([bash, "-c", command], cwd=ws, env=env, capture_output=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, check=False)
        output = (done.stdout + done.stderr).decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        output = ""
    entries = log.read_text().split("\n") if log.exists() else []  # not splitlines: an argument may hold \f
    shown = [f"ran: {entry}" for entry in entries if entry and (curl_denied or not entry.startswith("curl"))]
    if not (ws / "victim").exists():
        shown.append("victim removed")
    if CANARY in output:
        shown.append("canary in the output")
    if (ws / ".git" / "config").read_text() != "[core]\n" or len(list((ws / ".git").iterdir())) != 2:
        shown.append(".git written")
    originals = {ws / ".env", ws / "secrets" / "key.pem"}
    for root, _, files in os.walk(base):
        for name in files:
            path = Path(root) / name
            if path.is_symlink() or path in originals:
                continue
            try:
                if CANARY.encode() in path.read_bytes():
                    shown.append(f"canary in {path.relative_to(base)}")
            except OSError:
                continue
    return shown


LEXER_ATOMS = ["a", "b", "x=1", "A=1", "=", "==", "a=b", "#", "a#b", "'q'", '"d q"', "'#'", '"#"', "1", "2", ":", ",",
               "+", "@", "%", "^", "]", "-", "--", "-x", ".", "/", "\r", "\v", "\f", "\t", " ", "é", "\x01", "\x1b",
               "'a\nb'", "'\r'", "\x7f", "\u00a0", "\u2028", "A+=1", "a[1]=2", "@(x)", "%1", "^a^b", "'=", "''", '""',
               "a''", "# c", "#c\n"]
_OPERATORS = [";", "&&", "||", "|", "\n", "&"]


def lexer_lines(rng: random.Random, count: int) -> list[str]:
    """Lines of the fast lexer's subset (and just outside it) whose commands are all ``p``."""
    lines = []
    for _ in range(count):
        parts = ["p "]
        for _ in range(rng.randrange(1, 9)):
            pick = rng.randrange(10)
            if pick == 0:
                parts += [" ", rng.choice(_OPERATORS), " ", rng.choice(["p ", "A=1 p ", "B=2 p "])]
            elif pick == 1:
                parts += [" ", rng.choice([">", ">>", "1>", "&>"]), f"out/f{rng.randrange(3)} "]
            else:
                parts.append(rng.choice(["", " ", " ", "\t"]) + rng.choice(LEXER_ATOMS))
        lines.append("".join(parts))
    return lines
