/**
 * Block Kit limits, enforced the way Slack enforces them: a message that breaks one is refused with
 * `invalid_blocks` and a list of errors that end in a JSON pointer, e.g.
 * "must be less than 3001 characters [json-pointer:/blocks/0/text/text]".
 *
 * Only what Yardmaster can break is checked (message size, text lengths, element counts, ids); the
 * schema of every element type is not.
 */

export const LIMITS = {
  blocksPerMessage: 50,
  /** A Home tab (or modal) view. */
  blocksPerView: 100,
  messageText: 40_000,
  blockId: 255,
  sectionText: 3000,
  sectionFields: 10,
  sectionFieldText: 2000,
  headerText: 150,
  actionsElements: 25,
  contextElements: 10,
  contextText: 3000,
  buttonText: 75,
  actionId: 255,
  buttonValue: 2000,
  buttonUrl: 3000,
  imageAltText: 2000,
} as const;

const BLOCK_TYPES = new Set([
  "actions",
  "context",
  "divider",
  "file",
  "header",
  "image",
  "input",
  "markdown",
  "rich_text",
  "section",
  "table",
  "video",
]);

type Errors = string[];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function err(errors: Errors, message: string, pointer: string): void {
  errors.push(`${message} [json-pointer:${pointer}]`);
}

function checkLength(errors: Errors, value: unknown, max: number, pointer: string): void {
  if (typeof value !== "string") {
    err(errors, "must be a string", pointer);
    return;
  }
  if (value.length === 0) err(errors, "must be more than 0 characters", pointer);
  if (value.length > max) err(errors, `must be less than ${max + 1} characters`, pointer);
}

function checkOptionalLength(errors: Errors, value: unknown, max: number, pointer: string): void {
  if (value !== undefined) checkLength(errors, value, max, pointer);
}

function checkTextObject(
  errors: Errors,
  value: unknown,
  pointer: string,
  max: number,
  plainTextOnly = false,
): void {
  if (!isObject(value)) {
    err(errors, "must be a text object", pointer);
    return;
  }
  if (plainTextOnly ? value.type !== "plain_text" : value.type !== "plain_text" && value.type !== "mrkdwn") {
    err(
      errors,
      plainTextOnly ? "must be plain_text" : "must be one of plain_text, mrkdwn",
      `${pointer}/type`,
    );
  }
  checkLength(errors, value.text, max, `${pointer}/text`);
}

function checkActionId(
  errors: Errors,
  element: Record<string, unknown>,
  pointer: string,
  seen: Set<string>,
): void {
  if (element.action_id === undefined) return; // Slack generates one.
  checkLength(errors, element.action_id, LIMITS.actionId, `${pointer}/action_id`);
  if (typeof element.action_id === "string") {
    if (seen.has(element.action_id)) err(errors, "duplicate action_id", `${pointer}/action_id`);
    seen.add(element.action_id);
  }
}

function checkElement(errors: Errors, element: unknown, pointer: string, seenActionIds: Set<string>): void {
  if (!isObject(element)) {
    err(errors, "must be an object", pointer);
    return;
  }
  if (typeof element.type !== "string") err(errors, "must provide a type", `${pointer}/type`);
  checkActionId(errors, element, pointer, seenActionIds);
  if (element.type === "button") {
    checkTextObject(errors, element.text, `${pointer}/text`, LIMITS.buttonText, true);
    checkOptionalLength(errors, element.value, LIMITS.buttonValue, `${pointer}/value`);
    checkOptionalLength(errors, element.url, LIMITS.buttonUrl, `${pointer}/url`);
    if (element.style !== undefined && element.style !== "primary" && element.style !== "danger") {
      err(errors, "must be one of primary, danger", `${pointer}/style`);
    }
  }
}

function checkElementList(
  errors: Errors,
  elements: unknown,
  max: number,
  pointer: string,
): unknown[] | undefined {
  if (!Array.isArray(elements)) {
    err(errors, "must be an array", pointer);
    return undefined;
  }
  if (elements.length === 0) err(errors, "must contain at least 1 item", pointer);
  if (elements.length > max) err(errors, `must contain at most ${max} items`, pointer);
  return elements;
}

function checkBlock(errors: Errors, block: unknown, pointer: string, seenBlockIds: Set<string>): void {
  if (!isObject(block)) {
    err(errors, "must be an object", pointer);
    return;
  }
  if (typeof block.type !== "string" || !BLOCK_TYPES.has(block.type)) {
    err(errors, `unsupported type: ${String(block.type)}`, `${pointer}/type`);
    return;
  }
  if (block.block_id !== undefined) {
    checkLength(errors, block.block_id, LIMITS.blockId, `${pointer}/block_id`);
    if (typeof block.block_id === "string") {
      if (seenBlockIds.has(block.block_id)) err(errors, "duplicate block_id", `${pointer}/block_id`);
      seenBlockIds.add(block.block_id);
    }
  }
  const actionIds = new Set<string>();
  switch (block.type) {
    case "section": {
      if (block.text === undefined && block.fields === undefined) {
        err(errors, "must provide either text or fields", pointer);
      }
      if (block.text !== undefined)
        checkTextObject(errors, block.text, `${pointer}/text`, LIMITS.sectionText);
      if (block.fields !== undefined) {
        const fields = checkElementList(errors, block.fields, LIMITS.sectionFields, `${pointer}/fields`);
        fields?.forEach((field, i) => {
          checkTextObject(errors, field, `${pointer}/fields/${i}`, LIMITS.sectionFieldText);
        });
      }
      if (block.accessory !== undefined)
        checkElement(errors, block.accessory, `${pointer}/accessory`, actionIds);
      break;
    }
    case "header":
      checkTextObject(errors, block.text, `${pointer}/text`, LIMITS.headerText, true);
      break;
    case "actions": {
      const elements = checkElementList(
        errors,
        block.elements,
        LIMITS.actionsElements,
        `${pointer}/elements`,
      );
      elements?.forEach((element, i) => {
        checkElement(errors, element, `${pointer}/elements/${i}`, actionIds);
      });
      break;
    }
    case "context": {
      const elements = checkElementList(
        errors,
        block.elements,
        LIMITS.contextElements,
        `${pointer}/elements`,
      );
      elements?.forEach((element, i) => {
        const at = `${pointer}/elements/${i}`;
        if (isObject(element) && element.type === "image") {
          checkLength(errors, element.alt_text, LIMITS.imageAltText, `${at}/alt_text`);
        } else {
          checkTextObject(errors, element, at, LIMITS.contextText);
        }
      });
      break;
    }
    case "image":
      checkLength(errors, block.alt_text, LIMITS.imageAltText, `${pointer}/alt_text`);
      break;
    default:
      break;
  }
}

/** Errors Slack would report for these blocks (of a message, or of a view); empty when they are acceptable. */
export function validateBlocks(blocks: unknown[], max: number = LIMITS.blocksPerMessage): string[] {
  const errors: Errors = [];
  if (blocks.length > max) {
    err(errors, `must contain at most ${max} items`, "/blocks");
  }
  const seenBlockIds = new Set<string>();
  blocks.forEach((block, i) => {
    checkBlock(errors, block, `/blocks/${i}`, seenBlockIds);
  });
  return errors;
}

/** Slack refuses a top-level `text` over 40,000 characters with `msg_too_long`. */
export function isTextTooLong(text: string): boolean {
  return text.length > LIMITS.messageText;
}
