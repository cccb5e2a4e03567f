/* prereq marketplace: what every page shares (favorites, recently used, copy buttons).
 *
 * Browser storage contract, shared with the job composer (assets/composer/ui/page.js):
 *   localStorage["prereq.favorites"]  JSON list of item names, most recently starred first.
 *   localStorage["prereq.recent"]     JSON list of item names, most recently used first, at most
 *                                     50: an item is "used" when its YAML is copied from its page
 *                                     or it is added to a job in the composer.
 *   localStorage["prereq.composer.draft"]  the composer's editor text and task role, so a reload
 *                                     (or ?add= from an item page) continues the same job.
 * Writers keep each list free of duplicates; readers tolerate a missing key, invalid JSON,
 * non-string entries and names no longer in the index.  Either page may use window.prereq below.
 *
 * Finding items (type groups, the index, search and filters) is finding.js's, loaded after this
 * script: it adds its functions to window.prereq.
 *
 * Security: everything that comes from the index (names, titles, summaries...) is written into
 * the page with textContent or setAttribute on a non-script attribute, never as HTML.
 *
 * Longer than usual: the script is one function, its own scope (a classic script: only
 * window.prereq reaches the page); the functions inside it are short.
 */
(function () {
  "use strict";

  var FAVORITES = "prereq.favorites";
  var RECENT = "prereq.recent";
  var RECENT_MAX = 50;

  function readList(key) {
    try {
      var value = JSON.parse(window.localStorage.getItem(key) || "[]");
      if (!Array.isArray(value)) return [];
      var seen = {};
      return value.filter(function (name) {
        if (typeof name !== "string" || seen[name]) return false;
        seen[name] = true;
        return true;
      });
    } catch (error) {
      return [];
    }
  }

  function writeList(key, list) {
    try {
      window.localStorage.setItem(key, JSON.stringify(list));
    } catch (error) {
      /* storage full or disabled: favorites simply do not persist */
    }
    document.dispatchEvent(new CustomEvent("prereq:storage", { detail: { key: key } }));
  }

  function favorites() { return readList(FAVORITES); }
  function isFavorite(name) { return favorites().indexOf(name) !== -1; }

  function setFavorite(name, on) {
    var list = favorites().filter(function (other) { return other !== name; });
    if (on) list.unshift(name);
    writeList(FAVORITES, list);
    return on;
  }

  function toggleFavorite(name) { return setFavorite(name, !isFavorite(name)); }

  /* Star several at once (a shared list imported in the catalog), in their order, ahead of the others:
   * one write, so the page redraws once. */
  function addFavorites(names) {
    var adding = names.filter(function (name, index) { return typeof name === "string" && names.indexOf(name) === index; });
    writeList(FAVORITES, adding.concat(favorites().filter(function (name) { return adding.indexOf(name) === -1; })));
  }

  function recent() { return readList(RECENT); }

  function pushRecent(name) {
    var list = recent().filter(function (other) { return other !== name; });
    list.unshift(name);
    writeList(RECENT, list.slice(0, RECENT_MAX));
  }

  /* Copy text: the asynchronous clipboard API where allowed, else a hidden textarea. */
  function copyText(text) {
    function fallback() {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.top = "-1000px";
      document.body.appendChild(area);
      area.select();
      var done = false;
      try { done = document.execCommand("copy"); } catch (error) { done = false; }
      document.body.removeChild(area);
      return done ? Promise.resolve() : Promise.reject(new Error("copy refused"));
    }
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).catch(fallback);
    }
    return fallback();
  }

  /* A star button: <button data-prereq-star="NAME" aria-pressed="false">. */
  function renderStar(button) {
    var name = button.getAttribute("data-prereq-star");
    var on = isFavorite(name);
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.setAttribute("title", on ? "Remove from favorites" : "Add to favorites");
    // A star with a visible word ("Favorite") is named by it, with aria-pressed for its state.
    if (button.querySelector(".prereq-star__label")) button.removeAttribute("aria-label");
    else button.setAttribute("aria-label", (on ? "Remove " : "Add ") + name + (on ? " from favorites" : " to favorites"));
    var icon = button.querySelector("[aria-hidden]");
    if (icon) icon.textContent = on ? "★" : "☆";
    button.classList.toggle("prereq-star--on", on);
  }

  function bindStar(button) {
    if (button.getAttribute("data-prereq-bound")) return;
    button.setAttribute("data-prereq-bound", "1");
    renderStar(button);
    button.addEventListener("click", function (event) {
      event.preventDefault();
      event.stopPropagation();
      toggleFavorite(button.getAttribute("data-prereq-star"));
    });
  }

  function makeStar(name) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "prereq-star prereq-star--small";
    button.setAttribute("data-prereq-star", name);
    var icon = document.createElement("span");
    icon.setAttribute("aria-hidden", "true");
    button.appendChild(icon);
    bindStar(button);
    return button;
  }

  /* A copy button: <button data-prereq-copy="ELEMENT-ID" data-prereq-name="NAME">.  An element whose text
   * is still arriving carries a `prereqReady` promise (item.js): the copy waits for it, and copies nothing
   * when it rejects. */
  function bindCopy(button) {
    if (button.getAttribute("data-prereq-bound")) return;
    button.setAttribute("data-prereq-bound", "1");
    var label = button.textContent;
    button.addEventListener("click", function () {
      var source = document.getElementById(button.getAttribute("data-prereq-copy"));
      if (!source) return;
      var name = button.getAttribute("data-prereq-name");
      var text = null;
      Promise.resolve(source.prereqReady).then(function () {
        text = source.textContent;
        if (name) pushRecent(name);
        return copyText(text);
      }).then(function () {
        button.textContent = "Copied ✓";
        document.dispatchEvent(new CustomEvent("prereq:copied", { detail: { name: name, text: text } }));
      }, function () {
        button.textContent = text === null ? "Could not load what it requires" : "Select the text and copy it";
      }).then(function () {
        window.setTimeout(function () { button.textContent = label; }, 2000);
      });
    });
  }

  function bindAll(root) {
    Array.prototype.forEach.call((root || document).querySelectorAll("[data-prereq-star]"), bindStar);
    Array.prototype.forEach.call((root || document).querySelectorAll("[data-prereq-copy]"), bindCopy);
    // A code block that scrolls sideways (most, on a phone) is reached and scrolled by keyboard too.
    Array.prototype.forEach.call((root || document).querySelectorAll(".md-typeset pre > code:not([tabindex])"),
      function (code) { if (!code.closest("[tabindex]")) code.setAttribute("tabindex", "0"); });
  }

  /* Stars elsewhere on the page (or in another tab) follow every change. */
  function refreshStars() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-prereq-star]"), renderStar);
  }
  document.addEventListener("prereq:storage", refreshStars);
  window.addEventListener("storage", function (event) {
    if (event.key === FAVORITES || event.key === RECENT) {
      refreshStars();
      document.dispatchEvent(new CustomEvent("prereq:storage", { detail: { key: event.key } }));
    }
  });

  /* The site's root, relative to this page (works under any sub-path). */
  function siteUrl(path) {
    var meta = document.querySelector('meta[name="prereq:base"]');
    var base = meta ? meta.getAttribute("content") : ".";
    return new URL(base.replace(/\/?$/, "/") + path, document.baseURI).href;
  }

  /* --- keeping the focus where it was across a redraw ---------------------------------------
   * Lists are drawn again after each change (a tag, a star, a check): a control that was focused
   * carries data-focus-key="KEY" and its new copy takes the focus back, so keyboard and screen
   * reader users stay where they were.  `fallback` (an element with tabindex) takes it when the
   * control is gone (an unstarred item under the favorites filter). */
  function keepFocus(container, redraw, fallback, key) {
    // The focus of the tree the container is in: a shadow root (the webportal plugin) has its own.
    var scope = container.getRootNode();
    var active = scope.activeElement;
    if (!key && active && container.contains(active)) key = active.getAttribute("data-focus-key") || "";
    redraw();
    if (!key) return;
    var again = container.querySelector('[data-focus-key="' + window.CSS.escape(key) + '"]');
    if (again && !again.disabled) {
      if (again !== scope.activeElement) again.focus({ preventScroll: true });
    } else if (fallback) {
      fallback.focus({ preventScroll: true });
    }
  }

  window.prereq = {
    keepFocus: keepFocus,
    favorites: favorites,
    isFavorite: isFavorite,
    setFavorite: setFavorite,
    toggleFavorite: toggleFavorite,
    addFavorites: addFavorites,
    recent: recent,
    pushRecent: pushRecent,
    copyText: copyText,
    makeStar: makeStar,
    siteUrl: siteUrl,
    keys: { favorites: FAVORITES, recent: RECENT }
  };

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { bindAll(); });
  } else {
    bindAll();
  }
})();
