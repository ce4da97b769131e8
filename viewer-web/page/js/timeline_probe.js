/* timeline_probe.js -- what the tests ask the timeline (app.js exposes it
 * as window.__recorder): whether a shifted frame equals a full repaint,
 * and where a given slice, instant or gap is on screen.  Methods of
 * Timeline (mixInto). */

class TimelineProbe {
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

  /* Gaps: how many of them are in view, and the center of one drawn at
   * least minWidth pixels wide (page pixels), for a hover, with whether
   * the picture is hatched there (the raster's pixel at that point). */
  findGap(minWidth = 3) {
    const top = RULER_H - this.scrollY, r = this.canvas.getBoundingClientRect(), R = this.raster;
    const k = this.plotW / this.span, t0 = this.t0, t1 = this.t1;
    let visible = 0, best = null;
    for (const tr of this.tracks) {
      if (tr.kind !== 'lane') continue;
      const G = tr.L.gaps, y = top + tr.y + INSTANT_H + ROW_H / 2;
      if (y < RULER_H + 4 || y > this.H - 4) continue;
      for (let i = G.lowerBound(1, t0); i < G.n && G.a[i] < t1; i++) {
        visible++;
        let xa = GUTTER + (G.a[i] - t0) * k, xb = GUTTER + (G.b[i] - t0) * k;
        if (xb - xa < 3) { xa = (xa + xb) / 2 - 1.5; xb = xa + 3; }
        xa = Math.max(GUTTER, xa);
        xb = Math.min(this.W, xb);
        if (best || xb - xa < minWidth || xa < GUTTER + 8) continue;
        const x = (xa + xb) / 2, px = R.buf[Math.floor(y * R.dpr) * R.w + Math.floor(x * R.dpr)];
        best = { x: r.left + x, y: r.top + y, lane: tr.L.label, width: xb - xa,
          shaded: px === UI_PX.gap || px === UI_PX.gapStripe };
      }
    }
    return { visible, at: best };
  }
}
mixInto(Timeline, TimelineProbe);
