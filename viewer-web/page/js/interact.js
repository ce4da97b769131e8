/* interact.js -- wires the interaction features to the page (app.js):
 * search (search.js), range selection (range.js, rangestats.js), the
 * latency panel (latency.js), the counters' summaries and axes
 * (counters.js), the keys (keys.js), and what "paused" means for the
 * panels: they hold still with the timeline.  app.js calls interact's
 * frame() each animation frame and asks it whether the server's
 * statistics may be shown (not while a range is selected). */

const interact = (() => {
  const highlight = new Highlight(colors, store);
  const range = new RangeSelect($('timeline'), timeline, () => rangeChanged());
  const latency = new LatencyPanel($('lat-canvas'), $('lat-figures'), $('lat-sub'), store, colors);
  const counters = new CounterSummary(store, timeline, range);
  let picked = null;     /* {name, label}: the table row picked */
  let tab = 'flame';
  let nextCompute = 0, computedVersion = -1;
  let nextCount = 0, countedVersion = -1;
  const POLL_MS = 100;   /* due(): how often a following figure looks for work */

  const search = new Search($('search'), $('search-count'), $('search-prev'), $('search-next'), store, timeline, () => {
    table.filter = search.active ? (label) => search.test(label) : null;
    table.render();
    showHighlight();
  });

  /* The picked scope wins over the search for the highlight. */
  function showHighlight() {
    const test = picked ? (label) => label === picked.label : search.active ? (label) => search.test(label) : null;
    highlight.set(test);
    timeline.colors = test ? highlight : colors;
    timeline.moved();
  }

  function pick(row) {
    picked = picked && picked.label === row.label ? null : { name: row.name, label: row.label };
    table.picked = picked ? picked.label : null;
    table.render();
    latency.select(picked ? picked.name : 0);
    showHighlight();
    recompute(true);
  }
  table.onPick = pick;

  function setTab(t) {
    tab = t;
    for (const b of $('right-tabs').querySelectorAll('button')) b.classList.toggle('on', b.dataset.tab === t);
    $('flame').hidden = t !== 'flame';
    $('flame-crumbs').hidden = t !== 'flame';
    $('flame-sub').hidden = t !== 'flame';
    $('latency').hidden = t !== 'latency';
    $('lat-sub').hidden = t !== 'latency';
    flame.dirty = true;
    latency.dirty = true;
  }
  for (const b of $('right-tabs').querySelectorAll('button')) b.addEventListener('click', () => setTab(b.dataset.tab));

  /* The range's statistics, shaped as the server's STATS. */
  function rangeStatsMsg() {
    const { a, b } = range.range, cover = rangeCover(store, a, b), rows = rangeRows(store, a, b);
    return { window: windowSel, range: { a, b }, span: b - a, now: store.liveNow(), cover, total: rows.length, rows,
      nodes: rangeTree(store, a, b, store.liveNow()) };
  }

  /* The panels from the page's own data: the range's, and the latency. */
  function recompute(force) {
    if (!force && !timeline.live) return;   /* paused: everything holds still */
    const t = performance.now();
    computedVersion = store.version;
    if (range.active) {
      const st = rangeStatsMsg();
      table.set(st);
      flame.setTree(st.nodes, st.cover, 'time inside the range');
      $('flame-sub').title = st.cover.partial ? 'partial: ' + coverText(st.cover) : '';
    }
    if (range.active) latency.update(range.range.a, range.range.b);
    else latency.update(-Infinity, Infinity);
    /* Over a minute of a busy program this reads millions of slices:
     * live, once a second at most, and at most a fiftieth of the time. */
    const took = performance.now() - t;
    perf.interactMs += took;
    nextCompute = performance.now() + Math.max(1000, 50 * took);
  }

  function rangeChanged() {
    counters.cache.clear();
    if (!range.active) {
      /* Back to the server's window: app.js shows it again. */
      lastStatsVersion = null;
      lastFlameTree = null;
      $('flame-sub').title = '';
    }
    recompute(true);
  }

  /* What they cost is measured (perf.interactMs, bench_web.js). */
  const timed = (f) => (...args) => {
    const t = performance.now();
    try { return f(...args); } finally { perf.interactMs += performance.now() - t; }
  };
  timeline.counterSub = timed((c) => counters.text(c));
  timeline.marks = {
    range: () => range.range,
    current: () => search.current,
    counters: timed((tl) => counters.drawAxes(tl)),
  };

  bindKeys(timeline, {
    focusSearch: () => { $('search').focus(); $('search').select(); },
    maximise: () => panes.maximise(!panes.maxed),
    escape: () => {
      if (panes.maxed) { panes.maximise(false); return; }
      if (range.clear()) return;
      if (picked) { pick(picked); return; }
      if (search.active) search.set('');
    },
  });

  /* Folding changes labels: matches and picks are by label. */
  $('fold').addEventListener('change', () => {
    if (picked) picked.label = store.label(picked.name);
    table.picked = picked ? picked.label : null;
    latency.select(picked ? picked.name : 0);
    showHighlight();
    recompute(true);
  });

  return {
    range, search, latency, counters,
    /* Whether the server's STATS may replace what the table shows. */
    serverStats: () => !range.active,
    /* A new connection, a new picture: the occurrence jumped to is gone. */
    reset() { search.current = null; search.recount(); },
    frame(now) {
      /* Live, the page's own figures follow the data (paced: recompute). */
      if (timeline.live && store.version !== computedVersion && now >= nextCompute &&
          (range.active || picked)) recompute(false);
      /* The search's count follows the data too (search.js recount). */
      if (search.active && store.version !== countedVersion && now >= nextCount) {
        const t = performance.now();
        countedVersion = store.version;
        search.recount();
        const took = performance.now() - t;
        perf.interactMs += took;
        nextCount = performance.now() + Math.max(1000, 50 * took);
      }
      if (tab === 'latency')
        latency.poll(now, (m) => { if (ws && ws.readyState === WebSocket.OPEN) ws.send(m); }, timeline.live);
      if (tab === 'latency' && latency.dirty) timed(() => latency.draw())();
    },
    resize() { latency.dirty = true; },
    /* How soon frame() has work (app.js's loop sleeps until then): at
     * once for a plot to draw; every POLL_MS while a figure follows the
     * data or the server is asked for latencies; else never. */
    due() {
      if (tab === 'latency' && latency.dirty) return 0;
      const following = tab === 'latency' || ((range.active || picked) && timeline.live) || search.active;
      return following ? POLL_MS : Infinity;
    },
    /* What the tests read. */
    state() {
      const d = latency.data;
      return {
        query: search.query, found: search.total, current: search.current && { s: search.current.s, e: search.current.e,
          lane: search.current.L.label, depth: search.current.d, index: search.current.index, name: store.name(search.current.name) },
        searchCount: $('search-count').textContent,
        range: range.active ? { a: range.range.a, b: range.range.b } : null,
        table: table.shown.map((r) => ({ name: r.label, calls: r.calls, total: r.total, self: r.self, min: r.min, avg: r.avg,
          max: r.max, p50: r.p50, p95: r.p95, p99: r.p99, totalFrac: r.totalFrac })),
        tableSub: $('top-sub').textContent,
        tableWindow: table.stats ? (table.stats.range ? 'range' : table.stats.window) : null,
        tableStatsNow: table.stats ? table.stats.now : null,
        cover: table.stats ? table.stats.cover : null,
        flame: flame.nodes.slice(1).map((n) => ({ name: store.label(n.name), calls: n.calls, total: n.total,
          parent: n.parent ? store.label(flame.nodes[n.parent].name) : '' })),
        serverStatsNow: store.statsMsg ? store.statsMsg.now : null,
        picked: picked ? picked.label : null,
        latency: d ? { calls: d.durs.length, pct: d.pct, partial: d.cover.partial, cover: d.cover, perSecond: d.perSecond, over: d.over,
          overTitle: latency.overTitle || '',
          figures: $('lat-figures').textContent, sub: $('lat-sub').textContent, bins: latency.histBins || null,
          drawn: latency.drawn, size: { W: latency.W, H: latency.H } } : null,
        maxed: panes.maxed,
        tab,
        counters: store.counterOrder.map((c) => ({ name: store.name(c.name), ...counters.of(c), text: counters.text(c) })),
        help: !$('keys-help').hidden,
        highlighted: timeline.colors === highlight,
      };
    },
  };
})();
window.__recorder.interact = () => interact.state();
