"""Option grammars of the wrapper commands (which letters are flags, which take a value).

Each is an :class:`~harness_rules._words.Options` read by the handlers of
:mod:`harness_rules._wrap_exec`, :mod:`harness_rules._wrap_privilege` and
:mod:`harness_rules._wrap_scripts`; an option outside a grammar makes the wrapper opaque.
"""

from __future__ import annotations

from ._words import Options

__all__ = [
    "CHROOT",
    "CHRT",
    "COMMAND",
    "DOAS",
    "ENV",
    "EXEC",
    "FLOCK",
    "IONICE",
    "NICE",
    "PARALLEL",
    "PKEXEC",
    "SCRIPT",
    "SETSID",
    "SHELL",
    "STDBUF",
    "SU",
    "SUDO",
    "TASKSET",
    "TIME",
    "TIMEOUT",
    "UNBUFFER",
    "WATCH",
    "XARGS",
    "flag_set",
]


def flag_set(*names: str) -> frozenset[str]:
    return frozenset(names)


NICE = Options(valued="n", long_valued=flag_set("--adjustment"), numeric=True)
TIMEOUT = Options(flags="v", valued="sk", long_flags=flag_set("--foreground", "--preserve-status", "--verbose"),
                   long_valued=flag_set("--signal", "--kill-after"))
STDBUF = Options(valued="ioe", long_valued=flag_set("--input", "--output", "--error"))
ENV = Options(flags="i0v", valued="u", long_flags=flag_set("--ignore-environment", "--null", "--debug"),
               long_valued=flag_set("--unset"))
SUDO = Options(flags="EHnSbkKAPis", valued="ugCDhprtTU",
                long_flags=flag_set("--preserve-env", "--login", "--shell", "--non-interactive", "--stdin",
                                  "--background", "--reset-timestamp", "--remove-timestamp", "--askpass",
                                  "--preserve-groups", "--set-home"),
                long_valued=flag_set("--user", "--group", "--close-from", "--host", "--prompt", "--role",
                                   "--type", "--command-timeout", "--other-user"))
DOAS = Options(flags="ns", valued="uC")
XARGS = Options(flags="0rtpxo", valued="adEILnPs",
                 long_flags=flag_set("--null", "--no-run-if-empty", "--verbose", "--interactive", "--exit",
                                   "--open-tty"),
                 long_valued=flag_set("--arg-file", "--delimiter", "--eof", "--replace", "--max-lines",
                                    "--max-args", "--max-procs", "--max-chars", "--process-slot-var"))
SHELL = Options(flags="abefhkmnprstuvxBCEHPTlic", valued="oO",
                 long_flags=flag_set("--login", "--norc", "--noprofile", "--posix", "--restricted",
                                   "--noediting", "--verbose"),
                 long_valued=flag_set("--rcfile", "--init-file"))
WATCH = Options(flags="bcegtpwrx", valued="nd",
                 long_flags=flag_set("--beep", "--color", "--errexit", "--chgexit", "--no-title", "--precise",
                                   "--no-wrap", "--exec"),
                 long_valued=flag_set("--interval", "--differences"))
TIME = Options(flags="pvaq", valued="fo", long_flags=flag_set("--portability", "--verbose", "--append", "--quiet"),
                long_valued=flag_set("--format", "--output"))
SETSID = Options(flags="cfw", long_flags=flag_set("--ctty", "--fork", "--wait"))
EXEC = Options(flags="cl", valued="a")
COMMAND = Options(flags="pvV")
IONICE = Options(flags="t", valued="cnpPu", long_flags=flag_set("--ignore"),
                  long_valued=flag_set("--class", "--classdata", "--pid", "--pgid", "--uid"))
TASKSET = Options(flags="acp", long_flags=flag_set("--all-tasks", "--cpu-list", "--pid"))
CHRT = Options(flags="abdfiomprRv", valued="TPD",
                long_flags=flag_set("--all-tasks", "--batch", "--deadline", "--fifo", "--idle", "--other", "--rr",
                                  "--reset-on-fork", "--verbose", "--max", "--pid"),
                long_valued=flag_set("--sched-runtime", "--sched-period", "--sched-deadline"))
FLOCK = Options(flags="sxenoFu", valued="wE",
                 long_flags=flag_set("--shared", "--exclusive", "--unlock", "--nonblock", "--nb", "--close",
                                   "--no-fork", "--verbose"),
                 long_valued=flag_set("--wait", "--timeout", "--conflict-exit-code"))
UNBUFFER = Options(flags="p")
SU = Options(flags="flmpP", valued="cCgGswu",
              long_flags=flag_set("--fast", "--login", "--preserve-environment", "--pty"),
              long_valued=flag_set("--command", "--session-command", "--group", "--supp-group", "--shell",
                                 "--whitelist-environment", "--user"))
SCRIPT = Options(flags="aefq", valued="cEIOBTmo", optional="t",
                  long_flags=flag_set("--append", "--return", "--flush", "--quiet"),
                  long_valued=flag_set("--command", "--echo", "--log-in", "--log-out", "--log-io", "--log-timing",
                                     "--logging-format", "--output-limit"),
                  long_optional=flag_set("--timing"))
PKEXEC = Options(long_flags=flag_set("--disable-internal-agent", "--keep-cwd"), long_valued=flag_set("--user"))
CHROOT = Options(long_flags=flag_set("--skip-chdir"), long_valued=flag_set("--userspec", "--groups"))
PARALLEL = Options(flags="0kqurtvXmx", valued="adEIjLnNPsS", optional="i",
                    long_flags=flag_set("--null", "--keep-order", "--quote", "--ungroup", "--no-run-if-empty",
                                      "--verbose", "--xargs", "--group", "--line-buffer", "--tag", "--bar",
                                      "--progress", "--eta", "--will-cite", "--dry-run", "--shuf", "--pipe",
                                      "--halt-on-error"),
                    long_valued=flag_set("--arg-file", "--delimiter", "--jobs", "--max-args", "--max-replace-args",
                                       "--replace", "--colsep", "--halt", "--timeout", "--retries", "--delay",
                                       "--tagstring", "--max-procs", "--sshlogin", "--block", "--env",
                                       "--joblog", "--results"))

