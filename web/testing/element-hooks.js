
// ---- test build only (scripts/build appends this to dist-test/element.js) ----
/** Traps the wasm module on purpose; the element recovers as after a real trap. */
SpatePlannerElement.prototype.crashForTest = async function crashForTest() {
  await this.controller.client.raw('testTrap').catch((e) => {
    if (!e.trapped) throw e;
    return this.controller.client.recover(e);
  });
};
/** Makes the next snapshot load fail in info(), after parsing. */
SpatePlannerElement.prototype.failNextInfoForTest = function failNextInfoForTest() {
  return this.controller.client.raw('testFailInfo');
};
/** Makes the worker's next request `op` fail (code `forced`). */
SpatePlannerElement.prototype.failNextForTest = function failNextForTest(op) {
  return this.controller.client.raw('testFailNext', { target: op });
};
/** Makes the worker hold its next request `op` until releaseForTest. */
SpatePlannerElement.prototype.holdNextForTest = function holdNextForTest(op) {
  return this.controller.client.raw('testHoldNext', { target: op });
};
SpatePlannerElement.prototype.releaseForTest = function releaseForTest() {
  return this.controller.client.raw('testRelease');
};
