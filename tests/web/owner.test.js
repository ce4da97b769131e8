/* owner.test.js -- recorder-web's start-up line says whose segment it is
 * (suite web; issue 18, item 6).
 *
 * Another user squats a RECORDER_NAME: root who runs `recorder-web NAME`
 * watches that user's program.  The start-up line labels it "owned by uid
 * N", in the CLI's words (rec_owner_str: `recorder ls`, dump and report
 * say the same); a program of root's own is not labelled.  Needs root to
 * run a program as a second user (uid 65534): skipped, exit 77, without. */
'use strict';
const { startTargetLines, startServer, stop, check, main, until } = require('./harness');

if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
  console.log('SKIP: needs root to run a program as a second user (uid 65534)');
  process.exit(77);
}

/* The second user must reach web_target: every folder above it searchable
 * by others.  A build tree under a private folder (a checkout in a 0700
 * home or mktemp -d) is not: then it runs from a copy in a root-owned 0755
 * folder (web_target links nothing from the build tree). */
{
  const fs = require('fs'), path = require('path');
  const exe = process.env.WEB_TARGET || '';
  let reachable = true;
  for (let d = exe; d && d !== path.dirname(d); d = path.dirname(d)) {
    let st = null;
    try { st = fs.statSync(d); } catch (e) { break; }
    if (!(st.mode & 0o001)) reachable = false;
  }
  if (!reachable) {
    const dir = fs.mkdtempSync('/tmp/web-owner-bin-');   /* not TMPDIR: it may be private too */
    fs.chmodSync(dir, 0o755);
    const copy = path.join(dir, 'web_target');
    fs.copyFileSync(exe, copy);
    fs.chmodSync(copy, 0o755);
    process.env.WEB_TARGET = copy;
    process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  }
}

main(async () => {
  const other = 65534;
  const name = 'web-owner-test-' + process.pid;
  const args = ['--threads', '1', '--rate', '1000', '--work-ns', '0'];
  const squat = await startTargetLines(args, { RECORDER_NAME: name }, { uid: other, gid: other });
  const srv = await startServer([name, '--port', '0']);
  const line = () => srv.stderr.text.split('\n').find((l) => /watching/.test(l));
  check(await until(line, 20000), 'recorder-web printed its start-up line', srv.stderr.text);
  check(line() && line().includes(`(pid ${squat.pid}, owned by uid ${other})`),
    `another user's segment: "owned by uid ${other}"`, line());
  await stop(srv.proc);

  const own = await startTargetLines(args);
  const mine = await startServer([String(own.pid), '--port', '0']);
  const line2 = () => mine.stderr.text.split('\n').find((l) => /watching/.test(l));
  check(await until(line2, 20000), 'recorder-web printed its start-up line for root\'s own program');
  check(line2() && line2().includes(`(pid ${own.pid})`) && !/owned by/.test(line2()), 'root\'s own: no label', line2());
  await stop(mine.proc);
  await stop(squat.proc);
  await stop(own.proc);
});
