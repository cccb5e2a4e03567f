/* prereq marketplace: the header's search box (site/overrides/partials/search.html) on every page.
 *
 * Items first, from the published index (window.prereq.loadCatalog(): api/v1/catalog.json, whose
 * entries and search records the catalog page shares), ranked by the site's one search
 * (assets/search.js); then the documentation pages, from the theme's search/search_index.json read
 * as plain records (no lunr index is built).  A query
 * that finds nothing is corrected ("did you mean") by the same code.  Both files are fetched on the
 * first focus, not on every page view.
 *
 * Keys: "/" opens the box from anywhere but a text field; the arrows move between the box and the
 * results; Enter opens the first result; Escape closes.  Results are links, built with textContent.
 *
 * Longer than usual: the script is one function, its own scope (a classic script: nothing leaks
 * into the page); the functions inside it are short.
 */
(function () {
  "use strict";

  var ITEMS_SHOWN = 8;
  var PAGES_SHOWN = 5;

  var box = document.querySelector("[data-prereq-search]");
  if (!box || !window.prereq || !window.prereqSearch) return;
  var find = window.prereq;
  var search = window.prereqSearch;
  var input = document.getElementById("prereq-search-q");
  var toggle = document.getElementById("__search");
  var form = input.form;
  var items = null; // search records of the index's entries, once loaded
  var pages = null; // search records of the documentation's pages
  var loading = null;

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  /* The parts the page leaves to this script (the partial says why): the clear button, with the
   * theme's classes and the site's icon, and the results' panel the field controls. */
  function icon(name) {
    var svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("aria-hidden", "true");
    var use = document.createElementNS("http://www.w3.org/2000/svg", "use");
    use.setAttribute("href", find.siteUrl("assets/icons.svg") + "#" + name);
    svg.appendChild(use);
    return svg;
  }

  function drawPanel() {
    var options = el("nav", "md-search__options");
    options.setAttribute("aria-label", "Search options");
    var clear = el("button", "md-search__icon md-icon");
    clear.type = "reset";
    clear.title = "Clear";
    clear.tabIndex = -1;
    clear.setAttribute("aria-label", "Clear the search");
    clear.appendChild(icon("clear"));
    options.appendChild(clear);
    form.appendChild(options);
    var output = el("div", "md-search__output");
    var scroll = el("div", "md-search__scrollwrap");
    scroll.tabIndex = 0;
    scroll.setAttribute("aria-label", "Search results");
    scroll.setAttribute("data-md-scrollfix", "");
    var results = el("div", "md-search-result");
    results.id = "prereq-search-results";
    var status = el("div", "md-search-result__meta", "Type to search items and pages");
    status.id = "prereq-search-meta";
    status.setAttribute("role", "status");
    status.setAttribute("aria-live", "polite");
    var found = el("ol", "md-search-result__list");
    found.id = "prereq-search-list";
    results.appendChild(status);
    results.appendChild(found);
    scroll.appendChild(results);
    output.appendChild(scroll);
    box.querySelector(".md-search__inner").appendChild(output);
    input.setAttribute("aria-controls", results.id);
    input.setAttribute("aria-describedby", status.id);
    return { meta: status, list: found };
  }

  var panel = drawPanel();
  var meta = panel.meta;
  var list = panel.list;

  /* The theme's search index lists each page and each of its sections as HTML; only their text is
   * kept (read by an inert parser: nothing in it runs or loads), searched and shown as text. */
  var parser = new DOMParser();
  function plain(html) {
    return (parser.parseFromString(String(html || ""), "text/html").body.textContent || "").replace(/\s+/g, " ").trim();
  }

  function pageRecords(data) {
    var docs = (data && Array.isArray(data.docs)) ? data.docs : [];
    return docs.filter(function (doc) { return doc && typeof doc.location === "string"; }).map(function (doc) {
      return search.record({ name: "", title: plain(doc.title), summary: plain(doc.text), location: doc.location });
    });
  }

  function load() {
    if (!loading) {
      var index = find.loadCatalog().then(function (catalog) {
        items = catalog.records;
        search.warmWhileIdle(items); // the records finished ahead of a search (once per page: shared)
      });
      var docs = fetch(find.siteUrl("search/search_index.json"), { credentials: "same-origin" })
        .then(function (response) { return response.ok ? response.json() : null; })
        .catch(function () { return null; })
        .then(function (data) { pages = pageRecords(data); });
      loading = Promise.all([index, docs]).then(render, function (error) {
        loading = null;
        meta.textContent = "The index could not be loaded (" + error.message + ").";
      });
    }
    return loading;
  }

  function itemHit(entry) {
    var link = el("a", "md-search-result__link");
    link.href = find.siteUrl("items/" + encodeURIComponent(entry.name) + "/");
    var article = el("article", "md-search-result__article md-typeset prereq-search-hit");
    var head = el("div", "prereq-search-hit__head");
    head.appendChild(el("span", "prereq-search-hit__name", entry.name));
    head.appendChild(find.typeBadge(entry.type));
    if (entry.deprecated) head.appendChild(el("span", "prereq-badge prereq-badge--deprecated", "deprecated"));
    article.appendChild(head);
    article.appendChild(el("p", "prereq-search-hit__title", entry.title));
    link.appendChild(article);
    return link;
  }

  function pageHit(record) {
    var link = el("a", "md-search-result__link");
    link.href = find.siteUrl(record.entry.location);
    var article = el("article", "md-search-result__article md-typeset prereq-search-hit");
    article.appendChild(el("div", "prereq-search-hit__name", record.entry.title || record.entry.location));
    var text = record.entry.summary;
    if (text) article.appendChild(el("p", "prereq-search-hit__title", text.length > 140 ? text.slice(0, 139) + "…" : text));
    link.appendChild(article);
    return link;
  }

  function row(child, className) {
    var item = el("li", "md-search-result__item" + (className ? " " + className : ""));
    item.appendChild(child);
    list.appendChild(item);
  }

  /* One page once (its best section), in the order the search ranked them. */
  function distinctPages(hits) {
    var seen = {};
    return hits.filter(function (hit) {
      var page = hit.record.entry.location.split("#")[0];
      if (seen[page]) return false;
      seen[page] = true;
      return true;
    });
  }

  function catalogLink(text, count) {
    var link = el("a", "md-search-result__link prereq-search-all");
    link.href = find.siteUrl("catalog/") + "?" + new URLSearchParams({ q: text }).toString();
    link.textContent = count > ITEMS_SHOWN ? "All " + count + " matching items in the catalog" : "Search the catalog for “" + text + "”";
    return link;
  }

  function render() {
    var text = input.value.trim();
    list.textContent = "";
    if (!text) {
      meta.textContent = "Type to search items and pages";
      return;
    }
    if (!items) {
      meta.textContent = "Loading the index…";
      return;
    }
    var found = search.search(items, text);
    var words = found.corrected ? found.corrected.join(" ") : text;
    var docs = distinctPages(search.search(pages || [], words).hits);
    var live = found.hits.filter(function (hit) { return !hit.record.entry.deprecated; });
    var shown = live.concat(found.hits.filter(function (hit) { return hit.record.entry.deprecated; }));
    var summary = found.hits.length + (found.hits.length === 1 ? " item" : " items") + ", " +
      docs.length + (docs.length === 1 ? " page" : " pages");
    meta.textContent = found.corrected ? "No match for “" + text + "”. Did you mean “" + words + "”? " + summary : summary;
    if (shown.length) row(el("span", "prereq-search-group", "Items"), "prereq-search-group-row");
    shown.slice(0, ITEMS_SHOWN).forEach(function (hit) { row(itemHit(hit.record.entry)); });
    if (shown.length) row(catalogLink(words, shown.length));
    if (docs.length) row(el("span", "prereq-search-group", "Documentation"), "prereq-search-group-row");
    docs.slice(0, PAGES_SHOWN).forEach(function (hit) { row(pageHit(hit.record)); });
  }

  function open() {
    if (toggle && !toggle.checked) {
      toggle.checked = true;
      toggle.dispatchEvent(new Event("change")); // the theme locks the page's scrolling on phones
    }
    load();
  }

  function close() {
    if (toggle && toggle.checked) {
      toggle.checked = false;
      toggle.dispatchEvent(new Event("change"));
    }
    input.blur();
  }

  function links() {
    return Array.prototype.slice.call(list.querySelectorAll("a[href]"));
  }

  function moveFocus(step) {
    var all = [input].concat(links());
    var at = all.indexOf(document.activeElement);
    all[(Math.max(at, 0) + step + all.length) % all.length].focus();
  }

  input.addEventListener("focus", open);
  input.addEventListener("input", function () { load(); render(); });
  form.addEventListener("reset", function () {
    window.setTimeout(function () { render(); input.focus(); }, 0);
  });
  form.addEventListener("submit", function (event) {
    var first = links()[0];
    if (!first) return; // the form's own action: the catalog's search
    event.preventDefault();
    window.location.href = first.href;
  });
  box.addEventListener("keydown", function (event) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      moveFocus(event.key === "ArrowDown" ? 1 : -1);
    } else if (event.key === "Escape") {
      event.preventDefault();
      close();
    }
  });
  /* Leaving the box by Tab closes it, as clicking beside it does (the theme's overlay). */
  box.addEventListener("focusout", function (event) {
    if (event.relatedTarget && !box.contains(event.relatedTarget)) close();
  });
  /* On phones the header shows a magnifier that opens the box: the field then takes the focus. */
  Array.prototype.forEach.call(document.querySelectorAll('.md-header label[for="__search"]'), function (label) {
    if (box.contains(label)) return;
    label.addEventListener("click", function () { window.setTimeout(function () { input.focus(); }, 0); });
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
    var active = document.activeElement;
    if (active && (active.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName))) return;
    event.preventDefault();
    open();
    input.focus();
  });
})();
