/* colors.js -- a stable color per name.  Hues spread evenly, medium
 * saturation and lightness: distinct side by side, calm in bulk, and
 * dark label text stays readable on every one of them. */

const PALETTE = (() => {
  const out = [];
  const hues = 15;
  for (let l = 0; l < 2; l++)
    for (let i = 0; i < hues; i++) {
      const h = Math.round((i * 360) / hues + l * 12) % 360;
      out.push(`hsl(${h} ${l ? 42 : 52}% ${l ? 70 : 62}%)`);
    }
  return out;
})();

function hashName(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

/* Colors by name id, cached; ids are the server's dense name ids. */
class Colors {
  constructor(store) {
    this.store = store;
    this.cache = [];
  }
  of(id) {
    let c = this.cache[id];
    if (c === undefined) {
      const name = this.store.names[id];
      if (name === undefined) return '#6b7385';   /* name not here yet: ask again later */
      /* Names that differ only by a number (matmul_blk.3) share a hue
       * family, and the number shifts lightness. */
      const base = name.replace(/[0-9]+/g, '#');
      const i = hashName(base) % 15;
      const digits = name.length - name.replace(/[0-9]/g, '').length;
      c = this.cache[id] = PALETTE[digits ? i + 15 * (hashName(name) & 1) : i];
    }
    return c;
  }
}

const UI = {
  bg: '#0e1014',
  laneA: '#12151b',
  laneB: '#151920',
  gutter: '#151820',
  line: '#272c38',
  grid: '#1f2430',
  text: '#e4e7ee',
  muted: '#8b93a5',
  faint: '#5d6575',
  label: '#0d1016',
  now: '#7ab4ff',
  flow: 'rgba(214, 222, 240, 0.7)',
  hover: '#ffffff',
  counter: '#7ab4ff',
  counterFill: 'rgba(122, 180, 255, 0.18)',
};
