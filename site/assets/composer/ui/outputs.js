/* The job on its way out of the composer: Copy and Download (the editor's text, as YAML), Copy JSON
 * and Download JSON (the same data as JSON: jsonjob.js).
 *
 * A job the engine refuses still goes out, but only when the user says so: the buttons read
 * "Copy…", "Download…" (and are described by the alert box that says why), and a click asks in a
 * confirm that names the problem.  Not disabled: a broken draft is often copied or saved on purpose,
 * to finish it in another editor, and a disabled button can neither be focused nor say why it is
 * disabled; but nobody should hand OpenPAI a broken job without being told.  JSON needs the YAML to
 * load: when it does not, the error is shown (its line marked) and nothing is copied.
 *
 * `ctx` is what the composer gives: {ui, problem() (the job's error, or null), jobName(), fail(error)}.
 *
 * May import: core/, yaml/, openpai/, index/, jobs/.
 */

import { download } from "./jobfile.js";
import { jobAsJson } from "./jsonjob.js";

const BUTTONS = ["copy", "download", "copyJson", "downloadJson"];

function label(button, asks) {
  return button.getAttribute("data-label") + (asks ? "…" : "");
}

/* Whether to go on with `what` ("Copy", "Download"): at once for a job the engine accepts. */
function goesOut(ctx, what) {
  const problem = ctx.problem();
  if (!problem) return true;
  return window.confirm(`The job has a problem; prereq and OpenPAI would refuse it as it is:\n\n${problem.message}\n\n${what} it anyway?`);
}

/* The job's data as JSON text, or null (the error shown) when its YAML does not load. */
function asJson(ctx) {
  try {
    return jobAsJson(ctx.ui.editor.value, "job");
  } catch (error) {
    ctx.fail(error);
    return null;
  }
}

/* Copy `text`, saying so on the button for two seconds (data-flash meanwhile). */
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

/* The buttons' labels and descriptions for a job with or without a problem. */
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
  for (const role of BUTTONS) ui[role].setAttribute("data-label", ui[role].textContent);
  ui.copy.addEventListener("click", () => {
    if (goesOut(ctx, "Copy")) copy(ctx, ui.copy, ui.editor.value);
  });
  ui.download.addEventListener("click", () => {
    if (goesOut(ctx, "Download")) download(ui.editor.value, ctx.jobName());
  });
  ui.copyJson.addEventListener("click", () => {
    const json = asJson(ctx);
    if (json !== null && goesOut(ctx, "Copy")) copy(ctx, ui.copyJson, json);
  });
  ui.downloadJson.addEventListener("click", () => {
    const json = asJson(ctx);
    if (json !== null && goesOut(ctx, "Download")) download(json, ctx.jobName(), "json");
  });
}
