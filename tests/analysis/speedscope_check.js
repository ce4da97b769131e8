#!/usr/bin/env node
/*
 * speedscope_check.js -- loads a trace-event JSON file in speedscope (a
 * third-party consumer) in Debian's headless chromium, and checks that it
 * imports cleanly.
 *
 * Usage:
 *   node speedscope_check.js FILE [EXPECTED_THREAD_NAME...]
 *   node speedscope_check.js --batch LIST.json
 *
 * LIST.json is [[FILE, EXPECTED_THREAD_NAME...], ...]: every file is checked
 * in one browser (a fresh page each), which saves a browser start per file;
 * one line per file, "FILE: OK ..." or "FILE: FAIL ...", then exit 1 if any
 * failed.
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
const USAGE = 'usage: speedscope_check.js FILE [EXPECTED_THREAD_NAME...] | --batch LIST.json';
if (argv.length < 1 || (argv[0].startsWith('-') && argv[0] !== '--batch')) die(2, USAGE);
let items;   /* [{file, expected}] */
if (argv[0] === '--batch') {
  if (argv.length !== 2) die(2, USAGE);
  let list;
  try {
    list = JSON.parse(fs.readFileSync(argv[1], 'utf8'));
  } catch (e) {
    die(2, `cannot read the list ${argv[1]}: ${e.message}`);
  }
  if (!Array.isArray(list) || !list.length || !list.every((x) => Array.isArray(x) && x.length >= 1 &&
      x.every((y) => typeof y === 'string'))) die(2, `${argv[1]}: not a list of [FILE, THREAD...]`);
  items = list.map((x) => ({file: path.resolve(x[0]), expected: x.slice(1)}));
} else {
  items = [{file: path.resolve(argv[0]), expected: argv.slice(1)}];
}
for (const it of items) if (!fs.existsSync(it.file)) die(2, `no such file: ${it.file}`);
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

/* Serves the app's files and item i's trace as /profile/<i>.json, nothing else. */
function serve(req, res) {
  const url = decodeURIComponent((req.url || '/').split(/[?#]/)[0]);
  const m = /^\/profile\/(\d+)\.json$/.exec(url);
  let p;
  if (m) p = Number(m[1]) < items.length ? items[Number(m[1])].file : '/nonexistent';
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

/* Loads item i in a fresh page of ctx; returns its problems and the
 * console log (empty problems: it passed, and says so). */
async function checkOne(ctx, origin, i) {
  const {expected} = items[i];
  const problems = [];
  const logs = [];
  const page = await ctx.newPage();
  try {
    let imported = null;
    const importedP = new Promise((resolve) => { imported = resolve; });
    page.on('console', (m) => {
      const text = m.text();
      logs.push(`${m.type()}: ${text}`);
      if (/^Importing as /.test(text)) imported(text);
      if ((m.type() === 'warning' || m.type() === 'error') && !ignorable(text)) problems.push(`console ${m.type()}: ${text}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.goto(`${origin}/index.html#profileURL=${encodeURIComponent(`${origin}/profile/${i}.json`)}`);
    let timer;
    const how = await Promise.race([importedP,
      new Promise((resolve) => { timer = setTimeout(() => resolve(null), TIMEOUT_MS); })]);
    clearTimeout(timer);
    if (how !== 'Importing as Trace Event Format profile') {
      problems.push(how ? `speedscope imported it another way: "${how}"` : 'speedscope never imported the file');
      return {problems, logs};
    }
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
      logs.unshift(`OK: speedscope imported a Trace Event Format profile with ${titles.length} thread(s): ` +
        titles.join('; '));
    }
  } catch (e) {
    problems.push(`browser: ${e.message.split('\n')[0]}`);
  } finally {
    await page.close().catch(() => {});
  }
  return {problems, logs};
}

async function main() {
  const server = http.createServer(serve);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'speedscope-check-'));
  const results = [];
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
    for (let i = 0; i < items.length; i++) results.push(await checkOne(ctx, origin, i));
  } catch (e) {
    while (results.length < items.length) results.push({problems: [`browser: ${e.message.split('\n')[0]}`], logs: []});
  } finally {
    if (ctx) await ctx.close().catch(() => {});
    server.close();
    fs.rmSync(profileDir, {recursive: true, force: true});
  }
  let failed = 0;
  results.forEach(({problems, logs}, i) => {
    const who = items.length > 1 ? `${items[i].file}: ` : '';
    if (!problems.length) {
      console.log(who + logs[0]);
      return;
    }
    failed++;
    if (who) console.log(`${who}FAIL ${problems[0]}`);
    for (const p of problems) console.log(`speedscope_check: ${p}`);
    console.log('speedscope_check: console log:');
    for (const l of logs.slice(0, 40)) console.log(`  ${l}`);
  });
  if (failed) process.exit(1);
}

main().catch((e) => die(2, e.stack || String(e)));
