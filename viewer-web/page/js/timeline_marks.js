/* timeline_marks.js -- what the timeline draws over its picture for the
 * interaction features: the selected range (shaded outside, edged, with
 * its length on the ruler) and the occurrence the search jumped to
 * (outlined).  Drawn on the canvas after each frame, never into the
 * raster, so the live frames' shift-and-patch is untouched.  Methods of
 * Timeline (mixInto). */

class TimelineMarks {
  /* Show a slice: paused, centered, at least a few pixels wide. */
  reveal(occ) {
    this.setLive(false);
    const dur = Math.max(0, occ.e - occ.s);
    if ((dur * this.plotW) / this.span < 6) this.span = Math.min(MAX_SPAN, Math.max(MIN_SPAN, dur * 5));
    this.t1 = (occ.s + occ.e) / 2 + this.span / 2;
    /* Scroll its lane into view. */
    const tr = this.laneTrack(occ.L.id);
    if (tr) {
      const y = tr.rowsY + Math.min(occ.d, tr.rows - 1) * ROW_H, viewH = this.H - RULER_H;
      if (y < this.scrollY || y + ROW_H > this.scrollY + viewH) this.scrollY = y - viewH / 3;
      this.clampScroll();
    }
    this.moved();
  }

  drawMarks() {
    const ctx = this.ctx, m = this.marks;
    if (!m) return;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    const r = m.range ? m.range() : null;
    if (r) {
      const xa = Math.max(GUTTER, Math.min(this.W, this.xOf(r.a))), xb = Math.max(GUTTER, Math.min(this.W, this.xOf(r.b)));
      ctx.fillStyle = 'rgba(8, 10, 14, 0.55)';
      ctx.fillRect(GUTTER, RULER_H, xa - GUTTER, this.H - RULER_H);
      ctx.fillRect(xb, RULER_H, this.W - xb, this.H - RULER_H);
      ctx.fillStyle = 'rgba(122, 180, 255, 0.35)';
      ctx.fillRect(xa, 0, xb - xa, RULER_H - 1);
      ctx.fillStyle = UI.now;
      if (this.xOf(r.a) >= GUTTER) ctx.fillRect(xa, 0, 1, this.H);
      if (this.xOf(r.b) <= this.W) ctx.fillRect(xb - 1, 0, 1, this.H);
      ctx.font = FONT_MONO;
      ctx.textBaseline = 'middle';
      ctx.textAlign = 'center';
      const text = fmtDur(r.b - r.a) + (r.pending ? '' : '  · Esc clears');
      if (xb - xa > 60) {
        /* Over the ruler's own labels: on a plate of its own. */
        const w = Math.min(xb - xa - 4, ctx.measureText(text).width + 12);
        ctx.fillStyle = '#1f3350';
        ctx.fillRect((xa + xb) / 2 - w / 2, 3, w, RULER_H - 7);
        ctx.fillStyle = UI.text;
        ctx.fillText(text, (xa + xb) / 2, RULER_H / 2);
      }
    }
    const cur = m.current ? m.current() : null;
    const tr = cur ? this.laneTrack(cur.L.id) : null;
    if (tr && cur.d < tr.rows) {
      const top = RULER_H - this.scrollY, ry = top + tr.rowsY + cur.d * ROW_H;
      const xa = Math.max(GUTTER, this.xOf(cur.s)), xb = Math.min(this.W, this.xOf(cur.e));
      if (xb >= GUTTER && xa <= this.W && ry + ROW_H > RULER_H) {
        ctx.save();
        ctx.beginPath();
        ctx.rect(GUTTER, RULER_H, this.W - GUTTER, this.H - RULER_H);
        ctx.clip();
        ctx.strokeStyle = '#ffd866';
        ctx.lineWidth = 2;
        ctx.strokeRect(xa - 1, ry - 1, Math.max(2, xb - xa + 2), ROW_H);
        ctx.restore();
      }
    }
    if (m.counters) m.counters(this);
  }
}
mixInto(Timeline, TimelineMarks);
