/* elide.test.js -- the page's name elision (viewer-web/page/js/elide.js,
 * issue 20 item 2) as a unit, in node (suite web): names that differ keep
 * what differs, numbers stay whole, names that fit are left alone, every
 * result fits its room. */
'use strict';
const fs = require('fs');
const path = require('path');
const { check, main } = require('./harness');

const src = fs.readFileSync(path.join(__dirname, '../../viewer-web/page/js/elide.js'), 'utf8');
const elideNames = new Function(src + '\nreturn elideNames;')();
const ELL = '\u2026';
const distinct = (a) => new Set(a).size === a.length;

main(async () => {
  /* Ten names differing only in a middle number. */
  const layers = [];
  for (let i = 2; i <= 11; i++) layers.push(`matmul_blk.${i}.ffn_down`);
  const a = elideNames(layers, 16);
  check(distinct(a) && a.every((s) => s.length <= 16), 'ten names that differ in a middle number stay distinct, each fits', a);
  check(a[1] === ELL + 'blk.3.ffn_down' && a[9] === ELL + 'blk.11.ffn_down',
    'the shared start is cut, the number and the end kept: …blk.3.ffn_down, …blk.11.ffn_down', [a[1], a[9]]);
  a.forEach((s, i) => check(s.includes(`.${i + 2}.`), `${layers[i]}: its whole number is shown (${s})`));

  /* A fixed middle cut, for contrast: it reads the same ten times. */
  const middle = layers.map((s) => s.slice(0, 7) + ELL + s.slice(-8));
  check(!distinct(middle), 'the old middle cut would read the same (the test is meaningful)', middle);

  /* Names that fit are left alone, also beside long ones. */
  const mixed = elideNames(['step', 'layer', ...layers], 16);
  check(mixed[0] === 'step' && mixed[1] === 'layer' && distinct(mixed), 'short names are left alone', mixed);
  check(JSON.stringify(elideNames(layers, 100)) === JSON.stringify(layers), 'with room, nothing is cut');

  /* Numbers that share digits: 1 beside 11 keeps the whole number. */
  const d = elideNames(['blk.1.attn_q_proj', 'blk.11.attn_q_proj'], 14);
  check(distinct(d) && /(^|[^0-9])1\./.test(d[0]) && /(^|[^0-9])11\./.test(d[1]) && d.every((s) => s.length <= 14),
    'a number is never split: 1 and 11 stay whole', d);

  /* The differing part and the shared end too wide: the end is cut, the differing part kept. */
  const long = ['model.layers.3.self_attention.query_projection', 'model.layers.12.self_attention.query_projection'];
  const l = elideNames(long, 12);
  check(distinct(l) && l.every((s) => s.length <= 12) && l[0].startsWith(ELL + '3.') && l[1].startsWith(ELL + '12.') && l.every((s) => s.endsWith(ELL)),
    'too little room for the end: the number kept, the end cut', l);

  /* Differing at the end (common start only), and at the start (common end only). */
  const ends = elideNames(['llama_context.decode.prefill', 'llama_context.decode.generate'], 16);
  check(distinct(ends) && ends[0].endsWith('prefill') && ends[1].endsWith('generate') && ends.every((s) => s.length <= 16),
    'names that differ at the end keep their ends', ends);
  const starts = elideNames(['prefill_attention_kernel_launch', 'generate_attention_kernel_launch'], 16);
  check(distinct(starts) && starts[0].startsWith('prefill') && starts[1].startsWith('generate') && starts.every((s) => s.length <= 16),
    'names that differ at the start keep their starts', starts);

  /* A name alone: its start, cut at the end. */
  const one = elideNames(['a_very_long_name_with_nothing_shared'], 10);
  check(one[0] === 'a_very_lo' + ELL, 'a name with nothing shared keeps its start', one);

  /* Measured in pixels, as the page does. */
  const px = elideNames(layers, 16 * 7, (s) => s.length * 7);
  check(JSON.stringify(px) === JSON.stringify(a), 'a measure in pixels gives the same cut');

  /* Degenerate input. */
  check(elideNames([], 10).length === 0, 'no names: none');
  const tiny = elideNames(['abcdef', 'abcdeg'], 1);
  check(tiny.every((s) => s.length <= 1), 'no room at all: at most the ellipsis', tiny);
});
