// The composer's loadYaml (site/assets/composer/yaml/yamlload.js) on a long job, now's against a git
// revision's, interleaved in one process: the job's verifying load is about half of a check's time.
//
//   node bench/yaml_load.mjs --before REV [--entries 150] [--rounds 150]
//
// The job: OpenPAI's protocol with ENTRIES prerequisites of the cmd plugin's shape (five commands
// each, as prereq writes them) and a task role naming them all: about 52 KB at 150.  The revision's
// site/assets/ is extracted to a temporary folder (git archive) and imported from there.  Medians of
// the rounds after the first fifth (warm-up); nothing asserts a time.

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const MODULE = "site/assets/composer/yaml/yamlload.js";

function job(entries) {
  const lines = ["protocolVersion: 2", "name: bench", "type: job", "prerequisites:"];
  for (let i = 0; i < entries; i++) {
    lines.push(`  - name: item-${i}`, "    type: script", "    plugin: com.microsoft.pai.runtimeplugin.cmd",
      "    callbacks:", "      - event: taskStarts", "        commands:");
    for (const command of [":", `export ITEM_${i}_DIR=/tmp/item-${i}`, `mkdir -p "$ITEM_${i}_DIR"`,
      `echo 'item ${i}: ready' >&2`, `test -d "$ITEM_${i}_DIR" || exit 1`]) lines.push(`          - ${JSON.stringify(command)}`);
  }
  lines.push("taskRoles:", "  train:", "    instances: 1", "    dockerImage: image", "    prerequisites:");
  for (let i = 0; i < entries; i++) lines.push(`      - item-${i}`);
  lines.push("    commands:", "      - python train.py");
  return lines.join("\n") + "\n";
}

const median = (values) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];

const USAGE = "usage: node bench/yaml_load.mjs --before REV [--entries N] [--rounds N]";
const refuse = (message) => (console.error(`${message}\n${USAGE}`), process.exit(2));

let options;
try {
  ({ values: options } = parseArgs({ options: { before: { type: "string" }, entries: { type: "string", default: "150" },
    rounds: { type: "string", default: "150" } } }));
} catch (error) {
  refuse(error.message);
}
if (!options.before) refuse("--before REV is needed: the revision to compare with");
for (const name of ["entries", "rounds"]) {
  if (!/^[1-9][0-9]*$/.test(options[name])) refuse(`--${name}: a whole number of 1 or more, not ${JSON.stringify(options[name])}`);
}
try {
  execFileSync("git", ["-C", REPO, "rev-parse", "--verify", "--quiet", `${options.before}^{commit}`], { stdio: "ignore" });
} catch {
  refuse(`--before: ${JSON.stringify(options.before)} is not a commit of ${REPO}`);
}
const folder = mkdtempSync(join(tmpdir(), "prereq-yaml-load-"));
try {
  const archive = execFileSync("git", ["-C", REPO, "archive", "--format=tar", options.before, "site/assets/"]);
  execFileSync("tar", ["-x", "-C", folder], { input: archive });
  const engines = { now: await import(pathToFileURL(join(REPO, MODULE))),
    before: await import(pathToFileURL(join(folder, MODULE))) };
  const text = job(Number(options.entries));
  const times = { now: [], before: [] };
  for (let round = 0; round < Number(options.rounds); round++) {
    for (const [name, engine] of Object.entries(engines)) {
      const start = performance.now();
      engine.loadYaml(text, { mergeKeys: true });
      times[name].push(performance.now() - start);
    }
  }
  const warm = (values) => values.slice(Math.floor(values.length / 5));
  const [now, before] = [median(warm(times.now)), median(warm(times.before))];
  console.log(`loadYaml of a ${text.split("\n").length - 1}-line job (${(text.length / 1024).toFixed(0)} KB), ` +
    `medians of ${warm(times.now).length} warm rounds, interleaved:`);
  console.log(`  now ${now.toFixed(1)} ms, ${options.before} ${before.toFixed(1)} ms: now / before ${(now / before).toFixed(2)}×`);
} finally {
  rmSync(folder, { recursive: true, force: true });
}
