/* The editor's line of trouble: the line an error names (`job:LINE:`) gets a band (aria-hidden: the
 * alert box says it in words and describes the aria-invalid textarea) and "Go to line N".  A whole new
 * text scrolls to its error's line, a text being typed does not.  The textarea has wrap="off", so line
 * N is its Nth line box.
 * May import: core/, yaml/, openpai/, index/, jobs/.
 */

import { PrereqError } from "../core/errors.js";

// page.js and view.js name the editor's text "job" in every message about it.
const ABOUT_JOB = /^job:(?:(\d+)(?::\d+)?:)?/;

/* One line of a message: whether it is about the job's text, its line (0: none), what follows the place. */
export function messageLine(text) {
  const match = ABOUT_JOB.exec(text);
  return { aboutJob: !!match, line: match && match[1] ? Number(match[1]) : 0, said: match ? text.slice(match[0].length).trim() : text };
}

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

/* The editor's new text, its style worked out at once: the frame that paints it then only lays it out (a
 * long job's style and layout in one frame held the page over 50 ms). */
export function putText(ui, text) {
  if (ui.editor.value === text) return;
  ui.editor.value = text;
  void window.getComputedStyle(ui.editor).color;
}

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

export function goToLine(ui, line) {
  const area = ui.editor;
  const lines = area.value.split("\n");
  const at = Math.min(Math.max(line, 1), lines.length);
  const start = lines.slice(0, at - 1).reduce((sum, text) => sum + text.length + 1, 0);
  area.focus({ preventScroll: true });
  area.setSelectionRange(start, start + lines[at - 1].replace(/\r$/, "").length);
  revealLine(ui, at);
}

export function bindMark(ui) {
  ui.goto.addEventListener("click", () => goToLine(ui, Number(ui.mark.getAttribute("data-line"))));
  const place = () => placeMark(ui);
  ui.editor.addEventListener("scroll", place);
  if (window.ResizeObserver) new window.ResizeObserver(place).observe(ui.editor);
  window.addEventListener("resize", place);
}
