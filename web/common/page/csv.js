// A table's CSV download: the core's CSV text (the same bytes as `spate-planner … --csv`),
// asked for when the button is pressed and saved as JOB-TABLE.csv.
import { el, button, download } from './dom.js';
import { stemOf } from '../shared/cli.js';

/** A button that downloads `make()`'s CSV text (a promise) as the job's `table`.csv. */
export function csvButton(controller, table, make, words = table) {
  const b = button(`CSV: ${words}`, () => Promise.resolve().then(make)
    .then((text) => download(`${stemOf(controller.state.info?.job)}-${table}.csv`, 'text/csv', text))
    .catch((e) => controller.report(e, 'The CSV export failed')), 'csv');
  b.dataset.csv = table;
  return b;
}

/** A row of CSV buttons (left out of the printout). */
export function csvRow(...buttons) {
  const row = el('div', undefined, 'row csv-tools');
  row.append(...buttons);
  return row;
}
