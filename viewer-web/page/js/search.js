/* search.js -- finding scopes by name, and showing them: the search box
 * (a case-insensitive substring of the name as shown, folded or not),
 * next / previous occurrence, and the highlight on the timeline, which
 * also shows the scope picked in the top table (docs/web.md, "Search").
 *
 * The highlight dims every slice that does not match: it stands in for
 * the timeline's colors (same px()/of() interface), so the timeline's
 * drawing code does not change and a shifted live frame still equals a
 * fresh one (a name's color depends on the name only). */

class Highlight {
  constructor(colors, store) {
    this.colors = colors;
    this.store = store;
    this.test = null;     /* label -> boolean, or null: nothing highlighted */
    /* Matching names keep their color, the others are dimmed. */
    this.pxc = new PxCache((id) => {
      if (this.store.names[id] === undefined) return null;
      const base = this.colors.px(id);
      return this.matches(id) ? base : mixPacked(base, UI_PX.laneA, 0.18);
    }, (id) => this.colors.px(id));
    this.clear();
  }
  clear() {
    this.pxc.clear();
    this.match = [];
  }
  set(test) {
    this.test = test;
    this.clear();
  }
  matches(id) {
    let m = this.match[id];
    if (m === undefined) {
      if (this.store.names[id] === undefined) return false;   /* not named yet: ask later */
      m = this.match[id] = !!this.test && this.test(this.store.label(id));
    }
    return m;
  }
  of(id) { return this.colors.of(id); }
  px(id) { return this.pxc.get(id); }
}

class Search {
  constructor(input, count, prev, next, store, timeline, onChange) {
    this.input = input;
    this.count = count;
    this.store = store;
    this.timeline = timeline;
    this.onChange = onChange;
    this.query = '';
    this.current = null;   /* the occurrence jumped to: {L, d, s, e} */
    this.total = 0;
    input.addEventListener('input', () => this.set(input.value));
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') { this.step(e.shiftKey ? -1 : 1); e.preventDefault(); }
      if (e.key === 'Escape') { this.set(''); input.blur(); e.preventDefault(); }
    });
    prev.addEventListener('click', () => this.step(-1));
    next.addEventListener('click', () => this.step(1));
  }

  /* Whether a name as shown matches the query. */
  test(label) { return label.toLowerCase().includes(this.query); }
  get active() { return this.query !== ''; }

  set(q) {
    if (this.input.value !== q) this.input.value = q;
    this.query = q.trim().toLowerCase();
    this.current = null;
    this.onChange();
    this.recount();
  }

  /* Matching slices the page holds, and the place of the occurrence
   * jumped to, counted together from the same data.  Live, slices keep
   * arriving and old ones are trimmed: a total counted when the query
   * was typed beside a place counted at a later jump read "37501 of
   * 37280".  step() recounts both, and interact.js once a second while
   * the data changes (paced by what it costs). */
  recount() {
    let n = 0;
    const hit = this.active ? this.matcher() : null;
    if (hit)
      for (const L of this.store.laneOrder)
        for (const R of L.rows) if (R) for (let i = R.lo; i < R.n; i++) if (hit(R.nm[i])) n++;
    this.total = n;
    if (this.current) this.current.index = hit && this.held(this.current) ? this.placeOf(this.current.s, hit) : 0;
    this.showCount();
  }
  showCount() {
    if (!this.active) { this.count.textContent = ''; return; }
    const c = this.current;
    const text = c && c.index > 0 ? `${c.index} of ${this.total}` : `${this.total} found`;
    if (this.count.textContent !== text) this.count.textContent = text;
  }
  /* Whether the page still holds that occurrence (not trimmed, its lane not retired). */
  held(c) {
    const R = c.L.rows[c.d];
    if (!R || !this.store.laneOrder.includes(c.L)) return false;
    const i = R.lowerBound(0, c.s);
    return i < R.n && R.s[i] === c.s && R.nm[i] === c.name;
  }
  matcher() {
    const memo = [], s = this.store;
    return (id) => {
      let m = memo[id];
      if (m === undefined) m = memo[id] = this.test(s.label(id));
      return m;
    };
  }

  /* The next (dir 1) or previous (-1) matching slice after the one
   * jumped to, or after the left edge of the view; wraps around.  Order:
   * by start time, then lane, then depth. */
  step(dir) {
    if (!this.active) return;
    const hit = this.matcher(), cur = this.current;
    const key = (s, li, d) => [s, li, d];
    const before = (x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
    const from = cur ? key(cur.s, this.store.laneOrder.indexOf(cur.L), cur.d) : key(this.timeline.t0, -1, -1);
    let best = null, wrap = null;
    this.store.laneOrder.forEach((L, li) => {
      L.rows.forEach((R, d) => {
        if (!R) return;
        if (dir > 0) {
          /* The first match at or after `from` in this row, and the first overall (to wrap). */
          for (let i = R.lowerBound(0, from[0]); i < R.n; i++) {
            if (!hit(R.nm[i])) continue;
            const k = key(R.s[i], li, d);
            if (before(k, from) <= 0) continue;
            if (!best || before(k, best.k) < 0) best = { k, L, d, i };
            break;
          }
          for (let i = R.lo; i < R.n && !(wrap && R.s[i] > wrap.k[0]); i++)
            if (hit(R.nm[i])) { const k = key(R.s[i], li, d); if (!wrap || before(k, wrap.k) < 0) wrap = { k, L, d, i }; break; }
        } else {
          for (let i = R.lowerBound(0, from[0] + 1) - 1; i >= R.lo; i--) {
            if (!hit(R.nm[i])) continue;
            const k = key(R.s[i], li, d);
            if (before(k, from) >= 0) continue;
            if (!best || before(k, best.k) > 0) best = { k, L, d, i };
            break;
          }
          for (let i = R.n - 1; i >= R.lo && !(wrap && R.s[i] < wrap.k[0]); i--)
            if (hit(R.nm[i])) { const k = key(R.s[i], li, d); if (!wrap || before(k, wrap.k) > 0) wrap = { k, L, d, i }; break; }
        }
      });
    });
    const got = best || wrap;
    if (!got) return;
    const R = got.L.rows[got.d];
    this.current = { L: got.L, d: got.d, s: R.s[got.i], e: R.e[got.i], name: R.nm[got.i], index: 0 };
    this.recount();
    this.timeline.reveal(this.current);
  }

  /* A place among the matches, by start time (1-based). */
  placeOf(s, hit) {
    let n = 0;
    for (const L of this.store.laneOrder)
      for (const R of L.rows) if (R) for (let i = R.lo; i < R.n && R.s[i] < s; i++) if (hit(R.nm[i])) n++;
    return n + 1;
  }
}
