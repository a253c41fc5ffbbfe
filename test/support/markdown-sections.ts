/** Just enough Markdown for tests that keep docs honest: level-2/3 sections and their fenced code blocks. */

export interface Section {
  /** Heading text without the #'s. */
  title: string;
  level: number;
  /** Lines up to the next heading of the same or a higher level. */
  body: string;
}

export function sections(markdown: string, level: number): Section[] {
  const found: Section[] = [];
  let open: { title: string; lines: string[] } | undefined;
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^(#{1,6})\s+(.*?)\s*$/.exec(line);
    if (heading && heading[1]!.length <= level) {
      if (open) found.push({ title: open.title, level, body: open.lines.join('\n') });
      open = heading[1]!.length === level ? { title: heading[2]!, lines: [] } : undefined;
      continue;
    }
    open?.lines.push(line);
  }
  if (open) found.push({ title: open.title, level, body: open.lines.join('\n') });
  return found;
}

export function codeBlocks(markdown: string, lang: string): string[] {
  const pattern = new RegExp('^```' + lang + '\\s*\\n([\\s\\S]*?)^```\\s*$', 'gm');
  return [...markdown.matchAll(pattern)].map((m) => m[1]!.trimEnd());
}

/** The first column of a Markdown table, as written between backticks: `name`. */
export function tableFirstColumn(markdown: string): string[] {
  return [...markdown.matchAll(/^\|\s*`([^`]+)`\s*\|/gm)].map((m) => m[1]!);
}
