import { z } from "zod";

/**
 * Every GraphQL document Yardmaster sends to GitHub's own merge queue (GitHub.com, and GitHub
 * Enterprise Server 3.8 and later), each beside the zod schema of its answer. A unit test validates
 * each document against GitHub's published schema (@octokit/graphql-schema), so a renamed field fails
 * the build (test/github-queue/queries.test.ts).
 */

/** The fields Yardmaster reads of a queue entry. */
const ENTRY_FIELDS = `
  position
  state
  enqueuedAt
  estimatedTimeToMerge
  jump
  enqueuer { login }
  pullRequest { number title url author { login } }
`;

const entrySchema = z.object({
  /** 1 for the entry at the head of the queue. */
  position: z.number().int(),
  state: z.string(),
  enqueuedAt: z.string(),
  /** Seconds; null when GitHub has no estimate. */
  estimatedTimeToMerge: z.number().nullable(),
  jump: z.boolean(),
  enqueuer: z.object({ login: z.string() }),
  pullRequest: z
    .object({
      number: z.number().int(),
      title: z.string(),
      url: z.string(),
      /** Null for a deleted account. */
      author: z.object({ login: z.string() }).nullable(),
    })
    .nullable(),
});
export type MergeQueueEntryData = z.infer<typeof entrySchema>;

/** How many entries `status` reads (the rest are counted). */
const ENTRIES_READ = 50;

/** A branch's merge queue (the default branch's when `branch` is null); null where it has none. */
export const MERGE_QUEUE_QUERY = `
query YardmasterMergeQueue($owner: String!, $name: String!, $branch: String) {
  repository(owner: $owner, name: $name) {
    defaultBranchRef { name }
    mergeQueue(branch: $branch) {
      url
      nextEntryEstimatedTimeToMerge
      configuration {
        mergeMethod
        mergingStrategy
        minimumEntriesToMerge
        maximumEntriesToMerge
        maximumEntriesToBuild
        checkResponseTimeout
      }
      entries(first: ${ENTRIES_READ}) {
        totalCount
        nodes { ${ENTRY_FIELDS} }
      }
    }
  }
}`;

export const mergeQueueAnswer = z.object({
  repository: z
    .object({
      defaultBranchRef: z.object({ name: z.string() }).nullable(),
      mergeQueue: z
        .object({
          url: z.string(),
          nextEntryEstimatedTimeToMerge: z.number().nullable(),
          configuration: z
            .object({
              mergeMethod: z.string().nullable(),
              mergingStrategy: z.string().nullable(),
              minimumEntriesToMerge: z.number().nullable(),
              maximumEntriesToMerge: z.number().nullable(),
              maximumEntriesToBuild: z.number().nullable(),
              checkResponseTimeout: z.number().nullable(),
            })
            .nullable(),
          entries: z.object({
            totalCount: z.number().int(),
            nodes: z.array(entrySchema.nullable()),
          }),
        })
        .nullable(),
    })
    .nullable(),
});

/**
 * Whether a branch has a merge queue (for MERGE_QUEUE_PROVIDER=auto, and the setup check): the smallest
 * read, with the default branch's name (the branch asked when `branch` is null).
 */
export const HAS_MERGE_QUEUE_QUERY = `
query YardmasterHasMergeQueue($owner: String!, $name: String!, $branch: String) {
  repository(owner: $owner, name: $name) {
    defaultBranchRef { name }
    mergeQueue(branch: $branch) { id }
  }
}`;

export const hasMergeQueueAnswer = z.object({
  repository: z
    .object({
      defaultBranchRef: z.object({ name: z.string() }).nullish(),
      mergeQueue: z.object({ id: z.string() }).nullable(),
    })
    .nullable(),
});

/** A pull request: its node id and head (to enqueue it), its base branch, and its queue entry. */
export const PULL_REQUEST_ENTRY_QUERY = `
query YardmasterPullRequestEntry($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      id
      baseRefName
      headRefOid
      mergeQueueEntry { ${ENTRY_FIELDS} }
    }
  }
}`;

export const pullRequestEntryAnswer = z.object({
  repository: z
    .object({
      pullRequest: z
        .object({
          id: z.string(),
          baseRefName: z.string(),
          headRefOid: z.string(),
          mergeQueueEntry: entrySchema.nullable(),
        })
        .nullable(),
    })
    .nullable(),
});

/** Adds a pull request to its base branch's queue; `jump` puts it at the head. */
export const ENQUEUE_MUTATION = `
mutation YardmasterEnqueue($pullRequestId: ID!, $jump: Boolean, $expectedHeadOid: GitObjectID) {
  enqueuePullRequest(input: { pullRequestId: $pullRequestId, jump: $jump, expectedHeadOid: $expectedHeadOid }) {
    mergeQueueEntry { ${ENTRY_FIELDS} }
  }
}`;

export const enqueueAnswer = z.object({
  enqueuePullRequest: z.object({ mergeQueueEntry: entrySchema.nullable() }).nullable(),
});

/** Takes a pull request (by its node id) out of the merge queue. */
export const DEQUEUE_MUTATION = `
mutation YardmasterDequeue($id: ID!) {
  dequeuePullRequest(input: { id: $id }) {
    mergeQueueEntry { position }
  }
}`;

export const dequeueAnswer = z.object({
  dequeuePullRequest: z.object({ mergeQueueEntry: z.object({ position: z.number() }).nullable() }).nullable(),
});

/** How many entries the gate reads to decide a merge group's gate (a group holds those ahead of it). */
export const GATE_ENTRIES_READ = 100;
/** How many labels of each pull request the gate reads (`except label:…`). */
const GATE_LABELS_READ = 50;

/**
 * The entries of a branch's queue by position, with when each entered and its pull request's labels:
 * what the gate decides a merge group on (a drain, a pause's exemptions, a pull request let through), and
 * what a drain keeps when it begins.
 */
export const GATE_ENTRIES_QUERY = `
query YardmasterGateEntries($owner: String!, $name: String!, $branch: String!) {
  repository(owner: $owner, name: $name) {
    mergeQueue(branch: $branch) {
      entries(first: ${GATE_ENTRIES_READ}) {
        totalCount
        nodes {
          position
          enqueuedAt
          pullRequest { number labels(first: ${GATE_LABELS_READ}) { nodes { name } } }
        }
      }
    }
  }
}`;

export const gateEntriesAnswer = z.object({
  repository: z
    .object({
      mergeQueue: z
        .object({
          entries: z.object({
            totalCount: z.number().int(),
            nodes: z.array(
              z
                .object({
                  position: z.number().int(),
                  enqueuedAt: z.string().nullable(),
                  pullRequest: z
                    .object({
                      number: z.number().int(),
                      labels: z
                        .object({ nodes: z.array(z.object({ name: z.string() }).nullable()).nullable() })
                        .nullable(),
                    })
                    .nullable(),
                })
                .nullable(),
            ),
          }),
        })
        .nullable(),
    })
    .nullable(),
});

/**
 * The checks of a queued pull request's merge group (its entry's head commit): what the health alerts
 * name as still pending. Read apart from the entry, only when an alert opens.
 */
export const ENTRY_CHECKS_QUERY = `
query YardmasterEntryChecks($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      mergeQueueEntry {
        headCommit {
          statusCheckRollup {
            state
            contexts(first: 50) {
              nodes {
                __typename
                ... on CheckRun { name status conclusion detailsUrl }
                ... on StatusContext { context state targetUrl }
              }
            }
          }
        }
      }
    }
  }
}`;

const checkContextSchema = z.union([
  z.object({
    __typename: z.literal("CheckRun"),
    name: z.string(),
    status: z.string(),
    conclusion: z.string().nullable(),
    detailsUrl: z.string().nullable(),
  }),
  z.object({
    __typename: z.literal("StatusContext"),
    context: z.string(),
    state: z.string(),
    targetUrl: z.string().nullable(),
  }),
]);

export const entryChecksAnswer = z.object({
  repository: z
    .object({
      pullRequest: z
        .object({
          mergeQueueEntry: z
            .object({
              headCommit: z
                .object({
                  statusCheckRollup: z
                    .object({
                      state: z.string(),
                      contexts: z.object({ nodes: z.array(checkContextSchema.nullable()) }),
                    })
                    .nullable(),
                })
                .nullable(),
            })
            .nullable(),
        })
        .nullable(),
    })
    .nullable(),
});

/** Every document, for the test that validates them against GitHub's schema. */
export const DOCUMENTS = {
  ENTRY_CHECKS_QUERY,
  GATE_ENTRIES_QUERY,
  MERGE_QUEUE_QUERY,
  HAS_MERGE_QUEUE_QUERY,
  PULL_REQUEST_ENTRY_QUERY,
  ENQUEUE_MUTATION,
  DEQUEUE_MUTATION,
} as const;
