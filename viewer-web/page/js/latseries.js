/* latseries.js -- a scope's latency over the whole run, from the server
 * (LATENCY messages, viewer-web/latlod.h): the page holds the detail of
 * the last stretch only, the server a duration histogram per name per
 * bucket of the LOD grid for the whole run.  Here: which name ids to ask
 * for (a folded label may be several; their histograms are summed), and
 * P50 / P95 / P99 per bucket read from the sum, exact to the bin. */

const LAT_ASK_MAX = 8;         /* name ids asked for per label (the server bounds questions) */
const LAT_ASK_EVERY_MS = 1000;

/* The name ids shown as label (at most LAT_ASK_MAX; picked first). */
function latIds(store, label, picked) {
  const ids = picked ? [picked] : [];
  if (!nameFold.on) return ids;   /* one name per label: no scan of every name */
  for (let id = 1; id < store.names.length && ids.length < LAT_ASK_MAX; id++)
    if (id !== picked && store.names[id] !== undefined && store.label(id) === label) ids.push(id);
  return ids;
}

/* The bin holding the nearest-rank p-th of a histogram (bins ascending). */
function binRank(bins, counts, n, p) {
  const rank = Math.min(n, Math.max(1, Math.ceil(p * n)));
  let acc = 0;
  for (let j = 0; j < bins.length; j++) {
    acc += counts[j];
    if (acc >= rank) return bins[j];
  }
  return bins[bins.length - 1];
}

/* The summed series of ids' answers within [a, b] (infinite: the whole
 * run), or null if none has arrived.  Answers on a finer grid (asked
 * before it coarsened) are put on the coarsest one. */
function serverSeries(msgs, ids, a, b) {
  const got = ids.map((id) => msgs.get(id)).filter((m) => m);
  if (!got.length) return null;
  const known = got.filter((m) => m.known && m.width > 0);
  const out = { known: known.length > 0, leftOut: Math.max(...got.map((m) => m.leftOut)), rows: [], width: 0, t0: 0,
    bpd: got[0].bpd, names: got.length };
  if (!known.length) return out;
  const W = Math.max(...known.map((m) => m.width)), t0 = known[0].t0;
  out.width = W;
  out.t0 = t0;
  const by = new Map();
  for (const m of known) {
    if (m.bpd !== out.bpd) continue;
    for (const B of m.buckets) {
      const k = Math.floor((m.t0 + B.i * m.width - t0) / W);
      let g = by.get(k);
      if (!g) by.set(k, (g = { h: new Map(), lost: false }));
      g.lost = g.lost || B.lost;
      for (let j = 0; j < B.bins.length; j++) g.h.set(B.bins[j], (g.h.get(B.bins[j]) || 0) + B.counts[j]);
    }
  }
  const edge = (j) => Math.pow(10, j / out.bpd);
  for (const k of [...by.keys()].sort((x, y) => x - y)) {
    const t = t0 + k * W, g = by.get(k);
    if (t + W <= a || t > b) continue;
    const bins = [...g.h.keys()].sort((x, y) => x - y), counts = bins.map((j) => g.h.get(j));
    const n = counts.reduce((x, y) => x + y, 0);
    const p = n ? LAT_LINES.map(([q]) => { const j = binRank(bins, counts, n, q); return [edge(j), edge(j + 1)]; }) : [];
    out.rows.push({ t, n, lost: g.lost, p });
  }
  return out;
}

if (typeof module === 'object' && module.exports) module.exports = { binRank, serverSeries };
