/* prereq marketplace: the catalog page.
 *
 * Loads api/v1/catalog.json (window.prereq.loadCatalog(): entries and search records shared with the
 * header's search box) and filters it in the browser: the site's one search (search.js: name
 * matches first, a typo corrected with "did you mean"), facets for type, tags, owner and license
 * (catalog-facets.js), deprecated items hidden unless asked, favorites and recently used (see
 * prereq.js for the localStorage contract), and shared lists of items (catalog-share.js).
 * Facets combine with AND (several tags: items carrying all of them); "recently used" lists the
 * most recent first.
 * The filters live in the URL's query string, so a view can be shared, and each one set is a step
 * that Back undoes (pushState; typing replaces the current step; the address, as
 * catalog-share.js reads and writes it):
 *   ?q=words&type=GROUP&tag=a&tag=b&owner=team&sort=updated&deprecated=1&show=favorites|recent
 *   &license=ID (an SPDX identifier, or NOASSERTION: none stated)
 *   &requires=NAME (the items that require NAME) or &required_by=NAME (the items NAME requires)
 *   &names=a,b (exactly these items, in this order: a shared list)
 * The type groups (GROUP: the name of one of the index's type_groups; the page draws one radio button per
 * group), the search and the facet filters are window.prereq's (finding.js), shared with the job
 * composer.
 * Index text is inserted with textContent only, never as HTML.  The lists are drawn again after
 * each change; the focused control gets the focus back (window.prereq.keepFocus).  On a phone the
 * facets fold into a "Filters" panel so that the results start on the first screen.
 *
 * Longer than usual: the script is one function, its own scope (a classic script: nothing leaks
 * into the page); the functions inside it are short.
 */
(function () {
  "use strict";

  var PAGE = 50;
  var TAGS_SHOWN = 24;

  var root = document.getElementById("prereq-catalog");
  if (!root) return;
  if (!window.prereq || !window.prereq.loadCatalog) { // a page cached from another deploy than its scripts
    document.getElementById("prereq-status").textContent =
      "The page's scripts did not all load (assets/prereq.js, assets/finding.js): reload the page.";
    root.setAttribute("data-state", "error");
    return;
  }
  var find = window.prereq;
  var $ = function (id) { return document.getElementById(id); };
  var input = $("prereq-q"), sortSelect = $("prereq-sort"), ownerSelect = $("prereq-owner"), licenseSelect = $("prereq-license");
  var tagBox = $("prereq-tags"), deprecatedBox = $("prereq-deprecated"), typeBox = $("prereq-facet-type");
  var filtersPanel = $("prereq-filters"), activeCount = $("prereq-filters-active"), resultsSection = $("prereq-results-section");
  var sharedLine = $("prereq-shared"), shareLine = $("prereq-share");
  var relationLine = $("prereq-relation"), statusLine = $("prereq-status"), suggestLine = $("prereq-suggest"), results = $("prereq-results"), more = $("prereq-more");

  var entries = [];
  var state = emptyState();
  var limit = PAGE;
  var allTags = false;
  var typeCountNodes = {}; // group -> the <span> showing its count, once drawn from the index
  var facets = window.prereqFacets, share = window.prereqShare;

  function emptyState() {
    return {
      q: "", type: "", tags: [], owner: "", license: "", sort: "name", deprecated: false, show: "", requires: "",
      required_by: "", names: []
    };
  }

  /* --- the URL ---------------------------------------------------------------------------- */

  /* Each filter the user sets is a step Back undoes (`step` "push": pushState); typing and every
   * other redraw replace the current step, at once: the address is then right whatever comes next,
   * Back, a reload, a copied link (a replaceState is under a millisecond at 100,000 items). */
  function writeUrl(step) {
    share.writeAddress(state, step === "push");
  }

  /* --- filtering ---------------------------------------------------------------------------- */

  /* The shared search records (prereq.loadCatalog) with what the catalog sorts and filters by. */
  function prepare(record) {
    record.updated = record.entry.updated || "";
    record.licenses = facets.licenses(record.entry);
  }

  /* The facets' values of each record: finding.js's (type groups, tags, owners) and its licenses. */
  function facetValues() {
    return Object.assign({}, find.facetValues, { license: function (record) { return record.licenses; } });
  }

  /* The search runs over every entry (search.js: the tier of each match, and a correction when the
   * words match nothing at all); the facets then filter its hits, each facet's counts leaving that
   * facet out (catalog-facets.js counts them in one pass). */
  function apply(step) {
    if (!relationReady()) {
      statusLine.textContent = "Loading the items related to " + (state.requires || state.required_by) + "…";
      writeUrl(step);
      return;
    }
    var result = window.prereqSearch.search(entries, state.q);
    var marks = find.marks();
    var shared = state.names.length ? find.positions(state.names) : null;
    var groups = find.typeGroups();
    var selected = Object.assign(find.facetChoice(state), { license: state.license ? [state.license] : [] });
    var shownAndCurrent = find.keeper({
      show: state.show, marks: marks,
      // A shared list shows its deprecated items: whoever shared them chose them.
      deprecated: function (entry) { return state.deprecated || Boolean(shared && shared.has(entry.name)); }
    });
    var keep = function (record) {
      var name = record.entry.name;
      return shownAndCurrent(record) && (!relation.names || relation.names.has(name)) && (!shared || shared.has(name));
    };
    var counted = facets.countHits(facetIds, result.hits, selected, keep);
    var found = counted.found;
    // The hits come by tier, then by name: only another order needs a sort.
    if (state.show === "recent" || shared || state.sort !== "name") found.sort(comparator(state.show === "recent" ? marks.recent : shared));
    var typeCounts = {};
    Object.keys(groups).forEach(function (group) { typeCounts[group] = counted.counts.type[group] || 0; });
    window.prereq.keepFocus(root, function () {
      renderFacets(typeCounts, counted.counts.tags, counted.counts.owner);
      facets.fillSelect(licenseSelect, facetIds.license.values, counted.counts.license, state.license, "any", facets.licenseLabel);
      renderResults(found, result);
    }, resultsSection);
    writeUrl(step);
  }

  /* Search tier first; then `order` (name -> position: recently used most recent first, a shared list
   * as shared) when given, else the sort chosen. */
  function comparator(order) {
    return function (a, b) {
      if (a.tier !== b.tier) return a.tier - b.tier;
      if (order) return order.get(a.record.entry.name) - order.get(b.record.entry.name);
      if (state.sort === "updated" && a.record.updated !== b.record.updated) {
        return a.record.updated < b.record.updated ? 1 : -1;
      }
      return a.record.name < b.record.name ? -1 : a.record.name > b.record.name ? 1 : 0;
    };
  }

  /* --- rendering (text only): the cards are catalog-cards.js's ----------------------------- */

  var el = window.prereqCards.el;

  function card(entry) {
    return window.prereqCards.card(entry, state.tags, toggleTag);
  }

  function renderResults(found, result) {
    results.textContent = "";
    var shown = found.slice(0, limit);
    shown.forEach(function (hit) { results.appendChild(card(hit.record.entry)); });
    more.hidden = found.length <= shown.length;
    var hidden = state.deprecated || state.names.length ? 0 : deprecatedCount;
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
    renderRelation();
    renderSharing();
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
      update(function () { state.q = fixed; }, true);
      input.focus();
    });
    suggestLine.appendChild(button);
    suggestLine.appendChild(document.createTextNode("? Showing its results."));
  }

  function hasFilters() {
    return Boolean(state.q || state.type || state.tags.length || state.owner || state.license || state.show ||
      relation.key || state.names.length);
  }

  /* A shared list's bar (?names=), and under the favorites filter the link that shares them. */
  function renderSharing() {
    share.renderShared(sharedLine, {
      names: state.names,
      known: function (name) { return byName.has(name); },
      onClear: function () { update(function () { state.names = []; }); },
      onFavorites: function () { update(function () { state.names = []; state.show = "favorites"; }); }
    });
    var favorites = state.show === "favorites" ? window.prereq.favorites().filter(function (name) { return byName.has(name); }) : [];
    share.renderShare(shareLine, favorites);
  }

  /* ?requires=NAME (the items that require NAME) and ?required_by=NAME (the items NAME requires): the
   * names come from NAME's own file, loaded once; until then nothing is drawn. */
  var relation = { key: "", names: null };
  function relationReady() {
    var name = state.requires || state.required_by;
    var key = name ? (state.requires ? "requires:" : "required_by:") + name : "";
    if (key !== relation.key) {
      relation = { key: key, names: null };
      var record = entries.filter(function (r) { return r.entry.name === name; })[0];
      if (!key) return true;
      if (!record) relation.names = new Set();
      else {
        window.prereqCards.related(record.entry, state.requires ? "requires" : "required_by").then(function (names) {
          if (relation.key === key) { relation.names = names; apply(); }
        }, function () {
          if (relation.key === key) { relation.names = new Set(); apply(); }
        });
      }
    }
    return !relation.key || relation.names !== null;
  }

  function renderRelation() {
    window.prereqCards.relationLine(relationLine, relation.key ? {
      name: state.requires || state.required_by, requires: Boolean(state.requires), count: relation.names.size,
      onClear: function () { update(function () { state.requires = ""; state.required_by = ""; }); }
    } : null);
  }

  function renderFacets(typeCounts, tagCounts, ownerCounts) {
    Object.keys(typeCounts).forEach(function (group) {
      if (!typeCountNodes[group]) return;
      typeCountNodes[group].textContent = typeCounts[group];
      // A choice that would show nothing is offered as such, not as a way on (the chosen one stays usable).
      var radio = typeCountNodes[group].parentNode.querySelector("input");
      if (radio) radio.disabled = !typeCounts[group] && state.type !== group;
    });
    renderMarkCounts();
    root.querySelectorAll('input[name="type"]').forEach(function (radio) { radio.checked = radio.value === state.type; });
    root.querySelectorAll('input[name="show"]').forEach(function (radio) { radio.checked = radio.value === state.show; });
    deprecatedBox.checked = state.deprecated;
    sortSelect.value = state.sort;
    // With search words the hits come best match first, names breaking ties: the option says so.
    sortSelect.options[0].textContent = state.q ? "best match" : "name";
    if (input.value !== state.q && document.activeElement !== input) input.value = state.q;

    // Owners: every owner stays listed; counts follow the other filters.  Tags: the most used first.
    facets.fillSelect(ownerSelect, facetIds.owner.values, ownerCounts, state.owner, "anyone");
    facets.fillTags(tagBox, {
      counts: tagCounts, selected: state.tags, limit: TAGS_SHOWN, all: allTags, onTag: toggleTag,
      onToggle: function () { allTags = !allTags; apply(); }
    });
  }

  /* The type group `type` names: a group, or an item type (?type=data) as the group holding it; else none. */
  function groupOfType(type) {
    var groups = find.typeGroups();
    if (Object.prototype.hasOwnProperty.call(groups, type)) return type;
    return Object.keys(groups).filter(function (group) { return groups[group].indexOf(type) !== -1; })[0] || "";
  }

  /* --- events --------------------------------------------------------------------------- */

  /* A change of filters (`typing`: of the search text, which does not add a step to Back).  On a phone
   * a pick in the folded panel closes it, so the results it changed are in view (focus on its summary). */
  function update(change, typing) {
    change();
    limit = PAGE;
    apply(typing ? "typing" : "push");
    renderActiveCount();
    if (narrow.matches && filtersPanel.open && filtersPanel.contains(document.activeElement)) {
      filtersPanel.open = false;
      filtersPanel.querySelector("summary").focus();
    }
  }

  /* On a phone the filters fold into a panel; its summary says how many are set. */
  function renderActiveCount() {
    var count = (state.type ? 1 : 0) + state.tags.length + (state.owner ? 1 : 0) + (state.license ? 1 : 0) +
      (state.show ? 1 : 0) + (state.deprecated ? 1 : 0);
    activeCount.textContent = count ? "(" + count + " set)" : "";
  }

  var narrow = window.matchMedia("(max-width: 45em)");
  function fold() { filtersPanel.open = !narrow.matches; }
  fold();
  if (narrow.addEventListener) narrow.addEventListener("change", fold);

  function toggleTag(tag) {
    update(function () {
      var at = state.tags.indexOf(tag);
      if (at === -1) state.tags.push(tag); else state.tags.splice(at, 1);
    });
  }

  root.querySelector("form").addEventListener("submit", function (event) { event.preventDefault(); });
  input.addEventListener("input", function () { update(function () { state.q = input.value.trim(); }, true); });
  sortSelect.addEventListener("change", function () { update(function () { state.sort = sortSelect.value; }); });
  ownerSelect.addEventListener("change", function () { update(function () { state.owner = ownerSelect.value; }); });
  licenseSelect.addEventListener("change", function () { update(function () { state.license = licenseSelect.value; }); });
  deprecatedBox.addEventListener("change", function () { update(function () { state.deprecated = deprecatedBox.checked; }); });
  function bindTypeRadio(radio) {
    radio.addEventListener("change", function () { update(function () { state.type = radio.value; }); });
  }
  root.querySelectorAll('input[name="type"]').forEach(bindTypeRadio);
  root.querySelectorAll('input[name="show"]').forEach(function (radio) {
    radio.addEventListener("change", function () { update(function () { state.show = radio.value; }); });
  });
  $("prereq-clear").addEventListener("click", function () {  // the relation too: every filter
    update(function () { state = emptyState(); input.value = ""; });
  });
  more.addEventListener("click", function () { limit += PAGE; apply(); });
  window.addEventListener("popstate", function () {
    if (!entries.length) return;
    state = share.readAddress(emptyState());
    input.value = state.q;
    limit = PAGE;
    apply();
    renderActiveCount();
  });
  /* A star changed: the favorites filter, a shared list's offer and the counts follow (re-render only
   * when it matters). */
  document.addEventListener("prereq:storage", function () {
    if (!entries.length) return;
    if (state.show || state.names.length) apply();
    else renderMarkCounts();
  });

  /* How many favorites and recently used items the index holds. */
  function renderMarkCounts() {
    ["favorites", "recent"].forEach(function (key) {
      var list = key === "favorites" ? window.prereq.favorites() : window.prereq.recent();
      var count = root.querySelector('[data-count="' + key + '"]');
      if (count) count.textContent = list.filter(function (name) { return byName.has(name); }).length;
    });
  }

  /* --- start ---------------------------------------------------------------------------- */

  var byName = new Set(); // every item's name (a Set: an object of 100,000 keys is slow to fill)
  var facetIds = null; // facets.facetTable of the entries
  var deprecatedCount = 0;

  state = share.readAddress(emptyState());
  input.value = state.q;
  window.prereq.loadCatalog()
    .then(function (catalog) {
      // One radio button per type group of the index, after the "all types" one the page holds.
      typeCountNodes = facets.fillTypes(typeBox, find.typeGroups(), find.typeGroupLabel, bindTypeRadio);
      state.type = groupOfType(state.type);
      entries = catalog.records; // the header's search box searches the same records
      entries.forEach(function (record) {
        prepare(record);
        byName.add(record.entry.name);
        if (record.entry.deprecated) deprecatedCount++;
      });
      facetIds = facets.facetTable(entries, facetValues());
      // No item states a license (an index of setup scripts, or one built before licenses were published).
      $("prereq-facet-license").hidden = !facetIds.license.values.some(function (id) { return id !== facets.NOT_STATED; });
      apply();
      renderActiveCount();
      window.prereqSearch.warmWhileIdle(entries); // every record finished (and its words counted when the file gave none)
    })
    .catch(function (error) {
      statusLine.textContent = "The index could not be loaded (" + error.message + ").";
      root.setAttribute("data-state", "error");
    });
})();
