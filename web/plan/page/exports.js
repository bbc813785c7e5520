// Exports and sharing: the plan as JSON (the CLI's document, byte for byte), the Markdown
// report, the review document (the CLI's `report`, with the sweep and the comparison as
// images), the printable page, the chart as SVG and PNG (with title, job, snapshot and
// scenario), the link.
import { el, attrs, button, download } from '../../common/page/dom.js';
import { markdownReport } from '../shared/report.js';
import { chartSvg, paletteOf, svgText, svgToPng } from './chart-svg.js';
import { memberRows } from '../../common/shared/summary.js';
import { describe } from '../../common/shared/scenario.js';
import { utc } from '../../common/shared/format.js';
import { errorReporter } from '../../common/page/focus-chip.js';
import { timelineMarkdown } from '../../timeline/page/export.js';

function fileStem(state) {
  return `spate-plan-${state.info?.job || 'fleet'}${state.scenario.changes.length ? '-whatif' : ''}`.replace(/[^\w.-]+/g, '_');
}

function chartOf(state, host) {
  const failed = new Set(state.result.failures.map((f) => f.index));
  const changes = state.scenario.changes.filter((_, i) => !failed.has(i)).map(describe);
  const lines = [
    `job ${state.info.job}; snapshot ${state.source.label}, taken ${utc(state.info.taken_at_ms)}`,
    changes.length ? `scenario: ${changes.join('; ')}` : 'scenario: none (the baseline plan)',
  ];
  return chartSvg({
    rows: memberRows(state.result.view), order: state.order, title: `Fleet of job ${state.info.job}: load now and planned`,
    lines, palette: paletteOf(host),
  });
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
      const s = controller.state;
      const moves = await controller.ask('moves', { sort: 'weight', desc: true, filter: '', member: null, offset: 0, limit: 200 });
      const timeline = await timelineMarkdown(controller, ctx.host);
      const md = markdownReport({ info: s.info, source: s.source, result: s.result, scenario: s.scenario, moves, link: ctx.options.permalink ? location.href : null, timeline });
      download(`${fileStem(s)}.md`, 'text/markdown', md);
    }),
    act('Review document (Markdown)', async () => {
      // the wasm reviewReport: the document `spate-planner report` writes (--inline), with the
      // sweep and the comparison shown as SVG images
      const md = await ctx.review.reviewReport();
      download(`${fileStem(controller.state).replace(/^spate-plan-/, 'spate-review-')}.md`, 'text/markdown', md);
    }),
    act('Print…', () => window.print()),
    act('Chart SVG', () => download(`${fileStem(controller.state)}.svg`, 'image/svg+xml', svgText(chartOf(controller.state, ctx.host)))),
    act('Chart PNG', async () => download(`${fileStem(controller.state)}.png`, 'image/png', await svgToPng(chartOf(controller.state, ctx.host)))),
    act('Copy link', async () => {
      try {
        await navigator.clipboard.writeText(location.href);
        controller.say('Link copied: it reopens this view on the same snapshot.');
      } catch {
        controller.say(`Copy this link: ${location.href}`);
      }
    }),
  );
  node.append(heading, buttons);
  return { node, update() {} };
}
