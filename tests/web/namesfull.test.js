/* namesfull.test.js -- names recorded as <strings full> are never silent
 * in recorder-web (suite web), live and from a capture file.
 *
 * web_target with --layers 1000 (a thousand long distinct names) on a
 * 16 KiB string table (RECORDER_STRINGS_KB=16): most names find the table
 * at its limit and are recorded as "<strings full>"; the segment counts
 * them (header strings_dropped).  recorder-web's STATUS carries the count
 * (the page shows it in its header, "<strings full>") -- the same number
 * `recorder ls --json` reads (names_strings_full).  Then the same program
 * is captured to a file: recorder-web serving the FILE says the count the
 * file carries (its UNRECORDED records), the one `recorder report FILE`
 * says.  Conditions only: the program's "done", the capture's exit. */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { startTargetLines, startServer, stop, check, main, until, run, need } = require('./harness');
const { Peer } = require('./peer');

/* STATUS's count from recorder-web serving source, once it equals want. */
async function statusSays(source, want, what) {
  const srv = await startServer([source, '--port', '0']);
  const p = await Peer.open(srv.port, srv.token);
  check(await until(() => p.statusMsg && p.statusMsg.namesFull === want, 20000),
    `${what}: STATUS says ${want} names recorded as <strings full>`, p.statusMsg && p.statusMsg.namesFull);
  p.close();
  check(await stop(srv.proc) === 0, `${what}: recorder-web exits 0 on SIGTERM`);
}

main(async () => {
  const cli = need('RECORDER_CLI');
  const target = await startTargetLines(['--threads', '2', '--rate', '100000', '--work-ns', '0', '--events', '20000',
    '--layers', '1000'], { RECORDER_STRINGS_KB: '16' });
  check(await until(() => target.lines.includes('done'), 120000), 'the program ran and went quiet');
  const ls = await run(cli, ['ls', '--json']);
  const mine = ls.stdout.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l))
    .find((o) => o.name === 'recorder.' + target.pid);
  const n = mine ? mine.names_strings_full : -1;
  check(n > 0, `recorder ls --json: ${n} names recorded as <strings full>`, mine);
  await statusSays(String(target.pid), n, 'live');

  /* The capture of the same program: its first pass writes the count;
   * the program is stopped once the file is there, the capture ends with it. */
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webnamesfull-'));
  const rec = path.join(dir, 'run.rec');
  const cap = run(cli, ['capture', String(target.pid), '-o', rec, '-q'], 120000);
  check(await until(() => fs.existsSync(rec), 20000), 'recorder capture started its file');
  await stop(target.proc);
  const capped = await cap;
  check(capped.code === 0, 'recorder capture ends with the program', capped.stderr);
  const report = await run(cli, ['report', rec], 60000);
  const m = /(\d+) names? recorded as <strings full>/.exec(report.stdout.split('\n')[0] || '');
  const inFile = m ? Number(m[1]) : -1;
  check(inFile >= n, `recorder report FILE: ${inFile} names recorded as <strings full> (live: ${n})`, report.stdout.slice(0, 300));
  await statusSays(rec, inFile, 'capture file');
  fs.rmSync(dir, { recursive: true, force: true });
});
