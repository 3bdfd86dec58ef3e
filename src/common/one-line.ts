/** Collapse whitespace and cut to `max` characters (with an ellipsis): a message or excerpt fit for one log line. */
export function oneLine(text: string, max = 400): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : line.slice(0, max - 1) + '…';
}
