/* Installed by bench/bench_catalog.py before the catalog page's own scripts run (an init script):
 * it records, with the page's own clock (performance.now(), 0 at navigation start),
 *   - firstReady: when the catalog first says it is drawn (#prereq-catalog's data-state turns
 *     "ready", which catalog.js sets after the cards and the count are in), and firstPainted: the
 *     end of the frame that shows it (the next animation frame, then a message: after its paint);
 *   - keys: for each key typed, its keydown's time stamp, when the input event had been handled
 *     (this listener, on window, runs after the catalog's own on the box) and when the frame
 *     showing the result had been painted, with the status line and the first card then shown;
 *   - longTasks: every task over 50 ms (the Long Tasks API).
 * Nothing here changes the page. */
(() => {
  "use strict";
  const probe = { firstReady: null, firstPainted: null, keys: [], longTasks: [] };
  window.__catalogBench = probe;

  function afterPaint(done) {
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => done(performance.now());
      channel.port2.postMessage(null);
    });
  }

  function shown() {
    const status = document.getElementById("prereq-status");
    const first = document.querySelector("#prereq-results > li");
    return {
      status: status ? status.textContent : "",
      first: first ? first.getAttribute("data-name") : "",
      cards: document.querySelectorAll("#prereq-results > li").length
    };
  }

  new PerformanceObserver((list) => {
    list.getEntries().forEach((entry) => probe.longTasks.push({ start: entry.startTime, duration: entry.duration }));
  }).observe({ type: "longtask", buffered: true });

  new MutationObserver(() => {
    const root = document.getElementById("prereq-catalog");
    if (probe.firstReady !== null || !root || root.getAttribute("data-state") !== "ready") return;
    probe.firstReady = performance.now();
    afterPaint((time) => { probe.firstPainted = time; });
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-state"] });

  let pending = null;
  addEventListener("keydown", (event) => { pending = { key: event.key, start: event.timeStamp }; }, true);
  addEventListener("input", () => {
    const key = pending;
    pending = null;
    if (!key) return;
    key.handled = performance.now();
    afterPaint((time) => {
      key.painted = time;
      Object.assign(key, shown());
      probe.keys.push(key);
    });
  });

  /* The floors, measured in this page once the catalog is drawn: JSON.parse of the very text of
   * each of `urls` (the root index and the catalog file, fetched again from the HTTP cache), and one
   * bare indexOf of a word over every entry's lower-cased text (what any search that looks at every
   * entry must at least do), the entries of the first URL (the root's).  `loaded`: the first of
   * `urls` the page itself fetched (the catalog file, or the root for a page from before it), when
   * it was asked for and when its response had arrived (resource timing). */
  probe.floors = async (urls, word, repeat) => {
    const loaded = urls.slice().reverse().find((url) => performance.getEntriesByName(url).length);
    const timing = loaded ? performance.getEntriesByName(loaded)[0] : null;
    const fetched = timing ? timing.responseEnd : null;
    const parse = {}, bytes = {};
    let items = null, found = 0;
    for (const url of urls) {
      const text = await (await fetch(url, { cache: "force-cache" })).text();
      parse[url] = [];
      bytes[url] = text.length;
      for (let i = 0; i < repeat; i++) {
        const start = performance.now();
        const parsed = JSON.parse(text);
        parse[url].push(performance.now() - start);
        if (!items) items = parsed.items;
      }
    }
    const texts = items.map((e) => [e.name, e.title, e.summary, e.tags.join(" "), e.owners.join(" ")].join("\n").toLowerCase());
    const scan = [];
    for (let i = 0; i < repeat; i++) {
      const start = performance.now();
      found = 0;
      for (let j = 0; j < texts.length; j++) if (texts[j].indexOf(word) !== -1) found++;
      scan.push(performance.now() - start);
    }
    return { parse, scan, found, loaded, indexRequested: timing ? timing.startTime : null, indexFetched: fetched, bytes };
  };
})();
