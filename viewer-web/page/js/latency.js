/* latency.js -- the latency panel of one scope (picked in the top table):
 * its durations as a histogram on log-scale bins, their CDF with P50,
 * P90, P99 and P99.9 marked, and P50 / P95 / P99 per second of the run
 * (the batching-server document's plots, live).  Computed in the page,
 * exactly, from the calls it holds that begin and end in the selected
 * range, or from everything it holds (rangestats.js scopeCalls); marked
 * partial, with why, when entries were lost there (rangeCover).  The
 * percentiles over time come from the server's whole-run histograms
 * (latseries.js) when no range is selected or the range reaches before
 * the page's detail, exact to the bin; from the page's calls, exact, per
 * second otherwise.  The plot says which. */

const LAT_MARKS = [[0.5, 'P50'], [0.9, 'P90'], [0.99, 'P99'], [0.999, 'P99.9']];
const LAT_LINES = [[0.5, 'P50', '#7ab4ff'], [0.95, 'P95', '#e6b450'], [0.99, 'P99', '#f2686a']];
const BINS_PER_DECADE = 10;

class LatencyPanel {
  constructor(canvas, figures, sub, store, colors) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d', { alpha: false });
    this.figures = figures;
    this.sub = sub;
    this.store = store;
    this.colors = colors;
    this.label = null;   /* the scope, by the name shown */
    this.name = 0;       /* one of its name ids (color) */
    this.data = null;
    this.ids = [];       /* the name ids asked for (latseries.js) */
    this.askedAt = 0;
    this.latSeen = -1;
    this.W = 0; this.H = 0; this.dpr = 1;
    this.drawn = {};
  }

  select(name) {
    this.name = name;
    this.label = name ? this.store.label(name) : null;
    this.ids = name ? latIds(this.store, this.label, name) : [];
    this.askedAt = 0;
    this.store.latMsgs.clear();   /* only the picked scope's answers are kept */
  }

  /* Ask the server for the whole run's histograms of the scope's names,
   * once a second while shown; redo the plot when an answer came.
   * Paused, a plot that shows the server's series holds still. */
  poll(now, send, live) {
    if (!this.label) return;
    const held = !live && this.data && this.data.over.source === 'server';
    if (held) return;
    if (now - this.askedAt >= LAT_ASK_EVERY_MS) {
      this.ids = latIds(this.store, this.label, this.name);
      for (const id of this.ids) send(encodeLatencyAsk(id));
      this.askedAt = now;
    }
    if (this.data && this.store.latVersion !== this.latSeen) {
      this.data.over = this.overSeries(this.data.ra, this.data.rb, this.data.perSecond);
      this.dirty = true;
    }
  }

  /* The server's series if the plot needs it and has it, else the page's. */
  overSeries(a, b, perSecond) {
    this.latSeen = this.store.latVersion;
    const reach = !Number.isFinite(a) || a < this.store.detailStart;
    const srv = reach ? serverSeries(this.store.latMsgs, this.ids, a, b) : null;
    if (srv && srv.known && srv.rows.length) {
      const x0 = Number.isFinite(a) ? a : srv.t0, x1 = Number.isFinite(b) ? b : Math.max(this.store.liveNow(), srv.rows[srv.rows.length - 1].t + srv.width);
      return { source: 'server', x0, x1, width: srv.width, leftOut: srv.leftOut, bpd: srv.bpd,
        rows: srv.rows.filter((r) => r.n > 0 || r.lost).map((r) => ({ t: r.t, n: r.n, lost: r.lost, bins: r.p,
          p: r.p.map(([lo, hi]) => Math.sqrt(lo * hi)) })) };
    }
    const rows = perSecond.map((r) => ({ t: r.sec * 1e9, n: r.n, lost: false, p: r.p }));
    return { source: 'page', x0: rows.length ? rows[0].t : 0, x1: rows.length ? Math.max(rows[0].t + 1e9, rows[rows.length - 1].t) : 1,
      width: 1e9, leftOut: srv ? srv.leftOut : 0, notSummarised: !!(srv && !srv.known), rows };
  }

  /* Recompute for [a, b] (infinite: everything held). */
  update(a, b) {
    if (!this.label) { this.data = null; this.show(); return; }
    const { durs, raw, ends } = scopeCalls(this.store, this.label, a, b);
    const lo = Number.isFinite(a) ? a : this.store.heldFrom, hi = Number.isFinite(b) ? b : this.store.liveNow();
    const cover = rangeCover(this.store, Number.isFinite(a) ? a : -Infinity, hi);
    /* Everything held is partial only for what was lost in it: its start
     * is where the page's knowledge starts, not a hole. */
    if (!Number.isFinite(a)) cover.evicted = false;
    cover.partial = cover.lost > 0 || cover.missedFrames > 0 || cover.evicted;
    const pct = {};
    for (const [p, k] of LAT_MARKS) pct[k] = nearestRank(durs, p);
    const perSecond = this.perSecond(raw, ends);
    this.data = { durs, ends, pct, cover, a: lo, b: hi, ra: a, rb: b, ranged: Number.isFinite(a), perSecond,
      over: this.overSeries(a, b, perSecond) };
    this.show();
  }

  /* P50 / P95 / P99 of the calls that ended in each whole second. */
  perSecond(durs, ends) {
    const by = new Map();
    for (let i = 0; i < durs.length; i++) {
      const sec = Math.floor(ends[i] / 1e9);
      let g = by.get(sec);
      if (!g) by.set(sec, (g = []));
      g.push(durs[i]);
    }
    return [...by.keys()].sort((x, y) => x - y).map((sec) => {
      const g = Float64Array.from(by.get(sec)).sort();
      return { sec, n: g.length, p: LAT_LINES.map(([p]) => nearestRank(g, p)) };
    });
  }

  show() {
    const d = this.data;
    this.dirty = true;
    this.figures.replaceChildren();
    if (!this.label) {
      this.figures.textContent = 'Click a row of the top table to see that scope\'s latency.';
      this.sub.textContent = '';
      return;
    }
    const mark = d.cover.partial ? PARTIAL_MARK : '';
    const name = document.createElement('b');
    name.textContent = this.label;
    this.figures.append(name, ` · ${mark}${fmtCount(d.durs.length)} calls`);
    for (const [, k] of LAT_MARKS) {
      const s = document.createElement('span');
      s.className = 'lat-fig';
      s.dataset.k = k;
      s.textContent = `${k} ${mark}${fmtDur(d.pct[k])}`;
      this.figures.append(' ', s);
    }
    const where = d.ranged ? 'in the range (' + fmtDur(d.b - d.a) + ')' : 'in what the page holds';
    this.sub.replaceChildren();
    if (d.cover.partial) {
      const pm = document.createElement('span');
      pm.className = 'pmark';
      pm.textContent = PARTIAL_MARK;
      this.sub.append(pm, ' partial · ');
    }
    this.sub.append('calls that began and ended ' + where);
    /* Cut when narrow: whole on hover. */
    this.sub.title = (d.cover.partial ? 'partial: ' + coverText(d.cover) + '; ' : '') + 'calls that began and ended ' + where;
  }

  resize() {
    if (sizeCanvas(this)) this.dirty = true;
  }

  draw() {
    this.resize();
    const ctx = this.ctx, d = this.data;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.fillStyle = UI.laneA;
    ctx.fillRect(0, 0, this.W, this.H);
    this.dirty = false;
    this.drawn = {};   /* what was drawn where (the tests read it) */
    if (d && !d.durs.length && d.over.rows.length) {
      /* Nothing held, but the server's summary has the run. */
      this.overTime(4, 4, this.W - 8, this.H - 8);
      return;
    }
    if (!d || !d.durs.length) {
      canvasNote(ctx, this.W, this.H, this.label ? 'No completed calls of ' + this.label + ' here' : 'No scope picked');
      return;
    }
    const w = (this.W - 16) / 3, h = this.H - 8;
    /* One log axis of durations for the histogram and the CDF. */
    const lo = Math.log10(Math.max(1, d.durs[0])), hi = Math.max(lo + 1e-3, Math.log10(Math.max(1, d.durs[d.durs.length - 1])));
    const axis = { lo: Math.floor(lo * BINS_PER_DECADE) / BINS_PER_DECADE, hi: Math.ceil(hi * BINS_PER_DECADE + 1e-9) / BINS_PER_DECADE };
    if (axis.hi <= axis.lo) axis.hi = axis.lo + 1 / BINS_PER_DECADE;
    this.histogram(4, 4, w, h, axis);
    this.cdf(8 + w, 4, w, h, axis);
    this.overTime(12 + 2 * w, 4, w, h);
  }

  frame(x, y, w, h, title) {
    const ctx = this.ctx;
    ctx.strokeStyle = UI.line;
    ctx.lineWidth = 1;
    ctx.strokeRect(x + 0.5, y + 0.5, w - 1, h - 1);
    ctx.fillStyle = UI.muted;
    ctx.font = FONT;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    /* Cut to the frame: it never runs into the next plot. */
    let t = title;
    while (t.length > 1 && ctx.measureText(t).width > w - 12) t = t.slice(0, -2) + '\u2026';
    ctx.fillText(t, x + 6, y + 4);
    return { x: x + 8, y: y + 20, w: w - 16, h: h - 38 };
  }

  xLabels(p, axis) {
    const ctx = this.ctx;
    ctx.fillStyle = UI.faint;
    ctx.font = FONT_MONO;
    ctx.textBaseline = 'top';
    ctx.textAlign = 'left';
    ctx.fillText(fmtDur(Math.pow(10, axis.lo)), p.x, p.y + p.h + 4);
    ctx.textAlign = 'right';
    ctx.fillText(fmtDur(Math.pow(10, axis.hi)), p.x + p.w, p.y + p.h + 4);
  }

  histogram(x, y, w, h, axis) {
    const ctx = this.ctx, d = this.data.durs, p = this.frame(x, y, w, h, 'durations (log bins) · calls per bin');
    const nb = Math.max(1, Math.round((axis.hi - axis.lo) * BINS_PER_DECADE)), counts = new Float64Array(nb);
    for (const v of d) counts[Math.min(nb - 1, Math.max(0, Math.floor((Math.log10(Math.max(1, v)) - axis.lo) * BINS_PER_DECADE)))]++;
    let top = 0;
    for (const c of counts) top = Math.max(top, c);
    /* The counts axis: 0, and round steps up to the tallest bin (its
     * top); the bars start right of its widest label. */
    const step = Math.max(1, niceStep(top / 3)), ticks = [];
    for (let v = 0; v <= top + 1e-9; v += step) ticks.push(v);
    ctx.font = FONT_MONO;
    const labelW = Math.max(...ticks.map((v) => ctx.measureText(fmtCount(v)).width));
    const yOf = (v) => p.y + p.h - (v / top) * p.h;
    ctx.fillStyle = UI.faint;
    ctx.strokeStyle = UI.line;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    const yLabels = [];
    for (const v of ticks) {
      const Y = Math.round(yOf(v)) + 0.5, text = fmtCount(v);
      ctx.fillText(text, p.x + labelW, Y);
      ctx.fillRect(p.x + labelW + 2, Y, 3, 1);
      yLabels.push({ text, x: p.x, y: Y - 6, w: labelW, h: 12 });
    }
    p.x += labelW + 6;
    p.w -= labelW + 6;
    ctx.fillStyle = this.colors.of(this.name);
    const bw = p.w / nb;
    for (let i = 0; i < nb; i++) {
      if (!counts[i]) continue;
      const bh = Math.max(1, (counts[i] / top) * p.h);
      ctx.fillRect(p.x + i * bw, p.y + p.h - bh, Math.max(1, bw - 1), bh);
    }
    this.xLabels(p, axis);
    this.histBins = { nb, counts: [...counts], lo: axis.lo };
    this.drawn.hist = { plot: { ...p }, yLabels, top };
  }

  cdf(x, y, w, h, axis) {
    const ctx = this.ctx, d = this.data.durs, n = d.length, p = this.frame(x, y, w, h, 'CDF');
    /* The marks' values in a row above the plot (two or more when
     * narrow), never on the curve: it can pass anywhere inside. */
    ctx.font = FONT_MONO;
    ctx.textBaseline = 'top';
    ctx.textAlign = 'left';
    const labels = [];
    let lx = p.x, ly = p.y;
    for (const [, k] of LAT_MARKS) {
      const text = `${k} ${fmtDur(this.data.pct[k])}`, tw = ctx.measureText(text).width;
      if (lx > p.x && lx + tw > p.x + p.w) { lx = p.x; ly += 14; }
      labels.push({ text, x: lx, y: ly, w: tw, h: 12 });
      lx += tw + 12;
    }
    const used = ly + 14 + 4 - p.y;
    p.y += used;
    p.h -= used;
    ctx.fillStyle = UI.text;
    for (const L of labels) ctx.fillText(L.text, L.x, L.y);
    const xOf = (v) => p.x + ((Math.log10(Math.max(1, v)) - axis.lo) / (axis.hi - axis.lo)) * p.w;
    ctx.strokeStyle = UI.counter;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    const step = Math.max(1, Math.floor(n / 2000)), curve = [];
    const to = (X, Y, first) => { (first ? ctx.moveTo : ctx.lineTo).call(ctx, X, Y); curve.push([X, Y]); };
    for (let i = 0; i < n; i += step) {
      const X = xOf(d[i]), Y = p.y + p.h - ((i + 1) / n) * p.h;
      if (i === 0) to(X, p.y + p.h, true);
      to(X, Y);
    }
    to(xOf(d[n - 1]), p.y);
    ctx.stroke();
    /* The marks on the curve. */
    ctx.fillStyle = '#e6b450';
    for (const [q, k] of LAT_MARKS) {
      const X = xOf(this.data.pct[k]), Y = p.y + p.h - q * p.h;
      ctx.fillRect(X - 2, Y - 2, 5, 5);
      ctx.fillRect(X, Y, 1, p.y + p.h - Y);
    }
    this.xLabels(p, axis);
    this.drawn.cdf = { plot: { ...p }, labels, curve };
  }

  overTime(x, y, w, h) {
    const ctx = this.ctx, o = this.data.over, rows = o.rows;
    const lost = rows.some((r) => r.lost), mark = lost ? PARTIAL_MARK : '';
    const title = o.source === 'server'
      ? `${mark}whole run · server · per ${fmtDur(o.width)}`
      : 'held calls · exact · per second' + (o.notSummarised ? ' · not summarised (cap)' : '');
    const p = this.frame(x, y, w, h, title);
    this.overTitle = title;
    if (!rows.length) return;
    p.y += 16;   /* room for the legend */
    p.h -= 16;
    let lo = Infinity, hi = -Infinity;
    for (const r of rows) for (const v of r.p) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    if (!Number.isFinite(lo)) return;
    const L0 = Math.log10(Math.max(1, lo)), L1 = Math.max(L0 + 0.1, Math.log10(Math.max(1, hi)));
    const half = o.source === 'server' ? o.width / 2 : 0;   /* a bucket's point at its middle */
    const s0 = o.x0, s1 = Math.max(o.x0 + 1, o.x1);
    const xOf = (t) => p.x + ((t + half - s0) / (s1 - s0)) * p.w;
    const yOf = (v) => p.y + p.h - ((Math.log10(Math.max(1, v)) - L0) / (L1 - L0)) * p.h;
    const full = rows.filter((r) => r.p.length);
    LAT_LINES.forEach(([, k, color], j) => {
      ctx.strokeStyle = color;
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      full.forEach((r, i) => (i ? ctx.lineTo(xOf(r.t), yOf(r.p[j])) : ctx.moveTo(xOf(r.t), yOf(r.p[j]))));
      if (full.length === 1) ctx.lineTo(xOf(full[0].t) + 2, yOf(full[0].p[j]));
      ctx.stroke();
      ctx.fillStyle = color;
      ctx.font = FONT_MONO;
      ctx.textAlign = 'left';
      ctx.textBaseline = 'top';
      ctx.fillText(k, p.x + 2 + j * 40, p.y - 16);
    });
    /* Buckets where entries were lost: marked partial under the curves. */
    ctx.fillStyle = UI.faint;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'bottom';
    for (const r of rows) if (r.lost) ctx.fillText(PARTIAL_MARK, xOf(r.t), p.y + p.h);
    /* The duration axis (log): its top and bottom. */
    ctx.textAlign = 'right';
    ctx.textBaseline = 'top';
    ctx.fillText(fmtDur(Math.pow(10, L1)), p.x + p.w, p.y - 16);
    ctx.textBaseline = 'bottom';
    ctx.fillText(fmtDur(Math.pow(10, L0)), p.x + p.w, p.y + p.h - 2);
    ctx.textBaseline = 'top';
    ctx.textAlign = 'left';
    ctx.fillText((s0 / 1e9).toFixed(1) + ' s', p.x, p.y + p.h + 4);
    ctx.textAlign = 'right';
    ctx.fillText((s1 / 1e9).toFixed(1) + ' s', p.x + p.w, p.y + p.h + 4);
    if (o.leftOut) {
      ctx.textAlign = 'left';
      ctx.fillText(`${fmtCount(o.leftOut)} calls of scopes past the server's cap left out`, p.x + 40, p.y + p.h + 4);
    }
  }
}
