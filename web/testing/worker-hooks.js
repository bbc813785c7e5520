
// ---- test build only (scripts/build appends this to dist-test/worker.js) ----
import { debugTrap } from './pkg/spate_planner.js';

UNCHECKED.add('testTrap');
UNCHECKED.add('testFailInfo');
/** Traps the module on purpose, as a bug would. */
ops.testTrap = () => guard(() => debugTrap());
/** Makes the next load's info() fail, after the snapshot parsed. */
ops.testFailInfo = () => {
  const real = infoOf;
  infoOf = () => {
    infoOf = real;
    throw Object.assign(new Error('info() failed (forced by the test build)'), { code: 'internal' });
  };
};
UNCHECKED.add('testFailNext');
/** Makes the next request `target` fail with code `forced`. */
ops.testFailNext = ({ target }) => {
  const real = ops[target];
  ops[target] = () => {
    ops[target] = real;
    throw Object.assign(new Error(`${target} failed (forced by the test build)`), { code: 'forced' });
  };
};
UNCHECKED.add('testHoldNext');
UNCHECKED.add('testRelease');
let release = null;
/** Makes the next request `target` wait until testRelease (requests are answered concurrently). */
ops.testHoldNext = ({ target }) => {
  const real = ops[target];
  ops[target] = async (...args) => {
    ops[target] = real;
    await new Promise((go) => { release = go; });
    return real(...args);
  };
};
/** Lets the request held by testHoldNext go on. */
ops.testRelease = () => {
  release?.();
  release = null;
};
