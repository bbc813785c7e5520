// The page's template library: lit-html (web/vendor/, copied there from the pinned npm package by
// scripts/setup). A view renders a template into its node again on every update and lit-html
// changes only what differs, so the controls drawn before (with their focus, their typed text and
// their selection) stay the same elements. Values are bound as text and attributes, never parsed
// as markup: data is never HTML. `svg` writes the parts of a drawing that sit inside an <svg>
// written by another template.
export { html, svg, render, nothing } from '../../vendor/lit-html/lit-html.js';
export { repeat } from '../../vendor/lit-html/directives/repeat.js';
export { live } from '../../vendor/lit-html/directives/live.js';
