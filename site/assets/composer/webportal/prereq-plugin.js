/* <pai-plugin>, published as webportal/prereq-plugin.js: a classic script (composer/README.md, mounting)
 * whose mount.js shows the composer in its shadow root; a failure is said in the element.
 * May import: core/, yaml/, jobs/, ui/, execution/.
 */
/* Longer than usual: one function, the script's own scope in the portal's page; its inner ones are short. */
(function () {
  "use strict";

  var script = document.currentScript;
  if (!script || !script.src || !window.customElements || customElements.get("pai-plugin")) return;
  var scriptUrl = script.src;
  var site = new URL("../", scriptUrl).href; // the script is at SITE/webportal/
  var shared = null;

  function load(path) {
    return new Promise(function (resolve, reject) {
      var tag = document.createElement("script");
      tag.src = new URL(path, site).href;
      tag.onload = function () { tag.remove(); resolve(); };
      tag.onerror = function () { tag.remove(); reject(new Error("cannot load " + tag.src)); };
      document.head.appendChild(tag);
    });
  }

  function sharedScripts() {
    if (!shared) {
      // Those the page lacks, in order: an earlier plugin may have left a prereq.js older than finding.js.
      var missing = [["assets/search.js", !window.prereqSearch], ["assets/prereq.js", !window.prereq],
        ["assets/finding.js", !(window.prereq && window.prereq.loadCatalog)]];
      shared = missing.reduce(function (done, script) {
        return script[1] ? done.then(function () { return load(script[0]); }) : done;
      }, Promise.resolve());
    }
    return shared;
  }

  function fail(shadow, error) {
    var reason = error && error.message ? error.message : String(error);
    var hint = error && error.hint ? error.hint : "reload the page; if this happens again, tell your administrator";
    var box = shadow.querySelector("#prereq-composer-error");
    if (!box) {
      box = document.createElement("div");
      box.setAttribute("role", "alert");
      shadow.appendChild(box);
    }
    box.textContent = "";
    var strong = document.createElement("strong");
    strong.textContent = "The plugin could not start: ";
    var more = document.createElement("div");
    more.textContent = "hint: " + hint;
    box.append(strong, reason, more);
    box.hidden = false;
    shadow.host.setAttribute("data-state", "failed");
    if (!(error && error.name === "PrereqError") && window.console) window.console.error(error);
  }

  class PaiPlugin extends HTMLElement {
    /* Not in the constructor: the portal sets the attributes before appending the element. */
    connectedCallback() {
      if (this.shadowRoot) return;
      var element = this;
      var shadow = this.attachShadow({ mode: "open" });
      var wait = document.createElement("p");
      wait.textContent = "Loading the prerequisites…";
      shadow.appendChild(wait);
      element.setAttribute("data-state", "loading");
      sharedScripts()
        .then(function () { return import(new URL("assets/composer/webportal/mount.js", site).href); })
        .then(function (plugin) { return plugin.mountPlugin(element, shadow, { site: site, scriptUrl: scriptUrl }); })
        .then(function (mounted) {
          element.prereq = mounted; // for tests and debugging
          element.setAttribute("data-state", "ready");
        })
        .catch(function (error) { fail(shadow, error); });
    }
  }

  customElements.define("pai-plugin", PaiPlugin);
})();
