// The chart exports' part in the page: the colours of the theme shown (read from the element's
// custom properties, handed to the core's chart) and a chart's SVG text drawn as PNG through a
// canvas. The chart itself is the core's (Planner.fleetChart).

/** The colours of the theme shown: the palette the core's fleet chart takes. */
export function paletteOf(host) {
  const cs = getComputedStyle(host);
  const get = (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
  return {
    bg: get('--panel', '#ffffff'), text: get('--text', '#1a2230'), muted: get('--muted', '#4d5868'),
    now: get('--now', '#5d6b7e'), planned: get('--planned', '#2456c8'), over: get('--over', '#c2410c'),
    mean: get('--mean', '#1a2230'), grid: get('--grid', '#d5dae1'),
  };
}

/** The width and height an SVG text declares. */
function sizeOf(svg) {
  const doc = new DOMParser().parseFromString(svg, 'image/svg+xml').documentElement;
  return { w: Number(doc.getAttribute('width')), h: Number(doc.getAttribute('height')) };
}

/** PNG bytes of a chart's SVG text, drawn through a canvas at `scale`. */
export async function svgToPng(svg, scale = 2) {
  const { w, h } = sizeOf(svg);
  const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = w * scale;
    canvas.height = h * scale;
    const ctx = canvas.getContext('2d');
    ctx.scale(scale, scale);
    ctx.drawImage(img, 0, 0);
    return await new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the browser could not encode the PNG'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}
