import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Deployment, type IDeployment } from "kubernetes-models/apps/v1";
import { type IPodDisruptionBudget, PodDisruptionBudget } from "kubernetes-models/policy/v1";
import {
  ConfigMap,
  type IPodSpec,
  type IService,
  type IServicePort,
  PersistentVolumeClaim,
  Service,
} from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import {
  PERMISSION_SETTING,
  SECRET_SETTING_NAMES,
  SETTING_NAMES,
  SETTINGS,
  type SettingName,
} from "../../src/settings/settings.js";
import { modelFile, unknownFields } from "./known-fields.js";
import { type K8sObject, KUBERNETES_DIR, renderKustomization, VARIANTS } from "./kustomize.js";

/**
 * deploy/kubernetes, as `kubectl apply -k deploy/kubernetes/<variant>` would send it (rendered by
 * ./kustomize.ts): every object valid against Kubernetes' schemas (kubernetes-models), every environment
 * variable a setting of the settings table, no secret in the files, and the Deployment as
 * docs/operations.md ("Kubernetes") says.
 */
const RELEASE = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version;

const MODELS: Record<string, new (o: never) => { validate(): void }> = {
  "v1/ConfigMap": ConfigMap,
  "v1/Service": Service,
  "v1/PersistentVolumeClaim": PersistentVolumeClaim,
  "apps/v1/Deployment": Deployment,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
};

/** What src/index.ts may take after SHUTDOWN_TIMEOUT_SECONDS: closing the store (5 s) and the logs (2 s). */
const AFTER_SHUTDOWN_TIMEOUT_SECONDS = 7;

type Container = {
  name: string;
  image: string;
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: unknown }[];
  securityContext?: Record<string, unknown>;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeMounts?: { name: string; mountPath: string }[];
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  [probe: string]: unknown;
};

/** Fields of the Prometheus Operator's ServiceMonitor (monitoring.coreos.com/v1) these manifests may use. */
const MONITOR_SPEC = ["selector", "endpoints", "namespaceSelector", "jobLabel", "targetLabels"];
const MONITOR_ENDPOINT = ["port", "path", "interval", "scrapeTimeout", "scheme", "honorLabels"];

/** The fields of a Prometheus Operator ServiceMonitor these manifests use. */
type ServiceMonitor = K8sObject & {
  spec: { selector: { matchLabels: Record<string, string> }; endpoints: { port: string; path: string }[] };
};

function variant(name: string) {
  const objects = renderKustomization(join(KUBERNETES_DIR, name));
  const one = <T = K8sObject>(kind: string) => {
    const found = objects.filter((o) => o.kind === kind);
    expect(found, `${name}: one ${kind}`).toHaveLength(1);
    return found[0] as T;
  };
  const deployment = one<IDeployment>("Deployment");
  const spec = deployment.spec as NonNullable<IDeployment["spec"]>;
  const pod = { metadata: spec.template.metadata ?? {}, spec: spec.template.spec as IPodSpec };
  const container = pod.spec.containers[0] as unknown as Container;
  const configMap = one<K8sObject & { data: Record<string, string> }>("ConfigMap");
  return { objects, one, deployment: { spec }, pod, container, configMap };
}

const bytes = (quantity: string) => {
  const m = /^(\d+)(Mi|Gi)?$/.exec(quantity);
  if (!m) throw new Error(`unexpected quantity ${quantity}`);
  return Number(m[1]) * (m[2] === "Gi" ? 1024 ** 3 : m[2] === "Mi" ? 1024 ** 2 : 1);
};
const millicores = (quantity: string) =>
  quantity.endsWith("m") ? Number(quantity.slice(0, -1)) : Number(quantity) * 1000;

describe.each(VARIANTS)("deploy/kubernetes/%s", (name) => {
  it("renders objects valid against Kubernetes' schemas, and a ServiceMonitor the Prometheus Operator reads", () => {
    const { objects } = variant(name);
    expect(objects.map((o) => o.kind).sort()).toEqual(
      expect.arrayContaining(["ConfigMap", "Deployment", "PodDisruptionBudget", "Service", "ServiceMonitor"]),
    );
    for (const o of objects) {
      if (o.kind === "ServiceMonitor") {
        expect(o.apiVersion).toBe("monitoring.coreos.com/v1");
        // No model for the Operator's CRD here: its metadata is checked as any object's (on a ConfigMap's),
        // its spec by the Service it must select (below).
        new ConfigMap({ metadata: o.metadata as never }).validate();
        expect(unknownFields({ metadata: o.metadata }, modelFile("v1", "ConfigMap"))).toEqual([]);
        const monitor = o as ServiceMonitor;
        expect(Object.keys(monitor.spec).filter((k) => !MONITOR_SPEC.includes(k))).toEqual([]);
        for (const endpoint of monitor.spec.endpoints)
          expect(Object.keys(endpoint).filter((k) => !MONITOR_ENDPOINT.includes(k))).toEqual([]);
        continue;
      }
      // kubectl refuses a field the schema does not have (a typo: `livenesProbe`); the models do not.
      expect(unknownFields(o, modelFile(o.apiVersion, o.kind)), `${o.kind} ${o.metadata.name}`).toEqual([]);
      const Model = MODELS[`${o.apiVersion}/${o.kind}`];
      expect(Model, `a model for ${o.apiVersion} ${o.kind}`).toBeDefined();
      expect(
        () => new (Model as NonNullable<typeof Model>)(o as never).validate(),
        `${o.kind} ${o.metadata.name}`,
      ).not.toThrow();
    }
    // No Secret: secrets are referenced, never written here.
    expect(objects.filter((o) => o.kind === "Secret")).toEqual([]);
  });

  it("sets only settings of the settings table, each to a value it accepts, and no secret in the ConfigMap", () => {
    const { container, configMap } = variant(name);
    const known = (n: string) =>
      (SETTING_NAMES as string[]).includes(n) || n.startsWith(PERMISSION_SETTING.prefix);
    const names = [...Object.keys(configMap.data), ...(container.env ?? []).map((e) => e.name)];
    expect(names.filter((n) => !known(n))).toEqual([]);
    expect(new Set(names).size).toBe(names.length);
    for (const [key, value] of Object.entries(configMap.data)) {
      expect(SECRET_SETTING_NAMES as string[], `${key} is a secret: it belongs in the Secret`).not.toContain(
        key,
      );
      const parsed = SETTINGS[key as SettingName].schema.safeParse(value);
      expect(parsed.success, `${key}=${value}: ${parsed.error?.message}`).toBe(true);
    }
    for (const env of container.env ?? []) {
      // Secrets (and the PostgreSQL URL, which holds a password) come from a Secret by reference.
      expect(env.value, `${env.name} has a value in the manifest`).toBeUndefined();
      expect(env.valueFrom?.secretKeyRef?.key).toBe(env.name);
    }
    // Every surface's secret is read from the Secret (a surface whose keys are all absent is off).
    for (const secret of SECRET_SETTING_NAMES.filter((n) => n !== "PRIVATE_KEY_PATH" && n !== "DATABASE_URL"))
      expect(names, `${secret} is referenced`).toContain(secret);
    expect(container.envFrom).toEqual([{ configMapRef: { name: configMap.metadata.name } }]);
  });

  it("runs the image of this release, non-root on a read-only root filesystem with no capabilities, within resources", () => {
    const { pod, container } = variant(name);
    expect(container.image).toMatch(new RegExp(`:${RELEASE.replaceAll(".", "\\.")}$`));
    expect(pod.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(container.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    });
    const { requests = {}, limits = {} } = container.resources ?? {};
    for (const resource of ["cpu", "memory"]) {
      expect(requests[resource], `${resource} request`).toBeDefined();
      expect(limits[resource], `${resource} limit`).toBeDefined();
    }
    expect(bytes(limits.memory as string)).toBeGreaterThan(bytes(requests.memory as string));
    expect(millicores(limits.cpu as string)).toBeGreaterThan(millicores(requests.cpu as string));
    // What it writes goes to volumes: /tmp, and SQLite's directory.
    const mounts = (container.volumeMounts ?? []).map((m) => m.mountPath);
    expect(mounts).toContain("/tmp");
  });

  it("probes /healthz on its port and gives a stop longer than SHUTDOWN_TIMEOUT_SECONDS", () => {
    const { pod, container, configMap } = variant(name);
    const port = container.ports?.find((p) => p.name === "http");
    expect(port?.containerPort).toBe(Number(configMap.data.PORT ?? 3000));
    for (const probe of ["readinessProbe", "livenessProbe", "startupProbe"])
      expect(container[probe], probe).toMatchObject({ httpGet: { path: "/healthz", port: "http" } });
    const shutdown = Number(configMap.data.SHUTDOWN_TIMEOUT_SECONDS ?? 10);
    const preStop = container.lifecycle?.preStop?.exec?.command ?? [];
    const pause = preStop[0] === "sleep" ? Number(preStop[1]) : 0;
    expect(pod.spec.terminationGracePeriodSeconds).toBeGreaterThan(
      shutdown + pause + AFTER_SHUTDOWN_TIMEOUT_SECONDS,
    );
  });

  it("selects its pods from the Service, the PodDisruptionBudget and the ServiceMonitor", () => {
    const { one, pod, container } = variant(name);
    const labels = pod.metadata.labels as Record<string, string>;
    const service = one<IService & { spec: { selector: Record<string, string>; ports: IServicePort[] } }>(
      "Service",
    );
    const budget = one<
      IPodDisruptionBudget & { spec: { selector: { matchLabels: Record<string, string> } } }
    >("PodDisruptionBudget");
    const monitor = one<ServiceMonitor>("ServiceMonitor");
    expect(labels).toMatchObject(service.spec.selector);
    expect(labels).toMatchObject(budget.spec.selector.matchLabels);
    expect(service.metadata?.labels).toMatchObject(monitor.spec.selector.matchLabels);
    const portNames = (container.ports ?? []).map((p) => p.name);
    for (const p of service.spec.ports) expect(portNames).toContain(p.targetPort);
    const servicePorts = service.spec.ports.map((p) => p.name);
    expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ path: "/metrics" })]);
    for (const e of monitor.spec.endpoints) expect(servicePorts).toContain(e.port);
    // METRICS_PORT: Prometheus scrapes the port that alone serves /metrics, not the one the ingress routes.
    const { configMap } = variant(name);
    const metricsPort = container.ports?.find((p) => p.name === "metrics");
    expect(metricsPort?.containerPort).toBe(Number(configMap.data.METRICS_PORT));
    expect(Number(configMap.data.METRICS_PORT)).not.toBe(Number(configMap.data.PORT ?? 3000));
    expect(monitor.spec.endpoints.map((e) => e.port)).toEqual(["metrics"]);
    // Only one of the two: maxUnavailable or minAvailable.
    expect(["maxUnavailable", "minAvailable"].filter((k) => k in budget.spec)).toHaveLength(1);
  });
});

describe("the field check", () => {
  it("finds a field Kubernetes' schema does not have, however deep", () => {
    const typo = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "x", labels: { any: "label" } },
      spec: {
        selector: { matchLabels: { a: "b" } },
        template: {
          spec: { containers: [{ name: "c", livenesProbe: {}, ports: [{ containerPort: 1, nmae: "x" }] }] },
        },
      },
    };
    expect(unknownFields(typo, modelFile("apps/v1", "Deployment"))).toEqual([
      "spec.template.spec.containers[0].livenesProbe",
      "spec.template.spec.containers[0].ports[0].nmae",
    ]);
  });
});

describe("the variants", () => {
  it("sqlite: one replica, stopped before the next starts, its database on the volume at /data", () => {
    const { deployment, container, configMap, pod, one } = variant("sqlite");
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy).toEqual({ type: "Recreate" });
    // The image's own DATABASE_URL (a secret setting: it may hold a password, so never in the ConfigMap).
    expect(configMap.data.DATABASE_URL).toBeUndefined();
    expect(container.env?.map((e) => e.name)).not.toContain("DATABASE_URL");
    expect(readFileSync("Dockerfile", "utf8")).toMatch(/^\s*DATABASE_URL=sqlite:\/data\/yardmaster\.db\s*$/m);
    const claim = one("PersistentVolumeClaim");
    const volume = pod.spec.volumes?.find((v) => v.persistentVolumeClaim?.claimName === claim.metadata.name);
    expect(volume).toBeDefined();
    expect(container.volumeMounts).toContainEqual({ name: volume?.name, mountPath: "/data" });
    // One replica: a drain may take it (a budget of minAvailable 1 would block drains for ever).
    expect(one<IPodDisruptionBudget>("PodDisruptionBudget").spec).toMatchObject({ maxUnavailable: 1 });
  });

  it("postgres: three replicas on the database of a Secret, rolled one at a time, two kept through drains", () => {
    const { deployment, container, configMap, one } = variant("postgres");
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.spec.strategy?.rollingUpdate).toEqual({ maxSurge: 1, maxUnavailable: 0 });
    expect(configMap.data.DATABASE_URL).toBeUndefined();
    expect(container.env).toContainEqual({
      name: "DATABASE_URL",
      valueFrom: { secretKeyRef: { name: "yardmaster-database", key: "DATABASE_URL" } },
    });
    expect(one<IPodDisruptionBudget>("PodDisruptionBudget").spec).toEqual({
      minAvailable: 2,
      selector: { matchLabels: { "app.kubernetes.io/name": "yardmaster" } },
    });
    expect(container.volumeMounts?.map((m) => m.mountPath)).toEqual(["/tmp"]);
  });
});
