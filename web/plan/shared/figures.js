// The plan's figures as rows of text, for the Details table and a live moment's plan: the core's
// `figures` (the plan document's), each written by its kind — a count with thousands separators,
// bytes in binary units (the exact bytes on hover), a ratio or words as the core gives them. No DOM.
import { humanBytes, exactBytes, thousands } from '../../common/shared/format.js';

/** A figure's value as [text, exact (hover) or undefined]. */
export function figureText(f) {
  const v = f.value;
  if ('count' in v) return [`${thousands(v.count)}${f.unit ? ` ${f.unit}` : ''}`, f.note];
  if ('bytes' in v) return [humanBytes(v.bytes), f.note ?? exactBytes(v.bytes)];
  if ('ratio' in v) return [v.ratio, f.note];
  return [v.text, f.note];
}

/** [label, text, exact (hover)] per figure of a plan view. */
export function figureRows(view) {
  return view.figures.map((f) => [f.label, ...figureText(f)]);
}
