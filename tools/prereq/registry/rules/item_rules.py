"""The registry's rules for a file as read and for what an item says about itself: loading (PRQ101-PRQ108),
the schema and sizes (PRQ109-PRQ112), identity (PRQ113-PRQ122), the plugin (PRQ130-PRQ136) and owners
(PRQ160, PRQ161).

May import: prereq.registry.limits (PRQ109's explanation quotes them), prereq.registry.rules.table.
"""

from __future__ import annotations

from prereq.registry.limits import MAX_EXPANDED_CHARS, MAX_FILE_BYTES, MAX_LINE_CHARS
from prereq.registry.rules.table import E, Rule, W

RULES = (
    # Loading
    Rule(
        "PRQ101",
        "yaml-syntax",
        E,
        "invalid YAML: {detail}",
        "{fix}",
        "The file must parse as plain YAML, within the limits below (nesting, values, integer digits): no "
        "merge keys ('<<') and no tags but !!str (a tagged value such as !!int '12' or !!binary would be read "
        "one way by prereq and another by OpenPAI's rest-server).",
        "fix the YAML syntax at this position",
        guard=True,
    ),
    Rule("PRQ102", "not-utf8", E, "{detail}", "save the file as UTF-8", "Registry files are UTF-8 text.", guard=True),
    Rule(
        "PRQ103",
        "several-documents",
        E,
        "{detail}",
        "keep one item per file and remove the '---' separator",
        "Each file holds exactly one YAML document: one item, or the owners list.",
        guard=True,
    ),
    Rule(
        "PRQ104",
        "duplicate-key",
        E,
        "{detail}",
        "remove one of the two keys; YAML would silently keep the last",
        "A key may appear only once in a mapping.",
        guard=True,
    ),
    Rule(
        "PRQ105",
        "not-a-mapping",
        E,
        "the file holds {detail}, not a mapping of keys to values",
        "{fix}",
        "An item file, a job template and `owners.yaml` are each a YAML mapping.",
        "write the item as 'key: value' lines, starting with 'name:'",
        guard=True,
    ),
    Rule(
        "PRQ106",
        "not-an-item-file",
        E,
        "{detail} is not read as {what}",
        "{fix}",
        "Items are files named `prerequisites/<name>.yaml` and job templates `templates/<name>.yaml`; other "
        "files there would be silently ignored.",
        guard=True,
    ),
    Rule(
        "PRQ108",
        "key-not-a-string",
        E,
        "the key {key} at {path} is not a string",
        "quote it: '{key}': ...",
        "YAML reads `1:`, `~:` or `true:` as a number, null or boolean; every key of a registry file is a name, "
        "so such a file is refused as a whole (nothing downstream ever sees a key that is not a string).",
        guard=True,
    ),
    Rule(
        "PRQ107",
        "not-a-regular-file",
        E,
        "{detail}",
        "{fix}",
        "Registry entries are regular files and folders.  Symbolic links are refused, even ones that stay in "
        "the registry, so that what a pull request shows is what is validated and published (a link could "
        "publish any file of the machine that builds); pipes, devices and sockets are never opened.  Files "
        "are opened without following links, so an entry swapped for one while prereq reads is refused too.",
        guard=True,
    ),
    # Schema
    Rule(
        "PRQ109",
        "file-too-large",
        E,
        "{detail}: more than a registry file may hold",
        "{fix}",
        f"Registry files are at most {MAX_FILE_BYTES >> 20} MiB, their lines at most {MAX_LINE_CHARS:,} bytes, "
        f"and the text they hold, every alias expanded, at most {MAX_EXPANDED_CHARS:,} characters: an item is a "
        "page of YAML, and the limits keep a hostile file from costing every pull request's check minutes.",
        "split it, or move large data out of the registry (an item points at its data with uri)",
        guard=True,
    ),
    Rule(
        "PRQ110",
        "schema",
        E,
        "{path}: {detail}",
        "{fix}",
        "The item must match `schema/prerequisite.schema.json`.",
        guard=True,
    ),
    Rule(
        "PRQ111",
        "unknown-key",
        E,
        "unknown key {key!r}{where}",
        "{fix}",
        "Keys outside the item format are rejected: OpenPAI would pass them to the plugin, which ignores them.",
        guard=True,
    ),
    Rule(
        "PRQ112",
        "missing-key",
        E,
        "required key {key!r} is missing{where}",
        "add '{key}:'{fix}",
        "Every item has name, version, type, title and owners; data items also have a license.",
        guard=True,
    ),
    # Identity
    Rule(
        "PRQ113",
        "control-character",
        E,
        "{path} holds the control character {char}",
        "remove it (a NUL silently ends a command in bash; other control characters reach terminals as "
        "commands to them)",
        "No string of an item may hold a control character: tabs and line breaks are allowed in prose and "
        "commands, nothing else, and names, versions, titles, tags and owners are one line of text.",
        guard=True,
    ),
    Rule(
        "PRQ114",
        "todo-left",
        W,
        "{path} still says TODO",
        "write what the item really is or does there (prereq new and prereq share mark the blanks TODO)",
        "`prereq new` and `prereq share` write valid items whose blanks say TODO; an item still holding one "
        'anywhere (a field, the tag `todo`, a command such as `echo "TODO ..."`) is not ready to be shared.',
    ),
    Rule(
        "PRQ115",
        "schema-stale",
        W,
        "{schema} {state}",
        "run 'prereq schema' to write this prereq's item schema there, and commit it",
        "`prereq init` commits the item schema at `schema/prerequisite.schema.json` and new items' first line "
        "(a `yaml-language-server` modeline) names it, so that editors check items on a fresh clone. A copy "
        "from another prereq version, or none, makes editors check items against the wrong rules.",
    ),
    Rule(
        "PRQ120",
        "name-mismatch",
        E,
        "name {name!r} differs from the file name {stem!r}",
        "rename the file to {name}.yaml or set name: {stem}",
        "An item's name equals its file's stem, so a name is found without opening every file.",
        guard=True,
    ),
    Rule(
        "PRQ121",
        "name-collision",
        E,
        "name {name!r} collides with {other!r} ({other_file})",
        "choose a name that differs by more than case or '-'/'_'",
        "Names must stay distinct after folding case and treating '-' and '_' alike, since people type them both ways.",
        guard=True,
    ),
    # Plugins
    Rule(
        "PRQ122",
        "reserved-name",
        E,
        "name '{name}' is reserved on Windows",
        "choose another name: a registry holding {name}.yaml cannot be checked out on Windows",
        "CON, PRN, AUX, NUL, COM1-COM9 and LPT1-LPT9 (in any case, with any extension) cannot be file names on "
        "Windows.",
        guard=True,
    ),
    Rule(
        "PRQ130",
        "plugin-short-name",
        E,
        "plugin {plugin!r} is a short name that OpenPAI ignores",
        "write plugin: com.microsoft.pai.runtimeplugin.{plugin}",
        "The OpenPAI runtime runs only plugins whose name starts with "
        "`com.microsoft.pai.runtimeplugin.`; anything else is silently skipped.",
    ),
    Rule(
        "PRQ131",
        "plugin-unknown",
        E,
        "unknown plugin {plugin!r}",
        "use one of: {known}",
        "Only the runtime plugins that ship with OpenPAI can be used.",
    ),
    Rule(
        "PRQ132",
        "cmd-both-forms",
        E,
        "callbacks and preCommands/postCommands are both given",
        "use callbacks only: move the commands into taskStarts/taskSucceeds callbacks",
        "The cmd plugin takes either `callbacks` or `preCommands`/`postCommands`, never both.",
    ),
    Rule(
        "PRQ133",
        "ssh-both-key-forms",
        E,
        "userssh and publicKeys are both given",
        "keep publicKeys (a list of keys); prereq writes userssh from it",
        "The ssh plugin's keys are given either as OpenPAI's `userssh` or as the proposal's `publicKeys`.",
    ),
    Rule(
        "PRQ134",
        "event-synonym",
        W,
        "event {event!r} is the proposal's name for {target!r}",
        "write event: {target}{note}",
        "OpenPAI's runtime knows `taskStarts` and `taskSucceeds`; the proposal's `containerStart` and "
        "`containerExit` are mapped to them. The exit event runs only when the task succeeded.",
    ),
    Rule(
        "PRQ135",
        "dockerimage-plugin-key",
        E,
        "a dockerimage item cannot have {key!r}",
        "remove {key!r}: a docker image only has uri and auth beside the descriptive fields",
        "OpenPAI's dockerimage prerequisites take no plugin, callbacks or plugin parameters.",
    ),
    Rule(
        "PRQ136",
        "cmd-no-commands",
        W,
        "the cmd plugin has no commands: this item does nothing",
        "add callbacks with a taskStarts or taskSucceeds event",
        "A cmd item without callbacks runs nothing.",
    ),
    # Owners
    Rule(
        "PRQ160",
        "owner-unknown",
        E,
        "owner {owner!r} is not in owners.yaml",
        "{fix}",
        "Every owner must be a user or team listed in `registry/owners.yaml`: its names, never GitHub logins "
        "(`github:` maps a user or team to its handle; `owners:` names the user or team).",
        guard=True,
    ),
    Rule(
        "PRQ161",
        "owners-file",
        E,
        "{detail}",
        "{fix}",
        "`registry/owners.yaml` lists `users` (a list of names) and `teams` (team name: list of members).",
        guard=True,
    ),
)
