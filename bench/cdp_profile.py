"""A Chrome DevTools Protocol CPU profile (``Profiler.stop``'s ``profile``), summarised as tables.

Each sample's time is the gap to the next sample (the last runs to the profile's end), as DevTools
counts it.  Three tables: functions by self time, functions by total time (each function counted
once per sample, however often it is on the stack), and modules (script files) by self time; and,
for the names a caller asks about (its phases: "applyEdits", "renderList"), the total time of every
function of that name.  A function is its name, its script's path from ``assets/`` (or the URL's last
part) and its line; V8's own entries keep their names: (garbage collector), (program), (idle).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


def _module(url: str) -> str:
    if not url:
        return ""
    path = url.split("?")[0]
    return path.split("/assets/", 1)[1] if "/assets/" in path else path.rsplit("/", 1)[-1]


def _label(frame: dict[str, Any]) -> str:
    name = frame.get("functionName") or "(anonymous)"
    module = _module(frame.get("url", ""))
    return f"{name} {module}:{frame.get('lineNumber', 0) + 1}" if module else name


def sample_times(profile: dict[str, Any]) -> list[tuple[int, float]]:
    """(node id, ms) of each sample."""
    samples, deltas = profile.get("samples", []), profile.get("timeDeltas", [])
    stamps, now = [], profile["startTime"]
    for delta in deltas:
        now += delta
        stamps.append(now)
    ends = stamps[1:] + [profile["endTime"]]
    return [(node, max(end - start, 0) / 1000) for node, start, end in zip(samples, stamps, ends, strict=True)]


@dataclass
class Summary:
    """Milliseconds of a profile's samples: ``busy`` is all but (idle)'s."""

    own: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))  # self time by function
    total: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))  # total time by function
    modules: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))  # self time by module
    names: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))  # by function name alone
    busy: float = 0.0


def summarise(profile: dict[str, Any]) -> Summary:
    nodes = {node["id"]: node for node in profile["nodes"]}
    parent = {child: node["id"] for node in profile["nodes"] for child in node.get("children", [])}
    out = Summary()
    for node_id, ms in sample_times(profile):
        frame = nodes[node_id]["callFrame"]
        label = _label(frame)
        if label == "(idle)":
            continue
        out.busy += ms
        out.own[label] += ms
        out.modules[_module(frame.get("url", "")) or label] += ms
        labels, names = set(), set()
        at: int | None = node_id
        while at is not None:
            labels.add(_label(nodes[at]["callFrame"]))
            names.add(nodes[at]["callFrame"].get("functionName") or "(anonymous)")
            at = parent.get(at)
        for label in labels - {"(root)"}:
            out.total[label] += ms
        for name in names - {"(root)"}:
            out.names[name] += ms
    return out


def _largest(times: dict[str, float], top: int) -> list[tuple[str, float]]:
    return sorted(times.items(), key=lambda item: -item[1])[:top]


def report_profile(profile: dict[str, Any], *, top: int = 25, phases: Sequence[str] = ()) -> None:
    summary = summarise(profile)
    idle = (profile["endTime"] - profile["startTime"]) / 1000 - summary.busy
    print(f"busy {summary.busy:,.0f} ms of the profile, idle {idle:,.0f} ms (left out below)")
    tables = [
        ("self time by function", _largest(summary.own, top)),
        ("total time by function", _largest(summary.total, top)),
        ("self time by module", _largest(summary.modules, top)),
    ]
    if phases:
        tables.append(("total time of the functions of these names", [(name, summary.names[name]) for name in phases]))
    for title, rows in tables:
        print(f"\n{title}:")
        for label, ms in rows:
            print(f"  {ms:>9,.1f} ms {100 * ms / summary.busy:>5.1f}%  {label}")
