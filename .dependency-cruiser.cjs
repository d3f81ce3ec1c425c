/**
 * The layers, lowest first: a module imports only from its own place or from places listed before it
 * (`layers-point-down`). Within a layer the folders are ordered too, so that no two top-level folders of
 * src/ import each other in a circle. A feature's wiring (src/<folder>/wire.ts: its one function the
 * composition root calls) belongs to the root. docs/architecture.md ("Layers") draws it.
 */
const LAYERS = [
  {
    layer: "shared kernel",
    places: [
      ["settings", "^src/settings/"],
      ["kernel", "^src/(repo|time-zone|logger|metrics|version|event-loop)[.]ts$"],
    ],
  },
  {
    layer: "core",
    places: [
      ["core", "^src/core/"],
      ["wording", "^src/wording/"],
      ["history", "^src/history/"],
    ],
  },
  {
    layer: "store, engine and backends (the ports' implementations, the runner of durable work)",
    places: [
      ["store", "^src/store/"],
      ["work", "^src/work/"],
      ["backends", "^src/backends/"],
    ],
  },
  { layer: "use cases", places: [["use-cases", "^src/use-cases/"]] },
  {
    layer: "features",
    places: [
      ["freezes", "^src/freezes/"],
      ["commands", "^src/commands/"],
      ["relays", "^src/relays/"],
      ["timed-pauses", "^src/timed-pauses/"],
      ["shield", "^src/shield/"],
      ["notifier", "^src/notifier/"],
      ["outside-merges", "^src/outside-merges/"],
      ["digests", "^src/digests/"],
      ["health", "^src/health/"],
      ["doctor", "^src/doctor/"],
    ],
  },
  {
    layer: "surfaces",
    places: [
      ["server", "^src/server/"],
      ["github", "^src/github/"],
      ["slack", "^src/slack/"],
      ["identity", "^src/identity/"],
    ],
  },
  {
    layer: "composition root",
    places: [["root", "^src/app/|^src/[^/]+/wire[.]ts$|^src/(index|yardmaster|doctor)[.]ts$"]],
  },
];

/** Where the root's wiring sits inside a feature's folder (it belongs to the root). */
const WIRING = "^src/[^/]+/wire[.]ts$";

/**
 * Imports that point up today, each with its reason; each is allowed only from its module(s) to its
 * target(s). Remove one when its reason is gone.
 */
const EXCEPTIONS = [
  {
    from: "^src/doctor/",
    to: "^src/github/(doorbell|installations)[.]ts$",
    because: "the setup check asks the GitHub App's installations and its webhook doorbell directly",
  },
];

const places = LAYERS.flatMap(({ layer, places }) => places.map(([name, path]) => ({ layer, name, path })));

/** One rule per place: nothing in it imports a place listed after it, but for the exceptions. */
function layerRules() {
  return places.flatMap((place, i) => {
    const above = places.slice(i + 1).map((p) => p.path);
    if (!above.length) return [];
    const own = EXCEPTIONS.filter((e) => matchesPlace(e.from, place));
    const rule = {
      name: `layers-point-down-${place.name}`,
      comment: `${place.name} (${place.layer}) imports only its own place and the ones below it (LAYERS).`,
      severity: "error",
      from: {
        path: place.path,
        pathNot: [...(place.name === "root" ? [] : [WIRING]), ...own.map((e) => e.from)],
      },
      to: { path: above },
    };
    const excepted = own.map((e, n) => ({
      name: `layers-point-down-${place.name}-except-${n + 1}`,
      comment: `As layers-point-down-${place.name}, but for: ${e.because}`,
      severity: "error",
      from: { path: e.from, pathNot: place.name === "root" ? [] : [WIRING] },
      to: { path: above, pathNot: own.map((o) => o.to) },
    }));
    return [rule, ...excepted];
  });
}

/** Whether an exception's modules start in the place (its path's prefix names the same folder). */
function matchesPlace(from, place) {
  return place.path.split("|").some((p) => from.startsWith(p.replace(/\/$/, "")));
}

/** Boundaries that `npm run check` enforces (dependency-cruiser). */
module.exports = {
  forbidden: [
    ...layerRules(),
    {
      name: "store-knows-only-core",
      comment: "The store implements the core's ports: it imports only the core and the shared kernel.",
      severity: "error",
      from: { path: "^src/store/" },
      to: {
        path: "^src/",
        pathNot: [
          "^src/(store|core|settings)/",
          "^src/(repo|time-zone|logger|metrics|version|event-loop)[.]ts$",
        ],
      },
    },
    {
      name: "slack-is-a-surface",
      comment:
        "Slack is a surface: nothing outside src/slack and the composition root (src/app, the entry files) imports it. Features say their messages in the neutral model (src/wording/message.ts); the root hands them Slack's posters (src/slack/chat-posters.ts).",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/slack/", "^src/app/", "^src/(index|yardmaster|doctor)[.]ts$"] },
      to: { path: "^src/slack/" },
    },
    {
      name: "backends-know-no-surface",
      comment:
        "A backend implements the core's merge-queue port: it imports no surface (GitHub, Slack, the server, identity).",
      severity: "error",
      from: { path: "^src/backends/" },
      to: { path: "^src/(github|slack|server|identity)/" },
    },
    {
      name: "vendor-decided-in-backends",
      comment:
        "Which vendor serves is decided in src/backends only: the core, the features (the setup check too: src/backends/setup-check.ts) and the other surfaces ask the neutral modules of src/backends, never a vendor's folder. Only the GitHub surface (it hears GitHub's queue webhooks) and the composition root import one.",
      severity: "error",
      from: {
        path: "^src/",
        pathNot: [
          "^src/(backends|github|app)/",
          "^src/[^/]+/wire[.]ts$",
          "^src/(index|yardmaster|doctor)[.]ts$",
        ],
      },
      to: { path: "^src/backends/(mergify|github)/" },
    },
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
