/* latseries.test.js -- the page's reading of the server's whole-run
 * latency (latseries.js, docs/web.md "Latency panel"), without a browser:
 * LATENCY answers fed by hand, then the summed series of folded names,
 * an answer on a finer grid put on the coarser one, nearest-rank
 * percentiles read to the bin, lost buckets, a range's buckets, and the
 * name ids asked for a folded label. */
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const { check, main } = require('./harness');

const JS = path.join(__dirname, '../../viewer-web/page/js');

function load() {
  const src = ['fold.js', 'protocol.js', 'store.js', 'latseries.js'].map((f) => fs.readFileSync(path.join(JS, f), 'utf8')).join('\n');
  const sandbox = { performance: { now: () => 0 }, TextDecoder };
  vm.runInNewContext(src + `
const LAT_LINES = [[0.5, 'P50'], [0.95, 'P95'], [0.99, 'P99']];
this.api = { Store, nameFold, serverSeries, binRank, latIds, decodeMessage };`, sandbox);
  return sandbox.api;
}

/* A LATENCY message as the server encodes it (wire.h, latlod.c). */
function encode(name, known, leftOut, t0, width, buckets) {
  const out = [9];
  const varint = (v) => { while (v >= 128) { out.push((v % 128) | 128); v = Math.floor(v / 128); } out.push(v); };
  const f64 = (d) => { const b = Buffer.alloc(8); b.writeDoubleLE(d); out.push(...b); };
  varint(name); out.push(known ? 1 : 0); varint(leftOut); varint(10); varint(110); f64(t0); f64(width);
  varint(buckets.length);
  for (const [i, lost, bins] of buckets) {
    varint(i); out.push(lost ? 1 : 0); varint(bins.length);
    for (const [j, c] of bins) { varint(j); varint(c); }
  }
  return new Uint8Array(out);
}

main(async () => {
  const { Store, nameFold, serverSeries, binRank, latIds, decodeMessage } = load();
  const s = new Store();
  s.strings(1, ['layer.0', 'layer.1', 'other', 'layer.2']);
  /* Folded, three names read "layer.N"; the picked one is asked first. */
  nameFold.on = true;
  const ids = latIds(s, s.label(2), 2);
  check(JSON.stringify(ids) === JSON.stringify([2, 1, 4]), 'a folded label asks for its names, the picked one first', ids);
  nameFold.on = false;
  check(JSON.stringify(latIds(s, s.label(2), 2)) === JSON.stringify([2]), 'unfolded, just the picked name');

  check(binRank([3, 5, 9], [1, 1, 2], 4, 0.5) === 5 && binRank([3, 5, 9], [1, 1, 2], 4, 0.99) === 9 && binRank([7], [1], 1, 0.5) === 7,
    'nearest rank on a histogram');

  /* Name 1 on a 1 ms grid (asked before it coarsened), name 2 on 2 ms. */
  decodeMessage(encode(1, true, 0, 0, 1e6, [[0, false, [[30, 2]]], [1, false, [[40, 1]]], [6, true, []]]), s);
  decodeMessage(encode(2, true, 0, 0, 2e6, [[0, false, [[50, 1]]], [5, false, [[20, 3], [60, 1]]]]), s);
  decodeMessage(encode(9, false, 17, 0, 0, []), s);
  const o = serverSeries(s.latMsgs, [1, 2], -Infinity, Infinity);
  check(o && o.known && o.width === 2e6 && o.rows.length === 3, 'answers on two grids are put on the coarser one', o);
  const r0 = o.rows[0], edge = (j) => Math.pow(10, j / 10);
  check(r0.t === 0 && r0.n === 4 && r0.p[0][0] === edge(30) && r0.p[0][1] === edge(31) && r0.p[2][0] === edge(50),
    'the first bucket sums both names (bins 30, 30, 40, 50): P50 in bin 30, P99 in bin 50', r0);
  check(o.rows[1].t === 6e6 && o.rows[1].lost && o.rows[1].n === 0, 'a bucket where entries were lost is flagged, even empty', o.rows[1]);
  check(o.rows[2].t === 10e6 && o.rows[2].n === 4 && o.rows[2].p[0][0] === edge(20) && o.rows[2].p[2][0] === edge(60), 'the last bucket: P50 bin 20, P99 bin 60', o.rows[2]);
  const ranged = serverSeries(s.latMsgs, [1, 2], 5e6, 20e6);
  check(ranged.rows.length === 2 && ranged.rows[0].t === 6e6, 'a range keeps the buckets that overlap it', ranged.rows.map((x) => x.t));
  const none = serverSeries(s.latMsgs, [9], -Infinity, Infinity);
  check(none && !none.known && none.leftOut === 17 && none.rows.length === 0, 'a name not summarised: no rows, the calls left out said', none);
  check(serverSeries(s.latMsgs, [3], -Infinity, Infinity) === null, 'no answer yet: no series');
  let threw = false;
  try { decodeMessage(encode(1, true, 0, 0, 1e6, [[0, false, [[200, 1]]]]), s); } catch (e) { threw = e.name === 'RangeError';   /* the sandbox's own RangeError */ }
  check(threw, 'a bin past the axis is malformed');
});
