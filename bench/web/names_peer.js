/* names_peer.js -- a page without a browser for bench/tui/names_bench.py:
 * connects to recorder-web (URL with its token), takes every message as
 * the page would (tests/web/peer.js, the page's own decoder), prints
 * "connected", and at a line on stdin prints the server's last STATUS
 * (events it decoded, entries lost) and the last STATS' row count as one
 * JSON line, then exits.  It shows the statistics window WINDOW (0: 1 s,
 * 1: 10 s, what the page shows first and the default, 2: the whole run)
 * and asks for nothing more: what it costs the server is what an idle
 * page costs.
 *
 *   node names_peer.js URL [WINDOW] */
'use strict';
const path = require('path');
const { Peer } = require(path.join(__dirname, '../../tests/web/peer.js'));

async function main() {
  const url = new URL(process.argv[2]);
  const win = process.argv[3] === undefined ? 1 : Number(process.argv[3]);
  if (![0, 1, 2].includes(win)) throw new Error('names_peer.js: WINDOW is 0, 1 or 2');
  const p = await Peer.open(Number(url.port), url.searchParams.get('t'));
  p.setWindow(win);
  process.stdout.write('connected\n');
  const status0 = () => p.statusMsg;
  await new Promise((resolve) => process.stdin.once('data', resolve));
  const seen = status0() ? status0().now : -1;
  /* One STATUS after the line, so the figures include the last drain. */
  for (let i = 0; i < 60 && (!p.statusMsg || p.statusMsg.now === seen); i++) await new Promise((r) => setTimeout(r, 50));
  const s = p.statusMsg || {};
  const st = p.statsMsg || {};
  process.stdout.write(JSON.stringify({ events: s.events, lost: s.lost, notKept: s.notKept,
    statsRows: st.rows ? st.rows.length : null, statsTotal: st.total }) + '\n');
  p.close();
  process.exit(0);
}
main().catch((e) => { process.stderr.write(String(e) + '\n'); process.exit(1); });
