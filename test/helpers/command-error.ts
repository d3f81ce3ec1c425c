import { expect } from "vitest";
import { CommandError } from "../../src/commands/errors.js";

/** The CommandError a command's promise rejects with; fails the test if it resolves or throws another. */
export async function failure(promise: Promise<unknown>): Promise<CommandError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(CommandError);
    return error as CommandError;
  }
  throw new Error("expected a CommandError");
}
