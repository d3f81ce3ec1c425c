/**
 * The app's entry for src/index.ts, the tools and the tests; the composition root itself is
 * src/app/create-app.ts (docs/architecture.md, "Composition").
 */
export { createYardmaster } from "./app/create-app.js";
export { BODY_LIMITS } from "./app/lifecycle.js";
export type { YardmasterOptions } from "./app/options.js";
export type { CloseReport, Yardmaster } from "./app/types.js";
