// The views registry. A view is one module that exports a factory; registering it gives it a
// place in the layout:
//   header  — the top bar          notices — messages, findings, warnings
//   summary — the sticky strip     main    — beside the what-if panel (the chart)
//   side    — the what-if panel    tab     — a tab of the detail area (moves, splits, …)
// create(ctx) returns { node, update(state, prev), show?(), hide?(), destroy?() }; ctx is
// { controller, review, options, root, host }: a view changes the state only through the
// controller's actions (and the review's). update() is called after every store change with the
// state before it (common/page/store.js changed() tells what moved). A new view (a timeline, a
// live feed, a sweep) is one module and one registerView() call in shell/page/views.js.

const VIEWS = [];

/** Registers a view: { id, title, place, order (lower first), print (a tab printed whatever tab is shown), create }. */
export function registerView(view) {
  if (VIEWS.some((v) => v.id === view.id)) throw new Error(`view ${view.id} is registered twice`);
  VIEWS.push({ order: 100, ...view });
}

/** The views of `place`, in order. */
export function viewsAt(place) {
  return VIEWS.filter((v) => v.place === place).sort((a, b) => a.order - b.order);
}
