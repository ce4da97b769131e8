/* timeline.js -- the timeline: a time ruler, counter tracks, then one lane
 * per thread with its nested slices, instants on top and flow arrows
 * across.  Drawn on one canvas each animation frame.
 *
 * Cost is bounded by pixels, not events: each row finds its first visible
 * slice by binary search, and where slices are narrower than a pixel the
 * run within that pixel is drawn as one block and skipped by another
 * binary search.  So a million events in view costs about what a thousand
 * do.
 *
 * Where recorder-web lost a lane's entries, the stretch it knows nothing
 * about (from the last event before the loss to the first after it) is
 * hatched, so that it does not read as idle time.
 *
 * Hover, input and the tests' probes are in timeline_hover.js,
 * timeline_input.js and timeline_probe.js. */

const RULER_H = 26;
const COUNTER_H = 40;
const ROW_H = 18;
const INSTANT_H = 9;
const LANE_GAP = 7;
const GROUP_H = 22;            /* a GPU device's header row, above its lanes */
const GUTTER = 184;
const ROWS_SHOWN_MAX = 32;
const HATCH_PERIOD = 8;        /* device pixels between a gap's stripes */
const MIN_SPAN = 2e3;          /* 2 µs */
const MAX_SPAN = 30 * 86400e9;   /* a month: the whole of a long run (lod.js) */
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
    this.hatch = 0;           /* the gaps' stripes move with the picture (drawGaps) */
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
    if (sizeCanvas(this)) this.moved();
  }

  /* ---- layout: counter tracks, then lanes in the store's order (each
   * program's threads, then its GPU lanes, a header row above each
   * device's) ---- */
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
    let group = null;
    for (const L of s.laneOrder) {
      const g = L.gpu ? s.procIndex(L) + ':' + L.device : null;
      if (g !== null && g !== group) {
        const lanes = s.laneOrder.filter((M) => M.gpu && M.device === L.device && s.procIndex(M) === s.procIndex(L));
        const streams = lanes.filter((M) => M.kind === LANE_KIND.GPU_STREAM).length;
        const proc = s.procOf(L);
        tracks.push({ kind: 'group', device: L.device, y, h: GROUP_H, title: 'GPU ' + L.device,
          sub: (proc ? proc.name + ' ' + proc.pid + ' · ' : '') + streams + (streams === 1 ? ' stream' : ' streams'), lanes });
        y += GROUP_H;
      }
      group = g;
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
    this.fitOnce();
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
    else if (shift) {
      R.shift(GUTTER, shift, RULER_H, this.H);
      this.hatch = (this.hatch + shift) % HATCH_PERIOD;
    }
    R.clip(RULER_H, this.H, xs);
    R.rect(GUTTER, RULER_H, this.W, this.H, UI_PX.bg);
    visible.forEach(([tr, y], i) => {
      R.rect(GUTTER, y, this.W, y + tr.h - 1, tr.kind === 'group' ? UI_PX.gutter : tr.kind === 'counter' || i % 2 === 0 ? UI_PX.laneA : UI_PX.laneB);
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
      else if (tr.kind === 'lane') this.drawLane(tr, y, now, xs);
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
        /* counters.js: min / avg / max of the values in view (or the range). */
        const sub = this.counterSub ? this.counterSub(c) : fmtValue(c.last) + '  (' + fmtValue(c.min) + '–' + fmtValue(c.max) + ')';
        this.gutterText(y, this.store.name(c.name), sub, false);
      } else if (tr.kind === 'group') {
        this.groupText(y, tr);
      } else {
        const L = tr.L;
        const proc = s.procOf(L);   /* several programs: whose thread */
        this.gutterText(y, L.label, (proc ? proc.name + ' ' + proc.pid + ' · ' : '') + laneSub(L) + (L.alive ? '' : '  exited'), !L.alive);
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
    if (this.drawMarks) this.drawMarks();   /* timeline_marks.js: range, search, counter axes */
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
    /* Older than the detail kept: the run's summary (lod.js). */
    this.drawLod(L, y, y + INSTANT_H + tr.rows * ROW_H - 2, t0, t1, k);
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
    /* Over the slices: no slice lies in a gap, but a short loss drawn
     * 3 px wide overlaps its neighbours, and must not hide under them. */
    this.drawGaps(L, y, y + INSTANT_H + tr.rows * ROW_H - 2, t0, t1, k, ts);
    this.drawInstants(L, y, t0, t1, k, ts);
  }

  /* Gaps: hatched over the whole lane, at least 3 px wide so that a loss
   * over no time (a lane's first events) can still be seen and hovered.
   * The stripes' phase follows the picture when it is shifted (this.hatch
   * grows with every shift), so a shifted frame equals a fresh one. */
  drawGaps(L, ya, yb, t0, t1, k, from) {
    const G = L.gaps;
    if (G.n === G.lo) return;
    const band = this.raster.rows(ya, yb);
    if (!band) return;
    for (let i = G.lowerBound(1, Math.max(t0, from) - 2 / k); i < G.n && G.a[i] <= t1; i++) {
      let xa = GUTTER + (G.a[i] - t0) * k, xb = GUTTER + (G.b[i] - t0) * k;
      if (xb - xa < 3) { xa = (xa + xb) / 2 - 1.5; xb = xa + 3; }
      this.raster.hatch(band[0], band[1], Math.max(GUTTER, xa), Math.min(this.W + 1, xb), UI_PX.gap, UI_PX.gapStripe, this.hatch);
    }
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
    const full = this.store.label(name);
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
    /* Where the page has no detail: the run's summary (lod.js). */
    this.drawCounterLod(c, t0, k, yOf);
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
}

/* The timeline's other halves (timeline_hover.js, timeline_input.js,
 * timeline_probe.js) are classes whose methods join Timeline's. */
function mixInto(target, source) {
  for (const k of Object.getOwnPropertyNames(source.prototype))
    if (k !== 'constructor') target.prototype[k] = source.prototype[k];
}
