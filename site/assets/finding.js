/* prereq marketplace: finding items, shared by the catalog (assets/catalog.js), the composer
 * (assets/composer/ui/) and the header's search box (assets/header-search.js): the type groups and
 * labels, the index as those pages read it (api/v1/catalog.json, else the root), the text search
 * (assets/search.js: name matches first, then words of the title, tags, type, owners and summary) and
 * the filters (type, tags, owner, favorites, recently used, deprecated items hidden unless asked).
 *
 * Loaded after prereq.js, whose window.prereq it completes: pages and the webportal plugin call one
 * object.  May use: window.prereqSearch (search.js), window.prereq's siteUrl, favorites and recent.
 *
 * Security: everything that comes from the index is written into the page with textContent only.
 *
 * Longer than usual: the script is one function, its own scope (a classic script: only what it adds
 * to window.prereq reaches the page); the functions inside it are short.
 */
(function () {
  "use strict";

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
    GROUPS_OF_TYPE = new Map();
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

  /* An index entry with what the search looks at (assets/search.js): its words and those of its type
   * and the type's label, so "storage" or "uploader" finds by type too (prereq.index.search.labels_of).
   * Not its group's label: "Setup and upload" would make every setup script a hit for "upload". */
  var TYPE_WORDS = new Map(); // type -> those words, worked out once per type (100,000 entries have 4 types)
  function typeWords(entry) {
    var words = TYPE_WORDS.get(entry.type);
    if (!words) TYPE_WORDS.set(entry.type, words = [entry.type, typeLabel(entry.type)]);
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
    return fetch(window.prereq.siteUrl(path), { credentials: "same-origin" }).then(function (response) {
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
      return { type_groups: file.type_groups, type_labels: file.type_labels, items: catalogEntries(file),
        vocabulary: file.vocabulary };
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
   * has been called on it.  The catalog file's vocabulary, when it holds together, is the records'
   * (the words a typo is corrected to, otherwise counted in the page). */
  var catalogPromise = null;
  function loadCatalog() {
    if (!catalogPromise) {
      catalogPromise = fetchCatalog().then(function (catalog) {
        useIndex(catalog);
        catalog.records = window.prereqSearch.records(catalog.items, typeWords);
        var vocabulary = catalog.vocabulary;
        if (vocabulary) window.prereqSearch.useVocabulary(catalog.records, vocabulary.words, vocabulary.counts);
        return catalog;
      });
      catalogPromise.catch(function () { catalogPromise = null; }); // a later call tries again
    }
    return catalogPromise;
  }

  /* A list of names as name -> position (0 first). */
  function positions(list) {
    var out = new Map();
    list.forEach(function (name, index) { out.set(name, index); });
    return out;
  }

  /* The favorites and recently used lists as name -> position (0 first), for filtering and ordering. */
  function marks() {
    return { favorites: positions(window.prereq.favorites()), recent: positions(window.prereq.recent()) };
  }

  /* --- filters: one definition for the catalog (which counts its facets with catalog-facets.js)
   * and the composer (which lists what passes them all) ------------------------------------- */

  /* Each facet's values of a search record: its type's groups, its tags, its owners. */
  var GROUPS_OF_TYPE = new Map(); // type -> its groups, worked out once per type (emptied by useIndex)
  var FACET_VALUES = Object.freeze({
    type: function (record) {
      var type = record.entry.type;
      if (!GROUPS_OF_TYPE.has(type)) {
        GROUPS_OF_TYPE.set(type, Object.keys(TYPE_GROUPS).filter(function (group) { return inTypeGroup(group, type); }));
      }
      return GROUPS_OF_TYPE.get(type);
    },
    tags: function (record) { return record.entry.tags || []; },
    owner: function (record) { return record.entry.owners || []; }
  });

  /* The values `filters` choose of each facet ([]: any), a record passing when it carries them all:
   *   type   a TYPE_GROUPS key (an unknown group does not filter)   tags   a list   owner   one, or "" */
  function facetChoice(filters) {
    return {
      type: TYPE_GROUPS.hasOwnProperty(filters.type) ? [filters.type] : [],
      tags: filters.tags || [], owner: filters.owner ? [filters.owner] : []
    };
  }

  /* The filters that are no facet, as a test of a search record:
   *   show        "favorites" or "recent" (with marks from marks()): only those; else anything
   *   deprecated  whether deprecated entries are shown: true/false, or a function of the entry */
  function keeper(filters) {
    var shown = filters.show === "favorites" || filters.show === "recent" ? filters.marks[filters.show] : null;
    var deprecated = filters.deprecated;
    return function (record) {
      var entry = record.entry;
      if (entry.deprecated && !(typeof deprecated === "function" ? deprecated(entry) : deprecated)) return false;
      return !shown || shown.has(entry.name);
    };
  }

  /* The records that pass keeper(filters), facetChoice(filters) and `filters.words` (searchWords of a
   * query: every one somewhere in the record, search.js), in their order. */
  function filterRecords(records, filters) {
    var keep = keeper(filters), chosen = facetChoice(filters), words = filters.words || [];
    var facets = Object.keys(chosen).filter(function (facet) { return chosen[facet].length; });
    return records.filter(function (record) {
      if (!keep(record) || (words.length && window.prereqSearch.tier(record, words) === -1)) return false;
      return facets.every(function (facet) {
        var values = FACET_VALUES[facet](record);
        return chosen[facet].every(function (value) { return values.indexOf(value) !== -1; });
      });
    });
  }

  Object.assign(window.prereq, {
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
    positions: positions,
    facetValues: FACET_VALUES,
    facetChoice: facetChoice,
    keeper: keeper,
    filterRecords: filterRecords
  });
})();
