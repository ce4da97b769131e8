/* canvas.js -- what the page's canvases share: following their box's size
 * at the display's pixel ratio, and a centered note when there is
 * nothing to draw. */

/* Size v.canvas to its box (v.W, v.H in CSS pixels, v.dpr); true if it
 * changed (the caller repaints). */
function sizeCanvas(v) {
  const r = v.canvas.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
  const W = Math.max(1, Math.round(r.width)), H = Math.max(1, Math.round(r.height));
  if (W === v.W && H === v.H && dpr === v.dpr) return false;
  v.W = W; v.H = H; v.dpr = dpr;
  v.canvas.width = Math.round(W * dpr);
  v.canvas.height = Math.round(H * dpr);
  return true;
}

function canvasNote(ctx, W, H, text) {
  ctx.fillStyle = UI.faint;
  ctx.font = FONT;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillText(text, W / 2, H / 2);
}
