"""The registry's rules for what items require of each other (PRQ140-PRQ147) and for the parameters
their ``<% this.KEY %>`` templates fill in (PRQ150-PRQ155).

May import: prereq.core.versions (PRQ141's explanation quotes a limit), prereq.registry.rules.table.
"""

from __future__ import annotations

from prereq.core.versions import MAX_RANGE_LENGTH
from prereq.registry.rules.table import E, Rule, W

RULES = (
    # Dependencies
    Rule(
        "PRQ140",
        "require-missing",
        E,
        "requires {name!r}, which is not in the registry",
        "{fix}",
        "Every required item must exist.",
    ),
    Rule(
        "PRQ141",
        "require-range-invalid",
        E,
        "{requirement!r} has an invalid version range",
        "use an npm semver range: ^1.2, ~1.2.3, >=1.0 <2.0 or 1.2.3",
        f"Version ranges follow npm's semver syntax, in at most {MAX_RANGE_LENGTH} characters.",
    ),
    Rule(
        "PRQ142",
        "require-range-unmet",
        E,
        "requires {name}@{range} but no published version of {name} meets it ({name} is {version})",
        "widen the range, or publish a version of {name} it accepts (published: {published})",
        "Some published version of the required item must satisfy the range: the working tree's, or one "
        "the git history publishes. When only an older one does, the item keeps resolving it and "
        "validation says so in a note instead.",
    ),
    Rule(
        "PRQ143",
        "require-cycle",
        E,
        "dependency cycle: {cycle}",
        "remove one of these requirements, such as this one ({edge})",
        "Requirements must not form a cycle: no order could run them. Each cycle is reported once, at the "
        "`require` entry of its first item (by name) that leads on around it.",
    ),
    Rule(
        "PRQ144",
        "requires-deprecated",
        W,
        "requires deprecated item {name!r}{replacement}",
        "{fix}",
        "Requiring a deprecated item works, but its users should move on.",
    ),
    Rule(
        "PRQ145",
        "replacement-missing",
        E,
        "deprecated.replacement {name!r} is not in the registry",
        "name an existing item, or remove replacement",
        "A deprecation's replacement must exist.",
    ),
    Rule(
        "PRQ146",
        "conflict-unknown",
        W,
        "conflicts with {name!r}, which is neither an item of the registry nor a runtime plugin",
        "{fix}",
        "`conflicts` names items, or runtime plugins as `com.microsoft.pai.runtimeplugin.NAME`; `prereq job add` "
        "refuses to put an item into a task role that runs one of them. A name nothing has is likely a typo.",
    ),
    Rule(
        "PRQ147",
        "conflict-required",
        E,
        "conflicts with {name!r}, which {why}",
        "remove {name!r} from conflicts, or stop requiring it",
        "An item cannot conflict with itself or with what it requires: no job could select it.",
    ),
    # Templates
    Rule(
        "PRQ150",
        "template-unknown",
        E,
        "unknown template '<% {expr} %>'",
        "use <% this.NAME %>, <% expression.KEY %>, or OpenPAI's <% $parameters.X %>, <% $secrets.X %>, "
        "<% $data.X %>, <% $script.X %>, <% $output.X %>",
        "Templates are rendered by prereq (`this`, `expression`) or passed through for OpenPAI "
        "(`$parameters`, `$secrets`, `$data`, `$script`, `$output`).",
    ),
    Rule(
        "PRQ151",
        "this-unresolved",
        E,
        "'<% this.{key} %>' is not defined by this item or the items it requires",
        "add {key} to parameters here or in a required item",
        "`<% this.NAME %>` is looked up in the item's own parameters, then in the items it requires, nearest first.",
    ),
    Rule(
        "PRQ152",
        "this-ambiguous",
        E,
        "'<% this.{key} %>' has different values in {first} and {second}",
        "set {key} in this item's own parameters to choose one",
        "Two required items at the same distance may not define different values for the same parameter.",
    ),
    Rule(
        "PRQ153",
        "template-syntax",
        E,
        "unclosed template starting '{text}'",
        "close it with '%>'",
        "Templates are written `<% namespace.name %>`.",
    ),
    Rule(
        "PRQ154",
        "this-cycle",
        E,
        "'<% this.{key} %>' refers to itself: {cycle}",
        "give one of these parameters a value that does not use the others",
        "A parameter's value may use other parameters, but never, through them, itself: it could not be rendered.",
    ),
    Rule(
        "PRQ155",
        "this-too-large",
        E,
        "'<% this.{key} %>' expands to more than {limit} characters or through more than {nesting} parameters",
        "use each parameter fewer times in the others, or shorten them",
        "A parameter used several times in another multiplies its length at every level; prereq stops at a "
        "size no real command needs.",
    ),
)
