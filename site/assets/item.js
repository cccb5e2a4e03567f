/* An item page's "Use it in a job" snippet, made whole (loaded on item pages only).
 *
 * The page holds the item's own OpenPAI form; the forms of the items it requires are files beside
 * their own pages (items/NAME/VERSION.yaml, written by prereq build: tools/prereq/marketplace/
 * itempage.py), which the page's "In a job, in this order" list names in its order (each <li> links to
 * its item's page, <a href="../NAME/">, beside its version, <code>VERSION</code>; the item itself is not
 * a link).  They are fetched as the page opens and put, as text, where the snippet's
 * placeholder comment stands (<span data-prereq-requirements="COUNT">), so the box shows, and
 * Copy YAML copies, the whole snippet: the text prereq's itempage.job_text gives.  When the first
 * callback the snippet's task role runs is a requirement's, the slot names which (data-prereq-first-entry)
 * and the text at an offset of that file to replace (data-prereq-first-old/-new: the index's long callback
 * line where its file has the short one, as prereq job add places it).
 *
 * Until they are in, the snippet's element is aria-busy and carries `prereqReady`, a promise the copy
 * button (prereq.js) waits for; when one cannot be read, the promise rejects, the comment says what
 * to do instead, and nothing incomplete is copied.
 */
(function () {
  "use strict";

  var code = document.getElementById("prereq-yaml");
  var slot = code && code.querySelector("[data-prereq-requirements]");
  if (!slot) return;

  function fetchText(url) {
    return window.fetch(url).then(function (response) {
      if (!response.ok) throw new Error(url + ": " + response.status);
      return response.text();
    });
  }

  var count = Number(slot.getAttribute("data-prereq-requirements"));
  var rows = document.querySelectorAll("ol.prereq-closure > li");
  var urls = Array.prototype.filter.call(rows, function (li) { return li.querySelector("a"); }).map(function (li) {
    // The version as one path segment: a tampered index's "../x" names no other file.
    return new URL(encodeURIComponent(li.querySelector("code").textContent) + ".yaml", li.querySelector("a").href).href;
  });
  var texts = urls.length === count ? Promise.all(urls.map(fetchText))
    : Promise.reject(new Error("the page names " + urls.length + " of the " + count + " forms"));

  code.setAttribute("aria-busy", "true");
  function placeFirstLine(forms) {
    if (!slot.hasAttribute("data-prereq-first-entry")) return forms;
    var entry = Number(slot.getAttribute("data-prereq-first-entry"));
    var offset = Number(slot.getAttribute("data-prereq-first-offset"));
    var old = slot.getAttribute("data-prereq-first-old");
    var text = forms[entry];
    if (typeof text !== "string" || text.substr(offset, old.length) !== old) {
      throw new Error("the form of " + (entry + 1) + " is not the one the page was built with");
    }
    forms[entry] = text.slice(0, offset) + slot.getAttribute("data-prereq-first-new") + text.slice(offset + old.length);
    return forms;
  }

  code.prereqReady = texts.then(placeFirstLine).then(function (forms) {
    slot.textContent = forms.join("");
  }, function (error) {
    slot.textContent = "# The forms of the " + count + " items it requires could not be loaded (" + error.message +
      "): add it with the job composer, or with prereq job add\n";
    throw error;
  }).finally(function () {
    code.removeAttribute("aria-busy");
  });
  code.prereqReady.catch(function () { /* said in the snippet; the copy button says it again */ });
})();
