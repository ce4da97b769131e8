/* thinning.test.js -- a page that stops reading is thinned, not waited
 * for (suite web): its queue stays bounded, recorder-web skips frames for
 * it and says how many events it skipped, and once it reads again every
 * event is accounted for: received + thinned = offered, exactly. */
'use strict';
const { startTarget, startServer, stop, check, main, until, sleep, drained } = require('./harness');
const { Peer } = require('./peer');

main(async () => {
  /* About 6 M events, far more than a 64 KB queue and the kernel's socket
   * buffers hold; then the program stays alive and quiet. */
  const target = await startTarget(['--threads', '4', '--rate', '300000', '--work-ns', '0', '--events', '1500000']);
  const doneLine = new Promise((resolve) => {
    target.proc.stdout.on('data', (d) => { if (/^done$/m.test(String(d))) resolve(); });
  });
  /* The slow page stops reading for a long while: it must not be dropped. */
  const srv = await startServer([String(target.pid), '--port', '0', '--client-queue', '64', '--client-timeout', '3600']);
  const slow = await Peer.open(srv.port, srv.token);
  /* Every STATUS that says nothing is queued must balance: a frame taken
   * off the queue but not yet sent (STATUS goes first) is still queued. */
  const unbalanced = [];
  const onStatus = slow.status.bind(slow);
  slow.status = (s) => {
    onStatus(s);
    if (s.queued === 0 && s.offered !== s.sent + s.thinned) unbalanced.push(s);
  };
  slow.ws.pause();
  const fast = await Peer.open(srv.port, srv.token);

  await doneLine;
  /* Quiet: the server's total stops moving. */
  let last = -1, same = 0;
  await until(() => {
    const s = fast.statusMsg;
    if (!s) return false;
    if (s.events === last) same++;
    else { same = 0; last = s.events; }
    return same >= 8;
  }, 120000, 250);
  const st = fast.statusMsg;
  check(st && st.events + st.overwritten > 1000000, 'recorder-web read (or counted as lost) millions of events', st);

  const rss = require('fs').readFileSync(`/proc/${srv.proc.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/);
  check(rss && Number(rss[1]) < 512 * 1024, 'recorder-web stayed small while a page did not read', rss && rss[1] + ' kB');

  slow.ws.resume();
  check(await drained(slow), 'the slow page drains its queue once it reads again', slow.statusMsg);
  const s = slow.statusMsg;
  check(s && s.thinned > 0 && s.thinnedFrames > 0, 'the slow page was thinned, and told so', s);
  check(s && slow.statusEvents === s.sent, 'it received exactly the events the server sent it', { received: slow.statusEvents, sent: s && s.sent });
  check(s && s.offered === s.sent + s.thinned, 'offered = sent + thinned: nothing lost silently', s);
  check(unbalanced.length === 0, 'every STATUS with nothing queued has offered = sent + thinned',
    unbalanced.slice(0, 3).map((x) => ({ offered: x.offered, sent: x.sent, thinned: x.thinned })));
  check(slow.errors.length === 0 && fast.errors.length === 0, 'every message decodes', slow.errors.concat(fast.errors).slice(0, 3));
  const f = fast.statusMsg;
  check(f && fast.statusEvents === f.sent && f.offered >= f.sent, 'the page that kept reading was served throughout', f);

  slow.close();
  fast.close();
  await sleep(100);
  check(await stop(srv.proc) === 0, 'recorder-web exits 0 on SIGTERM');
  await stop(target.proc);
});
