/**
 * Bull Board's page opened as http://user:password@host/admin/queues: the browser keeps the
 * credentials in the document's URL, so every relative URL the page resolves carries them
 * too, and fetch() refuses those ("Request cannot be constructed from a URL that includes
 * credentials"). Bull Board loads its translations with fetch and renders nothing until
 * they load: it stays on "Loading" through i18next's five retries (about 11 s), then shows
 * bare keys (MENU.QUEUES). The page cannot drop the credentials from its own URL
 * (history.replaceState refuses to change them), so it reloads itself once without them;
 * the browser has already cached the credential and sends it. Its <base href> stays a
 * path: the UI uses it as its router's basename, and only the browser knows the public
 * origin behind a proxy.
 */
import type { AppViewRoute } from '@bull-board/api/typings/app';
import { ExpressAdapter } from '@bull-board/express';
import type { NextFunction, Request, Response } from 'express';

/** First in <head>: before the page loads anything with the credentials in its URL. */
const RELOAD_WITHOUT_CREDENTIALS =
  '<script>(function () { var url = new URL(document.URL); if (url.username || url.password) { url.username = ""; url.password = ""; location.replace(url.href); } })();</script>';

export class CredentialFreePageAdapter extends ExpressAdapter {
  override setEntryRoute(routeDef: AppViewRoute): ExpressAdapter {
    this.app[routeDef.method](routeDef.route, (_req: Request, res: Response, next: NextFunction) => {
      const { name, params } = routeDef.handler({ basePath: this.basePath, uiConfig: this.uiConfig });
      res.render(name, params, (error: Error | null, html: string) => {
        if (error) next(error);
        else res.type('html').send(html.replace(/<head[^>]*>/i, (head) => head + RELOAD_WITHOUT_CREDENTIALS));
      });
    });
    return this;
  }
}
