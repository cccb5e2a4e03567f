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
 * Finding items, shared by the catalog (assets/catalog.js) and the composer (assets/composer/ui/):
 * the type groups and labels, the text search (assets/search.js, which also serves the header's
 * search box: name matches first, then words of the title, tags, type, owners and summary) and the
 * facet filters (type, tags, owner, favorites, recently used,
 * deprecated items hidden unless asked).
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

  /* --- finding items (catalog and composer) ------------------------------------------------- */

  /* The type groups a page filters by (?type=GROUP), their labels, and how each item type is
   * labelled: all from the index root (type_groups, type_labels), set by useIndex() once a page has
   * loaded it.  No page names a group itself: the facets are drawn from these. */
  var TYPE_GROUPS = {};
  var GROUP_LABELS = {};
  var TYPE_LABELS = {};

  function useIndex(root) {
    var groups = {};
    var labels = {};
    // A list in display order; the object keeps that order (its keys are not integers).
    (root.type_groups || []).forEach(function (group) {
      groups[group.name] = Object.freeze((group.types || []).slice());
      labels[group.name] = String(group.label || group.name);
    });
    TYPE_GROUPS = Object.freeze(groups);
    GROUP_LABELS = Object.freeze(labels);
    TYPE_LABELS = Object.freeze(Object.assign({}, root.type_labels || {}));
    TYPE_WORDS = new Map();
  }

  /* group -> its item types, in the index's order (empty until useIndex). */
  function typeGroups() {
    return TYPE_GROUPS;
  }

  /* How a type group is named for people ("Datasets"). */
  function typeGroupLabel(group) {
    return GROUP_LABELS.hasOwnProperty(group) ? GROUP_LABELS[group] : group;
  }

  function typeLabel(type) {
    return TYPE_LABELS.hasOwnProperty(type) ? TYPE_LABELS[type] : type;
  }

  /* <span class="prereq-badge prereq-badge--TYPE">label</span>, as text. */
  function typeBadge(type) {
    var badge = document.createElement("span");
    badge.className = "prereq-badge prereq-badge--" + type;
    var label = typeLabel(type);
    if (label !== undefined && label !== null) badge.textContent = String(label);
    return badge;
  }

  function inTypeGroup(group, type) {
    return TYPE_GROUPS.hasOwnProperty(group) && TYPE_GROUPS[group].indexOf(type) !== -1;
  }

  /* The group a type belongs to, by its label ("Datasets"), or "". */
  function groupLabelOf(type) {
    for (var group in TYPE_GROUPS) if (inTypeGroup(group, type)) return typeGroupLabel(group);
    return "";
  }

  /* An index entry with what the search looks at (assets/search.js): its words and those of its
   * type, the type's label and its group's label, so "storage" or "dataset" finds by type too. */
  var TYPE_WORDS = new Map(); // type -> those words, worked out once per type (100,000 entries have 4)
  function typeWords(entry) {
    var words = TYPE_WORDS.get(entry.type);
    if (!words) TYPE_WORDS.set(entry.type, words = [entry.type, typeLabel(entry.type), groupLabelOf(entry.type)]);
    return words;
  }
  function searchRecord(entry) {
    return window.prereqSearch.record(entry, typeWords(entry));
  }

  /* The words of a search box, lower-cased. */
  function searchWords(text) {
    return window.prereqSearch.words(text);
  }

  /* How well a record matches the words, lower is better (search.js's tiers; 6 without words). */
  function nameRank(record, words) {
    return window.prereqSearch.tier(record, words);
  }

  function fetchJson(path) {
    return fetch(siteUrl(path), { credentials: "same-origin" }).then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.json();
    });
  }

  /* The root's entries from the catalog file (api/v1/catalog.json, prereq.index.catalogfile: columns,
   * repeated strings as positions), with the root's values but `deprecated` (true for its object). */
  var CATALOG_COLUMNS = ["version", "type", "title", "summary", "tags", "owners", "license", "deprecated", "updated"];
  function catalogEntries(file) {
    var c = file.items, entries = new Array(c.name.length);
    // A column of another length or a position past its list is a broken file: the root is read instead.
    if (CATALOG_COLUMNS.some(function (key) { return !Array.isArray(c[key]) || c[key].length !== entries.length; })) {
      throw new Error("a column of another length");
    }
    var at = function (list, position) { if (!(position in list)) throw new Error("no value " + position); return list[position]; };
    var tag = function (p) { return at(file.tags, p); }, owner = function (p) { return at(file.owners, p); };
    for (var i = 0; i < entries.length; i++) {
      entries[i] = { name: c.name[i], version: c.version[i], type: at(file.types, c.type[i]), title: c.title[i],
        summary: c.summary[i] === null ? c.title[i] : c.summary[i], tags: c.tags[i].map(tag), owners: c.owners[i].map(owner),
        license: c.license[i] === null ? null : at(file.licenses, c.license[i]), deprecated: c.deprecated[i] ? true : null,
        updated: c.updated[i], path: "prerequisites/" + c.name[i] + ".json" };
    }
    return entries;
  }

  /* The catalog file's entries; the root index's when it is missing or unreadable (published by an
   * older prereq). */
  function fetchCatalog() {
    return fetchJson("api/v1/catalog.json").then(function (file) {
      if (!file || file.format !== "prereq-catalog/1" || !file.items) throw new Error("not a prereq catalog file");
      return { type_groups: file.type_groups, type_labels: file.type_labels, items: catalogEntries(file) };
    }).catch(function () {
      return fetchJson("api/v1/index.json").then(function (root) {
        if (!root || root.format !== "prereq-index/2" || !Array.isArray(root.items)) throw new Error("not a prereq index");
        return root;
      });
    });
  }

  /* The index as the catalog and the header's search read it, fetched once per page and shared by
   * both: {type_groups, type_labels, items: the root's entries, records: their searchRecords, made
   * once (search.js keeps its name order and vocabulary per list; prereqSearch.records)}; useIndex()
   * has been called on it. */
  var catalogPromise = null;
  function loadCatalog() {
    if (!catalogPromise) {
      catalogPromise = fetchCatalog().then(function (catalog) {
        useIndex(catalog);
        catalog.records = window.prereqSearch.records(catalog.items, typeWords);
        return catalog;
      });
      catalogPromise.catch(function () { catalogPromise = null; }); // a later call tries again
    }
    return catalogPromise;
  }

  function positions(list) {
    var out = new Map();
    list.forEach(function (name, index) { out.set(name, index); });
    return out;
  }

  /* The favorites and recently used lists as name -> position (0 first), for filtering and ordering. */
  function marks() {
    return { favorites: positions(favorites()), recent: positions(recent()) };
  }

  /* Does a searchRecord pass the filters, leaving out the facet `skip` ("type", "tags", "owner", "show")?
   *   words       searchWords(query): every one somewhere in the record (search.js)
   *   type        a TYPE_GROUPS key, or "" (an unknown group does not filter)
   *   tags        the entry carries every one
   *   owner       the entry lists this owner, or ""
   *   show        "favorites" or "recent" (with marks from marks()), or ""
   *   deprecated  whether deprecated entries are shown: true/false, or a function of the entry */
  function passes(record, filters, skip) {
    var entry = record.entry;
    var deprecated = typeof filters.deprecated === "function" ? filters.deprecated(entry) : filters.deprecated;
    if (entry.deprecated && !deprecated) return false;
    var words = filters.words || [];
    if (words.length && window.prereqSearch.tier(record, words) === -1) return false;
    if (skip !== "type" && filters.type && TYPE_GROUPS.hasOwnProperty(filters.type) &&
        !inTypeGroup(filters.type, entry.type)) return false;
    if (skip !== "tags") {
      var tags = filters.tags || [];
      for (var j = 0; j < tags.length; j++) {
        if ((entry.tags || []).indexOf(tags[j]) === -1) return false;
      }
    }
    if (skip !== "owner" && filters.owner && (entry.owners || []).indexOf(filters.owner) === -1) return false;
    if (skip !== "show" && (filters.show === "favorites" || filters.show === "recent") &&
        !filters.marks[filters.show].has(entry.name)) return false;
    return true;
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
    keys: { favorites: FAVORITES, recent: RECENT },
    useIndex: useIndex,
    typeGroups: typeGroups,
    typeGroupLabel: typeGroupLabel,
    typeLabel: typeLabel,
    typeBadge: typeBadge,
    inTypeGroup: inTypeGroup,
    searchRecord: searchRecord,
    searchWords: searchWords,
    nameRank: nameRank,
    loadCatalog: loadCatalog,
    marks: marks,
    passes: passes
  };

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { bindAll(); });
  } else {
    bindAll();
  }
})();
