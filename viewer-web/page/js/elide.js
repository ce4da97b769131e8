/* elide.js -- names cut to fit without reading the same (issue 20): among
 * the names shown together (the top table's rows, the search's results),
 * what a name shares with another at its start or at its end is what gets
 * cut, never the part that tells them apart.  `matmul_blk.3.ffn_down`
 * beside `matmul_blk.11.ffn_down` reads `…blk.3.ffn_down` and
 * `…blk.11.ffn_down`, where a cut in a fixed place read `matmul_…` ten
 * times.  A number is never split: `blk.1.x` beside `blk.11.x` keeps the
 * whole 1 and 11.  The full name stays on hover (title) and in the
 * details (the latency panel's heading).  One function, unit-tested by
 * tests/web/elide.test.js. */

const ELL = '\u2026';

/* The names as shown in `room`: measure(shown) <= room where possible
 * (measure defaults to the length in characters; the page passes the
 * text's width in pixels).  Names that fit are left alone. */
function elideNames(names, room, measure = (s) => s.length) {
  const n = names.length, pre = new Array(n).fill(0), suf = new Array(n).fill(0);
  const isDigit = (c) => c >= '0' && c <= '9';
  /* The longest start (end) a name shares with any other: its
   * neighbours in sorted order of the names (of the reversed names). */
  const shared = (key, common, into) => {
    const order = [...names.keys()].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    for (let j = 0; j + 1 < n; j++) {
      const a = order[j], b = order[j + 1], c = common(names[a], names[b]);
      into[a] = Math.max(into[a], c);
      into[b] = Math.max(into[b], c);
    }
  };
  const rev = names.map((s) => [...s].reverse().join(''));
  shared((i) => names[i], (a, b) => { let k = 0; while (k < a.length && k < b.length && a[k] === b[k]) k++; return k; }, pre);
  shared((i) => rev[i], (a, b) => {
    let k = 0;
    while (k < a.length && k < b.length && a[a.length - 1 - k] === b[b.length - 1 - k]) k++;
    return k;
  }, suf);
  return names.map((s, i) => {
    if (measure(s) <= room) return s;
    let P = pre[i], S = Math.min(suf[i], s.length - P);
    /* The differing part keeps its numbers whole. */
    while (P > 0 && isDigit(s[P - 1])) P--;
    while (S > 0 && isDigit(s[s.length - S])) S--;
    const head = s.slice(0, P), mid = s.slice(P, s.length - S), tail = s.slice(s.length - S);
    /* The largest k in [0, max] for which ok(k) holds (ok is monotone),
     * or -1 when none does. */
    const most = (max, ok) => {
      if (!ok(0)) return -1;
      let lo = 0, hi = max;
      while (lo < hi) {
        const m = (lo + hi + 1) >> 1;
        if (ok(m)) lo = m; else hi = m - 1;
      }
      return lo;
    };
    const lead = (k) => (k >= P ? head : ELL + head.slice(P - k));
    if (mid.length > 0) {
      /* The whole end, then as much of the shared start as fits. */
      let k = most(P, (k) => measure(lead(k) + mid + tail) <= room);
      /* Cut at a word's start when the kept part has one: …blk.3, not …_blk.3. */
      if (k > 0 && k < P) {
        const at = head.slice(P - k).search(/[._:/\- ][^._:/\- ]/);
        if (at >= 0) k -= at + 1;
      }
      if (k >= 0) return lead(k) + mid + tail;
      /* Not even that: the differing part, then as much of the end. */
      const lb = P > 0 ? ELL : '';
      const j = most(S - 1, (j) => measure(lb + mid + tail.slice(0, j) + ELL) <= room);
      if (j >= 0) return lb + mid + tail.slice(0, j) + ELL;
    }
    /* Nothing tells it apart, or the differing part alone is too wide:
     * its start, cut at the end. */
    const j = most(s.length - 1, (j) => measure(s.slice(0, j) + ELL) <= room);
    return s.slice(0, Math.max(0, j)) + ELL;
  });
}

/* A measure for elideNames: a text's width in px in a CSS font, cached
 * (the page measures the same names on every render). */
function textMeasure(font) {
  const ctx = document.createElement('canvas').getContext('2d'), memo = new Map();
  ctx.font = font;
  const m = (s) => {
    let w = memo.get(s);
    if (w === undefined) {
      if (memo.size > 20000) memo.clear();
      memo.set(s, (w = ctx.measureText(s).width));
    }
    return w;
  };
  m.font = font;
  return m;
}
