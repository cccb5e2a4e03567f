/* The plugin's styles, inside its shadow root only: the site's own sheets (prereq.css for badges and
 * stars, composer.css for the composer) and plugin.css (the site theme's colours and buttons, which
 * the portal does not have, and the plugin's own controls).
 *
 * A shadow root keeps the portal's rules out and ours in, but two things still cross it: inherited
 * properties (plugin.css resets them on its wrapper) and `rem`, which is the portal's root font
 * size (Bootstrap's 10px, not the site's 20px).  So the sheets are fetched and every rem length
 * becomes a multiple of --prereq-rem, set by plugin.css; they are then adopted as constructed sheets,
 * which need no inline <style> a Content-Security-Policy might refuse.
 *
 * Folder webportal/: the composer as an OpenPAI webportal plugin (webportal/prereq-plugin.js): the
 * rest-server's job and user APIs, the user's record and the queues its groups get, the shadow root
 * the composer is mounted into.
 * May import: core/, yaml/, jobs/, ui/, execution/.
 */

import { PrereqError } from "../core/errors.js";

export const SHEETS = ["assets/prereq.css", "assets/composer.css", "assets/composer/webportal/plugin.css"];

/* CSS text for a shadow root: `1.5rem` as `calc(1.5 * var(--prereq-rem))` (numbers inside words,
 * like `a2rem`, stay), and `:root`, which matches nothing there, as `:host`. */
export function scopeRem(css) {
  return css.replace(/:root\b/g, ":host").replace(/(^|[^\w.-])(-?(?:\d+\.?\d*|\.\d+))rem\b/g, (all, before, number) => `${before}calc(${number} * var(--prereq-rem))`);
}

async function sheetText(url) {
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) throw new PrereqError(`cannot load ${url} (${response.status} ${response.statusText})`,
    { hint: "the prereq site is incomplete, or does not allow this portal to read it (CORS)" });
  return scopeRem(await response.text());
}

/* Put the sheets into `shadow`, from the site at `site` (an absolute URL ending in "/"). */
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
