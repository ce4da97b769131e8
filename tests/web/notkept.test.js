/* notkept.test.js -- the words of every tool (suite web; issue 18, item 9).
 *
 * A program whose rings wrapped before recorder-web attached, and that is
 * quiet since: what the rings had overwritten before recorder-web first
 * read them is "not kept", never "lost" (docs/format.md, "Loss"), as
 * recorder-top counts it.  recorder-web showed red "lost" entries at
 * every attach (53 to 452), and so marked every row of the page partial.
 * Here: STATUS says lost 0 (overwritten, dropped, bad: 0) and not kept
 * > 0, and the statistics of every window are not partial. */
'use strict';
const { startTargetLines, startServer, stop, check, main, until } = require('./harness');
const { Peer } = require('./peer');

main(async () => {
  /* 16 KiB rings (1024 entries) and 20 000 events a worker: every ring
   * wraps many times before recorder-web starts. */
  const target = await startTargetLines(['--threads', '4', '--rate', '1000000', '--work-ns', '0', '--events', '20000'],
    { RECORDER_RING_KB: '16' });
  check(await until(() => target.lines.includes('done'), 120000), 'the program wrapped its rings, then went quiet');
  const srv = await startServer([String(target.pid), '--port', '0']);
  const p = await Peer.open(srv.port, srv.token);
  /* Its first pass read every ring: the history is counted, and the
   * statistics of the window are computed from what it read. */
  p.setWindow(2);   /* the whole run: the default 10 s may be past the quiet program's events */
  const read = await until(() => p.statusMsg && p.statusMsg.notKept > 0 && p.statsMsg && p.statsMsg.window === 2 &&
    p.statsMsg.rows.length > 0, 30000);
  check(read, 'recorder-web read the rings (not kept > 0, rows in the table)', p.statusMsg);
  const st = p.statusMsg || {};
  check(st.lost === 0 && st.overwritten === 0 && st.dropped === 0 && st.bad === 0,
    'lost 0: history overwritten before recorder-web looked is not a loss', st);
  check(st.notKept > 0, `not kept ${st.notKept}: the history the rings no longer held`);
  /* The last 1 s and 10 s slide with the clock: on a loaded machine the
   * quiet program's events may have left them before the page asks, so
   * only the whole run (2) must have rows. */
  for (const w of [0, 1, 2]) {
    p.statsMsg = null;
    p.setWindow(w);
    const got = await until(() => p.statsMsg && p.statsMsg.window === w && (w !== 2 || p.statsMsg.rows.length > 0), 20000);
    const cover = got ? p.statsMsg.cover : null;
    check(cover && !cover.partial && cover.lost === 0, `window ${w}: no row is partial (cover lost 0; ${got ? p.statsMsg.rows.length : 0} rows)`, cover);
  }
  p.close();
  check(await stop(srv.proc) === 0, 'recorder-web exits 0 on SIGTERM');
  await stop(target.proc);
});
