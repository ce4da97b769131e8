/* range.js -- selecting a stretch of time: drag on the time ruler, or
 * shift-drag anywhere on the timeline.  While a range is selected the top
 * table, the flame graph and the latency panel describe it only, from
 * the slices the page holds (rangestats.js); Esc clears it (keys.js).
 * A plain drag still pans: the ruler and the shift key are ours. */

class RangeSelect {
  constructor(box, timeline, onChange) {
    this.timeline = timeline;
    this.onChange = onChange;
    this.range = null;     /* {a, b} in ns since the start, a < b */
    this.dragging = null;  /* {t}: where the drag began */
    /* Capture, on the canvas' parent: before the timeline's own pan. */
    box.addEventListener('mousedown', (e) => {
      if (e.button !== 0) return;
      const r = timeline.canvas.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top;
      if (x < GUTTER || !(e.shiftKey || y < RULER_H)) return;
      e.stopPropagation();
      e.preventDefault();
      timeline.tip.hidden = true;
      this.dragging = { t: timeline.tOf(x), x: e.clientX };
    }, { capture: true });
    window.addEventListener('mousemove', (e) => {
      if (!this.dragging) return;
      const r = timeline.canvas.getBoundingClientRect();
      const x = Math.max(GUTTER, Math.min(timeline.W, e.clientX - r.left));
      if (Math.abs(e.clientX - this.dragging.x) < 3) return;
      /* Selecting holds the view still: the range is a moment, not "now". */
      timeline.setLive(false);
      const t = timeline.tOf(x);
      this.set(Math.min(t, this.dragging.t), Math.max(t, this.dragging.t), true);
    });
    window.addEventListener('mouseup', () => {
      if (!this.dragging) return;
      const moved = this.range && this.range.pending;
      this.dragging = null;
      if (moved) this.set(this.range.a, this.range.b, false);
    });
  }

  /* pending: still being dragged (the panels follow when it is let go). */
  set(a, b, pending) {
    if (!(b > a)) return;
    this.range = { a, b, pending: !!pending };
    this.timeline.dirty = true;
    if (!pending) this.onChange();
  }

  clear() {
    if (!this.range) return false;
    this.range = null;
    this.dragging = null;
    this.timeline.dirty = true;
    this.onChange();
    return true;
  }

  get active() { return !!(this.range && !this.range.pending); }
}
