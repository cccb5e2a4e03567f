/* prereq marketplace: the catalog page.
 *
 * Loads api/v1/index.json (relative to the site's root, so the site works under any sub-path)
 * and filters it in the browser: text search over name, title, summary and tags (every word
 * must match; name matches rank first), facets for type, tags and owner, deprecated items hidden
 * unless asked, favorites and recently used (see prereq.js for the localStorage contract).
 * Facets combine with AND (several tags: items carrying all of them); "recently used" lists the
 * most recent first.
 * The filters live in the URL's query string (history.replaceState), so a view can be shared:
 *   ?q=words&type=GROUP&tag=a&tag=b&owner=team&sort=updated&deprecated=1&show=favorites|recent
 * The type groups (GROUP: the name of one of the index's type_groups; the page draws one radio button per
 * group), the search and the facet filters are window.prereq's (prereq.js), shared with the job
 * composer.
 * Index text is inserted with textContent only, never as HTML.
 *
 * Longer than usual: the script is one function, its own scope (a classic script: nothing leaks
 * into the page); the functions inside it are short.
 */
(function () {
  "use strict";

  var PAGE = 50;
  var TAGS_SHOWN = 24;

  var root = document.getElementById("prereq-catalog");
  if (!root || !window.prereq) return;
  var find = window.prereq;
  var $ = function (id) { return document.getElementById(id); };
  var input = $("prereq-q"), sortSelect = $("prereq-sort"), ownerSelect = $("prereq-owner");
  var tagBox = $("prereq-tags"), deprecatedBox = $("prereq-deprecated"), typeBox = $("prereq-facet-type");
  var statusLine = $("prereq-status"), suggestLine = $("prereq-suggest"), results = $("prereq-results"), more = $("prereq-more");

  var entries = [];
  var state = emptyState();
  var limit = PAGE;
  var allTags = false;
  var typeCountNodes = {}; // group -> the <span> showing its count, once drawn from the index

  function emptyState() {
    return { q: "", type: "", tags: [], owner: "", sort: "name", deprecated: false, show: "" };
  }

  /* --- the URL ---------------------------------------------------------------------------- */

  function readUrl() {
    var params = new URLSearchParams(window.location.search);
    var next = emptyState();
    next.q = params.get("q") || "";
    next.type = params.get("type") || ""; // an unknown group does not filter (prereq.passes)
    next.tags = params.getAll("tag").filter(function (tag, index, all) { return tag && all.indexOf(tag) === index; });
    next.owner = params.get("owner") || "";
    next.sort = params.get("sort") === "updated" ? "updated" : "name";
    next.deprecated = params.get("deprecated") === "1";
    next.show = ["favorites", "recent"].indexOf(params.get("show")) !== -1 ? params.get("show") : "";
    return next;
  }

  function writeUrl() {
    var params = new URLSearchParams();
    if (state.q) params.set("q", state.q);
    if (state.type) params.set("type", state.type);
    state.tags.forEach(function (tag) { params.append("tag", tag); });
    if (state.owner) params.set("owner", state.owner);
    if (state.sort !== "name") params.set("sort", state.sort);
    if (state.deprecated) params.set("deprecated", "1");
    if (state.show) params.set("show", state.show);
    var query = params.toString();
    var url = window.location.pathname + (query ? "?" + query : "") + window.location.hash;
    if (url !== window.location.pathname + window.location.search + window.location.hash) {
      window.history.replaceState(null, "", url);
    }
  }

  /* --- filtering ---------------------------------------------------------------------------- */

  function prepare(entry) {
    var record = find.searchRecord(entry);
    record.updated = entry.updated || "";
    return record;
  }

  /* The search runs over every entry (search.js: the tier of each match, and a correction when the
   * words match nothing at all); the facets then filter its hits, each facet's counts leaving that
   * facet out. */
  function apply() {
    var result = window.prereqSearch.search(entries, state.q);
    var marks = find.marks();
    var filters = {
      type: state.type, tags: state.tags, owner: state.owner, show: state.show, marks: marks,
      deprecated: state.deprecated
    };
    var passes = function (record, skip) { return find.passes(record, filters, skip); };
    var found = [];
    var typeCounts = {};
    Object.keys(find.typeGroups()).forEach(function (group) { typeCounts[group] = 0; });
    var tagCounts = {};
    var ownerCounts = {};
    result.hits.forEach(function (hit) {
      var record = hit.record, entry = record.entry;
      if (passes(record, "type")) {
        Object.keys(find.typeGroups()).forEach(function (group) {
          if (find.inTypeGroup(group, entry.type)) typeCounts[group]++;
        });
      }
      if (passes(record, "tags")) {
        (entry.tags || []).forEach(function (tag) { tagCounts[tag] = (tagCounts[tag] || 0) + 1; });
      }
      if (passes(record, "owner")) {
        (entry.owners || []).forEach(function (owner) { ownerCounts[owner] = (ownerCounts[owner] || 0) + 1; });
      }
      if (passes(record, null)) found.push({ record: record, rank: hit.tier });
    });
    var recency = state.show === "recent" ? marks.recent : null;
    found.sort(function (a, b) {
      if (a.rank !== b.rank) return a.rank - b.rank;
      if (recency) return recency.get(a.record.entry.name) - recency.get(b.record.entry.name);
      if (state.sort === "updated" && a.record.updated !== b.record.updated) {
        return a.record.updated < b.record.updated ? 1 : -1;
      }
      return a.record.name < b.record.name ? -1 : a.record.name > b.record.name ? 1 : 0;
    });
    renderFacets(typeCounts, tagCounts, ownerCounts, marks);
    renderResults(found, result);
    writeUrl();
  }

  /* --- rendering (text only) -------------------------------------------------------------- */

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  /* Summary text where `backticks` become <code>, built node by node. */
  function summaryNode(text) {
    var paragraph = el("p", "prereq-card__summary");
    var parts = String(text || "").split("`");
    parts.forEach(function (part, index) {
      if (index % 2 === 1 && index < parts.length - 1) paragraph.appendChild(el("code", null, part));
      else paragraph.appendChild(document.createTextNode(index % 2 === 1 ? "`" + part : part));
    });
    return paragraph;
  }

  function itemUrl(name) {
    return window.prereq.siteUrl("items/" + encodeURIComponent(name) + "/");
  }

  function card(entry) {
    var item = el("li", "prereq-card" + (entry.deprecated ? " prereq-card--deprecated" : ""));
    item.setAttribute("data-name", entry.name);
    var head = el("div", "prereq-card__head");
    head.appendChild(window.prereq.makeStar(entry.name));
    var link = el("a", "prereq-card__name", entry.name);
    link.setAttribute("href", itemUrl(entry.name));
    head.appendChild(link);
    head.appendChild(find.typeBadge(entry.type));
    head.appendChild(el("span", "prereq-card__version", entry.version));
    if (entry.deprecated) head.appendChild(el("span", "prereq-badge prereq-badge--deprecated", "deprecated"));
    item.appendChild(head);
    item.appendChild(el("div", "prereq-card__title", entry.title));
    if (entry.summary && entry.summary !== entry.title) item.appendChild(summaryNode(entry.summary));
    var meta = el("div", "prereq-card__meta");
    (entry.tags || []).forEach(function (tag) {
      var button = el("button", "prereq-tag" + (state.tags.indexOf(tag) !== -1 ? " prereq-tag--on" : ""), tag);
      button.type = "button";
      button.setAttribute("title", "Filter by the tag " + tag);
      button.addEventListener("click", function () { toggleTag(tag); });
      meta.appendChild(button);
    });
    if ((entry.owners || []).length) meta.appendChild(el("span", "prereq-card__owners", "by " + entry.owners.join(", ")));
    if (entry.updated) {
      var time = el("time", "prereq-card__updated", "updated " + entry.updated.slice(0, 10));
      time.setAttribute("datetime", entry.updated);
      meta.appendChild(time);
    }
    item.appendChild(meta);
    return item;
  }

  function renderResults(found, result) {
    results.textContent = "";
    var shown = found.slice(0, limit);
    shown.forEach(function (hit) { results.appendChild(card(hit.record.entry)); });
    more.hidden = found.length <= shown.length;
    var hidden = state.deprecated ? 0 : entries.filter(function (r) { return r.entry.deprecated; }).length;
    var text = hasFilters() ? found.length + " of " + (entries.length - hidden) + " items" : found.length + " items";
    if (hidden) text += " (" + hidden + " deprecated hidden)";
    if (!found.length) {
      text = "No item matches" + (result.words.length ? " “" + state.q + "”" : "") + " with these filters.";
      if (state.show === "favorites" && !window.prereq.favorites().length) {
        text = "No favorites yet: star items (☆) to keep them at hand.";
      } else if (state.show === "recent" && !window.prereq.recent().length) {
        text = "Nothing used yet: items you copy or add to a job appear here.";
      }
    }
    statusLine.textContent = text;
    renderSuggestion(result);
    root.setAttribute("data-state", "ready");
  }

  /* "No item matches “mnsit”: showing “mnist”." with the correction as a button that searches it. */
  function renderSuggestion(result) {
    suggestLine.textContent = "";
    suggestLine.hidden = !result.corrected;
    if (!result.corrected) return;
    var fixed = result.corrected.join(" ");
    suggestLine.appendChild(document.createTextNode("No item matches “" + state.q + "”. Did you mean "));
    var button = el("button", "prereq-suggest", fixed);
    button.type = "button";
    button.addEventListener("click", function () {
      input.value = fixed;
      update(function () { state.q = fixed; });
      input.focus();
    });
    suggestLine.appendChild(button);
    suggestLine.appendChild(document.createTextNode("? Showing its results."));
  }

  function hasFilters() {
    return Boolean(state.q || state.type || state.tags.length || state.owner || state.show);
  }

  /* One radio button per type group of the index, after the "all types" one the page holds. */
  function renderTypeFacet() {
    Object.keys(find.typeGroups()).forEach(function (group) {
      var label = el("label");
      var radio = document.createElement("input");
      radio.type = "radio";
      radio.name = "type";
      radio.value = group;
      bindTypeRadio(radio);
      var count = el("span", "prereq-facet__count");
      count.setAttribute("data-count", group);
      typeCountNodes[group] = count;
      label.appendChild(radio);
      label.appendChild(document.createTextNode(" " + find.typeGroupLabel(group) + " "));
      label.appendChild(count);
      typeBox.appendChild(label);
    });
  }

  function renderFacets(typeCounts, tagCounts, ownerCounts, marks) {
    Object.keys(typeCounts).forEach(function (group) {
      if (typeCountNodes[group]) typeCountNodes[group].textContent = typeCounts[group];
    });
    ["favorites", "recent"].forEach(function (key) {
      var count = root.querySelector('[data-count="' + key + '"]');
      if (count) count.textContent = Array.from(marks[key].keys()).filter(function (name) { return byName.hasOwnProperty(name); }).length;
    });
    root.querySelectorAll('input[name="type"]').forEach(function (radio) { radio.checked = radio.value === state.type; });
    root.querySelectorAll('input[name="show"]').forEach(function (radio) { radio.checked = radio.value === state.show; });
    deprecatedBox.checked = state.deprecated;
    sortSelect.value = state.sort;
    if (input.value !== state.q && document.activeElement !== input) input.value = state.q;

    // Owners: every owner stays listed; counts follow the other filters.
    var owners = Object.keys(ownerTotals).sort();
    if (state.owner && owners.indexOf(state.owner) === -1) owners.unshift(state.owner);
    ownerSelect.textContent = "";
    var any = el("option", null, "anyone");
    any.value = "";
    ownerSelect.appendChild(any);
    owners.forEach(function (owner) {
      var option = el("option", null, owner + " (" + (ownerCounts[owner] || 0) + ")");
      option.value = owner;
      ownerSelect.appendChild(option);
    });
    ownerSelect.value = state.owner;

    // Tags: the selected ones, then the most used among what the other filters leave.
    var tags = Object.keys(tagCounts).sort(function (a, b) {
      return tagCounts[b] - tagCounts[a] || (a < b ? -1 : 1);
    });
    state.tags.forEach(function (tag) { if (tags.indexOf(tag) === -1) tags.unshift(tag); });
    var visible = allTags ? tags : tags.slice(0, TAGS_SHOWN);
    state.tags.forEach(function (tag) { if (visible.indexOf(tag) === -1) visible.push(tag); });
    tagBox.textContent = "";
    visible.forEach(function (tag) {
      var on = state.tags.indexOf(tag) !== -1;
      var button = el("button", "prereq-tag" + (on ? " prereq-tag--on" : ""));
      button.type = "button";
      button.setAttribute("aria-pressed", on ? "true" : "false");
      button.setAttribute("data-tag", tag);
      button.appendChild(document.createTextNode(tag + " "));
      button.appendChild(el("span", "prereq-tag__count", tagCounts[tag] || 0));
      button.addEventListener("click", function () { toggleTag(tag); });
      tagBox.appendChild(button);
    });
    if (tags.length > TAGS_SHOWN) {
      var toggle = el("button", "prereq-facet__more", allTags ? "fewer tags" : "all " + tags.length + " tags");
      toggle.type = "button";
      toggle.addEventListener("click", function () { allTags = !allTags; apply(); });
      tagBox.appendChild(toggle);
    }
  }

  /* --- events --------------------------------------------------------------------------- */

  function update(change) {
    change();
    limit = PAGE;
    apply();
  }

  function toggleTag(tag) {
    update(function () {
      var at = state.tags.indexOf(tag);
      if (at === -1) state.tags.push(tag); else state.tags.splice(at, 1);
    });
  }

  root.querySelector("form").addEventListener("submit", function (event) { event.preventDefault(); });
  input.addEventListener("input", function () { update(function () { state.q = input.value.trim(); }); });
  sortSelect.addEventListener("change", function () { update(function () { state.sort = sortSelect.value; }); });
  ownerSelect.addEventListener("change", function () { update(function () { state.owner = ownerSelect.value; }); });
  deprecatedBox.addEventListener("change", function () { update(function () { state.deprecated = deprecatedBox.checked; }); });
  function bindTypeRadio(radio) {
    radio.addEventListener("change", function () { update(function () { state.type = radio.value; }); });
  }
  root.querySelectorAll('input[name="type"]').forEach(bindTypeRadio);
  root.querySelectorAll('input[name="show"]').forEach(function (radio) {
    radio.addEventListener("change", function () { update(function () { state.show = radio.value; }); });
  });
  $("prereq-clear").addEventListener("click", function () {
    update(function () { state = emptyState(); input.value = ""; });
  });
  more.addEventListener("click", function () { limit += PAGE; apply(); });
  window.addEventListener("popstate", function () { state = readUrl(); input.value = state.q; apply(); });
  /* A star changed: the favorites filter and counts follow (re-render only when it matters). */
  document.addEventListener("prereq:storage", function () {
    if (!entries.length) return;
    if (state.show) apply();
    else renderFacetCountsOnly();
  });

  function renderFacetCountsOnly() {
    ["favorites", "recent"].forEach(function (key) {
      var list = key === "favorites" ? window.prereq.favorites() : window.prereq.recent();
      var count = root.querySelector('[data-count="' + key + '"]');
      if (count) count.textContent = list.filter(function (name) { return byName.hasOwnProperty(name); }).length;
    });
  }

  /* --- start ---------------------------------------------------------------------------- */

  var byName = {};
  var ownerTotals = {};

  state = readUrl();
  input.value = state.q;
  window.prereq.loadIndex()
    .then(function (index) {
      renderTypeFacet();
      if (!Object.prototype.hasOwnProperty.call(find.typeGroups(), state.type)) state.type = "";
      entries = index.items.map(prepare);
      entries.forEach(function (record) {
        byName[record.entry.name] = true;
        (record.entry.owners || []).forEach(function (owner) { ownerTotals[owner] = true; });
      });
      apply();
    })
    .catch(function (error) {
      statusLine.textContent = "The index could not be loaded (" + error.message + ").";
      root.setAttribute("data-state", "error");
    });
})();
