// `node --import ./test-support/hold-long-timers.mjs …`: with WHEELHOUSE_HOLD_TIMERS_FROM_MS set,
// every setTimeout of that many milliseconds or more never fires (it is armed for the longest
// delay Node allows instead). A process that still exits promptly on its own has waited out no
// grace period and left no such timer armed: what a test of a prompt shutdown checks, in place
// of a bound on wall time that a loaded machine breaks.
const from = Number(process.env.WHEELHOUSE_HOLD_TIMERS_FROM_MS);
const NEVER_MS = 2 ** 31 - 1;

if (Number.isFinite(from)) {
  const original = globalThis.setTimeout;
  const held = function setTimeout(callback, delay, ...args) {
    return original(callback, Number(delay) >= from ? NEVER_MS : delay, ...args);
  };
  // What Node hangs on setTimeout (util.promisify.custom) stays available.
  for (const key of Reflect.ownKeys(original)) {
    if (key === 'length' || key === 'name' || key === 'prototype') continue;
    const descriptor = Object.getOwnPropertyDescriptor(original, key);
    if (descriptor) Object.defineProperty(held, key, descriptor);
  }
  globalThis.setTimeout = held;
}
