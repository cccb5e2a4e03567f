/* prereq marketplace: the catalog's list facets (assets/catalog.js draws its filters with them): a
 * drop list of values with their counts (owner, license), the tag buttons and the type radio buttons,
 * and what an item's license is made of.
 *
 * License: the index entry's `license` is an SPDX expression as its author wrote it ("MIT",
 * "CC-BY-4.0 AND LicenseRef-Flickr-Terms-of-Use"); the facet offers each identifier in it, so an item
 * under two licenses is found under either (an exception after WITH is no license of its own).  An
 * item that states none is under NOASSERTION, SPDX's own word for "not stated", which no license
 * identifier can be.  Index text goes in through textContent only.
 *
 * Longer than usual: the script is one function, its own scope (a classic script: only
 * window.prereqFacets reaches the page); the functions inside it are short.
 */
(function () {
  "use strict";

  var NOT_STATED = "NOASSERTION";
  var OPERATORS = { AND: true, OR: true, WITH: true };

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  /* The license identifiers of an index entry, in the order written ([NOT_STATED] when it states none):
   * one list per expression, shared by the entries that state it (a registry has a few dozen). */
  var licensesOf = new Map();
  function licenses(entry) {
    var expression = typeof entry.license === "string" ? entry.license : "";
    if (licensesOf.has(expression)) return licensesOf.get(expression);
    var tokens = expression.split(/[\s()]+/).filter(Boolean);
    var ids = [];
    tokens.forEach(function (token, index) {
      if (OPERATORS[token] || tokens[index - 1] === "WITH") return;
      if (ids.indexOf(token) === -1) ids.push(token);
    });
    licensesOf.set(expression, Object.freeze(ids.length ? ids : [NOT_STATED]));
    return licensesOf.get(expression);
  }

  function licenseLabel(id) {
    return id === NOT_STATED ? "not stated" : id;
  }

  /* Fill a <select>: an "any" option, then every one of `values` (sorted; each stays listed whatever
   * the other filters leave) with its count in `counts`; `current` selected, listed even when unknown.
   * When the select already lists the same values (every keystroke, as only the counts change), its
   * options are kept and only the labels that changed are written: rebuilding thousands of owners'
   * options on each key was a third of a keystroke at 100,000 items. */
  function fillSelect(select, values, counts, current, anyLabel, labelOf) {
    var shown = values.slice().sort();
    if (current && shown.indexOf(current) === -1) shown.unshift(current);
    var labels = shown.map(function (value) { return (labelOf ? labelOf(value) : value) + " (" + (counts[value] || 0) + ")"; });
    if (!sameValues(select, shown)) {
      select.textContent = "";
      select.prereqValues = shown;
      select.prereqLabels = [];
      var any = el("option", null, anyLabel);
      any.value = "";
      select.appendChild(any);
      shown.forEach(function (value) {
        var option = el("option");
        option.value = value;
        select.appendChild(option);
      });
    }
    // So are the labels last written: reading 2,000 options' text took time too.
    var options = select.options, written = select.prereqLabels;
    if (options[0].textContent !== anyLabel) options[0].textContent = anyLabel;
    labels.forEach(function (label, index) {
      if (written[index] !== label) options[index + 1].textContent = label;
    });
    select.prereqLabels = labels;
    // A value the other filters leave nothing of leads nowhere: listed, not choosable (unless chosen).
    shown.forEach(function (value, index) { options[index + 1].disabled = !counts[value] && value !== current; });
    select.value = current;
  }

  /* Does `select` hold an "any" option and then exactly `values`, in this order, as fillSelect wrote
   * them (select.prereqValues: kept beside the options, faster to compare than their values)? */
  function sameValues(select, values) {
    var kept = select.prereqValues;
    if (!kept || kept.length !== values.length || select.options.length !== values.length + 1) return false;
    for (var i = 0; i < values.length; i++) if (kept[i] !== values[i]) return false;
    return true;
  }

  /* The tag buttons: the selected ones, then the most used among what the other filters leave, the
   * first `limit` unless `all`; a toggle between the two when there are more.
   *   options: { counts, selected, limit, all, onTag(tag), onToggle() } */
  function fillTags(box, options) {
    var counts = options.counts;
    var tags = Object.keys(counts).sort(function (a, b) { return counts[b] - counts[a] || (a < b ? -1 : 1); });
    options.selected.forEach(function (tag) { if (tags.indexOf(tag) === -1) tags.unshift(tag); });
    var visible = options.all ? tags : tags.slice(0, options.limit);
    options.selected.forEach(function (tag) { if (visible.indexOf(tag) === -1) visible.push(tag); });
    box.textContent = "";
    visible.forEach(function (tag) { box.appendChild(tagButton(tag, counts[tag] || 0, options)); });
    if (tags.length > options.limit) {
      var toggle = el("button", "prereq-facet__more", options.all ? "fewer tags" : "all " + tags.length + " tags");
      toggle.type = "button";
      toggle.setAttribute("data-focus-key", "tags-toggle");
      toggle.addEventListener("click", options.onToggle);
      box.appendChild(toggle);
    }
  }

  function tagButton(tag, count, options) {
    var on = options.selected.indexOf(tag) !== -1;
    var button = el("button", "prereq-tag" + (on ? " prereq-tag--on" : ""));
    button.type = "button";
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.setAttribute("data-tag", tag);
    button.setAttribute("data-focus-key", "tag:" + tag);
    button.appendChild(document.createTextNode(tag + " "));
    button.appendChild(el("span", "prereq-tag__count", count));
    button.addEventListener("click", function () { options.onTag(tag); });
    return button;
  }

  /* A radio button per type group (`groups`: name -> types, in display order) into `box`, each given
   * to `bind(radio)`; returns group -> the <span> that shows its count. */
  function fillTypes(box, groups, labelOf, bind) {
    var counts = {};
    Object.keys(groups).forEach(function (group) {
      var label = el("label");
      var radio = document.createElement("input");
      radio.type = "radio";
      radio.name = "type";
      radio.value = group;
      bind(radio);
      var count = el("span", "prereq-facet__count");
      count.setAttribute("data-count", group);
      counts[group] = count;
      label.appendChild(radio);
      label.appendChild(document.createTextNode(" " + labelOf(group) + " "));
      label.appendChild(count);
      box.appendChild(label);
    });
    return counts;
  }

  /* --- counting: the facets' values as numbers, computed once per list of records --------- */

  /* Each facet's values of the `records` (facet -> valuesOf(record), a list of strings), as numbers:
   * record i's values of a facet are ids[start[i]] up to ids[start[i + 1]], of the facet's `values`.
   * A keystroke's counts then add into typed arrays; record.facetAt is i. */
  function facetTable(records, valuesOf) {
    for (var at = 0; at < records.length; at++) records[at].facetAt = at;
    var table = {};
    Object.keys(valuesOf).forEach(function (facet) {
      var idOf = new Map(), values = [], ids = [], start = new Uint32Array(records.length + 1), of = valuesOf[facet];
      for (var at = 0; at < records.length; at++) {
        var list = of(records[at]);
        for (var k = 0; k < list.length; k++) {
          var id = idOf.get(list[k]);
          if (id === undefined) { id = values.length; idOf.set(list[k], id); values.push(list[k]); }
          ids.push(id);
        }
        start[at + 1] = ids.length;
      }
      table[facet] = { idOf: idOf, values: values, ids: Int32Array.from(ids), start: start };
    });
    return table;
  }

  /* Does the record at `at` carry every id of `wanted` in `column`? */
  function carries(column, at, wanted) {
    for (var w = 0; w < wanted.length; w++) {
      var found = false;
      for (var k = column.start[at]; k < column.start[at + 1] && !found; k++) found = column.ids[k] === wanted[w];
      if (!found) return false;
    }
    return true;
  }

  /* The search hits that pass every filter, and each facet's counts among the hits that pass every
   * filter but that facet's own (what choosing another of its values would show): one pass over the
   * hits, and a hit failing two facets counts nowhere.
   *   selected: facet -> the values chosen ([]: any); keep(record): the filters that are no facet
   * Returns {found: the hits kept, in their order, counts: facet -> {value: count} (counts above 0)}. */
  function countHits(table, hits, selected, keep) {
    var facets = Object.keys(table), columns = facets.map(function (facet) { return table[facet]; });
    var wanted = facets.map(function (facet) {
      return selected[facet].map(function (value) { return table[facet].idOf.has(value) ? table[facet].idOf.get(value) : -1; });
    });
    var tallies = columns.map(function (column) { return new Int32Array(column.values.length); });
    var found = [];
    for (var h = 0; h < hits.length; h++) {
      var record = hits[h].record, at = record.facetAt;
      if (!keep(record)) continue;
      var failed = -1, fails = 0;
      for (var f = 0; f < columns.length && fails < 2; f++) {
        if (wanted[f].length && !carries(columns[f], at, wanted[f])) { failed = f; fails++; }
      }
      if (fails > 1) continue;
      if (!fails) found.push(hits[h]);
      for (f = fails ? failed : 0; f < (fails ? failed + 1 : columns.length); f++) {
        for (var k = columns[f].start[at]; k < columns[f].start[at + 1]; k++) tallies[f][columns[f].ids[k]]++;
      }
    }
    var counts = {};
    facets.forEach(function (facet, f) {
      counts[facet] = {};
      tallies[f].forEach(function (count, id) { if (count) counts[facet][columns[f].values[id]] = count; });
    });
    return { found: found, counts: counts };
  }

  window.prereqFacets = {
    facetTable: facetTable,
    countHits: countHits,
    fillTypes: fillTypes,
    NOT_STATED: NOT_STATED,
    licenses: licenses,
    licenseLabel: licenseLabel,
    fillSelect: fillSelect,
    fillTags: fillTags
  };
})();
