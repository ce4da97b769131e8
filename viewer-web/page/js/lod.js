/* lod.js -- the whole run where the page has no detail: the server's
 * level-of-detail summary (LOD, docs/web.md "History") drawn in each lane
 * before store.detailStart, and the view fitted to a capture file's run.
 *
 * Left of where the page's detail begins (evicted past its bound, or
 * older than the page), each lane is hatched grey -- "summary only:
 * detail dropped", as lost stretches are hatched red -- and over the
 * hatching each bucket of the summary is a bar in the lane's first row:
 * as high as the lane was busy (the share of the bucket inside top-level
 * scopes; any activity at all is at least 2 px), in the color of the
 * scope that covered most of it.  A bucket in which entries were lost
 * has a red foot.  Zooming into that region shows buckets, never slices:
 * their detail is gone; zooming into the kept region shows slices.
 * Counter tracks there show the summary's counters: per bucket a band
 * from the lowest to the highest value recorded in it and a line at the
 * last one, carried over buckets without values (docs/web.md, "Counters").
 *
 * Methods join Timeline (mixInto, as timeline_hover.js does). */

const LOD_PX = {
  bg: packHex('#1c2027'),
  stripe: packHex('#2c323c'),
  lost: packHex('#a04048'),
};

class TimelineLod {
  /* The stretches [a, b) of the view that only the summary covers: before
   * the detail, and after it when it is a capture file's window
   * (fileview.js). */
  lodSpans(t0, t1) {
    const s = this.store, m = s.lodMsg, out = [];
    if (!m) return out;
    const lo = Math.max(t0, m.t0), end = s.liveNow();
    const b = Math.min(t1, s.detailStart, end);
    if (b > lo) out.push([lo, b]);
    const a2 = Math.max(lo, s.detailEnd), b2 = Math.min(t1, end);
    if (b2 > a2) out.push([a2, b2]);
    return out;
  }

  /* The widest of them, or null. */
  lodSpan(t0, t1) {
    const v = this.lodSpans(t0, t1);
    if (!v.length) return null;
    return v.length > 1 && v[1][1] - v[1][0] > v[0][1] - v[0][0] ? v[1] : v[0];
  }

  /* Lane L's summary, between its top y and bottom yb (hook: drawLane). */
  drawLod(L, y, yb, t0, t1, k) {
    let last;
    for (const span of this.lodSpans(t0, t1)) last = this.drawLodSpan(L, y, yb, t0, k, span);
    return last;
  }

  drawLodSpan(L, y, yb, t0, k, span) {
    const R = this.raster, m = this.store.lodMsg, [a, b] = span;
    const xa = GUTTER + (a - t0) * k, xb = GUTTER + (b - t0) * k;
    const band = R.rows(y, yb);
    if (!band) return;
    R.hatch(band[0], band[1], Math.max(GUTTER, xa), Math.min(this.W + 1, xb), LOD_PX.bg, LOD_PX.stripe, this.hatch);
    const ll = m.lanes.get(L.id);
    if (!ll) return;
    const w = m.width, ry = y + INSTANT_H, h = ROW_H - 2;
    const i0 = Math.max(0, Math.floor((a - m.t0) / w) - ll.first), i1 = Math.min(ll.count - 1, Math.floor((b - m.t0) / w) - ll.first);
    let lastX = -1;
    for (let i = i0; i <= i1; i++) {
      const busy = ll.busy[i], ev = ll.events[i];
      if (!busy && !ev && !ll.lost[i]) continue;
      const bs = m.t0 + (ll.first + i) * w;
      let x0 = GUTTER + (Math.max(bs, a) - t0) * k, x1 = GUTTER + (Math.min(bs + w, b) - t0) * k;
      /* Narrower than a pixel: at most one bar per pixel, the busiest wins
       * by being drawn last only if it is taller (bars share a baseline). */
      if (x1 - x0 < 1) { x0 = Math.floor(x0); x1 = x0 + 1; }
      x0 = Math.max(GUTTER, x0); x1 = Math.min(this.W + 1, x1);
      if (x1 <= x0) continue;
      if (busy || ev) {
        const bh = Math.max(2, (busy / 255) * h);
        R.rect(x0, ry + h - bh, x1, ry + h, ll.top[i] ? this.colors.px(ll.top[i]) : UI_PX.unknown);
      }
      if (ll.lost[i]) R.rect(x0, yb - 3, x1, yb, LOD_PX.lost);
      lastX = x1;
    }
    return lastX;
  }

  /* Counter c's summary where there is no detail (hook: drawCounter),
   * on its track's scale yOf. */
  drawCounterLod(c, t0, k, yOf) {
    const m = this.store.lodMsg, C = m && m.counters ? m.counters.get(c.name) : null;
    if (!C) return;
    const R = this.raster, w = m.width;
    for (const [a, b] of this.lodSpans(t0, this.t1)) {
      const i0 = Math.max(0, Math.floor((a - m.t0) / w) - C.first), i1 = Math.min(C.count - 1, Math.floor((b - m.t0) / w) - C.first);
      /* A counter holds its value until the next one: the line carries
       * the last value over buckets without values, from before the span
       * too. */
      let prevY = NaN;
      for (let j = Math.min(i0, C.count) - 1; j >= 0; j--)
        if (!Number.isNaN(C.last[j])) { prevY = Math.round(yOf(C.last[j])); break; }
      for (let i = i0; i <= i1; i++) {
        const bs = m.t0 + (C.first + i) * w;
        let x0 = GUTTER + (Math.max(bs, a) - t0) * k, x1 = GUTTER + (Math.min(bs + w, b) - t0) * k;
        if (x1 - x0 < 1) { x0 = Math.floor(x0); x1 = x0 + 1; }
        x0 = Math.max(GUTTER, x0); x1 = Math.min(this.W + 1, x1);
        if (x1 <= x0) continue;
        if (Number.isNaN(C.last[i])) {
          if (!Number.isNaN(prevY)) R.rect(x0, prevY - 0.5, x1, prevY + 1, UI_PX.counter);
          continue;
        }
        if (C.max[i] > C.min[i]) R.rect(x0, yOf(C.max[i]), x1, yOf(C.min[i]), UI_PX.band);
        const y = Math.round(yOf(C.last[i]));
        /* The line joins the last value of the bucket before. */
        const ya = Number.isNaN(prevY) ? y : Math.min(prevY, y), yb = Number.isNaN(prevY) ? y : Math.max(prevY, y);
        R.rect(x0, ya - 0.5, x0 + 1, yb + 1, UI_PX.counter);
        R.rect(x0, y - 0.5, x1, y + 1, UI_PX.counter);
        prevY = y;
      }
    }
  }

  /* For the tests: per counter track (by name), whether its column at
   * page x has any of the counter's pixels (line or band). */
  counterPixelsAt(x) {
    const R = this.raster, r = this.canvas.getBoundingClientRect(), out = {};
    for (const tr of this.tracks) {
      if (tr.kind !== 'counter') continue;
      let n = 0;
      const y0 = RULER_H - this.scrollY + tr.y, X = Math.floor((x - r.left) * R.dpr);
      for (let y = Math.max(RULER_H, y0); y < Math.min(this.H, y0 + tr.h); y++) {
        const px = R.buf[Math.floor(y * R.dpr) * R.w + X];
        if (px === UI_PX.counter || px === UI_PX.band) n++;
      }
      out[this.store.name(tr.c.name)] = n;
    }
    return out;
  }

  /* A capture file opens on its whole run, once it is read. */
  fitOnce() {
    const s = this.store, h = s.helloMsg, st = s.statusMsg;
    if (this.fitted || !h || !h.file || !st || st.loading || !s.lodMsg) return;
    this.fitted = true;
    this.fitRun();
  }

  /* The view on the whole run: from the summary's start to now. */
  fitRun() {
    const s = this.store, m = s.lodMsg, now = s.liveNow();
    const start = m ? m.t0 : Number.isFinite(s.firstBase) ? s.firstBase : now - this.span;
    const span = Math.min(MAX_SPAN, Math.max(MIN_SPAN, (now - start) * 1.02));
    this.span = span;
    this.t1 = now;
    this.moved();
  }

  /* Hover over the summary: what a bucket says (null elsewhere). */
  lodAt(L, t) {
    const s = this.store, m = s.lodMsg;
    if (!m || (t >= s.detailStart && t < s.detailEnd) || t < m.t0) return null;
    const ll = m.lanes.get(L.id), i = Math.floor((t - m.t0) / m.width) - (ll ? ll.first : 0);
    const from = m.t0 + Math.floor((t - m.t0) / m.width) * m.width;
    const b = ll && i >= 0 && i < ll.count
      ? { busy: ll.busy[i] / 255, top: ll.top[i] ? s.name(ll.top[i]) : '', events: ll.events[i], lost: !!ll.lost[i] }
      : { busy: 0, top: '', events: 0, lost: false };
    return Object.assign(b, { from, to: from + m.width });
  }

  /* The hover's hit over the summary (timeline_hover.js), or null. */
  hitLod(L, t) {
    const b = this.lodAt(L, t);
    return b ? Object.assign({ kind: 'lod', L }, b) : null;
  }

  lodTooltip(h) {
    const s = this.store, rows = [];
    rows.push(['from', fmtTime(h.from, 1e3)]);
    rows.push(['to', fmtTime(h.to, 1e3)]);
    rows.push(['busy', (100 * h.busy).toFixed(h.busy > 0 && h.busy < 0.1 ? 1 : 0) + '%']);
    if (h.top) rows.push(['mostly', h.top]);
    rows.push(['events', fmtCount(h.events)]);
    if (h.lost) rows.push(['lost', 'entries were lost here']);
    rows.push(['thread', h.L.label + (h.L.tid ? ' (' + h.L.tid + ')' : '')]);
    return {
      title: 'summary only: detail dropped',
      rows,
      note: s.helloMsg && s.helloMsg.file
        ? 'the summary of this file where the page holds no detail: zoom in and recorder-web reads that part of the file'
        : 'older than the detail this page keeps or was sent: the run\'s summary, one bucket of ' + fmtDur(h.to - h.from),
    };
  }

  /* For the tests: how many lanes are hatched summary-only at page x
   * (read in the instants strip, where no bar is drawn). */
  lodHatchedAt(x) {
    const R = this.raster, r = this.canvas.getBoundingClientRect();
    let n = 0;
    for (const tr of this.tracks) {
      if (tr.kind !== 'lane') continue;
      const y = RULER_H - this.scrollY + tr.y + 3;
      if (y < RULER_H || y >= this.H) continue;
      const px = R.buf[Math.floor(y * R.dpr) * R.w + Math.floor((x - r.left) * R.dpr)];
      if (px === LOD_PX.bg || px === LOD_PX.stripe) n++;
    }
    return n;
  }

  /* For the tests: the summary-only stretch in view (page pixels) and how
   * many lanes have bars in it. */
  lodProbe() {
    const r = this.canvas.getBoundingClientRect(), k = this.plotW / this.span, t0 = this.t0;
    const span = this.lodSpan(t0, this.t1), m = this.store.lodMsg;
    if (!span) return { region: null, lanesWithBars: 0, width: m ? m.width : 0 };
    let lanesWithBars = 0, point = null;
    const top = RULER_H - this.scrollY, xm = GUTTER + ((span[0] + span[1]) / 2 - t0) * k;
    for (const tr of this.tracks) {
      if (tr.kind !== 'lane' || !m) continue;
      const ll = m.lanes.get(tr.L.id);
      if (!ll) continue;
      const i0 = Math.max(0, Math.floor((span[0] - m.t0) / m.width) - ll.first);
      const i1 = Math.min(ll.count - 1, Math.floor((span[1] - m.t0) / m.width) - ll.first);
      for (let i = i0; i <= i1; i++) if (ll.busy[i] || ll.events[i]) { lanesWithBars++; break; }
      /* Where to hover: the middle of the region, in a lane's first row
       * where no slice of the detail is (a slice there is what a hover
       * shows). */
      const y = top + tr.rowsY + ROW_H / 2, tm = (span[0] + span[1]) / 2, R0 = tr.L.rows[0];
      const j = R0 ? R0.lowerBound(1, tm) : 0, covered = R0 && j < R0.n && R0.s[j] <= tm;
      if (!point && !covered && tr.L.depth === 0 && y > RULER_H && y < this.H) point = { x: r.left + xm, y: r.top + y, lane: tr.L.label };
    }
    return {
      region: { x0: r.left + GUTTER + (span[0] - t0) * k, x1: r.left + GUTTER + (span[1] - t0) * k, from: span[0], to: span[1] },
      lanesWithBars, width: m.width, point,
    };
  }
}
mixInto(Timeline, TimelineLod);
