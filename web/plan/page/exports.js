// Exports and sharing: the plan as JSON (the CLI's document, byte for byte), the report (the
// core's review document, the CLI's `report -o`, with the sweep and the comparison as SVG files
// beside it, and the Timeline's section, in one .zip), the printable page, the chart as SVG and PNG (the core's chart, with
// title, job, snapshot and scenario, in the theme shown: sized for a slide, the heaviest 25 and
// the rest summed up, or every member), the members' table as CSV, the link.
import { el, attrs, button, download, select, field } from '../../common/page/dom.js';
import { csvButton } from '../../common/page/csv.js';
import { copyText } from '../../common/page/copy.js';
import { paletteOf, svgToPng } from './chart-png.js';
import { memberRows } from '../shared/chart-model.js';
import { describe } from '../../common/shared/scenario.js';
import { sortRows } from '../../common/shared/sort.js';
import { utc } from '../../common/shared/format.js';
import { errorReporter } from '../../common/page/focus-chip.js';
import { timelineMarkdown } from '../../timeline/page/export.js';
import { zip } from '../../common/shared/zip.js';

function fileStem(state) {
  return `spate-plan-${state.info?.job || 'fleet'}${state.scenario.changes.length ? '-whatif' : ''}`.replace(/[^\w.-]+/g, '_');
}

/** Rows of a chart sized for a slide: the core's heaviest 25, the rest summed up in one line. */
const SLIDE_ROWS = 25;

/** The core's fleet chart of the plan shown (SVG text), in the order and the theme shown; `rows` 0: every member. */
function chartOf(controller, host, rows) {
  const state = controller.state;
  const failed = new Set(state.result.failures.map((f) => f.index));
  const changes = state.scenario.changes.filter((_, i) => !failed.has(i)).map(describe);
  const lines = [
    `job ${state.info.job}; snapshot ${state.source.label}, taken ${utc(state.info.taken_at_ms)}`,
    changes.length ? `scenario: ${changes.join('; ')}` : 'scenario: none (the baseline plan)',
  ];
  const order = sortRows(memberRows(state.result.view), state.order).map((r) => r.name);
  return controller.ask('fleetChart', { order, palette: paletteOf(host), title: `Fleet of job ${state.info.job}: load now and planned`, lines, rows });
}

export function createExports(ctx) {
  const { controller } = ctx;
  const node = attrs(el('section', undefined, 'exports'), { 'aria-labelledby': 'exports-title' });
  const heading = attrs(el('h2', 'Share'), { id: 'exports-title' });
  const report = errorReporter(controller, 'The export failed');
  const act = (label, fn) => button(label, () => Promise.resolve().then(fn).catch(report));
  const buttons = el('div', undefined, 'row');
  buttons.append(
    act('Plan JSON', async () => {
      const text = await controller.ask('planJson');
      download(`${fileStem(controller.state)}.json`, 'application/json', text);
    }),
    act('Report (Markdown)', async () => {
      // the core's review document (`spate-planner report -o FILE.md`'s files): the plan, its
      // summary, members and moves, the sweep (with its crash columns and verdict) and the
      // comparison shown; then the Timeline's section when the Timeline holds a script. One
      // .zip of the Markdown and the SVG charts it links by name: relative links render in
      // markdown-it, GitHub and a print, where data: URIs do not
      const doc = await ctx.review.reviewReport(ctx.options.permalink ? location.href : null);
      const timeline = await timelineMarkdown(controller, ctx.host);
      const stem = fileStem(controller.state).replace(/^spate-plan-/, 'spate-review-');
      const markdown = timeline ? `${doc.markdown}\n${timeline.markdown}` : doc.markdown;
      const images = [...doc.images, ...(timeline?.images ?? [])].map((i) => ({ name: i.name, text: i.svg }));
      download(`${stem}.zip`, 'application/zip', zip([{ name: `${stem}.md`, text: markdown }, ...images]));
    }),
    act('Print…', () => window.print()),
    act('Chart SVG', async () => download(`${fileStem(controller.state)}.svg`, 'image/svg+xml', await chartOf(controller, ctx.host, rows()))),
    act('Chart PNG', async () => download(`${fileStem(controller.state)}.png`, 'image/png', await svgToPng(await chartOf(controller, ctx.host, rows())))),
    csvButton(controller, 'members', () => controller.ask('planCsv', { table: 'members' }), 'members'),
    act('Copy link', () => copyText(controller, location.href, 'Link copied: it reopens this view on the same snapshot.')),
  );
  const size = select([[String(SLIDE_ROWS), `a slide: the heaviest ${SLIDE_ROWS}, the rest summed up`], ['0', 'every member']]);
  const rows = () => Number(size.value);
  const options = el('div', undefined, 'row');
  options.append(field('Chart SVG and PNG show', size));
  node.append(heading, buttons, options);
  return { node, update() {} };
}
