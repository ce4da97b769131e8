/* counters.js -- what a counter track says besides its line: a value axis
 * (the track's scale, lowest to highest value seen, with its middle) and
 * a min / avg / max summary of the values in view, or in the selected
 * range when there is one (docs/web.md, "Counters"); following live time
 * the view's summary is half a second old or more (on a busy page).  avg is the mean of
 * the values recorded there (every thread's), not weighted by time.
 * Paused, the summaries hold still with everything else. */

class CounterSummary {
  constructor(store, timeline, range) {
    this.store = store;
    this.timeline = timeline;
    this.range = range;
    this.cache = new Map();   /* counter name id -> {a, b, what, at, next, n, min, avg, max} */
  }

  /* The stretch summarized: the range, else the view. */
  span() {
    const r = this.range.active ? this.range.range : null, tl = this.timeline;
    return r ? { a: r.a, b: r.b, what: 'range' } : { a: tl.t0, b: tl.t1, what: 'view' };
  }

  /* Every value of c recorded in [a, b]. */
  compute(c, a, b) {
    let n = 0, sum = 0, min = Infinity, max = -Infinity;
    for (const S of c.series.values())
      for (let i = S.lowerBound(0, a); i < S.n && S.t[i] <= b; i++) {
        const v = S.v[i];
        n++;
        sum += v;
        if (v < min) min = v;
        if (v > max) max = v;
      }
    return { n, min, max, avg: n ? sum / n : NaN };
  }

  /* Recomputed when the stretch moved, and following live time now and
   * then (at most twice a second); never while paused. */
  of(c) {
    const { a, b, what } = this.span(), now = performance.now();
    let e = this.cache.get(c.name);
    /* A capture file's window read anew (fileview.js) is new values too. */
    const moved = !e || e.what !== what || e.detail !== this.store.rangeAnswer || (what === 'range' ? e.a !== a || e.b !== b : !this.timeline.live && (e.a !== a || e.b !== b));
    if (moved || (this.timeline.live && now >= e.next)) {
      e = { ...this.compute(c, a, b), a, b, what, at: now, detail: this.store.rangeAnswer };
      /* A busy counter has millions of values in a wide view: live, the
       * summary takes at most a fiftieth of the time. */
      e.next = now + Math.max(500, 50 * (performance.now() - now));
      this.cache.set(c.name, e);
    }
    return e;
  }

  text(c) {
    const e = this.of(c);
    if (!e.n) return 'no values in ' + e.what;
    return `min ${fmtValue(e.min)} avg ${fmtValue(e.avg)} max ${fmtValue(e.max)}`;
  }

  /* The value axis of each counter track in view: its scale's top,
   * middle and bottom, at the plot's left edge. */
  drawAxes(tl) {
    const ctx = tl.ctx, top = RULER_H - tl.scrollY;
    ctx.font = '10px ' + FONT_MONO.replace(/^\S+\s/, '');
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    for (const tr of tl.tracks) {
      if (tr.kind !== 'counter') continue;
      const y = top + tr.y;
      if (y + tr.h < RULER_H || y > tl.H) continue;
      const c = tr.c, lo = c.min, hi = c.max > c.min ? c.max : c.min + 1;
      const yT = y + 5, h = tr.h - 10;
      for (const [v, yy] of [[hi, yT], [(lo + hi) / 2, yT + h / 2], [lo, yT + h]]) {
        if (yy < RULER_H + 4) continue;
        const text = fmtValue(v), w = ctx.measureText(text).width;
        ctx.fillStyle = 'rgba(14, 16, 20, 0.8)';
        ctx.fillRect(GUTTER + 2, yy - 6, w + 8, 12);
        ctx.fillStyle = UI.faint;
        ctx.fillRect(GUTTER, yy, 4, 1);
        ctx.fillStyle = UI.muted;
        ctx.fillText(text, GUTTER + 6, yy);
      }
    }
  }
}
