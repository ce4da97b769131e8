/* notrec.test.js -- threads a program could not record are never silent
 * (suite web; issue 18, item 10).
 *
 * web_target with 6 workers, a dispatcher and main on RECORDER_MAX_THREADS=2:
 * the threads that found every slot live got no ring and recorded
 * nothing.  The segment counts them (header threads_no_slot), and
 * recorder-web's STATUS carries the count -- the page shows "N not
 * recorded" in its header -- the same number `recorder ls --json` reads. */
'use strict';
const { startTargetLines, startServer, stop, check, main, until, run, need } = require('./harness');
const { Peer } = require('./peer');

main(async () => {
  const target = await startTargetLines(['--threads', '6', '--rate', '100000', '--work-ns', '0', '--events', '2000'],
    { RECORDER_MAX_THREADS: '2' });
  check(await until(() => target.lines.includes('done'), 120000), 'the program ran and went quiet');
  /* stderr is another pipe than the "done" of stdout: read when it comes. */
  await until(() => /not recorded/.test(target.stderr.text), 20000);
  const said = target.stderr.text.split('\n').filter((l) => /not recorded/.test(l));
  check(said.length === 1 && /^recorder: thread \d+ is not recorded: all 2 thread slots are in use/.test(said[0]),
    'the program said so, in one line on stderr', target.stderr.text);
  const ls = await run(need('RECORDER_CLI'), ['ls', '--json']);
  const mine = ls.stdout.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l))
    .find((o) => o.name === 'recorder.' + target.pid);
  const n = mine ? mine.threads_not_recorded : -1;
  check(n > 0, `recorder ls --json: ${n} threads not recorded`, mine);
  const srv = await startServer([String(target.pid), '--port', '0']);
  const p = await Peer.open(srv.port, srv.token);
  check(await until(() => p.statusMsg && p.statusMsg.notRecorded === n, 20000),
    `STATUS: ${n} threads not recorded, as ls says`, p.statusMsg && p.statusMsg.notRecorded);
  p.close();
  check(await stop(srv.proc) === 0, 'recorder-web exits 0 on SIGTERM');
  await stop(target.proc);
});
