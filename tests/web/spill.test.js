/* spill.test.js -- recorder-web with every publication of statistics on
 * the spill thread (--spill-ms 0; viewer-web/spill.h; suites web and
 * tsan).  While the statistics are added up, a second thread reads the
 * rings, and the reader takes its reads afterwards as its own.  web_target
 * writes a known run and goes quiet, with a page on the whole run's
 * window from the start; then:
 *   - nothing was lost, and the page got every event the server read;
 *   - the statistics count, per scope name, exactly the slices that
 *     `recorder dump` of the same segment holds (an independent reader),
 *     so no read was dropped or taken twice. */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { startTarget, startServer, run, stop, stopClean, check, main, until, quiet, lineMatching, need } = require('./harness');
const { Peer } = require('./peer');

/* Completed slices per name: a B and its E on the same thread.  A scope
 * still open (web_target's "session") is no slice yet: the dump closes it
 * at its end with cat "open". */
function dumpSlices(file) {
  const d = JSON.parse(fs.readFileSync(file, 'utf8'));
  const slices = new Map(), open = new Map();
  for (const e of (Array.isArray(d) ? d : d.traceEvents)) {
    const key = e.pid + '/' + e.tid;
    if (!open.has(key)) open.set(key, []);
    if (e.ph === 'B') open.get(key).push(e.name);
    else if (e.ph === 'E') {
      const name = open.get(key).pop();
      if (e.cat !== 'open') slices.set(name, (slices.get(name) || 0) + 1);
    }
  }
  return slices;
}

main(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webspill-'));
  const json = path.join(dir, 'run.json');
  const t = await startTarget(['--threads', '3', '--rate', '20000', '--events', '40000', '--seconds', '300']);
  const done = lineMatching(t.proc, /^done$/, 120000, 'web_target');
  const srv = await startServer([String(t.pid), '--port', '0', '--spill-ms', '0']);
  const p = await Peer.open(srv.port, srv.token);
  try {
    p.setWindow(2);
    await done;
    await quiet(p);
    const st = p.statusMsg;
    check(st.lost === 0 && st.notKept === 0, 'nothing lost, nothing not kept', st);
    /* The reads above went through the spill thread at least once (its
     * count is STATUS's), or this test would say nothing about it. */
    check(st.spills >= 1, 'the spill thread read the rings', { spills: st.spills, full: st.spillsFull });
    check(await until(() => p.events === p.statusMsg.events, 10000, 100) && st.events > 100000,
      'the page got every event the server read', { page: p.events, status: p.statusMsg.events });
    const dump = await run(need('RECORDER_CLI'), ['dump', String(t.pid), '--format', 'json', '-o', json], 60000);
    check(dump.code === 0, 'recorder dump reads the segment', dump.stderr);
    const want = dumpSlices(json);
    const calls = () => {
      const s = p.statsMsg;
      if (!s || s.window !== 2) return null;
      const got = new Map();
      for (const r of s.rows) got.set(p.names[r.name], r.calls);
      return got;
    };
    const same = (got) => got && [...want].every(([n, c]) => got.get(n) === c) && [...got.keys()].every((n) => want.has(n));
    const ok = await until(() => same(calls()), 30000, 200);
    check(ok && want.size >= 5, 'the whole run\'s statistics count every slice of the dump, per name',
      { want: Object.fromEntries(want), got: calls() && Object.fromEntries(calls()) });
    check(p.errors.length === 0, 'every message decodes', p.errors.slice(0, 3));
    p.close();
    await stopClean(srv);   /* nothing a sanitizer saw */
  } finally {
    p.close();
    await stop(srv.proc);
    await stop(t.proc);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
