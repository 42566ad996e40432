"""Pieces of shell command lines for generated differential tests: ``PLAIN`` ones the
fast lane reads, ``NASTY`` ones at or beyond the edge of its subset."""

from __future__ import annotations

PLAIN = ["git", "status", "-s", "ls", "-la", "src/a.py", "'a b'", '"c d"', "A=1", "x=y", "CI=1", "2>&1", ">&2",
         "> out/o.txt", ">>log", "2>err", "< src/a.py", "&>all", "&>>all", "0<src/a.py", "&&", "||", ";", "|", "&",
         "\n", "# c", "*.py", "src/*", ".en?", "a#b", "--x=1", "''", "echo", "printf", "cat", "12", ">f", "e'q'x",
         "B+=2", "a[1]", ":", "-", ".", ".env", "./.env", "src/../.env", "secrets/key.pem", "src/env_link", "cd",
         "cd src", "cd ..", "pushd", "popd", "rm", "-rf", "victim", "curl", "http://x", "grep", "-r", "rg", "x",
         "git grep", "git -C src", "tar", "cf", "/tmp/t.tar", "cp", "-R", "diff", "npm", "run", "test", "--", "-k",
         "/dev/null", "> /dev/null", "head -5", "wc -l", "sort", "uv run", "docker", "1", "ls\t-l", "'rm'",
         '"r"m', "/bin/rm", "\"$HOME\"", "'$x'", "\"a'b\"", "'a\"b'", "'multi\nline'", "a=", "=x", "9>x",
         "echo hi", "echo -n x", "printf y", "'é x'", '"ü\ty"', "'tab\there'", "| bash", "| sh", "| cat", "x=1 y=2"]
NASTY = ["$x", "${x}", "$(id)", "`id`", "\\\n", "\\ ", "\\rm", "{", "}", "{ echo; }", "(", ")", "(ls)", "<(ls)",
         ">(cat)", "<<EOF\nrm victim\nEOF\n", "<<'EOF'\nx\nEOF\n", "<<< 'rm victim'", ">|", "<>", "&>2", ">&-",
         "2>&1-", "~", "~/x", "é", "\u00a0", "\x00", "!", "[[", "]]", "if", "then", "fi", "for", "do", "done",
         "case", "in", "esac", "function", "time", "coproc", "exec", "eval", "bash -c", "sh", "sudo", "env",
         "nice", "timeout 5", "xargs", "find", "-exec", "\\;", "tee", "tee out/t", "PATH=/tmp", "LD_PRELOAD=/x",
         "BASH_ENV=/x", "GLOBIGNORE=x", '"GLOB""IGNORE=x"', "GLOB'IGNORE'", "alias", "hash", "declare", "read", "export", "unset", "let", "test",
         "[", "source", ".", "exec 3<x", "a{b,c}", "*", "?", "[ab]", "\t", "\r", ";;", "&&&", "|&", "||&", "#",
         "x#", "#!", "\"a\\\"b\"", "'", '"', "\"$(x)\"", "$'x'", '$"x"', "$((1+1))", "((x))", "arr=(a b)",
         "f()", "select"]
