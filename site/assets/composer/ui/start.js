/* Starts the composer page, or says in it why not.  A classic script importing page.js dynamically: a
 * static module that failed to load or parse would leave the page "loading" with no word.
 * May import: core/, yaml/, openpai/, index/, jobs/.
 */
(function () {
  "use strict";

  var root = document.getElementById("prereq-composer");
  var script = document.currentScript;
  if (!root || !script) return;

  function line(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    node.textContent = text;
    return node;
  }

  /* Text only; a bug's details also go to the console. */
  function fail(error) {
    var reason = error && error.message ? error.message : String(error);
    var hint = error && error.hint ? error.hint : "reload the page; if this happens again, the site is incomplete";
    var box = document.getElementById("prereq-composer-error");
    var count = document.getElementById("prereq-composer-count");
    root.setAttribute("data-state", "failed");
    if (count) count.textContent = "The composer could not start.";
    if (!box) return;
    box.textContent = "";
    box.appendChild(line("strong", null, "The composer could not start: "));
    box.appendChild(document.createTextNode(reason));
    box.appendChild(line("div", "prereq-composer__hint", "hint: " + hint));
    box.hidden = false;
    if (!(error && error.name === "PrereqError") && window.console) window.console.error(error);
  }

  if (!window.prereq || !window.prereq.loadCatalog) {
    fail(new Error("the site's own scripts (assets/prereq.js, assets/finding.js) did not load"));
    return;
  }
  import(new URL("page.js", script.src).href)
    .then(function (page) { return page.start(root); })
    .catch(fail);
})();
