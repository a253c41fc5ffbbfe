/**
 * Bull Board over every queue of the pipeline: waiting, active, delayed, failed and
 * completed jobs with their payload and error, retry and clean. Its scripts, styles and
 * images are served from node_modules (@bull-board/ui); nothing loads from a CDN (its page
 * links a web font, which only changes the looks when offline). Its page also works when
 * opened with the credential in the URL (credential-free-page.ts).
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import type { Queue } from 'bullmq';
import type { Router } from 'express';
import { CredentialFreePageAdapter } from './credential-free-page.ts';

export function queueDashboard(queues: readonly Queue[], basePath: string): Router {
  const serverAdapter = new CredentialFreePageAdapter();
  serverAdapter.setBasePath(basePath);
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue, { allowRetries: true })),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'soulgraph queues' } },
  });
  return serverAdapter.getRouter() as Router;
}
