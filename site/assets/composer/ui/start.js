/* Starting the job composer page (composer.md), and saying so in the page when it cannot start.
 *
 * The engine is ES modules imported by page.js; when one of them cannot be fetched or does not parse,
 * a static <script type="module"> simply never runs and the page would stay "loading" with no word.
 * So the page loads this classic script, which imports page.js dynamically and catches: a module that
 * fails to load or to evaluate, the index that cannot be fetched or read, and anything else start()
 * throws, all end in "The composer could not start: REASON" in the page's alert box, with the page's
 * data-state "failed".  It imports nothing statically, so nothing can keep it from running.
 *
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

  /* The reason in the alert box (text only); a bug's details also go to the console. */
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
