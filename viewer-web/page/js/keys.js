/* keys.js -- the page's keys, in one place, and the help that lists them
 * (`?`, or the toolbar's `?` button).  Letters work in either case (caps lock, shift).  Keys typed in
 * the search box stay there. */

function bindKeys(timeline, actions) {
  const help = document.getElementById('keys-help');
  const showHelp = (on) => { help.hidden = !on; };
  help.addEventListener('click', () => showHelp(false));
  /* The toolbar's `?`: the help, with the mouse's gestures too. */
  document.getElementById('btn-keys').addEventListener('click', () => showHelp(help.hidden));
  window.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target.closest && e.target.closest('input, textarea')) return;
    const step = timeline.span * 0.2;
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    switch (key) {
      case ' ': timeline.setLive(!timeline.live); break;
      case 'w': timeline.zoom(0.8); break;
      case 's': timeline.zoom(1.25); break;
      case 'a': timeline.pan(-step); break;
      case 'd': timeline.pan(step); break;
      case 'Home': case '0': timeline.setLive(true); break;
      case '?': showHelp(help.hidden); break;
      case '/': actions.focusSearch(); break;
      case 'm': actions.maximise(); break;
      case 'Escape':
        /* One thing at a time: the help, the range, the pick, the search. */
        if (!help.hidden) showHelp(false);
        else actions.escape();
        break;
      default: return;
    }
    e.preventDefault();
  });
}
