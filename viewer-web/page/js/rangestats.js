/* rangestats.js -- exact figures of a stretch of time, computed in the
 * page from the slices it holds (no server round trip, no sampling):
 * the top table's rows, the flame graph's call tree and one scope's
 * durations, for a selected range (range.js) or everything held.
 *
 * What counts (docs/web.md, "Range selection"):
 *  - the table and the latency panel count the calls that begin and end
 *    inside the range, with their whole durations: a duration is a call's
 *    property, not the range's;
 *  - the flame graph shows the time spent inside the range: every slice
 *    that overlaps it, cut to it, open scopes up to now included.
 * Percentiles are nearest-rank over the exact durations.
 *
 * Partial: the page cannot vouch for a range in which a lane lost entries
 * (its gaps), in which it missed EVENTS frames (thinned), or whose start
 * it no longer holds (its history bound).  rangeCover says which; every
 * figure computed over such a range is marked. */

/* The p-th quantile of sorted values, nearest rank: the smallest value
 * with at least p of the values at or below it. */
function nearestRank(sorted, p) {
  const n = sorted.length;
  if (!n) return NaN;
  return sorted[Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1))];
}

/* What is missing from [a, b]: entries lost (gaps on the lanes), frames
 * this page missed, history no longer held. */
function rangeCover(store, a, b) {
  let lost = 0, gaps = 0, gapNs = 0;
  for (const L of store.laneOrder) {
    const G = L.gaps;
    for (let i = G.lowerBound(1, a); i < G.n && G.a[i] <= b; i++) {
      gaps++;
      lost += G.over[i] + G.drop[i];
      gapNs += Math.max(0, Math.min(b, G.b[i]) - Math.max(a, G.a[i]));
    }
  }
  let missedFrames = 0;
  for (const m of store.missedSpans) if (m[1] >= a && m[0] <= b) missedFrames += m[2];
  const evicted = a < Math.max(store.heldFrom, store.historyStart === undefined ? -Infinity : store.historyStart);
  return { lost, gaps, gapNs, missedFrames, evicted, partial: lost > 0 || missedFrames > 0 || evicted };
}

/* Why a cover is partial, in the words every tool uses. */
function coverText(c) {
  const why = [];
  if (c.lost) why.push(`${c.lost} entries lost (${c.gaps} gap${c.gaps === 1 ? '' : 's'})`);
  if (c.missedFrames) why.push(`${c.missedFrames} frames this page missed (thinned)`);
  if (c.evicted) why.push('its start is older than the history this page holds');
  return why.join('; ');
}

/* Per name id: the durations and self times of the calls that begin and
 * end inside [a, b].  A call's self time leaves out its children (the
 * next row's slices inside it, which are inside the range too). */
function rangeCalls(store, a, b) {
  const by = new Map();
  for (const L of store.laneOrder) {
    const rows = L.rows;
    for (let d = 0; d < rows.length; d++) {
      const R = rows[d], C = rows[d + 1];
      if (!R) continue;
      let j = C ? C.lowerBound(0, a) : 0;
      /* Starts and ends are both sorted in a row: the first end past b
       * ends the run. */
      for (let i = R.lowerBound(0, a); i < R.n && R.e[i] <= b; i++) {
        const s = R.s[i], e = R.e[i], nm = R.nm[i];
        let kids = 0;
        if (C) {
          while (j < C.n && C.s[j] < s) j++;
          for (; j < C.n && C.s[j] < e; j++) kids += Math.min(C.e[j], e) - C.s[j];
        }
        let g = by.get(nm);
        if (!g) by.set(nm, (g = { durs: [], total: 0, self: 0 }));
        g.durs.push(e - s);
        g.total += e - s;
        g.self += Math.max(0, e - s - kids);
      }
    }
  }
  return by;
}

/* The top table's rows for [a, b], shaped as a STATS message's. */
function rangeRows(store, a, b) {
  const span = Math.max(1, b - a), rows = [];
  for (const [name, g] of rangeCalls(store, a, b)) {
    const d = Float64Array.from(g.durs).sort(), n = d.length;
    rows.push({
      name, calls: n, rate: n / (span / 1e9), total: g.total, self: g.self,
      min: d[0], avg: g.total / n, max: d[n - 1],
      p50: nearestRank(d, 0.5), p95: nearestRank(d, 0.95), p99: nearestRank(d, 0.99),
      totalFrac: g.total / span, selfFrac: g.self / span,
    });
  }
  return rows;
}

/* The call tree of the time inside [a, b]: each slice that overlaps it,
 * cut to it, under the slice of the row above that contains it (a slice
 * whose caller's entries were lost starts at the root).  Node 0 is the
 * root; parents come before their children. */
function rangeTree(store, a, b, now) {
  const span = Math.max(1, b - a);
  const nodes = [{ name: 0, parent: 0, calls: 0, total: 0, self: 0, totalFrac: 0, selfFrac: 0 }];
  const index = new Map();
  const nodeOf = (parent, name) => {
    const key = parent + ':' + name;
    let i = index.get(key);
    if (i === undefined) {
      i = nodes.length;
      index.set(key, i);
      nodes.push({ name, parent, calls: 0, total: 0, self: 0, totalFrac: 0, selfFrac: 0 });
    }
    return i;
  };
  for (const L of store.laneOrder) {
    let pS = [], pE = [], pN = [];
    const depth = Math.max(L.rows.length, Math.min(L.depth, MAX_STACK));
    for (let d = 0; d < depth; d++) {
      const cS = [], cE = [], cN = [];
      let k = 0;
      const add = (s, e, name) => {
        /* Touching the range at an edge is not being inside it; a
         * zero-length slice inside it is. */
        const cut = Math.min(e, b) - Math.max(s, a);
        if (cut < 0 || (cut === 0 && e > s)) return;
        while (k < pS.length && pE[k] < s) k++;
        const parent = k < pS.length && pS[k] <= s && pE[k] >= e ? pN[k] : 0;
        const i = nodeOf(parent, name);
        nodes[i].calls++;
        nodes[i].total += cut;
        cS.push(s); cE.push(e); cN.push(i);
      };
      const R = L.rows[d];
      if (R) for (let i = R.lowerBound(1, a); i < R.n && R.s[i] <= b; i++) add(R.s[i], R.e[i], R.nm[i]);
      /* The open scope of this depth began after every closed one. */
      if (d < L.depth && d < MAX_STACK && L.stkTs[d] <= b) add(L.stkTs[d], Math.max(L.stkTs[d], now), L.stkName[d]);
      pS = cS; pE = cE; pN = cN;
    }
  }
  for (let i = 1; i < nodes.length; i++) nodes[nodes[i].parent].self -= nodes[i].total;
  for (let i = 1; i < nodes.length; i++) {
    const n = nodes[i];
    n.self = Math.max(0, n.self + n.total);
    n.totalFrac = n.total / span;
    n.selfFrac = n.self / span;
  }
  return nodes;
}

/* One scope's calls (by its label, so folded names count together) that
 * begin and end inside [a, b]: their durations sorted (durs), and as
 * found (raw) with each call's end (ends, in raw's order) for the
 * percentiles over time.  Typed arrays: a busy scope has millions. */
function scopeCalls(store, label, a, b) {
  const match = [], d = [], e = [];
  const is = (id) => {
    let m = match[id];
    if (m === undefined) m = match[id] = store.label(id) === label;
    return m;
  };
  for (const L of store.laneOrder)
    for (const R of L.rows) {
      if (!R) continue;
      for (let i = R.lowerBound(0, a); i < R.n && R.e[i] <= b; i++)
        if (is(R.nm[i])) { d.push(R.e[i] - R.s[i]); e.push(R.e[i]); }
    }
  const raw = Float64Array.from(d);
  return { durs: Float64Array.from(raw).sort(), raw, ends: Float64Array.from(e) };
}
