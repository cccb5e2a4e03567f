/* prereq marketplace: the catalog's address (its filters in the query string, which catalog.js's
 * header lists) and shared lists in the catalog (assets/catalog.js shows them).
 *
 * A shared list is the catalog's address with ?names=a,b,c: the catalog shows exactly those items
 * (deprecated ones too: whoever shared them chose them) and offers to add them to the visitor's
 * favorites in one step.  Under the favorites filter, the visitor's own favorites become such an
 * address, as a link and a button that copies it.  Names from the address are kept only when they
 * can be item names (at most 200 of them); they reach the page through textContent only.
 *
 * Longer than usual: the script is one function, its own scope (a classic script: only
 * window.prereqShare reaches the page); the functions inside it are short.
 */
(function () {
  "use strict";

  var MAX_NAMES = 200;
  var NAME = /^[A-Za-z0-9_-]{1,63}$/;

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function button(text, key, onClick) {
    var node = el("button", "prereq-shared__button", text);
    node.type = "button";
    node.setAttribute("data-focus-key", key);
    node.addEventListener("click", onClick);
    return node;
  }

  /* The names of ?names=a,b: those that can be item names, once each, in order. */
  function parse(text) {
    var names = [];
    String(text || "").split(",").forEach(function (part) {
      var name = part.trim();
      if (NAME.test(name) && names.indexOf(name) === -1 && names.length < MAX_NAMES) names.push(name);
    });
    return names;
  }

  /* This catalog's address showing exactly `names` (commas kept: no name holds one). */
  function link(names) {
    return new URL("?names=" + names.map(encodeURIComponent).join(","), window.location.href).href;
  }

  function plural(count, word) {
    return count + " " + word + (count === 1 ? "" : "s");
  }

  /* The bar above a shared list: how many, which names this index lacks, and the offer to add the
   * others to the favorites (then a way to see them there).
   *   options: { names, known(name), onClear(), onFavorites() } */
  function renderShared(node, options) {
    node.textContent = "";
    node.hidden = !options.names.length;
    if (!options.names.length) return;
    var known = options.names.filter(options.known);
    var missing = options.names.filter(function (name) { return !options.known(name); });
    var favorites = window.prereq.favorites();
    var adding = known.filter(function (name) { return favorites.indexOf(name) === -1; });
    node.appendChild(el("strong", null, "A shared list of " + plural(known.length, "item") + ". "));
    if (missing.length) {
      var listed = missing.slice(0, 10).join(", ") + (missing.length > 10 ? " and " + (missing.length - 10) + " more" : "");
      node.appendChild(document.createTextNode("Not in this catalog: " + listed + ". "));
    }
    if (adding.length) {
      node.appendChild(button("★ Add " + (adding.length === known.length ? "them" : "the " + adding.length +
        " not yet there") + " to my favorites", "shared-add", function () { window.prereq.addFavorites(adding); }));
    } else if (known.length) {
      node.appendChild(document.createTextNode("All are in your favorites. "));
      node.appendChild(button("show my favorites", "shared-add", options.onFavorites));
    }
    node.appendChild(document.createTextNode(" "));
    node.appendChild(button("show every item", "shared-clear", options.onClear));
  }

  /* Under the favorites filter: the favorites (`names`, those in the index) as a shared list's address. */
  function renderShare(node, names) {
    node.textContent = "";
    node.hidden = !names.length;
    if (!names.length) return;
    var address = link(names);
    node.appendChild(document.createTextNode(names.length === 1 ? "Share this favorite: " :
      "Share these " + names.length + " favorites: "));
    var anchor = el("a", "prereq-share__link", "a link to them");
    anchor.setAttribute("href", address);
    node.appendChild(anchor);
    node.appendChild(document.createTextNode(" "));
    var copy = button("Copy the link", "share-copy", function () {
      window.prereq.copyText(address).then(function () { copy.textContent = "Copied ✓"; },
        function () { copy.textContent = "Copy refused: use the link"; });
    });
    node.appendChild(copy);
  }

  /* --- the catalog's address: its filters (catalog.js's state) as the query string -------- */

  /* The state the address says, filled into `next` (an empty state). */
  function readAddress(next) {
    var params = new URLSearchParams(window.location.search);
    next.q = (params.get("q") || "").trim(); // as typing keeps it
    next.type = params.get("type") || ""; // an unknown group does not filter (prereq.facetChoice)
    next.tags = params.getAll("tag").filter(function (tag, index, all) { return tag && all.indexOf(tag) === index; });
    next.owner = params.get("owner") || "";
    next.license = params.get("license") || "";
    next.sort = params.get("sort") === "updated" ? "updated" : "name";
    next.deprecated = params.get("deprecated") === "1";
    next.show = ["favorites", "recent"].indexOf(params.get("show")) !== -1 ? params.get("show") : "";
    next.requires = params.get("requires") || "";
    next.required_by = next.requires ? "" : params.get("required_by") || "";
    next.names = parse(params.get("names"));
    return next;
  }

  /* Put `state` in the address: a new step of the history (`push`) or the current one replaced. */
  function writeAddress(state, push) {
    var params = new URLSearchParams();
    if (state.q) params.set("q", state.q);
    if (state.type) params.set("type", state.type);
    state.tags.forEach(function (tag) { params.append("tag", tag); });
    if (state.owner) params.set("owner", state.owner);
    if (state.license) params.set("license", state.license);
    if (state.sort !== "name") params.set("sort", state.sort);
    if (state.deprecated) params.set("deprecated", "1");
    if (state.show) params.set("show", state.show);
    if (state.requires) params.set("requires", state.requires);
    if (state.required_by) params.set("required_by", state.required_by);
    var query = params.toString();
    if (state.names.length) query += (query ? "&" : "") + "names=" + state.names.join(","); // as a person writes it
    var url = window.location.pathname + (query ? "?" + query : "") + window.location.hash;
    if (url !== window.location.pathname + window.location.search + window.location.hash) {
      if (push) window.history.pushState(null, "", url);
      else window.history.replaceState(null, "", url);
    }
  }

  window.prereqShare = {
    parse: parse, link: link, renderShared: renderShared, renderShare: renderShare,
    readAddress: readAddress, writeAddress: writeAddress
  };
})();
