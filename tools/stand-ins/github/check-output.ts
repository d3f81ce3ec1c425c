import type { Urls } from "./payloads.js";

/** What a check run says: its `output` (title, summary, text) and its annotations (ci-check-runs.ts). */

export interface AnnotationInput {
  path: string;
  line: number;
  /** Default "failure". */
  level?: "failure" | "warning" | "notice";
  message: string;
  title?: string;
}

export interface CheckOutput {
  title: string;
  summary: string;
  text?: string | null;
  annotations?: AnnotationInput[];
}

/** A check run's `output` as GitHub lists it. */
export function outputJson(urls: Urls, fullName: string, id: number, output: CheckOutput | null) {
  return {
    title: output?.title ?? null,
    summary: output?.summary ?? null,
    text: output?.text ?? null,
    annotations_count: output?.annotations?.length ?? 0,
    annotations_url: `${urls.api}/repos/${fullName}/check-runs/${id}/annotations`,
  };
}
