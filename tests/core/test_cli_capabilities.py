"""``harness plugins --capabilities``: the installed adapters' capability tables (real console script)."""

from __future__ import annotations

import json
from pathlib import Path

from .test_cli_plugins import install_fake_distribution, run_harness

_ADAPTER = '''
from harness_core import Capability, hookimpl, supported, unsupported

class Adapter:
    harness_id = "toy"
    supports_builtin_approvals = False
    supports_builtin_filtering = False
    capabilities = {Capability.STRUCTURED_OUTPUT: supported("toy JSON mode"),
                    Capability.PLAN_MODE: unsupported("toy has no read-only mode")}

@hookimpl
def harness_adapters():
    return {"toy": Adapter, "broken-toy": lambda: 1 / 0}
'''


def test_capabilities_json_lists_every_adapter(tmp_path: Path) -> None:
    install_fake_distribution(tmp_path, dist="toy-adapter", version="1.0", entry_points={"toy": "toy_adapter_mod"},
                              modules={"toy_adapter_mod": _ADAPTER})
    result = run_harness("plugins", "--capabilities", "--json", extra_path=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)["capabilities"]
    toy = report["toy"]["capabilities"]
    assert toy["structured-output"] == {"supported": True, "detail": "toy JSON mode"}
    assert toy["plan-mode"] == {"supported": False, "detail": "toy has no read-only mode"}
    assert toy["builtin-approvals"]["detail"] == "the adapter sets supports_builtin_approvals=False"
    assert "ZeroDivisionError" in report["broken-toy"]["error"]
    assert report["builtin"]["capabilities"]["plan-mode"]["supported"] is True


def test_capabilities_table(tmp_path: Path) -> None:
    install_fake_distribution(tmp_path, dist="toy-adapter", version="1.0", entry_points={"toy": "toy_adapter_mod"},
                              modules={"toy_adapter_mod": _ADAPTER})
    result = run_harness("plugins", "--capabilities", extra_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "harness capabilities" in result.stdout and "structured-output" in result.stdout
    assert "toy has no read-only mode" in result.stdout
    assert "broken-toy: could not be built: ZeroDivisionError" in result.stdout
