"""``python -m harness_core.testing.conformance``: continue a suspended conformance turn."""

from harness_core.testing.conformance.child import main

if __name__ == "__main__":  # pragma: no cover
    main()
