/* format.js -- numbers for people: durations, counts, times, shares. */

/* Before a figure computed from partial data (entries were lost in its
 * window), as recorder-top marks it. */
const PARTIAL_MARK = '~';

/* A share as a percentage, as recorder-top writes it: 12.3%, 100%, 400%. */
function fmtShare(f) {
  const pct = 100 * f;
  if (!Number.isFinite(pct)) return '—';
  return pct < 99.95 ? Math.max(0, pct).toFixed(1) + '%' : pct.toFixed(0) + '%';
}

/* How much of a partial window was decoded, in whole percents as
 * recorder-top says it: never rounded up to 100% nor down to 0%. */
function fmtDecoded(frac) {
  const pct = 100 * frac;
  if (pct > 0 && pct < 1) return '<1%';
  return (pct > 99 ? 99 : Math.round(pct)) + '%';
}

/* A duration in ns, to 3 significant digits: 812 ns, 4.21 µs, 12.5 ms, 3.20 s. */
function fmtDur(ns) {
  if (!isFinite(ns)) return '—';
  const a = Math.abs(ns);
  if (a < 1e3) return (a < 10 && a !== Math.round(a) ? ns.toFixed(1) : Math.round(ns)) + ' ns';
  if (a < 1e6) return sig3(ns / 1e3) + ' µs';
  if (a < 1e9) return sig3(ns / 1e6) + ' ms';
  if (a < 600e9) return sig3(ns / 1e9) + ' s';
  return (ns / 60e9).toFixed(1) + ' min';
}

function sig3(v) {
  const a = Math.abs(v);
  return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : v.toFixed(2);
}

/* A count: 987, 12.3k, 4.56M, 1.20G. */
function fmtCount(n) {
  const a = Math.abs(n);
  if (a < 1e4) return String(Math.round(n));
  if (a < 1e6) return sig3(n / 1e3) + 'k';
  if (a < 1e9) return sig3(n / 1e6) + 'M';
  return sig3(n / 1e9) + 'G';
}

/* A rate: like a count, with decimals below 10 (0.07, 3.5, 42, 12.3k). */
function fmtRate(n) {
  const a = Math.abs(n);
  if (a === 0) return '0';
  if (a < 0.1) return n.toFixed(2);
  if (a < 10) return n.toFixed(1);
  return fmtCount(n);
}

/* A time since the recording's start, with the precision a step asks. */
function fmtTime(ns, step) {
  const s = ns / 1e9;
  const digits = step >= 1e9 ? 0 : step >= 1e8 ? 1 : step >= 1e7 ? 2 : step >= 1e6 ? 3 : step >= 1e5 ? 4 : step >= 1e4 ? 5 : 6;
  return s.toFixed(digits) + ' s';
}

/* A counter's value: short, without trailing noise. */
function fmtValue(v) {
  if (!isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e7 || a < 1e-3)) return v.toExponential(2);
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  return v.toFixed(a >= 100 ? 1 : 3).replace(/\.?0+$/, '');
}

/* A step of 1, 2 or 5 times a power of ten, near the target. */
function niceStep(target) {
  const p = Math.pow(10, Math.floor(Math.log10(target)));
  const m = target / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}
