"""``harness plugins --capabilities``: every installed adapter's capability table.

Each adapter factory is called with no arguments (as when a harness is chosen by id) and
its declarations are read with :func:`~harness_core.capabilities.capabilities_of`; an
adapter whose factory fails is listed with the error. ``--json`` prints::

    {"capabilities": {harness_id: {"plugin": str, "error": str | None,
                                   "capabilities": {capability: {"supported": bool, "detail": str}}}}}
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from harness_core.capabilities import Capability, HarnessCapabilities, capabilities_of
from harness_core.plugins.manager import HarnessPluginManager

__all__ = ["capability_report", "print_capabilities"]


def capability_report(manager: HarnessPluginManager) -> dict[str, dict[str, Any]]:
    """``{harness_id: {"plugin", "error", "capabilities"}}`` for every adapter, sorted by id."""
    report: dict[str, dict[str, Any]] = {}
    for harness_id, (plugin, factory) in sorted(manager.hooks.adapters().items()):
        entry: dict[str, Any] = {"plugin": plugin, "error": None, "capabilities": {}}
        try:
            entry["capabilities"] = capabilities_of(factory()).to_json()
        except Exception as exc:  # one broken factory must not hide the others
            entry["error"] = f"{type(exc).__name__}: {exc}"
        report[harness_id] = entry
    return report


def print_capabilities(console: Console, report: dict[str, dict[str, Any]]) -> None:
    """One table: a row per capability, a column per harness (``yes`` / ``no``), then the details."""
    ids = list(report)
    table = Table(title="harness capabilities", title_justify="left", expand=False)
    table.add_column("Capability", style="bold")
    for harness_id in ids:
        table.add_column(harness_id)
    for capability in Capability:
        cells: list[Text] = []
        for harness_id in ids:
            entry = report[harness_id]["capabilities"].get(capability.value)
            if entry is None:
                cells.append(Text("?", style="yellow"))
            else:
                cells.append(Text("yes", style="green") if entry["supported"] else Text("no", style="red"))
        table.add_row(capability.value, *cells)
    console.print(table)
    for harness_id, entry in report.items():
        if entry["error"]:
            console.print(Text(f"{harness_id}: could not be built: {entry['error']}", style="red"))
            continue
        caps = HarnessCapabilities(harness_id, {Capability(k): _support(v) for k, v in entry["capabilities"].items()})
        console.print(Text(harness_id, style="bold"))
        console.print(caps.format_table(), markup=False, highlight=False)


def _support(value: dict[str, Any]) -> Any:
    from harness_core.capabilities import CapabilitySupport

    return CapabilitySupport(bool(value["supported"]), str(value["detail"]))
