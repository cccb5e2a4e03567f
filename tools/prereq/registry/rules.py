"""The rule table: every problem prereq reports has a stable id, a message and a hint.

The validator, the CLI's output formats and the generated rule reference all
read this one table.  Messages and hints are ``str.format`` templates filled
with the details of each finding.

Longer than usual: the table is data, one entry of a few lines per rule, and reads best whole.

May import: the standard library, and the limits some explanations quote (prereq.core.versions,
prereq.registry.limits, which also gives the reference its list of limits), and the variables the
OpenPAI runtime defines (prereq.openpai.runtime), which PRQ170's entry lists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from prereq.core.versions import MAX_RANGE_LENGTH
from prereq.openpai.runtime import PAI_VARIABLES
from prereq.registry.limits import MAX_EXPANDED_CHARS, MAX_FILE_BYTES, MAX_LINE_CHARS, limits_markdown


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    severity: Severity
    message: str
    hint: str
    explanation: str
    default_fix: str = ""  # what {fix} in the hint says when the finding names no fix of its own
    # Guards identity, integrity or trust: a suppression of it is PRQ182 and silences nothing.
    guard: bool = field(default=False, kw_only=True)


@dataclass(frozen=True)
class Problem:
    """One finding, positioned in a file relative to the registry root (1-based)."""

    rule: str
    severity: Severity
    file: str | None
    line: int | None
    column: int | None
    message: str
    hint: str
    # The problem this one follows from (an item it cannot find, say), linked after the checks ran:
    # not part of what a problem is, so equal problems stay equal and the kept ones keep their shape.
    consequence_of: Problem | None = field(default=None, compare=False, repr=False)

    def sort_key(self) -> tuple[Any, ...]:
        return (self.file or "", self.line or 0, self.column or 0, self.rule, self.message)

    def as_dict(self) -> dict[str, Any]:
        shown: dict[str, Any] = {
            "rule": self.rule,
            "severity": self.severity.value,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "hint": self.hint,
        }
        cause = self.consequence_of
        if cause is not None:
            shown["consequence_of"] = {"rule": cause.rule, "file": cause.file, "line": cause.line}
        return shown


E, W = Severity.ERROR, Severity.WARNING

_RULES = [
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
    # Runtime behaviour
    Rule(
        "PRQ170",
        "variable-undefined",
        W,
        "${name} is used in {event} commands but neither this item, the items it requires, nor the runtime defines it",
        "export {name} in a required item, set it before use, or write ${{{name}:-default}}",
        "Each prerequisite runs as its own process; prereq hands on what earlier items export (and an item's "
        "start exports to its own succeed commands). A variable nothing exports is empty at run time (and "
        "fatal under `set -o nounset`). It warns only when prereq's reader and ShellCheck's SC2154 both say "
        "nothing sets it (this rule's reference entry says how each decides); `${X:-default}` and the guard "
        "`${X:?message}` never warn.",
    ),
    Rule(
        "PRQ171",
        "runtime-round-trip",
        E,
        "{field} would be changed by the OpenPAI runtime's repr round trip",
        "remove backslashes and mixed quotes from this value (commands are encoded automatically; "
        "other values cannot be)",
        "The runtime re-parses plugin parameters with `yaml.safe_load(str(parameters))`; prereq encodes "
        "commands so they survive, but other values (git options, paths, URIs) must survive as written.",
    ),
    # Commands as the shell reads them
    Rule(
        "PRQ172",
        "shell-syntax",
        E,
        "{event} commands are not valid bash: {detail}",
        "fix the shell syntax at this line: the runtime writes one event's commands into one script, one "
        "command a line, and bash reads the script whole",
        "The cmd plugin writes an item's commands of one event into one file, one command a line after "
        "`set -o errexit` and prereq's two lines, and runs it with `/bin/bash`. `bash -n` of exactly that "
        "file must pass; a construct left open in one command (a quote, an `if`) swallows the next ones. "
        "A job template's task role commands are one script too (the runtime's `user.sh`), checked alike.",
    ),
    Rule(
        "PRQ173",
        "shellcheck",
        W,
        "ShellCheck SC{code}: {detail}",
        "see https://www.shellcheck.net/wiki/SC{code}",
        "ShellCheck's errors and warnings on an item's commands (read as one bash script per event) and on a "
        "job template's task role commands, at the line of the command. Left out: SC2164 (`cd` without "
        "`|| exit`: the runtime runs under errexit), SC2154 (variables nothing assigns: PRQ170 says so "
        "when prereq agrees), SC1090/SC1091 (files sourced in the container) and parse errors (PRQ172). "
        "ShellCheck's own `# shellcheck disable=SCnnnn` works in a command too.",
    ),
    Rule(
        "PRQ174",
        "download-into-missing-folder",
        W,
        "{tool} writes into {folder}, which nothing creates before",
        "create it first (mkdir -p {folder}), in this item or one it requires",
        "A download (`wget -O`/`-P`, `curl -o` without `--create-dirs`) into a folder that neither the "
        "image (`/tmp`, `/root`, `/opt`, `/usr/...`, `/mnt`, `/var`...), nor an earlier command of this item "
        "or of the items it requires (`mkdir`, `git clone`, `mktemp -d`, `cd`) creates fails on the cluster.",
    ),
    Rule(
        "PRQ175",
        "pipe-to-shell-over-http",
        W,
        "{tool} pipes a script fetched over plain http into {shell}",
        "fetch it over https, and better, download it and check its checksum before running it",
        "`curl http://... | sh` runs whatever anyone on the network path sends, as root, on every node.",
    ),
    Rule(
        "PRQ176",
        "cd-into-missing-folder",
        W,
        "cd {folder}: nothing creates that folder before",
        "create it first (mkdir -p {folder}), in this item or one it requires",
        "`cd` into a folder that neither the image nor an earlier command of this item or of the items it "
        "requires creates ends the item under the runtime's errexit (or runs the rest elsewhere without it).",
    ),
    Rule(
        "PRQ177",
        "rm-rf-empty-variable",
        W,
        "rm -r on {arg}, which means {means} when ${name} is empty",
        "write ${{{name}:?}} so that the command fails instead when {name} is empty or unset",
        '`rm -rf "$DIR"/` with `DIR` empty removes `/`; a variable set by another item, or by nothing, may '
        "well be empty. A variable this item set to a value before is not reported.",
    ),
    # Suppressions
    Rule(
        "PRQ178",
        "suppression-unused",
        W,
        "the suppression of {silenced} silences nothing here",
        "remove it: a suppression that is not needed hides the next real problem",
        "A suppression names the rules it silences: `# prereq: disable=PRQ170` (several ids "
        "comma-separated, a reason after ` -- `) on the line of the problem, or alone on the line above "
        "it (a YAML comment, or a shell comment in a block of commands); or an item's `suppress: [PRQ170]` "
        "for the whole file. Suppressed problems are still listed in every report, as suppressed. A "
        "suppression that silences nothing is this warning.",
    ),
    Rule(
        "PRQ179",
        "suppression-malformed",
        E,
        "{detail}",
        "write # prereq: disable=PRQnnn, naming the rules to silence ('prereq rules' lists them)",
        "A suppression must name at least one rule, and only rules that exist (PRQ178 and PRQ179 "
        "themselves cannot be suppressed).",
    ),
    Rule(
        "PRQ182",
        "suppression-forbidden",
        E,
        "{rule} ({name}) cannot be suppressed, so this suppression silences nothing",
        "remove {rule} from the suppression and fix what it reports ('prereq rules' says how): it guards "
        "names, files, owners or published versions, which no change may waive for itself; if prereq is "
        "wrong here, tell prereq's maintainers",
        "Some rules guard what a registry is, and a pull request could otherwise silence the very rule that "
        "stops it: which file is which item (file names, names, look-alike names, the schema, control "
        "characters), who owns it (owners, `owners.yaml`, CODEOWNERS, the trust files), that a published "
        "version never changes, and what the execution catalog holds. These cannot be suppressed: a "
        "`# prereq: disable=` comment or a `suppress:` entry naming one is this error, and the problem it "
        "names is still reported. The reference marks them (suppressible: no). Credentials (PRQ190-PRQ192) "
        "stay suppressible for a scanner's false positives and a rotated credential the history keeps: "
        "every report shows such a suppression, at its line (a notice on a pull request's diff).",
    ),
    # Job templates
    Rule(
        "PRQ180",
        "template-unknown-prerequisite",
        E,
        "task role {role!r} names {name!r}, which is neither in the registry nor in this job",
        "{fix}",
        "A job template's task roles may name registry items and prerequisites the template defines itself.",
    ),
    Rule(
        "PRQ181",
        "template-rejected",
        E,
        "OpenPAI would reject this job: {where}: {detail}",
        "fix the job so that, with its prerequisites added, it matches OpenPAI's job protocol",
        "A job template, with the prerequisites it names added as `prereq job resolve` adds them, must pass "
        "the OpenPAI rest-server's schema and checks.",
    ),
    # Secrets: nothing merged may carry a credential, since every version is published forever
    Rule(
        "PRQ190",
        "secret",
        E,
        "{where} holds {kinds}",
        "never write a credential into the registry: write <% $secrets.KEY %> and let each job carry the "
        "secret, and rotate this one (it stays readable in the repository's history)",
        "No string of an item or job template may hold a credential: everything merged is published, every "
        "version of it, forever. Strings are scanned line by line with detect-secrets' plugins (private keys; "
        "AWS, Azure storage, GitHub, GitLab, Slack, npm, PyPI, OpenAI, Stripe, SendGrid and Discord keys and "
        "tokens; JSON Web Tokens) and prereq's own rules: `password=`, `AccountKey=`, "
        "`SharedAccessSignature=`, `*_PASSWORD=`, `*_TOKEN=`, `*_ACCESS_KEY=` options and `--password VALUE`, "
        "parameters named like credentials, `user:password@` in URLs (not at example hosts), `curl -u "
        "user:pass`, `sshpass -p`, `docker login -p`, `mysql -p`, `aws configure set aws_secret_access_key`, "
        "a .netrc's `password`, `redis-cli -a`, `smbclient -U user%pass`, `az login -p`, `Authorization: Basic` and "
        "`X-Api-Key:` headers, `*_PASS=`, `*_PWD=`, `SSHPASS=`, `*_STORAGE_KEY=`, Azure SAS signatures, "
        "Hugging Face tokens, a job template's own `secrets:`. "
        "Mapping keys are scanned too, and a job template's YAML comments (it is published as written). "
        "Secret references "
        "(`<% $secrets.KEY %>`), shell variables, placeholders such as `<password>`, checksums and UUIDs "
        "never count. The message names the kind of credential, never its value.",
    ),
    Rule(
        "PRQ191",
        "credential-not-secret-reference",
        E,
        "{where} gives {name} a value that is not a secret reference",
        "write <% $secrets.KEY %>: a parameter, a per-user value or a job parameter is written into the "
        "job in plain text",
        "A credential option, a credential-named parameter or a URL's password takes its value from "
        "`<% $secrets.KEY %>` (or a shell variable), never from `<% this.* %>`, `<% expression.* %>` or "
        "`<% $parameters.* %>`, whose values are written into the job as plain text.",
    ),
    Rule(
        "PRQ192",
        "secret-in-history",
        E,
        "{name}{version} held {kinds} at line {at} in commit {commit}: that version is never published",
        "rotate the credential now: it stays readable in the repository's history; once it is rotated, "
        "add PRQ192 to the item's suppress list",
        "Every version an item ever had is published from the registry's git history, and a credential a "
        "later commit removed is still in the repository. `prereq validate` scans every revision of every "
        "item and job template (as PRQ190 does) and reports each version that held a credential once, with "
        "the first commit that held it; `prereq build` leaves such versions out of the index and the site, "
        "and says so, except for a line the item's current file suppresses PRQ190 on (a false positive "
        "its owners judged): an older version holding that same line is published. (A revision the "
        "working tree still holds is PRQ190's.)",
    ),
    Rule(
        "PRQ194",
        "secret-when-rendered",
        E,
        "{where} holds {kinds} once its <% this.* %> are filled in",
        "never split a credential over parameters: write <% $secrets.KEY %> and let each job carry the "
        "secret, and rotate this one (it stays readable in the repository's history)",
        "The index and the site publish an item with its `<% this.KEY %>` filled in from its own parameters "
        "and its requirements', nearest first: a token split over two parameters (`<% this.a %><% this.b %>`) "
        "is one again there. Each string that uses parameters is scanned as published, with every rule of "
        "PRQ190, and what filling in reveals is reported at the line of the string that uses them.",
        guard=True,
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
    # Review of a pull request (prereq validate --base REF): the head compared with its base
    Rule(
        "PRQ200",
        "version-not-bumped",
        E,
        "{name} changed ({keys}) but its version {version} is not higher than {base_version} on the base",
        "set version: {suggestion} (or a higher minor or major version); a change only to description, "
        "title, tags, homepage or deprecated needs no new version",
        "A job that locked an item's version must keep getting what it locked, so a change to what an item "
        "does is a new, higher version. Descriptive keys (`description`, `title`, `tags`, `homepage`, "
        "`deprecated`) and comments change without one.",
        guard=True,
    ),
    Rule(
        "PRQ201",
        "version-republished",
        E,
        "{name} {version} was published before (commit {commit}) with other content",
        "choose a version never published, such as {suggestion}",
        "A version that was ever published (on the base branch, at any point of its history) never reappears "
        "with different content: jobs locked to it, and the index's copies of it, would disagree. The same "
        "holds for a version of an environment or a library of the execution catalog "
        "(`<name>/<version>.yaml`, its description aside): a change goes into a new file with a version "
        "above every published one (PRQ314 says so of a file whose own history held other content).",
        guard=True,
    ),
    Rule(
        "PRQ202",
        "required-item-deleted",
        E,
        "{name} is deleted but still required by {dependents}",
        "keep {name} and deprecate it (deprecated: with a reason and a replacement), then delete it once "
        "nothing requires it",
        "Deleting an item that other items or job templates require breaks them; deprecation tells their "
        "owners to move first.",
    ),
    Rule(
        "PRQ203",
        "required-item-renamed",
        E,
        "{old} is renamed to {name} but still required as {old} by {dependents}",
        "update their require to {name}, or keep {old} as a deprecated item with replacement: {name}",
        "A rename is a deletion for everything that requires the old name.",
    ),
    Rule(
        "PRQ204",
        "deprecated-still-required",
        W,
        "{name} is deprecated here but still required by {dependents}",
        "{fix}",
        "Deprecating an item that items in use still require is allowed, and worth a second look: their "
        "owners should move them to the replacement.",
    ),
    Rule(
        "PRQ205",
        "author-not-owner",
        E,
        "{author} is not among the owners of {name} ({owners}) on the base",
        "{fix}",
        "With `--author`, every modified, renamed or deleted item must list the author, or a team of "
        "`owners.yaml` the author belongs to, among its owners as the base has them (a pull request "
        "cannot grant itself ownership). No live API is called. The author is a user, never a team (a "
        "team counts through its members): a GitHub login matches the user `owners.yaml` gives that "
        "handle (`github:`); a bare name that is no handle's login also matches the user of that name, "
        "but `--author @login` (what a pull request's check gives) is a login only, so a user with a "
        "handle is never matched by a stranger whose login is their local name. The hint names the "
        "form `owners:` needs: the author's `owners.yaml` user, or the `github:` entry mapping the "
        "login. In the execution catalog the same goes for a modified or deleted environment, library "
        "or queue, a new version of an environment or a library (its newest version's owners decide), "
        "and a changed row of `rights.yaml` (its queue's owners decide who gets slots there).",
        "ask an owner to make or approve this change, or to add you (your owners.yaml user, or a team of "
        "yours; a login only through github:) to owners in a change of its own",
        guard=True,
    ),
    Rule(
        "PRQ206",
        "new-item-without-author",
        E,
        "the new {what} {name} does not list its author {author} among its owners",
        "{fix}",
        "With `--author`, a new item lists its author among its owners, so that someone owns it from the start; "
        "so does a new environment, library or queue of the execution catalog. Owners are `owners.yaml` "
        "names: the author is listed as the user `owners.yaml` knows them by, never as a GitHub login.",
        "list the author's owners.yaml user (the user whose github: handle is their login) among owners",
        guard=True,
    ),
    Rule(
        "PRQ207",
        "codeowners-outdated",
        E,
        "{path} is {state}",
        "run 'prereq codeowners' and commit {path}",
        "When `owners.yaml` gives GitHub handles (`github: {user: '@login', team: '@org/team'}`), the "
        "repository's `.github/CODEOWNERS` is generated from them and the items' owners, so GitHub asks an "
        "item's owners to review its changes; checked by `prereq validate` (with or without `--base`) and "
        "`prereq codeowners --check`. "
        "Without any handle there is no CODEOWNERS to generate, and none is checked.",
        guard=True,
    ),
    Rule(
        "PRQ208",
        "version-below-published",
        E,
        "{name} comes back at {version}, not higher than {highest}, which the base branch published (commit {commit})",
        "set version: {suggestion} (or a higher minor or major version)",
        "An item added again after its deletion, or renamed to a name used before, continues that name's "
        "versions: it carries a version higher than every version the base branch ever published under the "
        "name (or that highest version itself, unchanged, which undoes the deletion). A lower one would "
        "make the file and the index's newest version disagree, and ranges that accepted the old versions "
        "would pick them over it.",
        guard=True,
    ),
    Rule(
        "PRQ210",
        "trust-file-change",
        E,
        "{author} changes the trust file {path} ({what}) but is not an administrator ({admins})",
        "ask an administrator (a member of owners.yaml's admins team{team}) to make or co-author this "
        "change, or split it out into a pull request of its own for them",
        "Items have owners, who review them; every other file of the repository is a trust file, the "
        "administrators': `owners.yaml` (users, teams, handles, `admins`), `rights.yaml`, the execution "
        "catalog, job templates (they run in jobs and have no owners of their own), `prereq.yaml` and the "
        "allowed signers it names, `schema/`, `.github/` (workflows, CODEOWNERS) and the site's sources (a "
        "`mkdocs.yml` runs hooks in the publish job, which holds the signing key; pages and scripts reach "
        "every user and the portal's plugin). With `--author`, a change to "
        "any of them needs an administrator: a member of the team `owners.yaml` names in `admins:`, as the "
        "base has it (a pull request cannot make itself an administrator). One exception: a team listed in "
        "`self-managed:` may have its own members (on the base) edit that team's member list, and nothing "
        "else. A base without `admins:` has no administrator, so every such change is refused: the one "
        "adding `admins:` is merged by the repository's maintainers past the check. Without `--author` "
        "the trust changes are listed in the report and the change is never trivially safe.",
        guard=True,
    ),
    # The execution catalog (prereq.execution): environments, queues, libraries and queue rights
    Rule(
        "PRQ209",
        "intermediate-version",
        E,
        "commit {commit} holds {what} {name} {version} {detail}",
        "squash the pull request into one commit, or drop the commit that holds it (git rebase -i {ref}), so "
        "that only versions the review judged reach {ref}'s history",
        "A review (`prereq validate --base`) reads every commit of the pull request, not only its final tree. "
        "The build publishes every version the base branch's first-parent history holds; merged with a merge "
        "commit or squashed, only the final tree joins that history, but a rebase merge or a fast-forward puts "
        "each commit there. So a version of an item, an environment or a library that a commit holds must be "
        "the final tree's own (the build keeps the final content of a version the tree holds; another file "
        "claiming the name must hold that same content) or one the base already publishes, exactly as it "
        "publishes it, descriptions and tags included (the index shows a version's newest content); a version "
        "written in one commit and undone in a later one is refused, naming the commit.",
        guard=True,
    ),
    Rule(
        "PRQ211",
        "secret-in-commit",
        E,
        "commit {commit} holds {kinds} at line {at}: merged, it stays readable in {ref}'s history",
        "rotate the credential, then rewrite the pull request's commits so that none holds it (squash them, "
        "or git rebase -i {ref}): removing it in a later commit is not enough",
        "A review (`prereq validate --base`) scans every file of the registry folder that any commit of the "
        "pull request wrote, as text: comments, files no loader reads, an intermediate `owners.yaml`. A "
        "credential one commit adds and a later one removes is still in the history the merge brings to the "
        "base branch. Unlike the base's own history (PRQ192), a pull request's can still be rewritten before "
        "it merges. Lines a value scan already reports (PRQ190, PRQ192, PRQ318) are not reported again.",
        guard=True,
    ),
    Rule(
        "PRQ300",
        "catalog-schema",
        E,
        "{path}: {detail}",
        "{fix}",
        "Each catalog file matches its part of `schema/execution-catalog.schema.json`: an environment "
        "(`environments/<name>/<version>.yaml`), a queue (`queues/<name>.yaml`), a library "
        "(`libraries/<name>/<version>.yaml`) or the rights (`rights.yaml`). Keys outside the format are refused.",
        "see the execution catalog's format in schema/execution-catalog.schema.json",
        guard=True,
    ),
    Rule(
        "PRQ301",
        "catalog-name-mismatch",
        E,
        "{key} {value!r} differs from {expected!r}, which the file's path gives",
        "{fix}",
        "A catalog file's path says what it holds: `environments/python/1.0.0.yaml` holds name `python` and "
        "version `1.0.0`, `queues/gpu-1d.yaml` holds name `gpu-1d`, so a reference is found without opening "
        "every file.",
        guard=True,
    ),
    Rule(
        "PRQ302",
        "not-a-catalog-file",
        E,
        "{detail} is not read as {what}",
        "{fix}",
        "The catalog's folders hold only `<name>/<version>.yaml` files (environments, libraries) or "
        "`<name>.yaml` files (queues); anything else there would be silently ignored.",
        guard=True,
    ),
    Rule(
        "PRQ303",
        "catalog-reference-missing",
        E,
        "{what} {name!r} is not {where}",
        "{fix}",
        "Every reference resolves: a queue's and a library's environments, a library's dependencies and its "
        "install prerequisite, an environment's docker image (a `dockerimage` item), the queues and groups of "
        "the rights, the users of a group, and every owner.",
    ),
    Rule(
        "PRQ304",
        "library-cycle",
        E,
        "library dependency cycle: {cycle}",
        "remove one of these dependencies, such as this one ({edge})",
        "Library dependencies must not form a cycle: nothing could be installed first. The whole cycle is "
        "named, once, at the dependency of its first library (by name) that leads on around it.",
    ),
    Rule(
        "PRQ305",
        "library-language-mismatch",
        E,
        "{library} is {language}, but {target} is {other}",
        "{fix}",
        "Languages agree along dependencies: a library uses only libraries of its own language, and lists "
        "only environments that have its language.",
    ),
    Rule(
        "PRQ306",
        "library-no-environment",
        E,
        "{library} works in no environment: {culprit} ({chain}) leaves none of {remaining}",
        "{fix}",
        "A library works in the environments of its own list that everything it depends on (directly or "
        "not) also works in. When that leaves none, the library of the chain that removed the last "
        "environment is named, with the chain that leads to it.",
    ),
    Rule(
        "PRQ307",
        "limit-not-positive",
        E,
        "{key} is {value}; it must be at least {minimum}",
        "{fix}",
        "A queue's memory, time limit, cores per slot, slots per machine and total slots are positive "
        "(GPUs per slot may be 0); a right gives at least one slot and a priority of 0 or more.",
    ),
    Rule(
        "PRQ308",
        "slots-per-machine-over-total",
        E,
        "{per_machine} slots per machine, but the queue has {total} in total",
        "lower slots_per_machine to at most {total}, or raise total_slots",
        "A block runs on one machine, so a queue cannot have more slots on one machine than in total.",
    ),
    Rule(
        "PRQ309",
        "rights-duplicate",
        E,
        "queue {queue!r} and group {group!r} already have a row (line {first})",
        "keep one row per queue and group: merge the two",
        "Rights rows are unique per queue and group: with two, which one holds would depend on their order.",
    ),
    Rule(
        "PRQ310",
        "rights-over-total",
        E,
        "group {group!r} gets {slots} slots on {queue}, which has {total} in total",
        "give at most {total} slots, or raise the queue's total_slots",
        "A right cannot give more slots than the queue has.",
    ),
    Rule(
        "PRQ311",
        "gpu-queue-environment",
        E,
        "GPU queue {queue} serves {environment}, which lacks the gpu capability",
        "serve a GPU-capable environment here (capabilities: [gpu]), or move {environment} to a CPU queue",
        "A queue with GPUs per slot serves only environments whose capabilities include `gpu`: a block in "
        "another would hold GPUs it cannot use.",
    ),
    Rule(
        "PRQ312",
        "queue-unused",
        W,
        "no group has rights on queue {queue}",
        "add a row for {queue} to rights.yaml, or remove the queue",
        "A queue no group may use offers nothing to anyone.",
    ),
    Rule(
        "PRQ313",
        "environment-unserved",
        W,
        "no queue serves environment {environment}",
        "add {environment} to the environments of a queue, or remove it",
        "An environment no queue serves cannot run any block.",
    ),
    Rule(
        "PRQ314",
        "catalog-version-changed",
        E,
        "{kind} {ref} was published (commit {commit}) with other content",
        "keep {ref} as it was and put the change into a new version: {suggestion}",
        "A published version of an environment or a library never changes: experiments name it exactly, and "
        "what they computed must stay reproducible. Any content in the git history of the file "
        "(`<name>/<version>.yaml`) other than today's is reported; the description may change.",
        guard=True,
    ),
    Rule(
        "PRQ315",
        "group-redefined",
        E,
        "group {group!r} is also a team of owners.yaml",
        "rename the group, or remove it and add its members to the team",
        "Groups come from owners.yaml's teams and from rights.yaml's groups; one name means one set of users.",
        guard=True,
    ),
    Rule(
        "PRQ316",
        "catalog-deleted-in-use",
        E,
        "{what} {name} is deleted but still used by {users}",
        "keep {name} until nothing uses it: move {users} to another {what} first",
        "A review (`prereq validate --base`) refuses to delete an environment that queues serve or libraries "
        "list, a library that libraries depend on, or a queue that rows of `rights.yaml` name: what uses it "
        "moves first (the head's validation names each dangling reference too, PRQ303).",
    ),
    Rule(
        "PRQ317",
        "catalog-name-collision",
        E,
        "{what} name {name!r} collides with {other!r} ({other_file})",
        "choose a name that differs by more than case or '-'/'_', or use {other!r} itself",
        "The names of environments, of libraries and of queues stay distinct after folding case and "
        "treating '-' and '_' alike, as item names do (PRQ121): `array_utils` beside `array-utils` would be "
        "two libraries that people, typing either, cannot tell apart. Each file of the later name (in "
        "sorted order) is reported.",
        guard=True,
    ),
    Rule(
        "PRQ318",
        "catalog-secret",
        E,
        "{where} holds {kinds}",
        "never write a credential into the execution catalog: an image's registry login belongs to the cluster, "
        "not to the catalog; remove it and rotate it (it stays readable in the repository's history)",
        "The execution catalog (environments, libraries, queues, `rights.yaml`, and the users and teams of "
        "`owners.yaml`, which it publishes as groups) is published in the index and its every version kept in "
        "the history, so no string or key of it may hold a credential: the same scan as PRQ190's.",
        guard=True,
    ),
]

RULES: dict[str, Rule] = {rule.id: rule for rule in _RULES}


def problem(
    rule_id: str, *, file: str | None, line: int | None = None, column: int | None = None, **details: Any
) -> Problem:
    """Build a Problem from the table, filling message and hint with ``details``."""
    rule = RULES[rule_id]
    if rule.default_fix:
        details.setdefault("fix", rule.default_fix)
    return Problem(
        rule=rule.id,
        severity=rule.severity,
        file=file,
        line=line,
        column=column,
        message=rule.message.format(**details),
        hint=rule.hint.format(**details),
    )


def rule_reference_markdown() -> str:
    """The rule reference page, generated from the table above."""
    lines = [
        "# Rule reference",
        "",
        "Every problem `prereq validate` reports carries one of these ids. "
        "Errors fail validation; so do warnings, unless `prereq.yaml` says `validate: {strict: false}` (or a run "
        "passes `--no-strict`).",
        "",
        "A problem can be suppressed by a `# prereq: disable=PRQnnn` comment on its line (or alone on the line "
        "above) or by an item's `suppress: [PRQnnn]` (PRQ178), and is still shown in every report, except "
        "where the table says *no*: those rules guard identity, integrity and trust (file names, names and "
        "look-alike names, the schema, owners and the trust files, published versions, the execution "
        "catalog's names), and a pull request must not be able to silence the rule that stops it. A "
        "suppression of one is an error itself (PRQ182) and silences nothing.",
        "",
        "| id | name | severity | suppressible | what it checks |",
        "|---|---|---|---|---|",
    ]
    ordered = sorted(_RULES, key=lambda rule: rule.id)  # the table is grouped by concern; readers look ids up
    for rule in ordered:
        lines.append(
            f"| [{rule.id}](#{rule.id.lower()}) | `{rule.name}` | {rule.severity.value} | "
            f"{'**no**' if rule.guard else 'yes'} | {rule.explanation} |"
        )
    for rule in ordered:
        lines += [
            "",
            f"## {rule.id}",
            "",
            f"**{rule.name}** ({rule.severity.value}{', cannot be suppressed' if rule.guard else ''})",
            "",
            rule.explanation,
            "",
            f"Message: `{rule.message}`",
            "",
            f"Fix: {rule.hint.format(fix=rule.default_fix) if rule.default_fix else rule.hint}",
        ]
        if rule.id == "PRQ170":
            lines += _runtime_variables_markdown()
    return "\n".join(lines) + "\n\n" + limits_markdown()


def _runtime_variables_markdown() -> list[str]:
    """How PRQ170 decides, and the variables the runtime defines for a task, from the list the check reads."""
    lines = [
        "",
        "Two readers must agree. prereq's knows what the items required export, the variables the runtime "
        "defines (below: a `PAI_` name not among them warns), the usual shell variables, and what "
        "`conda activate`, a virtualenv's `activate` and `. /etc/os-release` set. ShellCheck (run with "
        "`check-unassigned-uppercase`) knows every assignment bash makes, `read`, `for`, `mapfile`, "
        "`getopts`, `coproc`, `exec {fd}>`, arithmetic, `declare`, wherever it stands in the commands, so "
        '`[ -n "$X" ] || X=/tmp/x` does not warn. A name warns when prereq finds it used with nothing setting '
        "it before and ShellCheck's SC2154 names it too; without ShellCheck (or when it cannot read the "
        "commands) prereq's reader decides alone, and then also warns of a use before the assignment. A use "
        "under ShellCheck's own `# shellcheck disable=SC2154` does not warn. A variable the image sets: "
        "write `${X:?the image sets X}`, or suppress the line with `# prereq: disable=PRQ170`.",
        "",
        "The OpenPAI runtime defines these in every process of a task (`<ROLE>`, `<INDEX>` and `<PORT>` "
        "stand for a task role's name, a task's index in it and a port label; older names after the first):",
        "",
        "| variables | what |",
        "|---|---|",
    ]
    for names, what in PAI_VARIABLES:
        lines.append("| " + ", ".join(f"`{name}`" for name in names) + f" | {what} |")
    return lines
