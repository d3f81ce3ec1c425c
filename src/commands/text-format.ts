/** How a surface writes text: the core writes sentences through this, never raw markup. */
export interface TextFormat {
  /** Makes text that a person typed (or that came from outside) inert in this surface's markup. */
  escape(text: string): string;
  /** Inline code, for commands and names. The text is escaped as needed. */
  code(text: string): string;
  bold(text: string): string;
  link(url: string, label: string): string;
  /** How a command is addressed on this surface, e.g. "@yardmaster" or "/mq". */
  invocation: string;
}
