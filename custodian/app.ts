/**
 * A custodian's HTTP interface (JSON, not the API's envelope: a custodian is a separate
 * service with a small, Lit-like protocol; docs/tags.md):
 *
 *   GET  /healthz                 {"status":"ok"}
 *   GET  /v1/info                 this node's index, the threshold, the network key, its public key share
 *   POST /v1/decryption-share     {accessControlConditions, encryptedDataHash, authSig}
 *                                 -> {shareIndex, signatureShare: {ProofOfPossession}} or {error, message}
 */
import express, { type Express } from 'express';
import type { Config } from '../shared/config.ts';
import type { Logger } from '../shared/logger.ts';
import type { SignatureVerifierClient } from '../shared/siwe/siwe-message-verification.ts';
import type { ShareFile } from '../shared/custody/key-files.ts';
import { signIdentityShare, toLitShare, type KeyShare } from '../shared/tag-crypto/threshold-signatures.ts';
import { authorizedIdentity, ShareRefusal } from './share-request.ts';

export interface CustodianDeps {
  config: Pick<Config, 'TAG_MESSAGE_MAX_VALIDITY_SECONDS' | 'CHAIN_NAMES'>;
  logger: Logger;
  share: ShareFile & { key: KeyShare };
  publicClient?: SignatureVerifierClient | undefined;
}

export function createCustodianApp(deps: CustodianDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.json({ limit: '32kb' }));
  const { share } = deps;

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/v1/info', (_req, res) => {
    res.json({ index: share.index, threshold: share.threshold, nodes: share.nodes, publicKey: share.publicKey, publicKeyShare: share.publicKeyShare });
  });
  app.post('/v1/decryption-share', async (req, res) => {
    try {
      const { identity, signer } = await authorizedIdentity(req.body, deps);
      const signatureShare = toLitShare(signIdentityShare(share.key, identity));
      deps.logger.info({ signer, outcome: 'signed' }, 'decryption share');
      res.json({ shareIndex: share.index, signatureShare });
    } catch (error) {
      if (!(error instanceof ShareRefusal)) throw error;
      deps.logger.info({ outcome: error.reason }, 'decryption share refused');
      res.status(error.status).json({ error: error.reason, message: error.message });
    }
  });
  app.use((_req, res) => {
    res.status(404).json({ error: 'not-found', message: 'no such endpoint' });
  });
  app.use(((error, _req, res, _next) => {
    const e = error as { type?: string };
    if (e?.type === 'entity.parse.failed' || e?.type === 'entity.too.large') {
      res.status(400).json({ error: 'invalid-request', message: 'request body is not JSON or too large' });
      return;
    }
    deps.logger.error({ err: error }, 'custodian error');
    res.status(500).json({ error: 'internal', message: 'internal error' });
  }) as express.ErrorRequestHandler);
  return app;
}
