import { shiftSystemClock, testNow } from "./helpers/clock.js";

// Unit tests under TEST_NOW run as on a machine whose clock says TEST_NOW (test/helpers/clock.ts): code
// that reads the system clock itself, and tests that take "now" from it, see that hour. (End-to-end
// tests keep the real clock for what must follow it, signatures and tokens, and start their world's
// clock at TEST_NOW instead.) The unit files share their worker (vitest.config.ts, isolate: false): each
// starts at TEST_NOW again, from the real clock, not from the shift of the file before it.
const shared = globalThis as { undoTestNowShift?: () => void };
shared.undoTestNowShift?.();
shared.undoTestNowShift = undefined;
if (process.env.TEST_NOW) shared.undoTestNowShift = shiftSystemClock(testNow());
