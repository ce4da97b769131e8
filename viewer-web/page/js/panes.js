/* panes.js -- the panes' sizes (issue 20): two splitters, dragged with
 * the mouse (the timeline's height against the panels', the top table's
 * width against the right panel's), and the right panel (flame graph or
 * latency) maximised to the whole window and back (its button, `m`, or
 * Esc).  Sizes are CSS variables (style.css: --bottom-h on body, --left
 * on .bottom), clamped so every pane keeps a usable size; whatever
 * changed size is redrawn. */

const panes = (() => {
  const body = document.body, bottom = $('bottom'), maxBtn = $('btn-max');
  const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));

  function changed() {
    timeline.moved();
    flame.dirty = true;
    interact.resize();
    table.render();   /* the names are cut to the column's new width */
  }

  /* A drag on a handle: onMove(pointer event) while the button is down. */
  function drag(handle, onMove) {
    handle.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      e.preventDefault();
      handle.setPointerCapture(e.pointerId);
      handle.classList.add('dragging');
      const move = (ev) => { onMove(ev); changed(); };
      const up = () => {
        handle.classList.remove('dragging');
        handle.removeEventListener('pointermove', move);
        handle.removeEventListener('pointerup', up);
        handle.removeEventListener('pointercancel', up);
      };
      handle.addEventListener('pointermove', move);
      handle.addEventListener('pointerup', up);
      handle.addEventListener('pointercancel', up);
    });
  }

  /* The panels' height: from the pointer to the window's bottom; the
   * timeline and the panels keep 120 px at least. */
  drag($('split-h'), (e) => {
    const top = $('split-h').previousElementSibling.getBoundingClientRect().top;
    const h = clamp(window.innerHeight - e.clientY - 2, 120, window.innerHeight - top - 120);
    body.style.setProperty('--bottom-h', Math.round(h) + 'px');
  });
  /* The table's width: from the panels' left edge to the pointer; each
   * side keeps 240 px at least. */
  drag($('split-v'), (e) => {
    const r = bottom.getBoundingClientRect();
    const w = clamp(e.clientX - r.left - 2, 240, r.width - 5 - 240);
    bottom.style.setProperty('--left', Math.round(w) + 'px');
  });

  function maximise(on) {
    body.classList.toggle('maxed', on);
    maxBtn.setAttribute('aria-pressed', on ? 'true' : 'false');
    maxBtn.textContent = on ? '\u2921' : '\u2922';
    changed();
  }
  maxBtn.addEventListener('click', () => maximise(!body.classList.contains('maxed')));

  /* A pane also changes size when the toolbar wraps onto a second line
   * (the search's count grew) or the latency figures do: redraw then,
   * paused too. */
  if (window.ResizeObserver) {
    const seen = new Map();
    const ro = new ResizeObserver((entries) => {
      let any = false;
      for (const e of entries) {
        const k = Math.round(e.contentRect.width) + 'x' + Math.round(e.contentRect.height);
        if (seen.get(e.target) !== k) { any = seen.has(e.target) || any; seen.set(e.target, k); }
      }
      if (any) changed();
    });
    for (const el of [$('timeline'), $('top-wrap'), document.querySelector('.lat-plots')]) ro.observe(el);
  }

  return {
    maximise,
    get maxed() { return body.classList.contains('maxed'); },
  };
})();
