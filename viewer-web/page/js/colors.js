/* colors.js -- a stable color per name.  Hues spread evenly, medium
 * saturation and lightness: distinct side by side, calm in bulk, and
 * dark label text stays readable on every one of them. */

/* The same colors as CSS strings (for the canvas and the DOM) and packed
 * (for the raster). */
const PALETTE = [], PALETTE_PX = [];
(() => {
  const hues = 15;
  for (let l = 0; l < 2; l++)
    for (let i = 0; i < hues; i++) {
      const h = Math.round((i * 360) / hues + l * 12) % 360, sat = l ? 42 : 52, light = l ? 70 : 62;
      PALETTE.push(`hsl(${h} ${sat}% ${light}%)`);
      PALETTE_PX.push(packHSL(h, sat, light));
    }
})();

function hashName(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

/* Packed colors by name id, each computed once: an array lookup on the
 * raster's hot path.  compute(id) gives the color, or null while it
 * cannot be known yet (the name has not arrived): then unknown(id) is
 * used and the id asked again next time. */
class PxCache {
  constructor(compute, unknown) {
    this.compute = compute;
    this.unknown = unknown;
    this.clear();
  }
  clear() { this.a = new Int32Array(0); }
  get(id) {
    if (id < this.a.length) {
      const c = this.a[id];
      if (c !== 0) return c >>> 0;
    } else {
      const n = new Int32Array(Math.max(256, id * 2));
      n.set(this.a);
      this.a = n;
    }
    const c = this.compute(id);
    if (c === null) return this.unknown(id);
    this.a[id] = c | 0;
    return c >>> 0;
  }
}

/* Colors by name id, cached; ids are the server's dense name ids. */
class Colors {
  constructor(store) {
    this.store = store;
    this.pxc = new PxCache((id) => {
      const i = this.index(id);
      return i < 0 ? null : PALETTE_PX[i];
    }, () => UI_PX.unknown);
    this.reset();
  }
  reset() {
    this.cache = [];
    this.pxc.clear();
  }
  index(id) {
    const name = this.store.names[id];
    if (name === undefined) return -1;   /* name not here yet: ask again later */
    /* Names that differ only by a number (matmul_blk.3) share a hue,
     * and the number may shift its lightness. */
    const base = name.replace(/[0-9]+/g, '#');
    const i = hashName(base) % 15;
    const digits = base !== name;
    return digits ? i + 15 * (hashName(name) & 1) : i;
  }
  of(id) {
    let c = this.cache[id];
    if (c === undefined) {
      const i = this.index(id);
      if (i < 0) return '#6b7385';
      c = this.cache[id] = PALETTE[i];
    }
    return c;
  }
  /* Packed, for the raster: an array lookup on the hot path. */
  px(id) { return this.pxc.get(id); }
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

const UI_PX = {
  bg: packHex(UI.bg),
  laneA: packHex(UI.laneA),
  laneB: packHex(UI.laneB),
  gutter: packHex(UI.gutter),
  line: packHex(UI.line),
  grid: packHex(UI.grid),
  now: packHex('#5d8fd0'),
  counter: packHex(UI.counter),
  band: mixPacked(packHex(UI.counter), packHex(UI.laneA), 0.22),
  cut: packHex('#f2686a'),
  openEdge: packHex('#f4f6fa'),
  unknown: packHex('#6b7385'),
  scroll: packHex('#4a5262'),
  /* Lost stretches: warm, dim, striped -- nothing like a slice, nor idle. */
  gap: packHex('#2a1d20'),
  gapStripe: packHex('#6a3a3e'),
};
