"""What a prerequisite needs from the job it runs in, for OpenPAI to start it.

The runtime renders ``<% $secrets.a.b %>``, ``<% $parameters.x %>`` and ``<% $data.uri[0] %>``
(``$script``, ``$output``) in a plugin's parameters by looking them up in the job: its
``secrets`` and ``parameters``, or the prerequisite that the task role's ``data``/``script``/
``output`` field names.  A key the job lacks stops the init container (KeyError; TypeError when
the job has no ``secrets`` at all; StopIteration for ``$data`` with no binding), and the
rest-server hands a dockerimage the text of an ``auth`` secret it cannot find as the credential.
``<% expression.KEY %>`` is prereq's own: ``job resolve`` fills it in from the user's values.

May import: prereq.core, prereq.openpai.runtime (the plugin prefix).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from prereq.core import placeholders
from prereq.openpai.runtime import PLUGIN_PREFIX

# What a form can need, in the order messages name them.
NEEDS_KEYS = ("secrets", "parameters", "bindings", "expressions")
BINDINGS = ("data", "script", "output")  # the task role fields that ``$data``, ``$script``, ``$output`` read


def _dotted(expression: str, namespace: str) -> str:
    """``a.b`` of ``$secrets.a.b[0].c``: the names the runtime looks up as mapping keys, up to an index."""
    names = []
    for part in expression[len(namespace) + 1 :].split("."):
        name = part.split("[")[0]
        if name:
            names.append(name)
        if "[" in part:
            break
    return ".".join(names)


def form_needs(form: Any) -> dict[str, list[str]]:
    """Every secret key (nested ones dotted), job parameter, task role binding and expression that
    ``form``'s strings refer to, each list sorted."""
    found: dict[str, set[str]] = {key: set() for key in NEEDS_KEYS}
    for _, value in placeholders.strings(form):
        for template in placeholders.find(value):
            namespace = template.namespace
            if namespace in ("$secrets", "$parameters") and template.key:
                found[namespace[1:]].add(_dotted(template.expression, namespace))
            elif namespace is not None and namespace[1:] in BINDINGS and namespace.startswith("$"):
                found["bindings"].add(namespace[1:])
            elif namespace == "expression" and template.key:
                found["expressions"].add(template.key)
    return {key: sorted(values) for key, values in found.items()}


def _has(value: Any, dotted: str) -> bool:
    for name in dotted.split("."):
        if not isinstance(value, dict) or name not in value:
            return False
        value = value[name]
    return True


def _bound(job: Mapping[str, Any], role: str, field: str) -> bool:
    """The task role's ``field`` names a prerequisite of that type that the job has."""
    spec = job["taskRoles"][role]
    name = spec.get(field) if isinstance(spec, dict) else None
    items = job.get("prerequisites")
    return isinstance(name, str) and any(
        isinstance(item, dict) and item.get("type") == field and item.get("name") == name
        for item in (items if isinstance(items, list) else [])
    )


def missing_needs(needs: Mapping[str, Sequence[str]], job: Mapping[str, Any], role: str) -> dict[str, list[str]]:
    """What of ``needs`` (expressions aside) the job does not give a prerequisite that task role ``role``
    runs; only kinds with something missing."""
    missing = {
        "secrets": [key for key in needs.get("secrets", []) if not _has(job.get("secrets"), key)],
        "parameters": [key for key in needs.get("parameters", []) if not _has(job.get("parameters"), key)],
        "bindings": [field for field in needs.get("bindings", []) if not _bound(job, role, field)],
    }
    return {kind: keys for kind, keys in missing.items() if keys}


def rendered_forms(job: Mapping[str, Any], role: str) -> list[tuple[int, dict[str, Any]]]:
    """(position in the job's ``prerequisites``, form) of what is rendered for task role ``role``: each
    runtime plugin the task role lists, in its order (the runtime skips the others), then its dockerImage."""
    items = job.get("prerequisites")
    items = items if isinstance(items, list) else []
    spec = job["taskRoles"][role]
    spec = spec if isinstance(spec, dict) else {}

    def find(name: Any, image: bool) -> list[tuple[int, dict[str, Any]]]:
        if not isinstance(name, str):
            return []
        for position, item in enumerate(items):
            if not isinstance(item, dict) or item.get("name") != name or (item.get("type") == "dockerimage") != image:
                continue
            plugin = item.get("plugin")
            return [(position, item)] if image or (isinstance(plugin, str) and plugin.startswith(PLUGIN_PREFIX)) else []
        return []

    names = spec.get("prerequisites")
    found = [entry for name in (names if isinstance(names, list) else []) for entry in find(name, False)]
    return found + find(spec.get("dockerImage"), True)
