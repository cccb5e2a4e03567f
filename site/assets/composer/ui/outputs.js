/* Copy and Download of the job, as YAML or JSON (jsonjob.js).  A job the engine refuses goes out after
 * a confirm naming the problem, its buttons not disabled: a broken draft is often saved on purpose, and
 * a disabled button can neither be focused nor say why.
 * May import: core/, yaml/, openpai/, index/, jobs/.
 */

import { download } from "./jobfile.js";
import { jobAsJson } from "./jsonjob.js";

const BUTTONS = ["copy", "download", "copyJson", "downloadJson"];

function label(button, asks) {
  return button.getAttribute("data-label") + (asks ? "…" : "");
}

function goesOut(ctx, what) {
  const problem = ctx.problem();
  if (!problem) return true;
  return window.confirm(`The job has a problem; prereq and OpenPAI would refuse it as it is:\n\n${problem.message}\n\n${what} it anyway?`);
}

function asJson(ctx) {
  try {
    return jobAsJson(ctx.text(), "job");
  } catch (error) {
    ctx.fail(error);
    return null;
  }
}

function copy(ctx, button, text) {
  const say = (words) => {
    button.setAttribute("data-flash", "");
    button.textContent = words;
  };
  window.prereq.copyText(text).then(() => say("Copied ✓"), () => say("Select the text and copy it")).then(() => window.setTimeout(() => {
    button.removeAttribute("data-flash");
    button.textContent = label(button, !!ctx.problem());
  }, 2000));
}

export function showOutputState(ui, problem) {
  for (const role of BUTTONS) {
    const button = ui[role];
    if (!button.hasAttribute("data-flash")) button.textContent = label(button, !!problem);
    if (problem) button.setAttribute("aria-describedby", ui.error.id);
    else button.removeAttribute("aria-describedby");
  }
}

export function bindOutputs(ctx) {
  const ui = ctx.ui;
  const [yaml, json] = [() => ctx.text(), () => asJson(ctx)];
  for (const [role, what, text, format] of [["copy", "Copy", yaml], ["download", "Download", yaml, "yaml"],
    ["copyJson", "Copy", json], ["downloadJson", "Download", json, "json"]]) {
    ui[role].setAttribute("data-label", ui[role].textContent);
    ui[role].addEventListener("click", () => {
      const out = text();
      if (out === null || !goesOut(ctx, what)) return;
      if (format) download(out, ctx.jobName(), format);
      else copy(ctx, ui[role], out);
    });
  }
}
