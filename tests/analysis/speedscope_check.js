#!/usr/bin/env node
/*
 * speedscope_check.js -- loads a trace-event JSON file in speedscope (a
 * third-party consumer) in Debian's headless chromium, and checks that it
 * imports cleanly.
 *
 * Usage:
 *   node speedscope_check.js FILE [EXPECTED_THREAD_NAME...]
 *
 * Passes (exit 0) when speedscope says "Importing as Trace Event Format
 * profile", shows a profile for each expected thread name (its profiles
 * are titled "<process> (pid P), <thread> (tid T)"), and logs no warning
 * or error (speedscope warns on mis-nested B/E events: "Tried to end ...",
 * "... was still open at end of profile"; the GPU driver's WebGL chatter
 * is ignored).  Exit 1 when a check fails, 2 on bad arguments or a
 * missing browser or node module.  Other suites reuse it: keep the command
 * line stable.
 *
 * speedscope's built app (tests/node/node_modules/speedscope/dist/release)
 * and the file are served by a tiny static server on 127.0.0.1; the page
 * loads the file with #profileURL=.  The browser gets a fresh profile
 * directory and may not reach anything but that server.
 */
'use strict';
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');

const NODE_DIR = process.env.RECORDER_NODE_MODULES || path.join(__dirname, '..', 'node', 'node_modules');
const APP_DIR = path.join(NODE_DIR, 'speedscope', 'dist', 'release');
const CHROMIUM = process.env.RECORDER_CHROMIUM || '/usr/bin/chromium';
const TIMEOUT_MS = 90000;

function die(code, msg) {
  console.error(`speedscope_check: ${msg}`);
  process.exit(code);
}

const argv = process.argv.slice(2);
if (argv.length < 1 || argv[0].startsWith('-')) die(2, 'usage: speedscope_check.js FILE [EXPECTED_THREAD_NAME...]');
const file = path.resolve(argv[0]);
const expected = argv.slice(1);
if (!fs.existsSync(file)) die(2, `no such file: ${file}`);
if (!fs.existsSync(path.join(APP_DIR, 'index.html'))) die(2, `speedscope is not installed (${APP_DIR}); run scripts/deps`);
if (!fs.existsSync(CHROMIUM)) die(2, `no chromium at ${CHROMIUM}`);
let pw;
try {
  pw = require(path.join(NODE_DIR, 'playwright-core'));
} catch (e) {
  die(2, `playwright-core is not installed in ${NODE_DIR}; run scripts/deps`);
}

const TYPES = {'.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json',
  '.png': 'image/png', '.ico': 'image/x-icon', '.woff2': 'font/woff2', '.wasm': 'application/wasm',
  '.txt': 'text/plain'};

/* Serves the app's files and the trace as /profile.json, nothing else. */
function serve(req, res) {
  const url = decodeURIComponent((req.url || '/').split(/[?#]/)[0]);
  let p;
  if (url === '/profile.json') p = file;
  else {
    p = path.resolve(APP_DIR, '.' + (url === '/' ? '/index.html' : url));
    if (!p.startsWith(APP_DIR + path.sep)) {
      res.writeHead(403);
      res.end();
      return;
    }
  }
  fs.readFile(p, (err, data) => {
    if (err) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, {'Content-Type': TYPES[path.extname(p)] || 'application/octet-stream'});
    res.end(data);
  });
}

/* Console chatter that says nothing about the profile. */
function ignorable(text) {
  return /GL Driver Message|WebGL|GPU stall|SwiftShader|Automatic fallback to software WebGL/i.test(text);
}

async function main() {
  const server = http.createServer(serve);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'speedscope-check-'));
  const problems = [];
  const logs = [];
  let ctx;
  try {
    ctx = await pw.chromium.launchPersistentContext(profileDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    await ctx.route('**/*', (route) =>
      route.request().url().startsWith(origin + '/') ? route.continue() : route.abort());
    const page = ctx.pages()[0] || (await ctx.newPage());
    let imported = null;
    const importedP = new Promise((resolve) => { imported = resolve; });
    page.on('console', (m) => {
      const text = m.text();
      logs.push(`${m.type()}: ${text}`);
      if (/^Importing as /.test(text)) imported(text);
      if ((m.type() === 'warning' || m.type() === 'error') && !ignorable(text)) problems.push(`console ${m.type()}: ${text}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.goto(`${origin}/index.html#profileURL=${encodeURIComponent(origin + '/profile.json')}`);
    let timer;
    const how = await Promise.race([importedP,
      new Promise((resolve) => { timer = setTimeout(() => resolve(null), TIMEOUT_MS); })]);
    clearTimeout(timer);
    if (how !== 'Importing as Trace Event Format profile') {
      problems.push(how ? `speedscope imported it another way: "${how}"` : 'speedscope never imported the file');
    } else {
      /* The toolbar shows the current profile's title; with several, the
       * profile selector lists them all (rows titled with the name). */
      for (const t0 = Date.now(); ; await page.waitForTimeout(200)) {
        if (await page.evaluate(() => document.body.innerText.includes('(tid '))) break;
        if (problems.length) break;   /* e.g. "Empty profile": nothing will show */
        if (Date.now() - t0 > TIMEOUT_MS) throw new Error('speedscope showed no profile');
      }
      await page.waitForTimeout(500);   /* let the first render log what it logs */
      let titles = await page.$$eval('tr[title]', (rows) => rows.map((r) => r.getAttribute('title')));
      if (!titles.length) {
        const text = await page.evaluate(() => document.body.innerText);
        titles = text.split('\n').filter((l) => /\(tid \d+\)/.test(l)).map((l) => l.replace(/ \(\d+\/\d+\)$/, ''));
      }
      for (const want of expected) {
        if (!titles.some((t) => t.includes(`${want} (tid `))) {
          problems.push(`no profile for thread "${want}" (profiles: ${JSON.stringify(titles)})`);
        }
      }
      if (!problems.length) {
        console.log(`OK: speedscope imported a Trace Event Format profile with ${titles.length} thread(s): ` +
          titles.join('; '));
      }
    }
  } catch (e) {
    problems.push(`browser: ${e.message.split('\n')[0]}`);
  } finally {
    if (ctx) await ctx.close().catch(() => {});
    server.close();
    fs.rmSync(profileDir, {recursive: true, force: true});
  }
  if (problems.length) {
    for (const p of problems) console.log(`speedscope_check: ${p}`);
    console.log('speedscope_check: console log:');
    for (const l of logs.slice(0, 40)) console.log(`  ${l}`);
    process.exit(1);
  }
}

main().catch((e) => die(2, e.stack || String(e)));
