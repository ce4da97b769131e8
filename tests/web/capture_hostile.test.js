/* capture_hostile.test.js -- crafted and hostile capture files given to
 * recorder-web (suite web; under the ASan+UBSan build, any sanitizer
 * report fails it).  Each that cannot be served ends at once with one
 * line on stderr and its status from include/recorder/reader.h (docs/
 * web.md, "Exit status"): truncated (7), not a capture (5), another
 * version (6), a FIFO, a directory, a device and a symlink to a FIFO (5:
 * never opened for reading, so nothing blocks).  One cut in the middle of
 * a record, and one garbled halfway, are served up to their last whole
 * record, with a warning, and what is served decodes.  recorder-web
 * opens lazily (the chunks are checked as they are read): the warning,
 * in the words of `recorder report` (which checks the whole file first),
 * comes when the reader reaches the break, and the page's status then
 * says the file is cut. */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { startServer, run, stop, check, main, until, need } = require('./harness');
const { Peer } = require('./peer');

const REC_ERR_FORMAT = 5, REC_ERR_VERSION = 6, REC_ERR_TRUNCATED = 7;

main(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhist-hostile-'));
  const web = need('RECORDER_WEB');
  try {
    const good = path.join(dir, 'good.rec');
    const cap = await run(need('RECORDER_CLI'), ['capture', '-o', good, '-q', '--', need('WEB_TARGET'), '--threads', '2',
      '--rate', '20000', '--seconds', '1'], 60000);
    check(cap.code === 0, 'a good capture to start from', cap.stderr);
    const bytes = fs.readFileSync(good);

    const refused = async (what, file, code, re) => {
      const r = await run(web, [file, '--port', '0'], 10000);
      const lines = r.stderr.trim().split('\n');
      check(r.code === code && lines.length === 1 && re.test(lines[0]) && !r.stdout,
        `${what}: exit ${code}, one line on stderr`, { code: r.code, stderr: r.stderr, stdout: r.stdout });
    };
    const put = (name, buf) => { const f = path.join(dir, name); fs.writeFileSync(f, buf); return f; };

    await refused('a capture cut in its header', put('cut-header.rec', bytes.subarray(0, 12)), REC_ERR_TRUNCATED, /truncated/);
    const ver = Buffer.from(bytes); ver.writeUInt32LE(99, 8);
    await refused('a capture of another version', put('version.rec', ver), REC_ERR_VERSION, /version 99/);
    const hdr = Buffer.from(bytes); hdr.writeUInt32LE(3, 12);
    await refused('a corrupt header', put('header.rec', hdr), REC_ERR_FORMAT, /corrupt/);
    const src = Buffer.from(bytes); for (let i = 64 + 16; i < 64 + 48; i++) src[i] ^= 0x5a;
    await refused('a garbled source record', put('source.rec', src), REC_ERR_FORMAT, /./);
    const fifo = path.join(dir, 'fifo.rec');
    execFileSync('mkfifo', [fifo]);
    await refused('a FIFO', fifo, REC_ERR_FORMAT, /FIFO|not a recorder file/);
    await refused('a directory', dir, REC_ERR_FORMAT, /directory|not a recorder file/);
    await refused('a device', '/dev/zero', REC_ERR_FORMAT, /device|not a recorder file/);
    const link = path.join(dir, 'link.rec');
    fs.symlinkSync(fifo, link);
    await refused('a symlink to a FIFO', link, REC_ERR_FORMAT, /FIFO|not a recorder file/);

    /* Served up to the last whole record, with a warning. */
    const words = (text) => { const m = /((?:corrupt record|cut short) at byte .*)$/m.exec(text); return m ? m[1] : null; };
    const served = async (what, file) => {
      const srv = await startServer([file, '--port', '0']);
      const p = await Peer.open(srv.port, srv.token);
      const ok = await until(() => p.statusMsg && !p.statusMsg.loading && p.lodMsg && p.events > 0, 20000);
      check(ok && p.helloMsg && p.helloMsg.file, `${what}: served as a file`, { status: p.statusMsg, events: p.events });
      /* stderr is another pipe than the page's socket: read when it comes. */
      await until(() => /warning/.test(srv.stderr.text), 20000);
      check((srv.stderr.text.match(/warning/g) || []).length === 1, `${what}: recorder-web warns, once`, srv.stderr.text);
      check(p.statusMsg && p.statusMsg.truncated, `${what}: the status says the file is cut`, p.statusMsg);
      const rep = await run(need('RECORDER_CLI'), ['report', file], 30000);
      check(words(srv.stderr.text) && words(srv.stderr.text) === words(rep.stderr),
        `${what}: the warning in the words of recorder report`, { web: srv.stderr.text, report: rep.stderr });
      await windows(p, what);
      check(p.errors.length === 0, `${what}: every message decodes`, p.errors.slice(0, 3));
      const events = p.statusMsg ? p.statusMsg.events : 0;
      p.close();
      const code = await stop(srv.proc);
      check(code === 0, `${what}: stops cleanly`, { code, stderr: srv.stderr.text });
      return events;
    };
    /* Windows read on demand (the time index, docs/web.md "Saved
     * traces"), asked of a file cut or garbled: the whole file, every
     * time there is, an inverted one, one far past the end: each answered
     * once, within the file's part that is whole; nothing it holds makes
     * the reader crash, loop or ask for memory the file does not hold
     * (ASan, the suite's timeout). */
    const windows = async (p, what) => {
      const asks = [[0, 1e12], [-1e300, 1e300], [5e9, 1e9], [1e15, 2e15], [p.lodMsg ? p.lodMsg.t0 : 0, (p.lodMsg ? p.lodMsg.t0 : 0) + 1e8]];
      let id = 100, answered = 0, slices = 0;
      for (const [a, b] of asks) {
        const r = await p.range(++id, a, b);
        if (r) answered++;
        if (r && a === 0) slices = r.events;
      }
      check(answered === asks.length && slices > 0, `${what}: every window asked of it is answered, the whole one with events`,
        { answered, slices, ranges: p.ranges.slice(-5) });
    };
    const half = await served('a capture cut in a record', put('cut.rec', bytes.subarray(0, Math.floor(bytes.length / 2) + 5)));
    const garbled = Buffer.from(bytes);
    for (let i = Math.floor(bytes.length * 0.6); i < Math.floor(bytes.length * 0.6) + 64; i++) garbled[i] ^= 0xff;
    const most = await served('a capture garbled at 60%', put('garbled.rec', garbled));
    const whole = await (async () => {
      const srv = await startServer([good, '--port', '0']);
      const p = await Peer.open(srv.port, srv.token);
      await until(() => p.statusMsg && !p.statusMsg.loading && p.events > 0, 20000);
      const n = p.statusMsg ? p.statusMsg.events : 0;
      p.close();
      await stop(srv.proc);
      return n;
    })();
    /* The file shrinks after it was read: a window read then stops where
     * the file does (a read error), and is answered, cut. */
    {
      const f = put('shrinks.rec', bytes);
      const srv = await startServer([f, '--port', '0']);
      const p = await Peer.open(srv.port, srv.token);
      await until(() => p.statusMsg && !p.statusMsg.loading && p.lodMsg && p.events > 0, 20000);
      fs.truncateSync(f, Math.floor(bytes.length / 3));
      const r = await p.range(1, 0, 1e12);
      check(r && r.cut, 'a file that shrank after it was read: a window asked is answered, cut where it stops', r);
      check(p.errors.length === 0 && await stop(srv.proc) === 0, 'a file that shrank: messages decode, it stops cleanly', p.errors);
    }
    /* Both may fall in one large record: then they read the same records. */
    check(half > 0 && half <= most && most < whole, 'each is read up to where it breaks', { half, most, whole });

    /* Large chunks, one garbled at 70%: the open steps over it, and the
     * warning comes (once) when the reader gets there (the library's own
     * test, tests/cli/capture_lazy, shows the open has none). */
    const big = path.join(dir, 'big.rec');
    const cap2 = await run(need('RECORDER_CLI'), ['capture', '-o', big, '-q', '--', need('WEB_TARGET'), '--threads', '2',
      '--rate', '1000000', '--work-ns', '0', '--seconds', '1'], 60000);
    check(cap2.code === 0, 'a capture of large chunks', cap2.stderr);
    const late = fs.readFileSync(big);
    for (let i = Math.floor(late.length * 0.7); i < Math.floor(late.length * 0.7) + 8; i++) late[i] ^= 0xff;
    await served('a capture of large chunks garbled at 70%', put('late.rec', late));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
