/* raster.js -- a pixel buffer the timeline paints its blocks into, put on
 * the canvas in one call.
 *
 * Without a GPU, every fillRect on a 2D canvas costs a couple of
 * microseconds, and a zoomed-out timeline is thousands of one-pixel
 * blocks; writing those pixels into a Uint32Array and calling
 * putImageData once costs a fraction of that.  Text, arrows and outlines
 * are drawn on the canvas afterwards, where they are few.
 *
 * Coordinates are CSS pixels (floats); the raster scales by the device
 * pixel ratio.  Colors are packed 0xAABBGGRR (little-endian RGBA). */

function packRGB(r, g, b) { return (0xff000000 | (b << 16) | (g << 8) | r) >>> 0; }

function packHex(hex) {
  const v = parseInt(hex.slice(1), 16);
  return packRGB((v >> 16) & 255, (v >> 8) & 255, v & 255);
}

function packHSL(h, s, l) {
  s /= 100; l /= 100;
  const k = (n) => (n + h / 30) % 12, a = s * Math.min(l, 1 - l);
  const f = (n) => Math.round(255 * (l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1))));
  return packRGB(f(0), f(8), f(4));
}

/* a over b, by weight w of a. */
function mixPacked(a, b, w) {
  const ch = (c, sh) => (c >>> sh) & 255;
  const m = (sh) => Math.round(ch(a, sh) * w + ch(b, sh) * (1 - w));
  return packRGB(m(0), m(8), m(16));
}

class Raster {
  constructor(ctx) {
    this.ctx = ctx;
    this.w = 0; this.h = 0; this.dpr = 1;
    this.clipTop = 0; this.clipBottom = 0; this.clipLeft = 0;
  }
  resize(wCss, hCss, dpr) {
    const w = Math.round(wCss * dpr), h = Math.round(hCss * dpr);
    if (w === this.w && h === this.h && this.img) return;
    this.w = w; this.h = h; this.dpr = dpr;
    this.img = this.ctx.createImageData(w, h);
    this.buf = new Uint32Array(this.img.data.buffer);
    this.clipTop = 0; this.clipBottom = h; this.clipLeft = 0;
  }
  /* Only rows [top, bottom) and columns from left on (CSS pixels) may be
   * painted; the rest is left as it is. */
  clip(topCss, bottomCss, leftCss = 0) {
    this.clipTop = Math.max(0, Math.round(topCss * this.dpr));
    this.clipBottom = Math.min(this.h, Math.round(bottomCss * this.dpr));
    this.clipLeft = Math.max(0, Math.round(leftCss * this.dpr));
  }
  unclip() { this.clipTop = 0; this.clipBottom = this.h; this.clipLeft = 0; }
  /* Move columns from x0 (CSS) rightwards left by n device pixels, in
   * rows [top, bottom): last frame's picture, as time moved on. */
  shift(x0, n, topCss, bottomCss) {
    const w = this.w, X0 = Math.round(x0 * this.dpr);
    const Y0 = Math.max(0, Math.round(topCss * this.dpr)), Y1 = Math.min(this.h, Math.round(bottomCss * this.dpr));
    for (let y = Y0; y < Y1; y++) this.buf.copyWithin(y * w + X0, y * w + X0 + n, y * w + w);
  }
  clear(c) { this.buf.fill(c); }
  /* [x0, x1) × [y0, y1), at least one device pixel wide. */
  rect(x0, y0, x1, y1, c) {
    const d = this.dpr, w = this.w, buf = this.buf;
    let X0 = Math.round(x0 * d), X1 = Math.round(x1 * d);
    if (X1 <= X0) X1 = X0 + 1;
    let Y0 = Math.round(y0 * d), Y1 = Math.round(y1 * d);
    if (X0 < this.clipLeft) X0 = this.clipLeft;
    if (X1 > w) X1 = w;
    if (Y0 < this.clipTop) Y0 = this.clipTop;
    if (Y1 > this.clipBottom) Y1 = this.clipBottom;
    if (X0 >= X1 || Y0 >= Y1) return;
    if (X1 - X0 <= 4) {
      for (let y = Y0; y < Y1; y++) {
        const o = y * w;
        for (let x = X0; x < X1; x++) buf[o + x] = c;
      }
    } else {
      for (let y = Y0; y < Y1; y++) buf.fill(c, y * w + X0, y * w + X1);
    }
  }
  /* Device rows [Y0, Y1) that a band [y0, y1) in CSS pixels covers,
   * within the clip; null if none. */
  rows(y0, y1) {
    const Y0 = Math.max(this.clipTop, Math.round(y0 * this.dpr));
    const Y1 = Math.min(this.clipBottom, Math.round(y1 * this.dpr));
    return Y0 < Y1 ? [Y0, Y1] : null;
  }
  /* One device row: [x0, x1) in CSS pixels, at least a device pixel. */
  span(Y, x0, x1, c) {
    const d = this.dpr, w = this.w, buf = this.buf;
    let X0 = Math.round(x0 * d), X1 = Math.round(x1 * d);
    if (X1 <= X0) X1 = X0 + 1;
    if (X0 < this.clipLeft) X0 = this.clipLeft;
    if (X1 > w) X1 = w;
    if (X0 >= X1) return;
    const o = Y * w;
    if (X1 - X0 <= 8) for (let x = X0; x < X1; x++) buf[o + x] = c;
    else buf.fill(c, o + X0, o + X1);
  }
  /* Copy device row Y0, from x0 (CSS) rightwards, onto rows Y0+1..Y1-1:
   * a band of blocks is painted once, as a line, then repeated. */
  repeat(Y0, Y1, x0) {
    const w = this.w, X0 = Math.max(this.clipLeft, Math.round(x0 * this.dpr)), o = Y0 * w;
    for (let y = Y0 + 1; y < Y1; y++) this.buf.copyWithin(y * w + X0, o + X0, o + w);
  }
  /* Device rows [Y0, Y1), [x0, x1) in CSS pixels, in diagonal stripes:
   * a pixel is stripe when (X + Y + phase) % HATCH_PERIOD < 2, else bg. */
  hatch(Y0, Y1, x0, x1, bg, stripe, phase) {
    const d = this.dpr, w = this.w, buf = this.buf;
    /* At least a device pixel wide, then clipped: a stretch left of the
     * clip paints nothing (not a pixel at its edge). */
    const xa = Math.round(x0 * d), X0 = Math.max(this.clipLeft, xa), X1 = Math.min(w, Math.max(Math.round(x1 * d), xa + 1));
    if (X1 <= X0) return;
    for (let y = Math.max(Y0, this.clipTop); y < Math.min(Y1, this.clipBottom); y++) {
      const o = y * w;
      for (let x = X0; x < X1; x++) buf[o + x] = (x + y + phase) % HATCH_PERIOD < 2 ? stripe : bg;
    }
  }
  put() { this.ctx.putImageData(this.img, 0, 0); }
}
