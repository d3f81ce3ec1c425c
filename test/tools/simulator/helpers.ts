import { type Simulator, type SimulatorOptions, startSimulator } from "../../../tools/simulator/index.js";

export const TOKEN = "test-token";

export interface Api {
  sim: Simulator;
  get(path: string, init?: RequestInit): Promise<Response>;
  getJson<T = unknown>(path: string): Promise<T>;
  send(method: string, path: string, body?: unknown, token?: string): Promise<Response>;
  control(method: string, path: string, body?: unknown): Promise<Response>;
}

/** Starts a simulator and returns helpers bound to it. */
export async function start(options: Partial<SimulatorOptions> = {}): Promise<Api> {
  const sim = await startSimulator({ token: TOKEN, ...options });
  const headers = (token = TOKEN, json = false): Record<string, string> => ({
    authorization: `Bearer ${token}`,
    ...(json ? { "content-type": "application/json" } : {}),
  });
  const absolute = (path: string) => (path.startsWith("http") ? path : `${sim.apiUrl}${path}`);
  const api: Api = {
    sim,
    get: (path, init) => fetch(absolute(path), { ...init, headers: { ...headers(), ...init?.headers } }),
    async getJson<T>(path: string) {
      const response = await api.get(path);
      if (response.status !== 200)
        throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as T;
    },
    send: (method, path, body, token) =>
      fetch(absolute(path), {
        method,
        headers: headers(token, body !== undefined),
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      }),
    control: (method, path, body) =>
      fetch(`${sim.url}${path}`, {
        method,
        headers: headers(TOKEN, body !== undefined),
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
  };
  return api;
}

export function pullRequest(number: number, extra: Record<string, unknown> = {}) {
  return {
    number,
    title: `Change number ${number}`,
    url: `https://github.com/octo/app/pull/${number}`,
    author: { id: 100 + number, login: `dev${number}` },
    base_ref: "main",
    head_sha: `${number}`.padStart(40, "a"),
    ...extra,
  };
}

/** Types of the events of a repository appended after `afterId`, oldest first. */
export function typesSince(sim: Simulator, repository: string, afterId = 0): string[] {
  return sim.state
    .events(repository)
    .filter((event) => event.id > afterId)
    .map((event) => `${event.type}${event.pull_request === null ? "" : `#${event.pull_request}`}`);
}
