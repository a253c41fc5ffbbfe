/**
 * Keeps docs/api.md honest without running anything: every curl in its shell blocks calls
 * an endpoint the OpenAPI document lists, with a method it lists there; every endpoint of
 * the document appears in at least one curl; and every JSON example that is an envelope
 * has a string code that the API really answers with.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { errorCodes } from '../../api/common/error-codes.ts';
import { openApiDocument } from '../../api/server/openapi.ts';

const DOC = 'docs/api.md';
const markdown = readFileSync(fileURLToPath(new URL(`../../${DOC}`, import.meta.url)), 'utf8');

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Served beside the OpenAPI document rather than described in it. */
const SELF_DESCRIPTION: Record<string, string[]> = {
  '/api/v1/openapi.json': ['GET'],
  '/docs': ['GET'],
  '/docs/': ['GET'],
};

/** Path -> upper-case methods, from the OpenAPI document plus the self-description above. */
function knownEndpoints(): Map<string, string[]> {
  const endpoints = new Map<string, string[]>(Object.entries(SELF_DESCRIPTION));
  for (const [path, item] of Object.entries(openApiDocument().paths ?? {})) {
    const methods = HTTP_METHODS.filter((m) => (item as Record<string, unknown>)[m] !== undefined).map((m) => m.toUpperCase());
    endpoints.set(path, methods);
  }
  return endpoints;
}

interface CodeBlock {
  lang: string;
  body: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** Fenced code blocks (fences may be indented, as inside list items). */
function codeBlocks(text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let open: { lang: string; line: number; indent: string; lines: string[] } | undefined;
  text.split('\n').forEach((line, i) => {
    if (open) {
      if (/^\s*```\s*$/.test(line)) {
        blocks.push({ lang: open.lang, body: open.lines.join('\n'), line: open.line });
        open = undefined;
      } else {
        open.lines.push(line.startsWith(open.indent) ? line.slice(open.indent.length) : line);
      }
      return;
    }
    const fence = /^(\s*)```(\S*)/.exec(line);
    if (fence) open = { lang: fence[2]!.toLowerCase(), line: i + 1, indent: fence[1]!, lines: [] };
  });
  if (open) throw new Error(`${DOC}: unclosed code block at line ${open.line}`);
  return blocks;
}

/**
 * The lines a shell would run: continuations (`\` at the end) joined, comment lines and
 * here-document bodies left out.
 */
function commandLines(body: string): string[] {
  const lines: string[] = [];
  let heredocEnd: string | undefined;
  let pending = '';
  for (const raw of body.split('\n')) {
    if (heredocEnd !== undefined) {
      if (raw.trim() === heredocEnd) heredocEnd = undefined;
      continue;
    }
    if (pending === '' && raw.trim().startsWith('#')) continue;
    const heredoc = /<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1/.exec(raw);
    if (heredoc) heredocEnd = heredoc[2]!;
    if (raw.endsWith('\\')) {
      pending += `${raw.slice(0, -1)} `;
      continue;
    }
    lines.push(pending + raw);
    pending = '';
  }
  if (pending !== '') lines.push(pending);
  return lines;
}

type Token = { word: string } | { op: string };

/** Shell words with quotes removed, and the unquoted operators that end a command. */
function tokenize(line: string): Token[] {
  const tokens: Token[] = [];
  let word: string | undefined;
  const flush = () => {
    if (word !== undefined) tokens.push({ word });
    word = undefined;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      const stop = end < 0 ? line.length : end;
      word = (word ?? '') + line.slice(i + 1, stop);
      i = stop;
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else if (/\s/.test(c)) {
      flush();
    } else if (c === '$' && line[i + 1] === '(') {
      flush();
      tokens.push({ op: '$(' });
      i++;
    } else if ('|&;()<>'.includes(c)) {
      flush();
      let op = c;
      while (i + 1 < line.length && '|&<>'.includes(line[i + 1]!)) op += line[++i];
      tokens.push({ op });
    } else {
      word = (word ?? '') + c;
    }
  }
  flush();
  return tokens;
}

/** curl options that take a value (the value is never the URL). */
const VALUED = new Set([
  '-H', '--header', '-X', '--request', '-d', '--data', '--data-raw', '--data-binary', '--data-urlencode', '--data-ascii',
  '--json', '-F', '--form', '-o', '--output', '-w', '--write-out', '-D', '--dump-header', '-u', '--user', '-A',
  '--user-agent', '-e', '--referer', '-m', '--max-time', '--connect-timeout', '-b', '--cookie', '-c', '--cookie-jar',
]);
const SENDS_BODY = new Set(['-d', '--data', '--data-raw', '--data-binary', '--data-urlencode', '--data-ascii', '--json', '-F', '--form']);

interface Curl {
  /** Where in the doc, for messages. */
  at: string;
  command: string;
  method: string;
  url: string | undefined;
  headers: string[];
}

function curlsIn(block: CodeBlock): Curl[] {
  const curls: Curl[] = [];
  for (const line of commandLines(block.body)) {
    const tokens = tokenize(line);
    tokens.forEach((token, start) => {
      if (!('word' in token) || token.word !== 'curl') return;
      const args: string[] = [];
      for (const t of tokens.slice(start + 1)) {
        if ('op' in t) break;
        args.push(t.word);
      }
      let method: string | undefined;
      let get = false;
      let head = false;
      let body = false;
      let url: string | undefined;
      const headers: string[] = [];
      for (let i = 0; i < args.length; i++) {
        const arg = args[i]!;
        const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
        if (VALUED.has(name)) {
          const value = inline ?? args[++i] ?? '';
          if (name === '-X' || name === '--request') method = value.toUpperCase();
          if (name === '-H' || name === '--header') headers.push(value);
          if (SENDS_BODY.has(name)) body = true;
        } else if (/^-[A-Za-z]+$/.test(arg)) {
          // Combined short flags, e.g. -sL, -sG, -si.
          if (arg.includes('G')) get = true;
          if (arg.includes('I')) head = true;
        } else if (arg === '--get') {
          get = true;
        } else if (arg === '--head') {
          head = true;
        } else if (!arg.startsWith('-')) {
          url ??= arg;
        }
      }
      curls.push({
        at: `${DOC}:${block.line}`,
        command: line.trim(),
        method: method ?? (head ? 'HEAD' : body && !get ? 'POST' : 'GET'),
        url,
        headers,
      });
    });
  }
  return curls;
}

/** The path of a curl URL on the API: `$API/...`, `${API}/...` or `http(s)://host/...`. */
function pathOf(url: string): string | undefined {
  const match = /^(?:\$\{?API\}?|https?:\/\/[^/?#]+)([^?#]*)/.exec(url);
  if (!match) return undefined;
  return match[1] === '' ? '/' : match[1];
}

const blocks = codeBlocks(markdown);
const shellBlocks = blocks.filter((b) => b.lang === 'bash' || b.lang === 'sh');
const curls = shellBlocks.flatMap(curlsIn);
const endpoints = knownEndpoints();

describe(DOC, () => {
  it('has curl examples', () => {
    expect(shellBlocks.length).toBeGreaterThan(0);
    expect(curls.length).toBeGreaterThan(0);
  });

  it('calls only endpoints of the OpenAPI document, with a method it lists', () => {
    const wrong = curls.flatMap((curl) => {
      const path = curl.url === undefined ? undefined : pathOf(curl.url);
      if (path === undefined) return [`${curl.at}: no $API or http(s) URL in: ${curl.command}`];
      const methods = endpoints.get(path);
      if (!methods) return [`${curl.at}: ${path} is not an endpoint (${curl.command})`];
      if (!methods.includes(curl.method)) return [`${curl.at}: ${curl.method} ${path}, but the endpoint takes ${methods.join(', ')}`];
      return [];
    });
    expect(wrong).toEqual([]);
  });

  it('shows a curl for every endpoint of the OpenAPI document', () => {
    const called = new Set(curls.map((c) => (c.url === undefined ? undefined : `${c.method} ${pathOf(c.url)}`)));
    const missing = [...endpoints]
      .filter(([path]) => !(path in SELF_DESCRIPTION))
      .flatMap(([path, methods]) => methods.map((m) => `${m} ${path}`))
      .filter((endpoint) => !called.has(endpoint));
    expect(missing).toEqual([]);
  });

  it('sends the credentials each endpoint needs on its successful calls', () => {
    // A curl that demonstrates a missing header answers an error; every other call to an
    // endpoint secured by ApiKey sends it, and recommend also sends a Bearer token.
    const secured = new Set(
      Object.entries(openApiDocument().paths ?? {}).flatMap(([path, item]) =>
        HTTP_METHODS.filter((m) => {
          const operation = (item as Record<string, { security?: Record<string, unknown>[] } | undefined>)[m];
          return operation?.security?.some((s) => 'ApiKey' in s);
        }).map((m) => `${m.toUpperCase()} ${path}`),
      ),
    );
    const hasHeader = (curl: Curl, name: string) => curl.headers.some((h) => h.toLowerCase().startsWith(`${name.toLowerCase()}:`));
    const keyed = curls.filter((c) => c.url !== undefined && secured.has(`${c.method} ${pathOf(c.url)}`));
    expect(keyed.length).toBeGreaterThan(0);
    const withoutKey = keyed.filter((c) => !hasHeader(c, 'ApiKey'));
    // Exactly the one example of a missing ApiKey (section 1).
    expect(withoutKey.map((c) => c.command)).toEqual(['curl -s "$API/api/v1/auth/nonce"']);
    const recommend = keyed.filter((c) => pathOf(c.url!) === '/api/v1/recommend');
    expect(recommend.length).toBeGreaterThan(0);
    for (const c of recommend) expect(c.headers.some((h) => /^Authorization:\s*Bearer\s+\S/i.test(h)), c.command).toBe(true);
    for (const c of keyed.filter((c) => pathOf(c.url!) === '/api/v1/auth')) {
      expect(c.headers.some((h) => /^I-Authorization:\s*Bearer\s+\S/i.test(h)), c.command).toBe(true);
    }
  });

  describe('JSON examples', () => {
    const jsonBlocks = blocks.filter((b) => b.lang === 'json');
    const known = new Set<string>(Object.values(errorCodes).map((e) => e.code));

    it('are valid JSON', () => {
      const invalid = jsonBlocks.filter((b) => {
        try {
          JSON.parse(b.body);
          return false;
        } catch {
          return true;
        }
      });
      expect(invalid.map((b) => `${DOC}:${b.line}`)).toEqual([]);
    });

    it('that are envelopes have a string code the API answers with, a string desc, and null data on failure', () => {
      const envelopes = jsonBlocks
        .map((b) => ({ at: `${DOC}:${b.line}`, value: JSON.parse(b.body) as unknown }))
        .filter((b): b is { at: string; value: Record<string, unknown> } => {
          const v = b.value;
          return typeof v === 'object' && v !== null && !Array.isArray(v) && 'data' in v && ('code' in v || 'desc' in v);
        });
      expect(envelopes.length).toBeGreaterThan(0);
      const wrong = envelopes.flatMap(({ at, value }) => {
        if (typeof value.code !== 'string') return [`${at}: code is ${JSON.stringify(value.code)}, not a string`];
        if (!known.has(value.code)) return [`${at}: code ${value.code} is not in api/common/error-codes.ts`];
        if (typeof value.desc !== 'string') return [`${at}: desc is not a string`];
        if (value.code !== '0' && value.data !== null) return [`${at}: a failure (${value.code}) must carry data: null`];
        if (value.code === '0' && value.desc !== 'success') return [`${at}: success must say desc "success"`];
        return [];
      });
      expect(wrong).toEqual([]);
    });

    it('list the OpenAPI paths as the document has them', () => {
      const pathLists = jsonBlocks
        .map((b) => JSON.parse(b.body) as unknown)
        .filter((v): v is string[] => Array.isArray(v) && v.length > 0 && v.every((p) => typeof p === 'string' && p.startsWith('/')));
      for (const list of pathLists) expect(list).toEqual(Object.keys(openApiDocument().paths ?? {}).sort());
    });
  });
});

describe('the doc checker itself', () => {
  it('reads methods and paths from curl commands', () => {
    const parse = (body: string) => curlsIn({ lang: 'bash', body, line: 1 }).map((c) => [c.method, c.url && pathOf(c.url)]);
    expect(parse('curl -s "$API/api/v1/recommend?limit=20" -H "ApiKey: $KEY"')).toEqual([['GET', '/api/v1/recommend']]);
    expect(parse(`jq -n '{a: 1}' |\n  curl -s "$API/api/v1/auth/address-token" --data-binary @- | jq -r .data.token`)).toEqual([
      ['POST', '/api/v1/auth/address-token'],
    ]);
    expect(parse('page=$(curl -s -G "$API/api/v1/recommend" \\\n  --data-urlencode "limit=20")')).toEqual([['GET', '/api/v1/recommend']]);
    expect(parse("curl -X POST 'http://127.0.0.1:8080/api/v1/auth' -d '{}'")).toEqual([['POST', '/api/v1/auth']]);
    expect(parse('# curl -X DELETE "$API/healthz"\nMSG=$(cat <<EOF\ncurl "$API/nothing"\nEOF\n)')).toEqual([]);
  });
});
