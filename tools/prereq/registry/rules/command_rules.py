"""The registry's rules for commands as the runtime and the shell run them (PRQ170-PRQ177), suppressions
(PRQ178, PRQ179, PRQ182), job templates (PRQ180, PRQ181) and credentials (PRQ190-PRQ194).

May import: prereq.openpai.runtime (the variables PRQ170's entry lists), prereq.registry.rules.table.
"""

from __future__ import annotations

from prereq.openpai.runtime import PAI_VARIABLES
from prereq.registry.rules.table import E, Rule, W


def _runtime_variables() -> str:
    """How PRQ170 decides, and the variables the runtime defines for a task, from the list the check reads."""
    lines = [
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
    return "\n".join(lines)


RULES = (
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
        notes=_runtime_variables(),
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
)
