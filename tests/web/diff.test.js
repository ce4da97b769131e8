/* diff.test.js -- recorder-web A.rec B.rec (issue 20, item 5), the
 * server's side, no browser (suite web):
 *   - /diff.json, what the page's diff table is made of, holds the rows
 *     `recorder report A --diff B` prints for the same pair: the same
 *     names, calls, mean, P50, P99 and change in %, to report's printed
 *     precision, and for every --sort key the same order;
 *   - each row's histograms count its calls in each run;
 *   - B cut short is compared up to its last whole record, with a
 *     warning, still as report --diff compares it;
 *   - served alone (one file), /diff.json says {"diff": false};
 *   - refused with a clear message and exit 2: the same file twice (also
 *     through a symlink), more than two files, a file with a live
 *     program; a FIFO as B is refused as recorder-web refuses one (5), a
 *     B cut inside its header too (7). */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { startServer, stopClean, run, request, check, main, need, until } = require('./harness');

const KEYS = ['mean', 'p50', 'p99', 'calls', 'total', 'name'];

/* report --diff's rows: [{name, wait, calls: [a, b, change, pct], mean: [a, b, change, pct], p50, p99}]. */
function reportRows(text) {
  const lines = text.split('\n'), at = lines.findIndex((l) => /^\s+Calls\(A\)/.test(l));
  const rows = [];
  for (const l of lines.slice(at + 1)) {
    if (!l.trim() || l.includes('(no scopes')) continue;
    const parts = l.split(' | ');
    if (parts.length < 5) continue;
    let name = parts.slice(4).join(' | ');
    const wait = name.endsWith(' [wait]');
    if (wait) name = name.slice(0, -7);
    const f = (s) => s.trim().split(/\s+/);
    rows.push({ name, wait, calls: f(parts[0]), mean: f(parts[1]), p50: f(parts[2]), p99: f(parts[3]) });
  }
  return rows;
}

/* The JSON's figure as report prints it (µs, 3 decimals), and whether two
 * printed figures are the same number (a tie may round either way). */
const us = (ns) => (ns / 1e3).toFixed(3);
const same = (x, y) => x === y || (x !== '-' && y !== '-' && Math.abs(Number(x) - Number(y)) <= 0.0011);
function pct(row, fig) {
  if (!row.a) return 'new';
  if (!row.b) return 'gone';
  const va = row.a[fig], vb = row.b[fig];
  if (va === 0) return vb === 0 ? '0.0%' : '-';
  const p = (100 * (vb - va)) / va;
  return (p >= 0 ? '+' : '') + p.toFixed(1) + '%';
}
const samePct = (x, y) => x === y || (x.endsWith('%') && y.endsWith('%') && Math.abs(parseFloat(x) - parseFloat(y)) <= 0.11);

function compareRow(j, r) {
  const bad = [];
  if (j.name !== r.name || j.wait !== r.wait) bad.push(`name ${j.name} vs ${r.name}`);
  const ca = j.a ? String(j.a.calls) : '-', cb = j.b ? String(j.b.calls) : '-';
  if (ca !== r.calls[0] || cb !== r.calls[1]) bad.push(`calls ${ca} ${cb} vs ${r.calls}`);
  if (!samePct(pct(j, 'calls'), r.calls[3])) bad.push(`calls % ${pct(j, 'calls')} vs ${r.calls[3]}`);
  for (const [k, fig] of [['mean', 'mean_ns'], ['p50', 'p50_ns'], ['p99', 'p99_ns']]) {
    const xa = j.a ? us(j.a[fig]) : '-', xb = j.b ? us(j.b[fig]) : '-';
    if (!same(xa, r[k][0]) || !same(xb, r[k][1])) bad.push(`${k} ${xa} ${xb} vs ${r[k]}`);
    if (!samePct(pct(j, fig), r[k][3])) bad.push(`${k} % ${pct(j, fig)} vs ${r[k][3]}`);
  }
  return bad;
}

main(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webdiff-'));
  const a = path.join(dir, 'a.rec'), b = path.join(dir, 'b.rec'), c = path.join(dir, 'c.rec');
  /* B does more work per scope, and names its matmuls otherwise: rows in
   * both, rows only in A ("gone"), rows only in B ("new"). */
  for (const [file, extra] of [[a, ['--work-ns', '10000']], [b, ['--work-ns', '30000', '--layers', '3']]]) {
    const cap = await run(need('RECORDER_CLI'), ['capture', '-o', file, '-q', '--', need('WEB_TARGET'), '--threads', '2',
      '--rate', '3000', '--seconds', '1', ...extra], 60000);
    check(cap.code === 0 && fs.existsSync(file), `recorder capture writes ${path.basename(file)}`, cap.stderr);
  }
  const srv = await startServer([a, b, '--port', '0']);
  try {
    const said = /comparing the captures A = .*a\.rec and B = .*b\.rec \(the timeline shows A\)/;
    check(await until(() => said.test(srv.stderr.text), 20000),
      'the start-up line says what is compared and what the timeline shows', srv.stderr.text);
    const res = await request(srv.port, '/diff.json?t=' + srv.token);
    check(res.status === 200 && /application\/json/.test(res.head), '/diff.json is served as JSON', res.head);
    const d = JSON.parse(res.body.toString());
    check(d.diff === true && d.a.path === a && d.b.path === b && d.timeline === 'a', 'it names A and B, and the timeline shows A',
      { a: d.a, b: d.b, timeline: d.timeline });
    check(d.rows.some((r) => r.a && r.b) && d.rows.some((r) => !r.a) && d.rows.some((r) => !r.b),
      'rows in both runs, only in A and only in B', d.rows.map((r) => [r.name, !!r.a, !!r.b]));
    for (const key of KEYS) {
      const rep = await run(need('RECORDER_CLI'), ['report', a, '--diff', b, '--sort', key, '--top', '100000'], 60000);
      check(rep.code === 0, `recorder report --diff --sort ${key} runs`, rep.stderr);
      const rows = reportRows(rep.stdout), order = d.order[key].map((i) => d.rows[i]);
      check(rows.length === d.rows.length && rows.length >= 6, `--sort ${key}: as many rows as report's`, [rows.length, d.rows.length]);
      check(order.map((r) => r.name).join('\n') === rows.map((r) => r.name).join('\n'),
        `--sort ${key}: the page's order is report's`, { page: order.map((r) => r.name), report: rows.map((r) => r.name) });
      const bad = [];
      order.forEach((j, i) => { if (rows[i]) bad.push(...compareRow(j, rows[i])); });
      check(bad.length === 0, `--sort ${key}: calls, mean, P50, P99 and their change equal report's`, bad.slice(0, 6));
    }
    const histBad = [];
    for (const r of d.rows)
      for (const s of [r.a, r.b])
        if (s && s.hist.reduce((x, y) => x + y, 0) !== s.calls) histBad.push([r.name, s.calls, s.hist]);
    check(histBad.length === 0, "each run's histogram counts that run's calls", histBad.slice(0, 4));
    const page = await request(srv.port, '/?t=' + srv.token);
    check(page.status === 200, 'the page is served beside it');
    const noToken = await request(srv.port, '/diff.json');
    check(noToken.status === 403, '/diff.json needs the token', noToken.status);
  } finally {
    await stopClean(srv);
  }

  const one = await startServer([a, '--port', '0']);
  try {
    const res = await request(one.port, '/diff.json?t=' + one.token);
    check(res.status === 200 && JSON.parse(res.body.toString()).diff === false, 'one file: /diff.json says no diff', res.body.toString());
  } finally {
    await stopClean(one);
  }

  /* B cut short: compared up to its last whole record, with a warning,
   * as report --diff does; cut inside its header: 7, as one file. */
  const cut = path.join(dir, 'cut.rec'), tiny = path.join(dir, 'tiny.rec');
  const whole = fs.readFileSync(b);
  fs.writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
  fs.writeFileSync(tiny, whole.subarray(0, 100));
  const half = await startServer([a, cut, '--port', '0']);
  try {
    const d = JSON.parse((await request(half.port, '/diff.json?t=' + half.token)).body.toString());
    const rep = await run(need('RECORDER_CLI'), ['report', a, '--diff', cut, '--top', '100000'], 60000);
    const rows = reportRows(rep.stdout), order = d.order.mean.map((i) => d.rows[i]), bad = [];
    order.forEach((j, i) => { if (rows[i]) bad.push(...compareRow(j, rows[i])); });
    /* Half the file may end inside a record ("cut short") or on a record's
     * boundary ("no end record"): both are the reader's warning for it. */
    check(await until(() => /warning: .*cut\.rec: (cut short|no end record)/.test(half.stderr.text), 20000) && d.diff &&
      rows.length === order.length && bad.length === 0, 'B cut short: compared up to its last whole record, with a warning, as report does',
    { stderr: half.stderr.text, bad: bad.slice(0, 4) });
  } finally {
    await stopClean(half);
  }

  /* Hostile or mistaken arguments: clear errors, nothing served. */
  fs.copyFileSync(a, c);
  fs.symlinkSync(a, path.join(dir, 'link.rec'));
  const fifo = path.join(dir, 'fifo.rec');
  execFileSync('mkfifo', [fifo]);
  const refused = [
    [[a, a], 2, /same file/, 'the same file twice'],
    [[a, path.join(dir, 'link.rec')], 2, /same file/, 'the same file through a symlink'],
    [[a, b, c], 2, /two capture files are compared.*one too many/, 'three files'],
    [[a, String(process.pid)], 2, /not a capture file \(a live program/, 'a file and a live pid'],
    [[String(process.pid), a], 2, /not a capture file \(a live program/, 'a live pid and a file'],
    [[a, fifo], 5, /FIFO|fifo/, 'a FIFO as B, refused as one file is'],
    [[a, tiny], 7, /truncated capture/, 'B cut inside its header, refused as one file is'],
  ];
  for (const [args, code, re, what] of refused) {
    const r = await run(need('RECORDER_WEB'), [...args, '--port', '0'], 20000);
    check(r.code === code && re.test(r.stderr) && !/http:\/\//.test(r.stdout), `refused: ${what} (exit ${code})`,
      { code: r.code, stderr: r.stderr, stdout: r.stdout });
  }
  check(fs.readFileSync(c).equals(fs.readFileSync(a)), 'nothing was written to the files');
  fs.rmSync(dir, { recursive: true, force: true });
});
