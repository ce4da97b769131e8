/* history.test.js -- the run's summary (LOD) of a live program (suite
 * web; docs/web.md "History").  web_target writes a known number of
 * events and goes quiet; a page connected from the start gets the LOD:
 *   - its grid starts at or before the first event, its buckets are a
 *     power of two times 1 ms wide, and it ends after the last one;
 *   - every event the server read is in exactly one bucket: the buckets'
 *     events add up to STATUS's events;
 *   - every worker has a summary, busy within 0..255, its top scope one
 *     the program opens at top level;
 *   - a second page that joins late (with a history far smaller than the
 *     run) gets the same summary: the whole run, not what it was sent. */
'use strict';
const { startTarget, startServer, stop, check, main, until, quiet, lineMatching } = require('./harness');
const { Peer } = require('./peer');

function lodEvents(m) {
  let n = 0;
  for (const L of m.lanes.values()) for (let i = 0; i < L.count; i++) n += L.events[i];
  return n;
}

main(async () => {
  const t = await startTarget(['--threads', '3', '--rate', '20000', '--events', '30000', '--seconds', '300']);
  const done = lineMatching(t.proc, /^done$/, 120000, 'web_target');
  const srv = await startServer([String(t.pid), '--port', '0', '--client-queue', '64']);
  const p = await Peer.open(srv.port, srv.token);
  try {
    await done;
    await quiet(p);
    const st = p.statusMsg;
    /* The LOD goes at most once a second, when it changed: wait for the
     * one that holds what the status says was read. */
    await until(() => p.lodMsg && lodEvents(p.lodMsg) === p.statusMsg.events, 10000, 100);
    const m = p.lodMsg;
    check(m && m.n === 512 && m.width >= 1e6 && Number.isInteger(Math.log2(m.width / 1e6)),
      'the grid: 512 buckets, a power of two times 1 ms wide', m && { n: m.n, width: m.width });
    check(m && m.t0 <= p.tMin && p.tMax < m.t0 + m.n * m.width, 'the grid holds every event', m && { t0: m.t0, tMin: p.tMin, tMax: p.tMax });
    check(m && lodEvents(m) === st.events && st.events > 90000, 'the buckets\' events add up to the events read', { lod: m && lodEvents(m), status: st.events });
    const workers = [...p.lanes.values()].filter((l) => /^worker-/.test(l.name));
    const tops = new Set();
    let busyOk = true;
    for (const w of workers) {
      const L = m.lanes.get(w.id);
      if (!L) continue;
      for (let i = 0; i < L.count; i++) {
        if (L.busy[i] > 255) busyOk = false;
        if (L.top[i]) tops.add(p.names[L.top[i]]);
      }
    }
    check(workers.length === 3 && workers.every((w) => m.lanes.has(w.id)), 'every worker has a summary', workers.map((w) => w.name));
    check(busyOk && tops.has('step') && !tops.has('layer'), 'its top scopes are top-level ones', [...tops]);

    /* A late page: same summary, though its detail is only the history. */
    const q = await Peer.open(srv.port, srv.token);
    await until(() => q.lodMsg && q.statusMsg && q.events > 0, 10000, 100);
    check(q.lodMsg && lodEvents(q.lodMsg) === st.events && q.events < st.events / 4,
      'a page that joins late gets the whole run\'s summary, and only recent detail', { lod: q.lodMsg && lodEvents(q.lodMsg), detail: q.events, all: st.events });
    check(p.errors.length === 0 && q.errors.length === 0, 'every message decodes', p.errors.concat(q.errors).slice(0, 3));
    q.close();
  } finally {
    p.close();
    await stop(srv.proc);
    await stop(t.proc);
  }
});
