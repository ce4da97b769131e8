/* lodcount.js -- how many events the run's summary (LOD, lod.js) counts
 * in [t0, t1): a bucket the span cuts counts pro rata.  fileview.js asks
 * it whether a window fits in one RANGE answer, and
 * bench/web/bench_fileview.js asks the same question the same way (it
 * loads this file; nothing here touches the page). */
function lodEventsIn(m, t0, t1) {
  let n = 0;
  const i0 = Math.floor((t0 - m.t0) / m.width), i1 = Math.floor((t1 - m.t0) / m.width);
  for (const ll of m.lanes.values())
    for (let i = Math.max(i0 - ll.first, 0); i <= Math.min(i1 - ll.first, ll.count - 1); i++) {
      const bs = m.t0 + (ll.first + i) * m.width, part = (Math.min(t1, bs + m.width) - Math.max(t0, bs)) / m.width;
      n += ll.events[i] * Math.max(0, Math.min(1, part));
    }
  return n;
}

if (typeof module === 'object' && module.exports) module.exports = { lodEventsIn };
