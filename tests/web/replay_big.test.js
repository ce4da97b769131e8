/* replay_big.test.js -- a page shown again is replayed at least the
 * newest frame it missed, even when that frame alone is larger than half
 * its queue bound (the most a replay takes): with --client-queue 16 every
 * frame of this program is (tens of KB against 8), and the replay gave
 * nothing until 2026-11-30 -- which web-hidden met when a reader behind
 * its writers flushed frames by size (suite web). */
'use strict';
const { startTarget, startServer, stop, check, main, until, quiet, drained } = require('./harness');
const { Peer } = require('./peer');

main(async () => {
  const target = await startTarget(['--threads', '2', '--rate', '100000', '--work-ns', '0', '--seconds', '600']);
  const srv = await startServer([String(target.pid), '--port', '0', '--client-queue', '16', '--client-timeout', '3600']);
  const p = await Peer.open(srv.port, srv.token);
  try {
    check(await until(() => p.events > 0, 60000), 'the page gets events', p.events);
    p.setHidden(true);
    check(await until(() => p.statusMsg && p.statusMsg.hidden > 20000 && p.statusMsg.queued === 0, 120000),
      'hidden, STATUS counts the events not sent', p.statusMsg);
    process.kill(target.pid, 'SIGSTOP');
    await quiet(p);
    const s3 = p.statusMsg, framesBefore = p.seqs.length;
    p.setHidden(false);
    check(await until(() => p.statusMsg.offered > s3.offered, 60000) && await drained(p),
      'shown again, the page is offered the newest frame it missed', p.statusMsg);
    const s4 = p.statusMsg, replayed = s4.offered - s3.offered;
    check(replayed > 0 && s3.hidden - s4.hidden === replayed && s4.sent > s3.sent,
      'it is sent that frame, and the hidden count drops by its events', { s3, s4, replayed });
    check(p.seqs.length > framesBefore && p.seqs.every((q, i) => i === 0 || q > p.seqs[i - 1]),
      'no frame twice, none out of order', p.seqs.slice(-4));
    check(p.errors.length === 0, 'every message decodes', p.errors.slice(0, 3));
  } finally {
    p.close();
    process.kill(target.pid, 'SIGCONT');   /* stopped, it would not take SIGTERM */
  }
  check(await stop(srv.proc) === 0, 'recorder-web exits 0 on SIGTERM');
  check(!/runtime error|Sanitizer/.test(srv.stderr.text), 'no sanitizer report from recorder-web');
});
