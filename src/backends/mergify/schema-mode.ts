import { z } from "zod";

/**
 * Every response schema is written once, as a builder taking a SchemaMode, and built twice:
 * - lenient (what the client uses): required and nullable as the spec's section 2 says, unknown fields
 *   kept, unknown enumeration values kept;
 * - strict (tests of the project's simulator): also requires every field the real service always sends
 *   (the OpenAPI `required` lists) and only the known enumeration values.
 * So the two cannot drift: strict differs from lenient only through `alwaysSent` and `oneOf`.
 */
export interface SchemaMode {
  readonly strict: boolean;
  /**
   * A field the real service always sends but the spec does not require: optional when lenient, required
   * when strict. (Typed as optional in both, which is true of the strict output too.)
   */
  alwaysSent<T extends z.ZodType>(schema: T): z.ZodOptional<T>;
  /** An enumeration: lenient also keeps values it does not know (typed `string & {}`), strict refuses them. */
  oneOf<const T extends readonly [string, ...string[]]>(values: T): OpenEnumSchema<T[number]>;
}

/** The known values, autocompleted and narrowable, or any other string the service may add later. */
export type OpenEnum<T extends string> = T | (string & {});
export type OpenEnumSchema<T extends string> = z.ZodType<OpenEnum<T>, string>;

export const lenientMode: SchemaMode = {
  strict: false,
  alwaysSent: (schema) => schema.optional(),
  oneOf: (values) => z.union([z.enum(values), z.string()]) as OpenEnumSchema<(typeof values)[number]>,
};

export const strictMode: SchemaMode = {
  strict: true,
  alwaysSent: <T extends z.ZodType>(schema: T) => schema as unknown as z.ZodOptional<T>,
  oneOf: (values) => z.enum(values) as unknown as OpenEnumSchema<(typeof values)[number]>,
};
