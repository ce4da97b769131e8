/* rangestats.test.js -- the page's own range figures (rangestats.js,
 * docs/web.md "Range selection"), without a browser: a Store fed by hand
 * with scopes of known times, then the table's rows (only calls that
 * begin and end inside), the flame graph's tree (time inside, cut to the
 * range, open scopes up to now, a child under its open parent), the
 * cover (a gap, missed frames, a start older than what the page holds)
 * and one scope's calls, folded names together. */
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const { check, main } = require('./harness');

const JS = path.join(__dirname, '../../viewer-web/page/js');

function load() {
  const src = ['fold.js', 'protocol.js', 'store.js', 'rangestats.js'].map((f) => fs.readFileSync(path.join(JS, f), 'utf8')).join('\n');
  const sandbox = { performance: { now: () => 0 }, TextDecoder };
  vm.runInNewContext(src + '\nthis.api = { Store, nameFold, nearestRank, rangeCover, rangeRows, rangeTree, scopeCalls };', sandbox);
  return sandbox.api;
}

main(async () => {
  const { Store, nameFold, nearestRank, rangeCover, rangeRows, rangeTree, scopeCalls } = load();
  const s = new Store();
  s.threads({ full: true, retiredTotal: 0, foldedTotal: 0, retired: [],
    lanes: [{ id: 1, slot: 0, gen: 1, tid: 10, alive: true, name: 'a' }, { id: 2, slot: 1, gen: 1, tid: 11, alive: true, name: 'b' }] });
  s.strings(1, ['outer', 'inner', 'x-0', 'x-1', 'open']);
  const [OUTER, INNER, X0, X1, OPEN] = [1, 2, 3, 4, 5];
  s.batch(1, 0, 1000);
  /* Lane a: outer [100, 200] with inner [110, 130] and [150, 190];
   * outer [300, 400] with inner [350, 380]; x-0 [500, 510], x-1 [520, 540]. */
  s.chunk(1, 0, [], [], null);
  const scope = (name, a, b, kids = []) => { s.begin(a, name); for (const k of kids) scope(...k); s.end(b, name); };
  scope(OUTER, 100, 200, [[INNER, 110, 130], [INNER, 150, 190]]);
  scope(OUTER, 300, 400, [[INNER, 350, 380]]);
  scope(X0, 500, 510);
  scope(X1, 520, 540);
  s.eventsDone(14);
  /* Lane b: open [50, ...) with inner [60, 90] inside it. */
  s.chunk(2, 0, [], [], null);
  s.begin(50, OPEN);
  scope(INNER, 60, 90);
  s.eventsDone(3);

  /* ---- the table: calls that begin and end inside ---- */
  let rows = rangeRows(s, 105, 395);
  const row = (n) => rows.find((r) => r.name === n);
  check(!row(OUTER), 'outer straddles both edges: not a call of [105, 395]', rows);
  check(row(INNER) && row(INNER).calls === 3 && row(INNER).total === 20 + 40 + 30 && row(INNER).min === 20 && row(INNER).max === 40,
    'inner: the three calls inside, with their whole durations', row(INNER));
  rows = rangeRows(s, 0, 1000);
  check(row(OUTER).calls === 2 && row(OUTER).total === 200 && row(OUTER).self === 200 - 60 - 30,
    'outer over everything: two calls, self time without its children', row(OUTER));
  check(row(INNER).calls === 4 && row(INNER).p50 === 30 && row(INNER).p99 === 40 && row(INNER).avg === (20 + 40 + 30 + 30) / 4,
    'percentiles are nearest rank over the exact durations', row(INNER));
  check(!row(OPEN), 'an open scope is not a call yet');
  check(Math.abs(row(OUTER).totalFrac - 0.2) < 1e-12 && Math.abs(row(OUTER).rate - 2 / 1e-6) < 1e-3, 'total% and calls/s of the range\'s length', row(OUTER));

  /* ---- the flame graph: time inside, cut ---- */
  const nodes = rangeTree(s, 150, 350, 1000);
  const node = (name, parentName) => nodes.find((n, i) => i && n.name === name && (parentName === undefined ||
    (n.parent ? nodes[n.parent].name === parentName : parentName === 0)));
  const o = node(OUTER, 0), io = node(INNER, OUTER), op = node(OPEN, 0);
  check(o && o.total === 50 + 50 && o.calls === 2, 'outer: its time inside [150, 350], cut at both edges', o);
  check(io && io.total === 40 && io.calls === 1 && o.self === 100 - 40, 'inner under outer, and outer\'s self time', { io, o });
  check(op && op.total === 200, 'an open scope counts up to now, cut to the range', op);
  const ib = node(INNER, OPEN);
  check(!ib, 'inner [60, 90] on lane b is outside [150, 350]');
  const all = rangeTree(s, 0, 1000, 1000);
  const ib2 = all.find((n, i) => i && n.name === INNER && n.parent && all[n.parent].name === OPEN);
  check(ib2 && ib2.total === 30, 'a child under its open parent', ib2);
  check(nodes.every((n, i) => i === 0 || n.parent < i), 'parents come before their children');

  /* ---- partial ---- */
  check(!rangeCover(s, 100, 600).partial, 'nothing lost: not partial', rangeCover(s, 100, 600));
  s.batch(2, 1000, 2000);
  s.chunk(1, 1, [], [], { overwritten: 7, dropped: 2, from: 600, to: 700 });
  s.eventsDone(0);
  let c = rangeCover(s, 650, 800);
  check(c.partial && c.lost === 9 && c.gaps === 1 && c.gapNs === 50, 'a gap inside: partial, with its losses', c);
  check(!rangeCover(s, 100, 599).partial, 'a range before the gap is not', rangeCover(s, 100, 599));
  s.batch(5, 2000, 3000);   /* frames 3 and 4 missed */
  c = rangeCover(s, 2500, 2600);
  check(c.partial && c.missedFrames === 2 && c.lost === 0, 'frames the page missed: partial', c);
  c = rangeCover(s, -100, 50);
  check(c.partial && c.evicted, 'a range older than what the page holds: partial', c);

  /* ---- one scope's calls, folded ---- */
  let sc = scopeCalls(s, 'x-0', -Infinity, Infinity);
  check(sc.durs.length === 1 && sc.durs[0] === 10, 'x-0 alone unfolded', [...sc.durs]);
  nameFold.on = true;
  sc = scopeCalls(s, 'x-*', -Infinity, Infinity);
  check(sc.durs.length === 2 && sc.durs[0] === 10 && sc.durs[1] === 20 && sc.ends.length === 2, 'folded, x-0 and x-1 count together, sorted',
    { durs: [...sc.durs], ends: [...sc.ends] });
  nameFold.on = false;

  check(Number.isNaN(nearestRank([], 0.5)) && nearestRank([1, 2, 3], 0) === 1 && nearestRank([1, 2, 3], 1) === 3 &&
    nearestRank([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.999) === 10 && nearestRank([1, 2, 3, 4], 0.5) === 2, 'nearest rank at the edges');
});
