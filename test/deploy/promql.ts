import { readFileSync } from "node:fs";
import { parser } from "@prometheus-io/lezer-promql";
import { parseYaml } from "../helpers/plain-yaml.js";

/** A PromQL expression read with Prometheus' own parser (strict: a syntax error throws). */
export interface Selector {
  metric: string;
  labels: string[];
}

/** The metric names (and the label names each is matched on) an expression reads; throws if it does not parse. */
export function selectors(expr: string): Selector[] {
  const tree = parser.configure({ strict: true }).parse(expr);
  const out: Selector[] = [];
  tree.iterate({
    enter(node) {
      if (node.name !== "VectorSelector") return;
      const id = node.node.getChild("Identifier");
      if (!id) throw new Error(`a selector without a metric name: ${expr.slice(node.from, node.to)}`);
      const labels: string[] = [];
      for (const matcher of node.node.getChild("LabelMatchers")?.getChildren("UnquotedLabelMatcher") ?? []) {
        const name = matcher.getChild("LabelName");
        if (name) labels.push(expr.slice(name.from, name.to));
      }
      out.push({ metric: expr.slice(id.from, id.to), labels });
    },
  });
  return out;
}

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export const ALERTS_FILE = "deploy/prometheus/alerts.yml";
export const DASHBOARD_FILE = "deploy/grafana/yardmaster.json";

export function alertRules(): { group: string; rule: AlertRule }[] {
  const file = parseYaml(readFileSync(ALERTS_FILE, "utf8"), ALERTS_FILE) as {
    groups: { name: string; rules: AlertRule[] }[];
  };
  return file.groups.flatMap((g) => g.rules.map((rule) => ({ group: g.name, rule })));
}

export interface DashboardPanel {
  title: string;
  type: string;
  targets?: { expr: string; refId: string }[];
}

export function dashboard(): { title: string; uid: string; panels: DashboardPanel[] } {
  return JSON.parse(readFileSync(DASHBOARD_FILE, "utf8"));
}

/** Grafana's own variables, as Grafana replaces them before Prometheus reads the expression. */
export function grafanaExpr(expr: string): string {
  return expr.replaceAll("$__rate_interval", "5m").replaceAll("$__interval", "1m");
}

/** Every expression of the alerts and the dashboard, with where it is. */
export function everyExpression(): { where: string; expr: string }[] {
  return [
    ...alertRules().map(({ rule }) => ({ where: `alert ${rule.alert}`, expr: rule.expr })),
    ...dashboard().panels.flatMap((p) =>
      (p.targets ?? []).map((t) => ({ where: `panel "${p.title}" ${t.refId}`, expr: grafanaExpr(t.expr) })),
    ),
  ];
}
