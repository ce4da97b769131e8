/* diff.js -- recorder-web A.rec B.rec: two runs side by side, as Tracy's
 * compare (docs/web.md, "Two runs side by side").  The server reads both
 * files whole once and serves their comparison as /diff.json
 * (viewer-web/diff.c): one row per scope with calls, mean, P50 and P99 in
 * A and in B, each run's duration histogram by octave, and for every sort
 * key the rows' order by the size of its change -- rec_stats_diff's, the
 * rows and order `recorder report A --diff B` prints.  The page never
 * sorts by a rule of its own; it only reverses.
 *
 * Served alone (one file, live programs), /diff.json says {"diff":false}
 * and none of this shows.  With two files the left panel gets a
 * "A vs B" table beside the top scopes of A; picking a row overlays both
 * runs' histograms in the latency panel, with a legend naming the files.
 * The timeline shows A, as `recorder-web A.rec` would. */

const DIFF_COLORS = { a: '#7ab4ff', b: '#e6b450' };
/* Columns: [title, key sorted by, run or 'pct', figure]. */
const DIFF_COLUMNS = [
  ['calls A', 'calls', 'a', 'calls'], ['calls B', 'calls', 'b', 'calls'], ['Δcalls', 'calls', 'pct', 'calls'],
  ['mean A', 'mean', 'a', 'mean_ns'], ['mean B', 'mean', 'b', 'mean_ns'], ['Δmean', 'mean', 'pct', 'mean_ns'],
  ['p50 A', 'p50', 'a', 'p50_ns'], ['p50 B', 'p50', 'b', 'p50_ns'], ['Δp50', 'p50', 'pct', 'p50_ns'],
  ['p99 A', 'p99', 'a', 'p99_ns'], ['p99 B', 'p99', 'b', 'p99_ns'], ['Δp99', 'p99', 'pct', 'p99_ns'],
];
/* Kept first when the panel is narrow (as recorder-top's diff view). */
const DIFF_KEEP = [3, 4, 5, 11, 0, 1, 8, 9, 10, 2, 6, 7];
const DIFF_NAME_MIN = 150, DIFF_COL_W = 68;

/* The change in %, "new", "gone", or "-" (A's figure 0): report's words. */
function diffPct(row, fig) {
  if (!row.a) return 'new';
  if (!row.b) return 'gone';
  const va = row.a[fig], vb = row.b[fig];
  if (va === 0) return vb === 0 ? '0.0%' : '-';
  const p = (100 * (vb - va)) / va;
  return (p >= 0 ? '+' : '') + p.toFixed(1) + '%';
}

const diffView = (() => {
  let data = null;       /* /diff.json */
  let key = 'mean', rev = false, picked = -1, view = 'diff';
  let shownCols = [], measure = null, latPlots = null;
  const canvasBox = { canvas: null, W: 0, H: 0, dpr: 1 };
  let drawn = null;      /* the histogram as last drawn (the tests read it) */

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /* The rows in the order shown. */
  function ordered() {
    const o = data.order[key] || data.rows.map((_, i) => i);
    return rev ? [...o].reverse() : o;
  }

  function fits() {
    const wrap = $('diff-wrap'), room = Math.max(0, (wrap.clientWidth || 600) - DIFF_NAME_MIN);
    const on = new Set(DIFF_KEEP.slice(0, Math.max(1, Math.floor(room / DIFF_COL_W))));
    return DIFF_COLUMNS.map((_, i) => i).filter((i) => on.has(i));
  }

  function cell(row, c) {
    const [, , run, fig] = DIFF_COLUMNS[c];
    if (run === 'pct') return diffPct(row, fig);
    const s = row[run];
    if (!s) return '-';
    return fig === 'calls' ? fmtCount(s.calls) : fmtDur(s[fig]);
  }

  function render() {
    if (!data) return;
    shownCols = fits();
    const table = $('diff-table'), head = el('tr'), body = el('tbody');
    const cg = el('colgroup');
    cg.append(el('col', 'c-name'));
    const hn = el('th', 'l' + (key === 'name' ? ' sorted' + (rev ? ' rev' : '') : ''), 'scope');
    hn.dataset.k = 'name';
    head.append(hn);
    for (const c of shownCols) {
      const [title, k, run] = DIFF_COLUMNS[c];
      cg.append(el('col', 'c-num'));
      const th = el('th', (k === key && run === 'pct' ? 'sorted' + (rev ? ' rev' : '') : ''), title);
      th.dataset.k = k;
      th.title = run === 'pct' ? `the change of ${k} from A to B; click: sort by its size (again: reverse)`
        : `${k} in ${run === 'a' ? 'A' : 'B'}; click: sort by the size of its change`;
      head.append(th);
    }
    const font = '12.5px ' + getComputedStyle(document.documentElement).getPropertyValue('--sans').trim();
    if (!measure || measure.font !== font) measure = textMeasure(font);
    const order = ordered(), names = order.map((i) => data.rows[i].name);
    const room = Math.max(40, $('diff-wrap').clientWidth - shownCols.length * DIFF_COL_W - 22);
    const shown = elideNames(names, room, measure);
    order.forEach((i, j) => {
      const row = data.rows[i], tr = el('tr');
      tr.dataset.i = i;
      if (i === picked) tr.className = 'picked';
      const name = el('td', 'l', shown[j] + (row.wait ? ' [wait]' : ''));
      name.title = row.name;
      tr.append(name);
      for (const c of shownCols) {
        const t = cell(row, c), td = el('td', '', t);
        if (DIFF_COLUMNS[c][2] === 'pct' && c > 2) td.className = t === 'new' || t === 'gone' || t === '-' ? 'dim' : t[0] === '+' ? 'up' : t[0] === '-' ? 'down' : '';
        tr.append(td);
      }
      body.append(tr);
    });
    table.replaceChildren(cg, el('thead'), body);
    table.tHead.append(head);
    const base = (r) => data[r].path.split('/').pop();
    $('diff-sub').textContent = `A ${base('a')} · B ${base('b')} · ${data.rows.length} scopes · ` +
      (key === 'name' ? 'by name' : `by the change in ${key}`) + (rev ? ', reversed' : '');
  }

  function sortBy(k) {
    if (k === key) rev = !rev;
    else { key = k; rev = false; }
    render();
  }

  function setView(v) {
    view = v;
    for (const b of $('left-tabs').querySelectorAll('button')) b.classList.toggle('on', b.dataset.v === v);
    $('diff-wrap').hidden = v !== 'diff';
    $('diff-sub').hidden = v !== 'diff';
    $('top-wrap').hidden = v === 'diff';
    $('top-sub').hidden = v === 'diff';
    $('window').hidden = v === 'diff';
    if (v === 'diff') render();
  }

  /* The latency panel: both runs' histograms, or latency.js's own. */
  function showOverlay(on) {
    $('diff-lat').hidden = !on;
    $('lat-figures').hidden = on;
    latPlots.hidden = on;
    if (on) draw();
  }

  function pick(i) {
    picked = picked === i ? -1 : i;
    render();
    if (picked < 0) { showOverlay(false); return; }
    const tab = $('right-tabs').querySelector('button[data-tab="latency"]');
    if (tab && !tab.classList.contains('on')) tab.click();
    showOverlay(true);
  }

  function figures(row) {
    const f = $('diff-lat-figures');
    f.replaceChildren();
    f.append(el('b', '', row.name));
    for (const run of ['a', 'b']) {
      const s = row[run], sp = el('span', 'lat-fig diff-legend');
      const sw = el('span', 'sw');
      sw.style.background = DIFF_COLORS[run];
      sp.append(sw, `${run.toUpperCase()} ${data[run].path}: ` +
        (s ? `${fmtCount(s.calls)} calls, mean ${fmtDur(s.mean_ns)}, P50 ${fmtDur(s.p50_ns)}, P99 ${fmtDur(s.p99_ns)}` : 'no calls'));
      f.append(' ', sp);
    }
  }

  /* A's and B's calls per octave of duration, overlaid on one log axis,
   * each in its colour, with a counts axis and a legend naming the files. */
  function draw() {
    if (!data || picked < 0 || $('diff-lat').hidden) return;
    const row = data.rows[picked];
    figures(row);
    sizeCanvas(canvasBox);
    const ctx = canvasBox.canvas.getContext('2d', { alpha: false }), W = canvasBox.W, H = canvasBox.H;
    ctx.setTransform(canvasBox.dpr, 0, 0, canvasBox.dpr, 0, 0);
    ctx.fillStyle = UI.laneA;
    ctx.fillRect(0, 0, W, H);
    const sides = ['a', 'b'].filter((r) => row[r] && row[r].hist.length);
    if (!sides.length) { canvasNote(ctx, W, H, 'No completed calls of ' + row.name + ' in either run'); drawn = { bins: 0 }; return; }
    let lo = Infinity, hi = -Infinity, top = 0;
    for (const r of sides) {
      lo = Math.min(lo, row[r].hist_lo);
      hi = Math.max(hi, row[r].hist_lo + row[r].hist.length - 1);
      for (const c of row[r].hist) top = Math.max(top, c);
    }
    const nb = hi - lo + 1;
    ctx.font = FONT_MONO;
    /* The legend: which colour is which file. */
    ctx.textBaseline = 'top';
    ctx.textAlign = 'left';
    const legend = [];
    let lx = 12;
    /* The files' paths, or their last parts where both do not fit. */
    const label = (r, short) => `${r.toUpperCase()}: ${short ? data[r].path.split('/').pop() : data[r].path}${row[r] ? '' : ' (none)'}`;
    const short = ctx.measureText(label('a') + label('b')).width + 60 > W;
    for (const r of ['a', 'b']) {
      const text = label(r, short);
      ctx.fillStyle = DIFF_COLORS[r];
      ctx.fillRect(lx, 8, 10, 10);
      ctx.fillStyle = UI.text;
      ctx.fillText(text, lx + 14, 7);
      legend.push({ run: r, text, color: DIFF_COLORS[r] });
      lx += 14 + ctx.measureText(text).width + 18;
    }
    const step = Math.max(1, niceStep(top / 3)), ticks = [];
    for (let v = 0; v <= top + 1e-9; v += step) ticks.push(v);
    const labelW = Math.max(...ticks.map((v) => ctx.measureText(fmtCount(v)).width));
    const p = { x: 12 + labelW + 6, y: 30, w: W - 24 - labelW - 6, h: H - 30 - 22 };
    if (p.w < 20 || p.h < 20) { drawn = { bins: nb, legend }; return; }
    const yOf = (v) => p.y + p.h - (v / top) * p.h;
    ctx.fillStyle = UI.faint;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    for (const v of ticks) ctx.fillText(fmtCount(v), p.x - 6, Math.round(yOf(v)) + 0.5);
    ctx.strokeStyle = UI.line;
    ctx.strokeRect(p.x + 0.5, p.y + 0.5, p.w - 1, p.h - 1);
    const bw = p.w / nb, bars = { a: [], b: [] };
    /* Translucent, A then B over it: where both have calls both show. */
    ctx.globalAlpha = 0.6;
    for (const r of sides) {
      ctx.fillStyle = DIFF_COLORS[r];
      row[r].hist.forEach((c, k) => {
        const i = row[r].hist_lo + k - lo;
        bars[r].push({ octave: lo + i, calls: c });
        if (!c) return;
        const bh = Math.max(1, (c / top) * p.h);
        ctx.fillRect(p.x + i * bw + 1, p.y + p.h - bh, Math.max(1, bw - 2), bh);
      });
    }
    ctx.globalAlpha = 1;
    /* The duration axis: each octave's lower edge, as many as fit. */
    ctx.fillStyle = UI.faint;
    ctx.textBaseline = 'top';
    ctx.textAlign = 'center';
    let right = -Infinity;
    for (let i = 0; i <= nb; i++) {
      const text = fmtDur(Math.pow(2, lo + i)), tw = ctx.measureText(text).width;
      const left = Math.min(p.x + p.w - tw, Math.max(p.x, p.x + i * bw - tw / 2));
      if (left < right + 10) continue;   /* never on the one before */
      ctx.textAlign = 'left';
      ctx.fillText(text, left, p.y + p.h + 4);
      right = left + tw;
    }
    drawn = { bins: nb, lo, top, legend, bars, plot: p };
  }

  async function load() {
    let d;
    try {
      const r = await fetch('/diff.json?t=' + encodeURIComponent(token), { cache: 'no-store' });
      if (!r.ok) return;
      d = await r.json();
    } catch (e) { return; }
    if (!d || !d.diff) return;
    data = d;
    document.body.classList.add('diff-mode');
    /* The header: what is compared, and what the timeline shows. */
    const badge = el('div', 'diff-badge', 'A vs B · timeline: A');
    badge.id = 'diff-badge';
    badge.title = `Comparing two runs: A = ${d.a.path} (${d.a.process}, pid ${d.a.pid}, ${d.a.events} events, ` +
      `${d.a.lost} lost) and B = ${d.b.path} (${d.b.process}, pid ${d.b.pid}, ${d.b.events} events, ${d.b.lost} lost). ` +
      'The table "A vs B" has their whole runs; the timeline, the top scopes and the flame graph show A.';
    $('conn').after(badge);
    /* The left panel: "A vs B" beside the top scopes of A. */
    const head = $('left-panel').querySelector('.panel-head');
    const tabs = el('div', 'seg tabs');
    tabs.id = 'left-tabs';
    tabs.append(el('button', 'on', 'A vs B'), el('button', '', 'Top scopes (A)'));
    tabs.children[0].dataset.v = 'diff';
    tabs.children[1].dataset.v = 'top';
    for (const b of tabs.children) b.addEventListener('click', () => setView(b.dataset.v));
    head.querySelector('h2').hidden = true;
    head.prepend(tabs);
    const sub = el('span', 'sub');
    sub.id = 'diff-sub';
    sub.title = 'Whole runs, all threads, completed slices; change = B - A. Mean is exact; P50 and P99 are the ' +
      'midpoints of their log-histogram bucket (within 1.6%), as recorder report --diff prints them.';
    head.append(sub);
    const wrap = el('div', 'table-wrap');
    wrap.id = 'diff-wrap';
    const table = el('table', 'diff');
    table.id = 'diff-table';
    wrap.append(table);
    $('top-wrap').after(wrap);
    table.addEventListener('click', (e) => {
      const th = e.target.closest('th');
      if (th && th.dataset.k) { sortBy(th.dataset.k); return; }
      const tr = e.target.closest('tbody tr');
      if (tr) pick(Number(tr.dataset.i));
    });
    /* The latency panel: the overlay beside latency.js's own plots. */
    latPlots = $('lat-figures').nextElementSibling;
    const lat = el('div', 'diff-lat');
    lat.id = 'diff-lat';
    lat.hidden = true;
    const figs = el('div', 'lat-figures');
    figs.id = 'diff-lat-figures';
    const plots = el('div', 'lat-plots');
    canvasBox.canvas = el('canvas');
    canvasBox.canvas.id = 'diff-lat-canvas';
    plots.append(canvasBox.canvas);
    lat.append(figs, plots);
    $('latency').append(lat);
    /* A row of A's top table picked: latency.js's panel again. */
    $('top-body').addEventListener('click', () => { if (picked >= 0) { picked = -1; render(); showOverlay(false); } });
    new ResizeObserver(() => { render(); draw(); }).observe($('bottom'));
    setView('diff');
  }

  return {
    load,
    /* What the tests read. */
    state() {
      if (!data) return { diff: false };
      return {
        diff: true, view, key, rev, a: data.a, b: data.b,
        columns: shownCols.map((c) => DIFF_COLUMNS[c][0]),
        rows: [...document.querySelectorAll('#diff-table tbody tr')].map((tr) => ({
          name: data.rows[Number(tr.dataset.i)].name, cells: [...tr.cells].slice(1).map((td) => td.textContent) })),
        order: ordered().map((i) => data.rows[i].name),
        picked: picked >= 0 ? data.rows[picked].name : null,
        overlay: !$('diff-lat').hidden ? drawn : null,
        figures: $('diff-lat-figures').textContent,
      };
    },
    data: () => data,
  };
})();
window.__recorder.diff = () => diffView.state();
diffView.load();
