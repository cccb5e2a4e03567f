/* The editor's line of trouble: an error about the job names its line (`job:LINE:` or
 * `job:LINE:COLUMN:`, as the CLI names `FILE:LINE:`), which gets a band over that line of the
 * textarea (ui.mark, aria-hidden: the alert box says it in words, and the textarea is aria-invalid
 * and described by it).  "Go to line N" (ui.goto, under the alert box) selects the line and
 * scrolls it into view; a whole new text (a paste, an upload, a template, Undo) is scrolled to its
 * error's line by itself, a text being typed is not.  The band follows the textarea's scrolling and
 * size; the textarea has `wrap="off"`, so line N is its Nth line box.
 *
 * May import: core/, yaml/, openpai/, index/, jobs/.
 */

import { PrereqError } from "../core/errors.js";

// page.js and view.js name the editor's text "job" in every message about it.
const ABOUT_JOB = /^job:(?:(\d+)(?::\d+)?:)?/;

/* Whether one line of a message is about the job's text, its line there (0: none named) and what
 * it says after the place. */
export function messageLine(text) {
  const match = ABOUT_JOB.exec(text);
  return { aboutJob: !!match, line: match && match[1] ? Number(match[1]) : 0, said: match ? text.slice(match[0].length).trim() : text };
}

/* Whether an error is about the job's text, and its line there (0: none named). */
export function errorLine(error) {
  const { aboutJob, line } = error instanceof PrereqError ? messageLine(error.message) : { aboutJob: false, line: 0 };
  return { aboutJob, line };
}

function lineHeight(area) {
  const style = window.getComputedStyle(area);
  const given = parseFloat(style.lineHeight);
  return Number.isFinite(given) ? given : parseFloat(style.fontSize) * 1.2; // "normal"
}

function paddingTop(area) {
  return parseFloat(window.getComputedStyle(area).paddingTop) || 0;
}

/* The band over the marked line, where the textarea shows it now (hidden when scrolled out). */
export function placeMark(ui) {
  const { editor: area, mark } = ui;
  const line = Number(mark.getAttribute("data-line") || 0);
  const height = lineHeight(area);
  const inside = area.offsetTop + area.clientTop; // the textarea's content box, in the wrapper
  const top = inside + paddingTop(area) + (line - 1) * height - area.scrollTop;
  mark.hidden = !line || top + height <= inside || top >= inside + area.clientHeight;
  if (mark.hidden) return;
  const shown = Math.max(top, inside);
  mark.style.top = shown + "px";
  mark.style.height = Math.min(top + height, inside + area.clientHeight) - shown + "px";
  mark.style.left = area.offsetLeft + area.clientLeft + "px";
  mark.style.width = area.clientWidth + "px";
}

/* Mark the line `error` names (none: no band), and say in the textarea's state and description
 * whether the error is about its text.  Returns the line (0: none). */
export function markError(ui, error) {
  const { aboutJob, line } = errorLine(error);
  ui.mark.setAttribute("data-line", String(line));
  ui.goto.hidden = !line;
  ui.goto.textContent = line ? `Go to line ${line}` : "Go to line"; // never a line 0, even hidden
  if (aboutJob) {
    ui.editor.setAttribute("aria-invalid", "true");
    ui.editor.setAttribute("aria-describedby", ui.error.id);
  } else {
    ui.editor.removeAttribute("aria-invalid");
    ui.editor.removeAttribute("aria-describedby");
  }
  placeMark(ui);
  return line;
}

/* Scroll the textarea so that `line` shows, a third down from its top (the page too, if needed). */
export function revealLine(ui, line) {
  const area = ui.editor;
  const height = lineHeight(area);
  const top = (line - 1) * height;
  if (top < area.scrollTop || top + height > area.scrollTop + area.clientHeight - paddingTop(area)) {
    area.scrollTop = Math.max(0, top - area.clientHeight / 3);
  }
  area.scrollLeft = 0;
  placeMark(ui);
  (ui.mark.hidden ? area : ui.mark).scrollIntoView({ block: "nearest" });
}

/* Select line `line` of the editor (the caret there for an empty one) and show it. */
export function goToLine(ui, line) {
  const area = ui.editor;
  const lines = area.value.split("\n");
  const at = Math.min(Math.max(line, 1), lines.length);
  const start = lines.slice(0, at - 1).reduce((sum, text) => sum + text.length + 1, 0);
  area.focus({ preventScroll: true });
  area.setSelectionRange(start, start + lines[at - 1].replace(/\r$/, "").length);
  revealLine(ui, at);
}

/* "Go to line N" goes there; the band follows the textarea as it scrolls and as it is resized. */
export function bindMark(ui) {
  ui.goto.addEventListener("click", () => goToLine(ui, Number(ui.mark.getAttribute("data-line"))));
  const place = () => placeMark(ui);
  ui.editor.addEventListener("scroll", place);
  if (window.ResizeObserver) new window.ResizeObserver(place).observe(ui.editor);
  window.addEventListener("resize", place);
}
