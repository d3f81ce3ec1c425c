/**
 * The shape every coded error of Yardmaster has (as Bolt's `CodedError`): a code from its own closed enum,
 * which callers switch on, never on the message; what else it carries is its own (the merge queue's
 * status and detail, a command's details). Implemented by `QueueError`
 * (src/core/queue-error.ts; Mergify's `MergeQueueError` is one) and `CommandError` (src/commands/errors.ts).
 */
export interface CodedError<Code extends string> extends Error {
  readonly code: Code;
}
