/* The OpenPAI webportal plugin: `prereq build` publishes this file as webportal/prereq-plugin.js, the
 * address an administrator gives in `webportal.plugins` (site/webportal.md).  The portal's plugin page
 * loads it as a classic script, then creates <pai-plugin> with the rest-server's address, the user and
 * the token as attributes; this defines that element.  In its shadow root mount.js shows the site's
 * composer (the same ui/ modules as the site's page) with Submit.
 *
 * A classic script, as the portal loads it, that imports nothing statically: the site's address is
 * taken from its own URL (document.currentScript, known only while it first runs), the site's shared
 * scripts (search.js, prereq.js, finding.js: window.prereqSearch and window.prereq, which ui/ uses)
 * are loaded when the page has not got them, then mount.js is imported.  Any failure ends in "The plugin could
 * not start: REASON" inside the element, never in an empty page.  No inline script, no eval.
 *
 * Folder webportal/: the composer as an OpenPAI webportal plugin (webportal/prereq-plugin.js): the
 * rest-server's job and user APIs, the user's record and the queues its groups get, the shadow root
 * the composer is mounted into.
 * May import: core/, yaml/, jobs/, ui/, execution/.
 */
/* Longer than usual: the script is one function, its own scope (a classic script in the portal's
 * page: only the element's name reaches it); the functions inside it are short. */
(function () {
  "use strict";

  var script = document.currentScript;
  if (!script || !script.src || !window.customElements || customElements.get("pai-plugin")) return;
  var scriptUrl = script.src;
  var site = new URL("../", scriptUrl).href; // the script is at SITE/webportal/prereq-plugin.js
  var shared = null;

  /* One of the site's classic scripts, added to the page's head for as long as it loads. */
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
      // Each one the portal's page lacks, in order (it keeps what an earlier plugin loaded: maybe a
      // prereq.js from before finding.js).
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
    /* Started once it is in the page: the portal sets the attributes before appending it. */
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
          element.prereq = mounted; // for tests and debugging: the composer, the user's values, idle()
          element.setAttribute("data-state", "ready");
        })
        .catch(function (error) { fail(shadow, error); });
    }
  }

  customElements.define("pai-plugin", PaiPlugin);
})();
