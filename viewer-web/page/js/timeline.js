/* timeline.js -- the timeline: a time ruler, counter tracks, then one lane
 * per thread with its nested slices, instants on top and flow arrows
 * across.  Drawn on one canvas each animation frame.
 *
 * Cost is bounded by pixels, not events: each row finds its first visible
 * slice by binary search, and where slices are narrower than a pixel the
 * run within that pixel is drawn as one block and skipped by another
 * binary search.  So a million events in view costs about what a thousand
 * do. */

const RULER_H = 26;
const COUNTER_H = 40;
const ROW_H = 18;
const INSTANT_H = 9;
const LANE_GAP = 7;
const GUTTER = 184;
const ROWS_SHOWN_MAX = 32;
const MIN_SPAN = 2e3;          /* 2 µs */
const MAX_SPAN = 600e9;
const FONT = '11px "Inter", "Segoe UI", system-ui, "Liberation Sans", "DejaVu Sans", sans-serif';
const FONT_BOLD = '600 12px "Inter", "Segoe UI", system-ui, "Liberation Sans", "DejaVu Sans", sans-serif';
const FONT_MONO = '11px "JetBrains Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace';

class Timeline {
  constructor(canvas, store, colors, tooltip) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d', { alpha: false });
    this.store = store;
    this.colors = colors;
    this.tip = tooltip;
    this.span = 10e9;
    this.t1 = 0;
    this.live = true;
    this.scrollY = 0;
    this.W = 0; this.H = 0; this.dpr = 1;
    this.tracks = [];
    this.contentH = 0;
    this.layoutKey = '';
    this.mouse = null;        /* {x, y} in canvas CSS pixels */
    this.drag = null;
    this.dirty = true;
    this.textW = new Map();   /* label width cache, by name */
    this.labels = new Set();  /* slice names labelled in the last frame (tests read it) */
    this.pending = [];        /* labels: [text, x, y, right edge of the slice, name] */
    this.xs = GUTTER;
    this.onMode = () => {};
    this.bindInput();
  }

  get t0() { return this.t1 - this.span; }
  get plotW() { return Math.max(1, this.W - GUTTER); }
  xOf(t) { return GUTTER + ((t - this.t0) * this.plotW) / this.span; }
  tOf(x) { return this.t0 + ((x - GUTTER) * this.span) / this.plotW; }

  /* Something moved the view: the next frame paints everything. */
  moved() {
    this.dirty = true;
    this.needsFull = true;
  }

  setLive(live) {
    if (this.live === live) return;
    this.live = live;
    this.moved();
    this.onMode(live);
  }

  resize() {
    const r = this.canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    const W = Math.max(1, Math.round(r.width)), H = Math.max(1, Math.round(r.height));
    if (W === this.W && H === this.H && dpr === this.dpr) return;
    this.W = W; this.H = H; this.dpr = dpr;
    this.canvas.width = Math.round(W * dpr);
    this.canvas.height = Math.round(H * dpr);
    this.moved();
  }

  /* ---- layout: counter tracks, then lanes in slot order ---- */
  layout() {
    const s = this.store;
    const key = s.layoutVersion + ':' + s.laneOrder.length + ':' + s.counterOrder.length;
    if (key === this.layoutKey) return;
    this.layoutKey = key;
    const tracks = [];
    let y = 0;
    for (const c of s.counterOrder) {
      tracks.push({ kind: 'counter', c, y, h: COUNTER_H });
      y += COUNTER_H;
    }
    if (s.counterOrder.length) y += 4;
    for (const L of s.laneOrder) {
      const rows = Math.min(ROWS_SHOWN_MAX, s.laneDepth(L));
      const h = INSTANT_H + rows * ROW_H + LANE_GAP;
      tracks.push({ kind: 'lane', L, y, h, rows, rowsY: y + INSTANT_H });
      y += h;
    }
    this.tracks = tracks;
    this.contentH = y;
    this.clampScroll();
  }

  clampScroll() {
    const max = Math.max(0, this.contentH - (this.H - RULER_H));
    this.scrollY = Math.min(Math.max(0, this.scrollY), max);
  }

  /* ---- drawing ----
   * Pass 1 paints blocks into the raster: backgrounds, grid, slices,
   * instants, counters, the now line.  Pass 2, on the canvas: text,
   * flow arrows, the hover outline.  Labels found in pass 1 wait in a
   * list for pass 2.
   *
   * Following live time, the picture mostly slides left.  Then the last
   * frame's raster is shifted by whole device pixels and only the strip
   * on the right that is new, or that newly arrived events touch, is
   * painted again (store.changedFrom says where that starts).  Anything
   * else -- zoom, scroll, resize, a new lane, names, evictions -- paints
   * everything. */
  draw() {
    const s = this.store, ctx = this.ctx;
    this.resize();
    this.layout();
    const now = s.liveNow();
    const R = this.raster || (this.raster = new Raster(ctx));
    R.resize(this.W, this.H, this.dpr);
    const k = this.plotW / this.span, dk = k * this.dpr;   /* CSS / device pixels per ns */
    const p = this.painted;
    let xs = GUTTER, shift = 0, full = true;
    if (this.live) {
      if (p && !this.needsFull && p.span === this.span && p.W === this.W && p.H === this.H && p.dpr === this.dpr &&
          p.scrollY === this.scrollY && p.layoutKey === this.layoutKey && s.changedFrom !== -Infinity) {
        shift = Math.floor((now - p.t1) * dk);
        if (shift >= 0 && shift < (this.plotW * this.dpr) / 2) {
          full = false;
          this.t1 = p.t1 + shift / dk;
          const fromChange = s.changedFrom === Infinity ? this.W : this.xOf(s.changedFrom);
          /* 12 px of margin: a new instant can turn its neighbour's
           * triangle (7 px) into a tick. */
          xs = Math.max(GUTTER, Math.min(this.W - shift / this.dpr - 3, fromChange - 12));
        }
      }
      if (full) this.t1 = now;
    }
    if (this.t1 === 0) this.t1 = now;
    s.changedFrom = Infinity;

    const top = RULER_H - this.scrollY;
    const visible = [];
    for (const tr of this.tracks) {
      const y = top + tr.y;
      if (y > this.H || y + tr.h < RULER_H) continue;
      visible.push([tr, y]);
    }
    if (full) R.clear(UI_PX.bg);
    else if (shift) R.shift(GUTTER, shift, RULER_H, this.H);
    R.clip(RULER_H, this.H, xs);
    R.rect(GUTTER, RULER_H, this.W, this.H, UI_PX.bg);
    visible.forEach(([tr, y], i) => {
      R.rect(GUTTER, y, this.W, y + tr.h - 1, tr.kind === 'counter' || i % 2 === 0 ? UI_PX.laneA : UI_PX.laneB);
      R.rect(GUTTER, y + tr.h - 1, this.W, y + tr.h, UI_PX.line);
    });
    const { step, first } = this.ticks();
    for (let t = first; t <= this.t1; t += step) R.rect(this.xOf(t), RULER_H, this.xOf(t) + 1, this.H, UI_PX.grid);
    const labels = [];
    if (!full)
      for (const l of this.pending) {
        /* Labels of slices left of the strip slide with them. */
        l[1] -= shift / this.dpr;
        l[3] -= shift / this.dpr;
        if (l[3] < xs && l[1] >= GUTTER + 4) labels.push(l);
      }
    this.pending = labels;
    this.xs = xs;
    for (const [tr, y] of visible) {
      if (tr.kind === 'counter') this.drawCounter(tr, y, xs);
      else this.drawLane(tr, y, now, xs);
    }
    const xn = this.xOf(now);
    if (xn >= GUTTER && xn < this.W) R.rect(xn, RULER_H, xn + 1, this.H, UI_PX.now);
    R.unclip();
    if (full) {
      R.rect(0, RULER_H, GUTTER - 1, this.H, UI_PX.gutter);
      R.rect(GUTTER - 1, RULER_H, GUTTER, this.H, UI_PX.line);
      for (const [tr, y] of visible) R.rect(0, y + tr.h - 1, GUTTER, y + tr.h, UI_PX.line);
    }
    R.rect(0, 0, this.W, RULER_H - 1, UI_PX.gutter);
    R.rect(0, RULER_H - 1, this.W, RULER_H, UI_PX.line);
    for (let t = first; t <= this.t1; t += step) {
      const x = this.xOf(t);
      if (x >= GUTTER) R.rect(x, RULER_H - 7, x + 1, RULER_H - 1, UI_PX.line);
    }
    this.drawScrollbar(R);
    R.put();
    this.painted = { t1: this.t1, now, span: this.span, W: this.W, H: this.H, dpr: this.dpr, scrollY: this.scrollY, layoutKey: this.layoutKey, full };

    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, RULER_H, this.W, this.H - RULER_H);
    ctx.clip();
    this.drawLabels();
    for (const [tr, y] of visible) {
      if (tr.kind === 'counter') {
        const c = tr.c;
        this.gutterText(y, this.store.name(c.name), fmtValue(c.last) + '  (' + fmtValue(c.min) + '–' + fmtValue(c.max) + ')', false);
      } else {
        const L = tr.L;
        this.gutterText(y, L.label, (L.tid ? 'tid ' + L.tid : '') + (L.alive ? '' : '  exited'), !L.alive);
      }
    }
    ctx.save();
    ctx.beginPath();
    ctx.rect(GUTTER, RULER_H, this.W - GUTTER, this.H - RULER_H);
    ctx.clip();
    this.drawFlows(top);
    this.drawHover(top);
    ctx.restore();
    ctx.restore();
    this.drawRulerText(step, first);
    this.labels.clear();
    for (const l of this.pending) this.labels.add(l[4]);
    this.dirty = false;
    this.needsFull = false;
    this.draws = (this.draws || 0) + 1;
    if (full) this.fullDraws = (this.fullDraws || 0) + 1;
  }

  ticks() {
    const step = niceStep((this.span * 110) / this.plotW);
    const first = Math.max(0, Math.ceil(this.t0 / step) * step);
    return { step, first };
  }

  drawRulerText(step, first) {
    const ctx = this.ctx;
    ctx.font = FONT_MONO;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'left';
    ctx.fillStyle = UI.muted;
    for (let t = first; t <= this.t1; t += step) {
      const x = Math.round(this.xOf(t));
      if (x >= GUTTER) ctx.fillText(fmtTime(t, step), x + 4, RULER_H / 2);
    }
    ctx.fillStyle = UI.faint;
    ctx.font = FONT;
    ctx.fillText('time since start', 12, RULER_H / 2);
  }

  drawScrollbar(R) {
    const viewH = this.H - RULER_H;
    if (this.contentH <= viewH) return;
    const h = Math.max(24, (viewH * viewH) / this.contentH);
    const y = RULER_H + ((viewH - h) * this.scrollY) / (this.contentH - viewH);
    R.rect(this.W - 6, y, this.W - 2, y + h, UI_PX.scroll);
  }

  gutterText(y, title, sub, muted) {
    const ctx = this.ctx;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    ctx.font = FONT_BOLD;
    ctx.fillStyle = muted ? UI.muted : UI.text;
    ctx.fillText(this.fit(title, GUTTER - 24, FONT_BOLD), 12, y + 6);
    if (sub) {
      ctx.font = FONT_MONO;
      ctx.fillStyle = UI.faint;
      ctx.fillText(this.fit(sub, GUTTER - 24, FONT_MONO), 12, y + 22);
    }
  }

  drawLabels() {
    const ctx = this.ctx;
    ctx.font = FONT;
    ctx.fillStyle = UI.label;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    for (const l of this.pending) ctx.fillText(l[0], l[1], l[2]);
  }

  drawLane(tr, y, now, xs) {
    const L = tr.L;
    const t0 = this.t0, t1 = this.t1, k = this.plotW / this.span;
    const ts = this.tOf(xs - 12);   /* what can reach into the strip (a triangle is 7 px) */
    const rowsY = y + INSTANT_H;
    for (let d = 0; d < tr.rows; d++) {
      const ry = rowsY + d * ROW_H;
      if (ry > this.H || ry + ROW_H < RULER_H) continue;
      if (L.rows[d]) this.drawRow(L.rows[d], ry, t0, t1, k, ts);
    }
    /* Scopes still open: from their begin to now. */
    const open = Math.min(L.depth, tr.rows);
    for (let d = 0; d < open; d++) {
      const ts = L.stkTs[d];
      if (ts > t1) continue;
      this.drawSlice(L.stkName[d], ts, Math.max(ts, now), rowsY + d * ROW_H, t0, k, true);
    }
    this.drawInstants(L, y, t0, t1, k, ts);
  }

  drawSlice(name, ts, te, ry, t0, k, open) {
    const R = this.raster;
    let xa = GUTTER + (ts - t0) * k, xb = GUTTER + (te - t0) * k;
    if (xb < GUTTER || xa > this.W) return;
    if (xa < GUTTER) xa = GUTTER;
    if (xb > this.W + 1) xb = this.W + 1;
    R.rect(xa, ry, xb, ry + ROW_H - 2, this.colors.px(name));
    if (open) R.rect(Math.max(xa, xb - 2), ry, xb, ry + ROW_H - 2, UI_PX.openEdge);
    if (xb - xa > 28) this.label(name, xa, ry, xb - xa);
  }

  label(name, x, ry, w) {
    if (x + w < this.xs) return;   /* kept from the last frame */
    const full = this.store.name(name);
    const text = this.fit(full, w - 8, FONT);
    if (!text) return;
    this.pending.push([text, x + 4, ry + (ROW_H - 2) / 2 + 0.5, x + w, full]);
  }

  /* Text cut with an ellipsis to fit w pixels ('' if not even 2 chars do). */
  fit(text, w, font) {
    const key = font + '\u0000' + text;
    let tw = this.textW.get(key);
    if (tw === undefined) {
      this.ctx.font = font;
      tw = this.ctx.measureText(text).width;
      if (this.textW.size > 20000) this.textW.clear();
      this.textW.set(key, tw);
    }
    if (tw <= w) return text;
    const n = Math.floor((text.length * w) / tw) - 1;
    return n >= 2 ? text.slice(0, n) + '…' : '';
  }

  /* A row of slices is painted as one line of device pixels, then that
   * line is repeated down the row: a block costs a store, not sixteen. */
  drawRow(row, ry, t0, t1, k, from) {
    const R = this.raster, s = row.s, e = row.e, nm = row.nm, fl = row.fl, n = row.n;
    const h = ROW_H - 2, W = this.W, colors = this.colors;
    const band = R.rows(ry, ry + h);
    if (!band) return;
    const Y = band[0];
    const cuts = [];
    let i = row.lowerBound(1, Math.max(t0, from));
    /* Sub-pixel runs become one-pixel blocks; touching blocks of one color
     * are merged before they are painted. */
    let bx0 = 0, bx1 = -1, bc = 0;
    while (i < n) {
      const si = s[i];
      if (si > t1) break;
      const xa = GUTTER + (si - t0) * k;
      const xb = GUTTER + (e[i] - t0) * k;
      if (xb - xa >= 2) {
        if (bx1 >= 0) { R.span(Y, bx0, bx1, bc); bx1 = -1; }
        const x0 = Math.max(xa, GUTTER), x1 = Math.min(xb, W + 1);
        if (x1 > x0) {
          R.span(Y, x0, x1, colors.px(nm[i]));
          if (x1 - x0 > 28) this.label(nm[i], x0, ry, x1 - x0);
          if (fl[i] & SLICE_CUT) cuts.push(Math.max(x0, x1 - 2), x1);
        }
        i++;
        continue;
      }
      /* Narrower than two pixels: everything that starts before the next
       * pixel joins this block; ends are sorted, so the last one ends it.
       * A galloping search: the next pixel is usually near. */
      const px = Math.floor(xa) + 1;
      const tn = t0 + (px - GUTTER) / k;
      let j = i + 1, stepN = 1;
      while (j < n && s[j] < tn) { j += stepN; stepN *= 2; }
      j = row.lowerBound(0, tn, Math.max(i + 1, j - stepN / 2 | 0), Math.min(j, n));
      let end = GUTTER + (e[j - 1] - t0) * k;
      if (end > px + 2) {
        /* The run's last slice is wide: it gets drawn on its own. */
        j--;
        end = px;
      }
      const c = colors.px(nm[i]);
      const x0 = Math.max(GUTTER, Math.floor(xa)), x1 = Math.max(x0 + 1, Math.min(Math.ceil(end), W));
      if (c === bc && x0 <= bx1) {
        if (x1 > bx1) bx1 = x1;
      } else {
        if (bx1 >= 0) R.span(Y, bx0, bx1, bc);
        bx0 = x0; bx1 = x1; bc = c;
      }
      i = j;
    }
    if (bx1 >= 0) R.span(Y, bx0, bx1, bc);
    R.repeat(Y, band[1], GUTTER);
    for (let c = 0; c < cuts.length; c += 2) R.rect(cuts[c], ry, cuts[c + 1], ry + h, UI_PX.cut);
  }

  /* Instants: a small triangle when no other instant is within 8 pixels,
   * else a one-pixel tick, at most one per device-pixel column.  Both
   * rules depend only on the instants themselves, never on what was
   * drawn before, so a shifted frame matches a fresh one. */
  drawInstants(L, y, t0, t1, k, from) {
    const R = this.raster, I = L.instants, t = I.t, nm = I.nm, d = this.dpr;
    const last = I.lowerBound(0, t1 + 1);
    let i = I.lowerBound(0, Math.max(t0, from));
    while (i < last) {
      const xf = GUTTER + (t[i] - t0) * k;
      const c = this.colors.px(nm[i]);
      const alone = (i === I.lo || (t[i] - t[i - 1]) * k >= 8) && (i + 1 >= I.n || (t[i + 1] - t[i]) * k >= 8);
      if (alone) {
        for (let r = 0; r < 4; r++) R.rect(xf - 3 + r, y + 1 + r * 1.5, xf + 4 - r, y + 2.5 + r * 1.5, c);
        i++;
        continue;
      }
      const X = Math.floor(xf * d);
      R.rect(X / d, y + 1, (X + 1) / d, y + INSTANT_H - 2, c);
      i = I.lowerBound(0, t0 + ((X + 1) / d - GUTTER) / k, i + 1);
    }
  }

  /* A counter track: per pixel column, the lowest, highest and mean value
   * of any thread (a band and a line).  A column reads at most five of
   * its own points, chosen by index within the column, so the same
   * column always gives the same pixels, however the frame was made. */
  drawCounter(tr, y, xs) {
    const R = this.raster, c = tr.c, t0 = this.t0, t1 = this.t1, k = this.plotW / this.span;
    const lo = c.min, hi = c.max > c.min ? c.max : c.min + 1;
    const top = y + 5, h = tr.h - 10;
    const yOf = (v) => top + h - ((v - lo) / (hi - lo)) * h;
    const cols = Math.ceil(this.plotW);
    if (!this.cMax || this.cMax.length < cols) {
      this.cMax = new Float64Array(cols);
      this.cMin = new Float64Array(cols);
      this.cSum = new Float64Array(cols);
      this.cN = new Uint32Array(cols);
    }
    const cMax = this.cMax, cMin = this.cMin, cSum = this.cSum, cN = this.cN;
    /* Start at the last column with a point before the strip: the line
     * and the band carry its value over empty columns. */
    const tStrip = t0 + (xs - 1 - GUTTER) / k;
    let cs = cols;
    for (const S of c.series.values()) {
      const i = S.lowerBound(0, tStrip) - 1;
      if (i < S.lo) { cs = 0; continue; }
      cs = Math.min(cs, Math.max(0, Math.floor((S.t[i] - t0) * k)));
    }
    if (cs >= cols) cs = Math.max(0, Math.floor(xs - GUTTER) - 1);
    cMax.fill(-Infinity, cs, cols);
    cMin.fill(Infinity, cs, cols);
    cSum.fill(0, cs, cols);
    cN.fill(0, cs, cols);
    const add = (px, v) => {
      if (v > cMax[px]) cMax[px] = v;
      if (v < cMin[px]) cMin[px] = v;
      cSum[px] += v;
      cN[px]++;
    };
    for (const S of c.series.values()) {
      /* Column 0 also holds the value in force at the left edge. */
      if (cs === 0) {
        const j = S.lowerBound(0, t0) - 1;
        if (j >= S.lo) add(0, S.v[j]);
      }
      let a = S.lowerBound(0, t0 + cs / k);
      for (let px = cs; px < cols && a < S.n && S.t[a] <= t1; px++) {
        const b = S.lowerBound(0, t0 + (px + 1) / k, a);
        const n = b - a;
        if (n > 0) {
          if (n <= 5) for (let i = a; i < b; i++) add(px, S.v[i]);
          else for (let q = 0; q < 5; q++) add(px, S.v[a + Math.floor((q * (n - 1)) / 4)]);
        }
        a = b;
      }
    }
    let started = false, mx = 0, mn = 0, prevY = 0;
    for (let px = cs; px < cols; px++) {
      if (cN[px]) { mx = cMax[px]; mn = cMin[px]; }
      else if (!started) continue;
      const x = GUTTER + px;
      if (mx > mn) R.rect(x, yOf(mx), x + 1, yOf(mn), UI_PX.band);
      const ym = Math.round(yOf(cN[px] ? cSum[px] / cN[px] : (mx + mn) / 2));
      const ya = started ? Math.min(prevY, ym) : ym, yb = started ? Math.max(prevY, ym) : ym;
      R.rect(x, ya - 0.5, x + 1, yb + 1, UI_PX.counter);
      prevY = ym;
      started = true;
    }
  }

  laneTrack(id) {
    for (const tr of this.tracks) if (tr.kind === 'lane' && tr.L.id === id) return tr;
    return null;
  }

  flowY(tr, depth, top) {
    const d = Math.min(depth, tr.rows);
    return top + tr.rowsY + (d > 0 ? (d - 1) * ROW_H + (ROW_H - 2) / 2 : -INSTANT_H / 2);
  }

  drawFlows(top) {
    const ctx = this.ctx, t0 = this.t0, t1 = this.t1;
    const lookBack = this.span;   /* arrows whose start is off the left edge */
    const lines = new Path2D(), heads = new Path2D();
    let drawn = 0;
    for (const tr of this.tracks) {
      if (tr.kind !== 'lane') continue;
      const F = tr.L.flows;
      let lastX = -1e9;
      for (let i = F.lowerBound(0, t0); i < F.n && F.t[i] <= t1 + lookBack && drawn < 4000; i++) {
        if (F.pLane[i] < 0 || F.pT[i] > t1 || F.pT[i] < t0 - lookBack) continue;
        const x2 = this.xOf(F.t[i]);
        if (x2 - lastX < 4) continue;   /* one arrow every few pixels is plenty */
        lastX = x2;
        const from = this.laneTrack(F.pLane[i]);
        if (!from) continue;
        const x1 = this.xOf(F.pT[i]), y1 = this.flowY(from, F.pDepth[i], top);
        const y2 = this.flowY(tr, F.depth[i], top);
        const dx = Math.max(12, Math.abs(x2 - x1) * 0.4);
        lines.moveTo(x1, y1);
        lines.bezierCurveTo(x1 + dx, y1, x2 - dx, y2, x2, y2);
        heads.moveTo(x2, y2);
        heads.lineTo(x2 - 7, y2 - 3.5);
        heads.lineTo(x2 - 7, y2 + 3.5);
        heads.closePath();
        drawn++;
      }
    }
    if (!drawn) return;
    /* Many arrows at once are texture, not information: draw them faint. */
    ctx.globalAlpha = drawn > 120 ? 0.22 : 0.8;
    ctx.strokeStyle = UI.flow;
    ctx.fillStyle = UI.flow;
    ctx.lineWidth = 1.2;
    ctx.stroke(lines);
    ctx.fill(heads);
    ctx.globalAlpha = 1;
  }

  /* ---- hover ---- */
  hit(x, y) {
    if (x < GUTTER || y < RULER_H) return null;
    const s = this.store, top = RULER_H - this.scrollY;
    const t = this.tOf(x), tol = (3 * this.span) / this.plotW;
    for (const tr of this.tracks) {
      const ty = top + tr.y;
      if (y < ty || y >= ty + tr.h) continue;
      if (tr.kind === 'counter') return this.hitCounter(tr, t);
      const L = tr.L;
      if (y < ty + INSTANT_H) {
        const I = L.instants;
        const i = I.lowerBound(0, t - tol);
        if (i < I.n && I.t[i] <= t + tol)
          return { kind: 'instant', L, name: I.nm[i], t: I.t[i], msg: I.msg(i) };
        return null;
      }
      const d = Math.floor((y - ty - INSTANT_H) / ROW_H);
      if (d < 0 || d >= tr.rows) return null;
      if (d < L.depth && L.stkTs[d] <= t + tol)
        return { kind: 'slice', L, d, name: L.stkName[d], ts: L.stkTs[d], te: s.liveNow(), open: true };
      const row = L.rows[d];
      if (!row) return null;
      let i = row.lowerBound(1, t - tol);
      if (i < row.n && row.s[i] <= t + tol) {
        /* Prefer the slice under the pointer over a neighbour within reach. */
        if (row.s[i] > t && i > row.lo && row.e[i - 1] >= t - tol) i--;
        return { kind: 'slice', L, d, name: row.nm[i], ts: row.s[i], te: row.e[i], cut: (row.fl[i] & SLICE_CUT) !== 0 };
      }
      return null;
    }
    return null;
  }

  hitCounter(tr, t) {
    const c = tr.c, vals = [];
    for (const [laneId, S] of c.series) {
      const i = S.lowerBound(0, t + 1) - 1;
      if (i >= S.lo) vals.push({ lane: this.store.lanes.get(laneId), v: S.v[i], t: S.t[i] });
    }
    return { kind: 'counter', c, vals };
  }

  /* Time inside a slice not covered by its children (the next row). */
  selfTime(h) {
    const row = h.L.rows[h.d + 1];
    let child = 0;
    if (row)
      for (let i = row.lowerBound(1, h.ts); i < row.n && row.s[i] < h.te; i++)
        child += Math.min(row.e[i], h.te) - Math.max(row.s[i], h.ts);
    const L = h.L;
    if (h.d + 1 < L.depth && L.stkTs[h.d + 1] < h.te) child += h.te - Math.max(L.stkTs[h.d + 1], h.ts);
    return Math.max(0, h.te - h.ts - child);
  }

  drawHover(top) {
    const m = this.mouse;
    if (!m || this.drag) return;
    const h = this.hit(m.x, m.y);
    this.hovered = h;
    if (!h || h.kind !== 'slice') return;
    const tr = this.laneTrack(h.L.id);
    if (!tr) return;
    const ctx = this.ctx;
    const xa = Math.max(GUTTER, this.xOf(h.ts)), xb = Math.min(this.W, this.xOf(h.te));
    const ry = top + tr.rowsY + h.d * ROW_H;
    ctx.strokeStyle = UI.hover;
    ctx.lineWidth = 1.5;
    ctx.strokeRect(xa + 0.5, ry + 0.5, Math.max(1, xb - xa - 1), ROW_H - 3);
  }

  tooltipFor(h) {
    const s = this.store;
    const rows = [];
    let title = '', note = '';
    if (h.kind === 'slice') {
      title = s.name(h.name);
      rows.push(['duration', fmtDur(h.te - h.ts) + (h.open ? ' so far' : '')]);
      rows.push(['self', fmtDur(this.selfTime(h))]);
      rows.push(['start', fmtTime(h.ts, 1e3)]);
      rows.push(['thread', h.L.label + (h.L.tid ? ' (' + h.L.tid + ')' : '')]);
      rows.push(['depth', String(h.d)]);
      if (h.open) note = 'still running';
      if (h.cut) note = 'its END was lost: closed by an outer scope';
    } else if (h.kind === 'instant') {
      title = s.name(h.name);
      rows.push(['at', fmtTime(h.t, 1e3)]);
      rows.push(['thread', h.L.label + (h.L.tid ? ' (' + h.L.tid + ')' : '')]);
      if (h.msg) rows.push(['message', h.msg]);
    } else if (h.kind === 'counter') {
      title = s.name(h.c.name);
      for (const v of h.vals.slice(0, 12)) rows.push([v.lane ? v.lane.label : '?', fmtValue(v.v)]);
      rows.push(['range', fmtValue(h.c.min) + ' – ' + fmtValue(h.c.max)]);
    }
    return { title, rows, note };
  }

  showTooltip(clientX, clientY) {
    const h = this.hovered;
    const tip = this.tip;
    if (!h || this.drag) { tip.hidden = true; return; }
    const { title, rows, note } = this.tooltipFor(h);
    tip.replaceChildren();
    const t = document.createElement('div');
    t.className = 't-name';
    t.textContent = title;
    tip.append(t);
    const g = document.createElement('div');
    g.className = 't-grid';
    for (const [k, v] of rows) {
      const a = document.createElement('div'), b = document.createElement('div');
      a.className = 't-k'; a.textContent = k;
      b.className = 't-v'; b.textContent = v;
      g.append(a, b);
    }
    tip.append(g);
    if (note) {
      const n = document.createElement('div');
      n.className = 't-note';
      n.textContent = note;
      tip.append(n);
    }
    tip.hidden = false;
    const r = tip.getBoundingClientRect();
    let x = clientX + 14, y = clientY + 16;
    if (x + r.width > window.innerWidth - 8) x = clientX - r.width - 14;
    if (y + r.height > window.innerHeight - 8) y = clientY - r.height - 12;
    tip.style.left = Math.max(4, x) + 'px';
    tip.style.top = Math.max(4, y) + 'px';
  }

  /* ---- input ---- */
  zoom(factor, anchorX) {
    const span = Math.min(MAX_SPAN, Math.max(MIN_SPAN, this.span * factor));
    if (this.live) {
      this.span = span;   /* the right edge stays on now */
    } else {
      const x = anchorX === undefined ? GUTTER + this.plotW / 2 : anchorX;
      const ta = this.tOf(x);
      const t0 = ta - ((x - GUTTER) * span) / this.plotW;
      this.span = span;
      this.t1 = t0 + span;
    }
    this.moved();
  }

  pan(dt) {
    this.setLive(false);
    this.t1 += dt;
    this.moved();
  }

  bindInput() {
    const c = this.canvas;
    c.addEventListener('wheel', (e) => {
      e.preventDefault();
      const r = c.getBoundingClientRect();
      if (e.shiftKey) {
        this.scrollY += e.deltaY || e.deltaX;
        this.clampScroll();
        this.moved();
        return;
      }
      const d = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY;
      this.zoom(Math.exp(d * 0.0015), e.clientX - r.left);
    }, { passive: false });
    c.addEventListener('mousedown', (e) => {
      if (e.button !== 0) return;
      const r = c.getBoundingClientRect();
      this.drag = { x: e.clientX, y: e.clientY, t1: this.t1, scrollY: this.scrollY, moved: false, left: r.left };
      c.parentElement.classList.add('dragging');
      this.tip.hidden = true;
      e.preventDefault();
    });
    window.addEventListener('mousemove', (e) => {
      const r = c.getBoundingClientRect();
      if (this.drag) {
        const dx = e.clientX - this.drag.x, dy = e.clientY - this.drag.y;
        if (!this.drag.moved && Math.abs(dx) + Math.abs(dy) > 3) this.drag.moved = true;
        if (this.drag.moved) {
          if (Math.abs(dx) > 3) this.setLive(false);
          if (!this.live) this.t1 = this.drag.t1 - (dx * this.span) / this.plotW;
          this.scrollY = this.drag.scrollY - dy;
          this.clampScroll();
          this.moved();
        }
        return;
      }
      const inside = e.clientX >= r.left && e.clientX < r.right && e.clientY >= r.top && e.clientY < r.bottom;
      this.mouse = inside ? { x: e.clientX - r.left, y: e.clientY - r.top, cx: e.clientX, cy: e.clientY } : null;
      if (!inside) this.tip.hidden = true;
      this.dirty = true;
    });
    window.addEventListener('mouseup', () => {
      if (!this.drag) return;
      this.drag = null;
      c.parentElement.classList.remove('dragging');
      this.dirty = true;
    });
    c.addEventListener('mouseleave', () => {
      if (!this.drag) { this.mouse = null; this.tip.hidden = true; this.dirty = true; }
    });
  }

  /* ---- what tests ask ---- */
  /* Paint the next frame as usual (shifted and patched when following
   * live time), then paint the same moment from scratch, in the same
   * task (no new data in between), and count the device-pixel columns
   * that differ. */
  checkRepaint() {
    const st = this.store, R = this.raster, liveNow = st.liveNow, live = this.live;
    const now = liveNow.call(st);
    st.liveNow = () => now;
    this.draw();
    const p = this.painted, before = R.buf.slice();
    this.live = false;
    this.t1 = p.t1;
    this.needsFull = true;
    this.draw();
    st.liveNow = liveNow;
    this.live = live;
    this.moved();
    const cols = new Set(), samples = [];
    for (let i = 0; i < before.length; i++)
      if (before[i] !== R.buf[i]) {
        cols.add(i % R.w);
        if (samples.length < 8 && i % R.w >= GUTTER + 8)
          samples.push([i % R.w, Math.floor(i / R.w), (before[i] >>> 0).toString(16), (R.buf[i] >>> 0).toString(16)]);
      }
    return { incremental: !p.full, columns: [...cols].sort((a, b) => a - b), width: R.w, gutter: Math.round(GUTTER * this.dpr),
      samples, tracks: this.tracks.map((t) => [t.kind === 'lane' ? t.L.label : 'counter', t.y + RULER_H - this.scrollY, t.h]) };
  }

  /* A visible instant with this name, alone within a few pixels. */
  findInstant(name) {
    const s = this.store, top = RULER_H - this.scrollY, r = this.canvas.getBoundingClientRect();
    const k = this.plotW / this.span, t0 = this.t0, t1 = this.t1;
    for (const tr of this.tracks) {
      if (tr.kind !== 'lane') continue;
      const I = tr.L.instants, y = top + tr.y + INSTANT_H / 2;
      if (y < RULER_H + 2 || y > this.H - 2) continue;
      for (let i = I.lowerBound(0, t0); i < I.n && I.t[i] < t1; i++) {
        if (s.name(I.nm[i]) !== name) continue;
        const x = GUTTER + (I.t[i] - t0) * k;
        const alone = (i === I.lo || (I.t[i] - I.t[i - 1]) * k > 8) && (i + 1 === I.n || (I.t[i + 1] - I.t[i]) * k > 8);
        if (x > GUTTER + 8 && x < this.W - 8 && alone) return { x: r.left + x, y: r.top + y };
      }
    }
    return null;
  }


  /* A visible slice with this name, at least minWidth pixels wide: its
   * center in page pixels. */
  findSlice(name, minWidth = 6) {
    const s = this.store, top = RULER_H - this.scrollY, r = this.canvas.getBoundingClientRect();
    const k = this.plotW / this.span, t0 = this.t0, t1 = this.t1;
    for (const tr of this.tracks) {
      if (tr.kind !== 'lane') continue;
      for (let d = 0; d < tr.rows; d++) {
        const row = tr.L.rows[d];
        const y = top + tr.rowsY + d * ROW_H + (ROW_H - 2) / 2;
        if (!row || y < RULER_H + 4 || y > this.H - 4) continue;
        for (let i = row.lowerBound(1, t0); i < row.n && row.s[i] < t1; i++) {
          if (s.name(row.nm[i]) !== name) continue;
          const xa = Math.max(GUTTER, GUTTER + (row.s[i] - t0) * k), xb = Math.min(this.W, GUTTER + (row.e[i] - t0) * k);
          if (xb - xa >= minWidth) return { x: r.left + (xa + xb) / 2, y: r.top + y, lane: tr.L.label, depth: d };
        }
      }
    }
    return null;
  }
}
