/* Installed by bench/composer_start.py before the composer page's own scripts run (an init script):
 * it records, with the page's own clock (performance.now(), 0 at navigation start), the end of the
 * first frame painted after each of
 *   - editor: the job editor's text was first set to a job (the textarea's value setter, wrapped on
 *     the prototype because the element does not exist yet); editorText is that text's length;
 *   - list: the prerequisites' list first held a row;
 *   - ready: #prereq-composer's data-state turned "ready" (the composer takes clicks).
 * Nothing here changes what the page does. */
(() => {
  "use strict";
  const probe = { editor: null, editorText: 0, list: null, ready: null };
  const seen = { editor: false, list: false, ready: false };
  window.__composerStart = probe;

  function afterPaint(what) {
    seen[what] = true;
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => { probe[what] = performance.now(); };
      channel.port2.postMessage(null);
    });
  }

  const native = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value");
  Object.defineProperty(HTMLTextAreaElement.prototype, "value", {
    configurable: true,
    enumerable: native.enumerable,
    get() { return native.get.call(this); },
    set(text) {
      native.set.call(this, text);
      if (seen.editor || this.id !== "prereq-composer-yaml" || !text) return;
      probe.editorText = String(text).length;
      afterPaint("editor");
    },
  });

  new MutationObserver(() => {
    const items = document.getElementById("prereq-composer-items");
    if (!seen.list && items && items.firstElementChild) afterPaint("list");
    const root = document.getElementById("prereq-composer");
    if (!seen.ready && root && root.getAttribute("data-state") === "ready") afterPaint("ready");
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-state"] });
})();
