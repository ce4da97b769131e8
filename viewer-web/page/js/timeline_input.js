/* timeline_input.js -- zoom, pan and scroll with the wheel, the mouse and
 * the keys app.js binds.  Methods of Timeline (mixInto). */

class TimelineInput {
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
}
mixInto(Timeline, TimelineInput);
