/** Boundaries that `npm run check` enforces (dependency-cruiser). */
module.exports = {
  forbidden: [
    {
      name: "product-not-tools",
      comment:
        "src/ is the product (what npm start and the image run): it never imports the tools or the tests.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(tools|test)/" },
    },
    {
      name: "tools-not-tests",
      comment: "tools/ (simulator, stand-ins, sandbox, bench) never import the tests.",
      severity: "error",
      from: { path: "^tools/" },
      to: { path: "^test/" },
    },
    {
      name: "settings-not-commands",
      comment:
        "The settings table reads PERMISSION_<COMMAND> generically; the commands check them (src/commands/permissions.ts).",
      severity: "error",
      from: { path: "^src/settings/" },
      to: { path: "^src/commands/" },
    },
    {
      name: "core-not-surfaces",
      comment:
        "The command core (src/commands) is shared by both surfaces and knows neither: not even their types. What it needs from GitHub is a port (src/commands/ports.ts).",
      severity: "error",
      from: { path: "^src/commands/" },
      to: { path: "^src/(github|slack)/" },
    },
    {
      name: "core-not-store",
      comment:
        "The command core reaches the store only through the ports it defines (src/commands/ports.ts); the composition root (src/app/) wires the store in.",
      severity: "error",
      from: { path: "^src/commands/" },
      to: { path: "^src/store/" },
    },
    {
      name: "core-knows-no-doctor",
      comment:
        "The command core shows the setup check's report (/mq doctor) and defines it (src/commands/setup-report.ts): it imports nothing of src/doctor, the check itself is wired in.",
      severity: "error",
      from: { path: "^src/commands/" },
      to: { path: "^src/doctor/" },
    },
    {
      name: "surfaces-apart",
      comment: "The GitHub and Slack surfaces meet only in the core: neither imports the other.",
      severity: "error",
      from: { path: "^src/(github|slack)/" },
      to: { path: "^src/(github|slack)/", pathNot: "^src/$1/" },
    },
    {
      name: "merge-queue-below-core",
      comment: "Mergify's client implements a port of the core; it never imports the command core.",
      severity: "error",
      from: { path: "^src/backends/mergify/" },
      to: { path: "^src/commands/" },
    },
    {
      name: "core-knows-no-backend",
      comment:
        "The queue-neutral core (src/core) speaks its own types: it imports no backend, surface or store.",
      severity: "error",
      from: { path: "^src/core/" },
      to: { path: "^src/(backends|github|slack|store|notifier)/" },
    },
    {
      name: "notifier-knows-no-backend",
      comment:
        "The notifier hears queue events in the core's terms (src/core/queue.ts, src/core/pushed-events.ts): it imports no backend; the wiring (src/backends/wire.ts, src/app/) gives it the backends' log, pushes and reader of rows an earlier version stored.",
      severity: "error",
      from: { path: "^src/notifier/" },
      to: { path: "^src/backends/" },
    },
    {
      name: "shield-knows-no-backend-nor-surface",
      comment:
        "The flake shield (src/shield) drives the merge queue through the core's port (src/core/merge-queue.ts) and says what it did in the removal's notices (which the summary comment shows): it imports no backend and no surface.",
      severity: "error",
      from: { path: "^src/shield/" },
      to: { path: "^src/(backends|github|slack|notifier)/" },
    },
    {
      name: "commands-know-no-backend",
      comment:
        "The command core drives a merge queue through the core's port (src/core/merge-queue.ts), chosen by src/backends/choose.ts and wired in: it imports no backend.",
      severity: "error",
      from: { path: "^src/commands/" },
      to: { path: "^src/backends/" },
    },
    {
      name: "no-circular",
      comment: "Modules of the product do not import each other in a circle.",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "tools-and-tests-declared",
      comment:
        "The tools and the tests import only packages the project declares (dependencies or devDependencies).",
      severity: "error",
      from: { path: "^(tools|test)/" },
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown"] },
    },
    {
      name: "declared-dependencies",
      comment: "The product imports only packages it declares in dependencies (not devDependencies).",
      severity: "error",
      from: { path: "^src/" },
      to: { dependencyTypes: ["npm-dev", "npm-no-pkg", "npm-unknown"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
    },
  },
};
