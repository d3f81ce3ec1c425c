import { z } from "zod";

/** ISO 8601 date-time as the service writes it: `Z` or an offset, any fraction of a second. */
export const dateTimeSchema = z.iso.datetime({ offset: true, local: true });

/** UUID-shaped identifier (batch ids, session ids). */
export const uuidSchema = z.guid();

/** A pull request number in an answer (the spec allows 0 and up). */
export const pullNumberValueSchema = z.int().min(0);
