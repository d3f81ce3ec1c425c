import { readFileSync } from "node:fs";
import { buildSchema, parse, validate } from "graphql";
import { describe, expect, it } from "vitest";
import { DOCUMENTS } from "../../../src/backends/github/queries.js";

// GitHub's published GraphQL schema, read once: a field renamed or removed there fails here.
const schema = buildSchema(readFileSync("node_modules/@octokit/graphql-schema/schema.graphql", "utf8"), {
  assumeValidSDL: true,
});

describe("GraphQL documents sent to GitHub's merge queue", () => {
  for (const [name, document] of Object.entries(DOCUMENTS)) {
    it(`${name} is valid against GitHub's schema`, () => {
      const errors = validate(schema, parse(document)).map((e) => e.message);
      expect(errors).toEqual([]);
    });
  }

  it("catches a field GitHub does not have", () => {
    const errors = validate(
      schema,
      parse('query { repository(owner: "a", name: "b") { mergeQueue { pauses } } }'),
    );
    expect(errors.map((e) => e.message)).toEqual([expect.stringContaining('Cannot query field "pauses"')]);
  });
});
