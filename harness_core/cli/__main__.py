"""``python -m harness_core.cli``: the ``harness`` command."""

from harness_core.cli.main import main

if __name__ == "__main__":  # pragma: no cover
    main()
