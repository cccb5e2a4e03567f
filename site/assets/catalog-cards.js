/* prereq marketplace: the catalog's cards (assets/catalog.js draws its results with them) and the
 * item relations its ?requires=NAME and ?required_by=NAME filters show, with the line that names them.
 *
 * A card: the star, the name linked to the item page, the type, the version, the title, the summary
 * (`backticks` as <code>), the tags as buttons that filter, the owners, the license and the date; index text goes
 * in through textContent only.  Relations come from the item's own file (api/v1/prerequisites/NAME.json,
 * read once): the items whose latest version requires it (its required_by), or the ones it requires.
 *
 * Longer than usual: the script is one function, its own scope (a classic script: only
 * window.prereqCards reaches the page); the functions inside it are short.
 */
(function () {
  "use strict";

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

  function head(entry) {
    var find = window.prereq;
    var row = el("div", "prereq-card__head");
    var star = find.makeStar(entry.name);
    star.setAttribute("data-focus-key", "card:" + entry.name + ":star");
    row.appendChild(star);
    var link = el("a", "prereq-card__name", entry.name);
    link.setAttribute("href", itemUrl(entry.name));
    row.appendChild(link);
    row.appendChild(find.typeBadge(entry.type));
    row.appendChild(el("span", "prereq-card__version", entry.version));
    if (entry.deprecated) row.appendChild(el("span", "prereq-badge prereq-badge--deprecated", "deprecated"));
    return row;
  }

  /* The card of an index entry; `selected`: the tags the catalog filters by; `onTag(tag)`: a tag pressed. */
  function card(entry, selected, onTag) {
    var item = el("li", "prereq-card" + (entry.deprecated ? " prereq-card--deprecated" : ""));
    item.setAttribute("data-name", entry.name);
    item.appendChild(head(entry));
    item.appendChild(el("div", "prereq-card__title", entry.title));
    if (entry.summary && entry.summary !== entry.title) item.appendChild(summaryNode(entry.summary));
    var meta = el("div", "prereq-card__meta");
    (entry.tags || []).forEach(function (tag) {
      var on = selected.indexOf(tag) !== -1;
      var button = el("button", "prereq-tag" + (on ? " prereq-tag--on" : ""), tag);
      button.type = "button";
      button.setAttribute("title", "Filter by the tag " + tag);
      button.setAttribute("aria-pressed", on ? "true" : "false");
      button.setAttribute("data-focus-key", "card:" + entry.name + ":tag:" + tag);
      button.addEventListener("click", function () { onTag(tag); });
      meta.appendChild(button);
    });
    if ((entry.owners || []).length) meta.appendChild(el("span", "prereq-card__owners", "by " + entry.owners.join(", ")));
    if (entry.license) meta.appendChild(el("span", "prereq-card__license", "license " + entry.license));
    if (entry.updated) {
      var time = el("time", "prereq-card__updated", "updated " + entry.updated.slice(0, 10));
      time.setAttribute("datetime", entry.updated);
      meta.appendChild(time);
    }
    item.appendChild(meta);
    return item;
  }

  var documents = {};

  /* The names related to the item `name` as `kind` says ("requires": the items that require it;
   * "required_by": the items it requires), as a promise of a Set; `entry` is its index entry. */
  function related(entry, kind) {
    if (!documents[entry.name]) {
      documents[entry.name] = fetch(window.prereq.siteUrl("api/v1/" + entry.path), { credentials: "same-origin" })
        .then(function (response) {
          if (!response.ok) throw new Error("HTTP " + response.status);
          return response.json();
        });
      documents[entry.name].catch(function () { delete documents[entry.name]; });
    }
    return documents[entry.name].then(function (document) {
      if (kind === "requires") return new Set(document.required_by || []);
      var versions = document.versions || [];
      var latest = versions[versions.length - 1] || {};
      return new Set((latest.requires || []).map(function (r) { return r.name; }));
    });
  }

  /* The line above a ?requires=/?required_by= list: "Items that require NAME (12) [show every item]";
   * hidden for `relation` null.  relation: { name, requires (true: ?requires=), count, onClear() } */
  function relationLine(node, relation) {
    node.textContent = "";
    node.hidden = !relation;
    if (!relation) return;
    node.appendChild(document.createTextNode(relation.requires ? "Items that require " : "Items that " + relation.name + " requires"));
    if (relation.requires) node.appendChild(el("code", null, relation.name));
    node.appendChild(document.createTextNode(" (" + relation.count + ") "));
    var clear = el("button", "prereq-relation__clear", "show every item");
    clear.type = "button";
    clear.setAttribute("data-focus-key", "relation-clear");
    clear.addEventListener("click", relation.onClear);
    node.appendChild(clear);
  }

  window.prereqCards = { el: el, card: card, related: related, relationLine: relationLine };
})();
