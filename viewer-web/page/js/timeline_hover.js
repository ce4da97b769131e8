/* timeline_hover.js -- what the pointer is over on the timeline (a
 * slice, an instant, a counter, a stretch where entries were lost), its
 * outline and its tooltip.  Methods of Timeline (mixInto). */

class TimelineHover {
  hit(x, y) {
    if (x < GUTTER || y < RULER_H) return null;
    const s = this.store, top = RULER_H - this.scrollY;
    const t = this.tOf(x), tol = (3 * this.span) / this.plotW;
    for (const tr of this.tracks) {
      const ty = top + tr.y;
      if (y < ty || y >= ty + tr.h) continue;
      if (tr.kind === 'counter') return this.hitCounter(tr, t);
      if (tr.kind !== 'lane') return null;   /* a GPU device's header */
      const L = tr.L;
      if (y < ty + INSTANT_H) {
        const I = L.instants;
        const i = I.lowerBound(0, t - tol);
        if (i < I.n && I.t[i] <= t + tol)
          return { kind: 'instant', L, name: I.nm[i], t: I.t[i], msg: I.msg(i) };
        return this.hitGap(L, t) || this.hitLod(L, t);
      }
      const d = Math.floor((y - ty - INSTANT_H) / ROW_H);
      if (d < 0 || d >= tr.rows) return null;
      /* Over a gap as drawn, the gap: no slice lies inside one, only
       * within reach of the pointer's tolerance. */
      const g = this.hitGap(L, t);
      if (g) return g;
      if (d < L.depth && L.stkTs[d] <= t + tol)
        return { kind: 'slice', L, d, name: L.stkName[d], ts: L.stkTs[d], te: s.liveNow(), open: true };
      const row = L.rows[d];
      let i = row ? row.lowerBound(1, t - tol) : 0;
      if (row && i < row.n && row.s[i] <= t + tol) {
        /* Prefer the slice under the pointer over a neighbour within reach. */
        if (row.s[i] > t && i > row.lo && row.e[i - 1] >= t - tol) i--;
        return { kind: 'slice', L, d, name: row.nm[i], ts: row.s[i], te: row.e[i], cut: (row.fl[i] & SLICE_CUT) !== 0 };
      }
      /* Before the detail kept: the run's summary (lod.js). */
      return this.hitLod(L, t);
    }
    return null;
  }

  /* A stretch where entries were lost, under the pointer, as drawGaps
   * draws it (at least 3 px wide). */
  hitGap(L, t) {
    const G = L.gaps, px = this.span / this.plotW;
    for (let i = G.lowerBound(1, t - 3 * px); i < G.n && G.a[i] <= t + 3 * px; i++) {
      let a = G.a[i], b = G.b[i];
      if (b - a < 3 * px) { a = (a + b) / 2 - 1.5 * px; b = a + 3 * px; }
      if (t >= a && t <= b) return { kind: 'gap', L, a: G.a[i], b: G.b[i], over: G.over[i], drop: G.drop[i] };
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
    if (!h || (h.kind !== 'slice' && h.kind !== 'gap')) return;
    const tr = this.laneTrack(h.L.id);
    if (!tr) return;
    const ctx = this.ctx;
    ctx.strokeStyle = UI.hover;
    ctx.lineWidth = 1.5;
    if (h.kind === 'gap') {
      let xa = this.xOf(h.a), xb = this.xOf(h.b);
      if (xb - xa < 3) { xa = (xa + xb) / 2 - 1.5; xb = xa + 3; }
      xa = Math.max(GUTTER, xa);
      xb = Math.min(this.W, xb);
      ctx.strokeRect(xa + 0.5, top + tr.y + 0.5, Math.max(1, xb - xa - 1), INSTANT_H + tr.rows * ROW_H - 3);
      return;
    }
    const xa = Math.max(GUTTER, this.xOf(h.ts)), xb = Math.min(this.W, this.xOf(h.te));
    const ry = top + tr.rowsY + h.d * ROW_H;
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
    } else if (h.kind === 'lod') {
      return this.lodTooltip(h);
    } else if (h.kind === 'gap') {
      /* The words of every tool (docs/web.md, "Lost, not kept, partial"). */
      const n = h.over + h.drop;
      title = fmtCount(n) + (n === 1 ? ' entry' : ' entries') + ' lost here';
      rows.push(['overwritten', fmtCount(h.over)]);
      if (h.drop) rows.push(['dropped', fmtCount(h.drop)]);
      rows.push(['from', fmtTime(h.a, 1e3)]);
      rows.push(['to', fmtTime(h.b, 1e3)]);
      rows.push(['unknown for', fmtDur(h.b - h.a)]);
      rows.push(['thread', h.L.label + (h.L.tid ? ' (' + h.L.tid + ')' : '')]);
      note = 'recorder-web never read them: what the thread did between its last event before the loss and its first after it is unknown';
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
}
mixInto(Timeline, TimelineHover);
