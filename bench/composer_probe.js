/* Installed by bench/composer_check.py before the composer page's own scripts run (an init script):
 * it records, with the page's own clock (performance.now(), 0 at navigation start), for each click on
 * a prerequisite's box in the composer's list:
 *   - start: the click's time stamp (the input event's own, before any handler ran), and pressed: the
 *     time stamp of the press on a box before it (pointerdown), if any;
 *   - yamlSet: when the editor's text was replaced (its value setter, wrapped on the element by
 *     watch(): the engine's answer is in), and yamlPainted: the end of the first frame after that
 *     (the next animation frame, then a message: after its paint), when the user sees the YAML;
 *   - ready: when the composer's data-state turned "ready" again (the edit, its analysis and the
 *     list drawn), and settled: the end of the first frame after that and the summary drawn after it;
 *   - longTasks: every task over 50 ms (the Long Tasks API), for the whole page.
 * Nothing here changes what the page does. */
(() => {
  "use strict";
  const probe = { actions: [], longTasks: [], watching: false };
  window.__composerBench = probe;

  function afterPaint(done) {
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => done(performance.now());
      channel.port2.postMessage(null);
    });
  }

  new PerformanceObserver((list) => {
    list.getEntries().forEach((entry) => probe.longTasks.push({ start: entry.startTime, duration: entry.duration }));
  }).observe({ type: "longtask", buffered: true });

  const current = () => probe.actions[probe.actions.length - 1];

  /* Once the composer is ready: wrap its editor's value setter, and follow its data-state. */
  probe.watch = () => {
    if (probe.watching) return;
    probe.watching = true;
    const root = document.getElementById("prereq-composer");
    const editor = document.getElementById("prereq-composer-yaml");
    const native = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value");
    Object.defineProperty(editor, "value", {
      configurable: true,
      get() { return native.get.call(this); },
      set(text) {
        native.set.call(this, text);
        const action = current();
        if (!action || action.yamlSet !== null) return;
        action.yamlSet = performance.now();
        afterPaint((time) => { action.yamlPainted = time; });
      },
    });
    new MutationObserver(() => {
      const action = current();
      if (!action || action.ready !== null || root.getAttribute("data-state") !== "ready") return;
      action.ready = performance.now();
      afterPaint((time) => { action.settled = time; });
    }).observe(root, { attributes: true, attributeFilter: ["data-state"] });
    const onBox = (event) => event.target.matches && event.target.matches("input.prereq-composer__check");
    let pressed = null;
    document.addEventListener("pointerdown", (event) => { pressed = onBox(event) ? event.timeStamp : null; }, true);
    document.addEventListener("click", (event) => {
      if (!onBox(event)) return;
      probe.actions.push({ start: event.timeStamp, pressed, yamlSet: null, yamlPainted: null, ready: null, settled: null });
      pressed = null;
    }, true);
  };
})();
