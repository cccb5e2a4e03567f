/* The plugin's styles, in its shadow root only: prereq.css, composer.css and plugin.css.
 * Two things cross a shadow root: inherited properties (plugin.css resets them) and `rem`, the portal's
 * root size (10px, not our 20px): rem lengths become multiples of --prereq-rem.  Constructed sheets
 * need no inline <style>, which a Content-Security-Policy might refuse.
 *
 * May import: core/, yaml/, jobs/, ui/, execution/.
 */

import { PrereqError } from "../core/errors.js";

export const SHEETS = ["assets/prereq.css", "assets/composer.css", "assets/composer/webportal/plugin.css"];

/* `1.5rem` as `calc(1.5 * var(--prereq-rem))`; `:root`, which matches nothing in a shadow root, as `:host`. */
export function scopeRem(css) {
  return css.replace(/:root\b/g, ":host").replace(/(^|[^\w.-])(-?(?:\d+\.?\d*|\.\d+))rem\b/g, (all, before, number) => `${before}calc(${number} * var(--prereq-rem))`);
}

async function sheetText(url) {
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) throw new PrereqError(`cannot load ${url} (${response.status} ${response.statusText})`,
    { hint: "the prereq site is incomplete, or does not allow this portal to read it (CORS)" });
  return scopeRem(await response.text());
}

/* `site`: an absolute URL ending in "/". */
export async function adoptStyles(shadow, site) {
  const texts = await Promise.all(SHEETS.map((path) => sheetText(new URL(path, site).href)));
  if ("adoptedStyleSheets" in shadow && typeof CSSStyleSheet === "function" && "replaceSync" in CSSStyleSheet.prototype) {
    shadow.adoptedStyleSheets = texts.map((text) => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(text);
      return sheet;
    });
    return;
  }
  for (const text of texts) { // older browsers: <style> elements, as a last resort
    const style = document.createElement("style");
    style.textContent = text;
    shadow.appendChild(style);
  }
}
