/* dom.js -- writes to the page's elements only when the value changes.
 *
 * The header, the table and the file controls are refreshed several times
 * a second while the program being watched may run on the same cores.
 * Writing an unchanged value still costs: Blink invalidates style for an
 * attribute set to what it already was (a live page recalculated style 30
 * times a second, 10 with these: the rest from values that did change;
 * docs/performance/watch.md).  Every periodic update goes through these. */

function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}
function setHidden(el, hidden) {
  hidden = !!hidden;
  if (el.hidden !== hidden) el.hidden = hidden;
}
function setTitle(el, title) {
  if (el.title !== title) el.title = title;
}
/* An inline style property (el.style[prop]), compared as the page wrote it
 * last: the browser normalises what it reads back. */
function setStyle(el, prop, value) {
  const key = '_style_' + prop;
  if (el[key] !== value) {
    el[key] = value;
    el.style[prop] = value;
  }
}
