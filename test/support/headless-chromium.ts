/**
 * Debian's headless Chromium, driven over the DevTools protocol on a pipe
 * (--remote-debugging-pipe: commands in on fd 3, answers and events out on fd 4, each
 * message ending in a NUL byte), the way Puppeteer and Playwright talk to it: browser
 * tests need no npm package and no WebSocket client. Absent Chromium fails loudly, so a
 * machine without it cannot pass a browser test by skipping it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { z } from 'zod';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const message = z.object({
  id: z.number().optional(),
  method: z.string().optional(),
  sessionId: z.string().optional(),
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.object({ message: z.string() }).optional(),
  params: z.record(z.string(), z.unknown()).optional(),
});
type Message = z.infer<typeof message>;

const evaluation = z.object({
  result: z.object({ value: z.unknown().optional() }),
  exceptionDetails: z.object({ text: z.string(), exception: z.object({ description: z.string().optional() }).optional() }).optional(),
});

export interface BrowserPage {
  /** The value of a JavaScript expression in the page (awaited when it is a promise). */
  evaluate(expression: string): Promise<unknown>;
  /** What went wrong so far: uncaught exceptions, console errors, failed requests. */
  problems(): string[];
}

export interface HeadlessChromium {
  open(url: string): Promise<BrowserPage>;
  close(): Promise<void>;
}

export async function launchHeadlessChromium(): Promise<HeadlessChromium> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is missing at ${CHROMIUM}: browser tests need it (apt-get install chromium, or set CHROMIUM_PATH)`);
  }
  const profile = await mkdtemp(path.join(os.tmpdir(), 'soulgraph-chromium-'));
  // --no-sandbox: CI and containers run as root, where Chromium's sandbox refuses to start.
  const browser: ChildProcess = spawn(
    CHROMIUM,
    ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--no-default-browser-check', `--user-data-dir=${profile}`, '--remote-debugging-pipe', 'about:blank'],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  browser.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000);
  });
  const commands = browser.stdio[3] as Writable;
  const answers = browser.stdio[4] as Readable;

  let nextId = 1;
  const pending = new Map<number, { resolve: (result: Record<string, unknown>) => void; reject: (error: Error) => void }>();
  const listeners = new Set<(event: Message) => void>();
  let exited: Error | undefined;
  browser.once('exit', (code, signal) => {
    exited = new Error(`Chromium exited (${code ?? signal}): ${stderr}`);
    for (const { reject } of pending.values()) reject(exited);
    pending.clear();
  });

  let buffered = '';
  answers.on('data', (chunk: Buffer) => {
    const parts = (buffered + chunk.toString('utf8')).split('\0');
    buffered = parts.pop()!;
    for (const part of parts) {
      const received = message.parse(JSON.parse(part));
      if (received.id === undefined) {
        for (const listener of listeners) listener(received);
        continue;
      }
      const waiting = pending.get(received.id);
      pending.delete(received.id);
      if (received.error) waiting?.reject(new Error(`DevTools: ${received.error.message}`));
      else waiting?.resolve(received.result ?? {});
    }
  });

  function send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    if (exited) return Promise.reject(exited);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      commands.write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + '\0');
    });
  }

  return {
    async open(url) {
      const { targetId } = z.object({ targetId: z.string() }).parse(await send('Target.createTarget', { url: 'about:blank' }));
      const { sessionId } = z.object({ sessionId: z.string() }).parse(await send('Target.attachToTarget', { targetId, flatten: true }));
      const problems: string[] = [];
      listeners.add((event) => {
        if (event.sessionId !== sessionId) return;
        const params = event.params ?? {};
        if (event.method === 'Runtime.exceptionThrown') problems.push(`exception: ${JSON.stringify(params.exceptionDetails)}`);
        if (event.method === 'Log.entryAdded') problems.push(`log: ${JSON.stringify(params.entry)}`);
        if (event.method === 'Runtime.consoleAPICalled' && params.type === 'error') problems.push(`console.error: ${JSON.stringify(params.args)}`);
        if (event.method === 'Network.loadingFailed') problems.push(`request failed: ${JSON.stringify(params)}`);
      });
      await Promise.all(['Page.enable', 'Runtime.enable', 'Log.enable', 'Network.enable'].map((method) => send(method, {}, sessionId)));
      const navigation = z.object({ errorText: z.string().optional() }).parse(await send('Page.navigate', { url }, sessionId));
      if (navigation.errorText) throw new Error(`Chromium could not open ${url}: ${navigation.errorText}`);
      return {
        async evaluate(expression) {
          const answer = evaluation.parse(await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, sessionId));
          if (answer.exceptionDetails) throw new Error(`in the page: ${answer.exceptionDetails.exception?.description ?? answer.exceptionDetails.text}`);
          return answer.result.value;
        },
        problems: () => [...problems],
      };
    },
    async close() {
      if (!exited) {
        const gone = new Promise((resolve) => browser.once('exit', resolve));
        const stuck = setTimeout(() => browser.kill('SIGKILL'), 5_000);
        await send('Browser.close').catch(() => undefined);
        if (!exited) await gone;
        clearTimeout(stuck);
      }
      await rm(profile, { recursive: true, force: true });
    },
  };
}
