/**
 * The soulgraph client: sign in with a viem account, page through recommendations, list
 * SBTs, and fetch and decrypt a user's tags (docs/sdk.md). It talks to the API over HTTP
 * only; nothing here imports server code.
 */

import { createSiweMessage, parseSiweMessage } from 'viem/siwe';
import { decryptTagsWithKey, tagDecryptionParams, type EncryptedTags, type TagAudience } from '../shared/tag-crypto/tag-ciphertext.ts';
import { SoulgraphApiError } from './api-error.ts';
import type { KeyDecryptor } from './decryptors.ts';
import { authSigOf, signTagAccess, type MessageSigner, type TagAccessOptions, type TagAuthorization } from './tag-access-message.ts';

export interface SoulgraphClientOptions {
  /** e.g. "https://api.example.com" */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
}

/** Exactly one identifier. */
export type UserIdentifier = { address: string } | { socialUsername: string } | { gamePlatformId: string };

export interface SignInOptions {
  /** Host of the dapp: one of the ApiKey's allowed domains. */
  domain: string;
  uri: string;
  chainId: number;
  /** The inviter's profileId, on a first sign-in. */
  inviteCode?: string;
  statement?: string;
}

export interface Session {
  addressToken: string;
  unifiedToken: string;
  /** Unix ms when the unified token expires. */
  expiresAt: number;
}

export interface RecommendUser {
  profileId: string;
  name: string;
  avatar: string;
  recommendReason: string;
  following: boolean;
}

export interface Sbt {
  contractAddress: string;
  sbtName: string;
  tokenId: string;
  rdfData: string;
  imageUrl: string;
  metadataUrl: string;
}

export class SoulgraphClient {
  private readonly baseUrl: string;
  private readonly doFetch: typeof fetch;
  private session: Session | undefined;

  constructor(private readonly options: SoulgraphClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/$/, '');
    this.doFetch = options.fetch ?? globalThis.fetch;
  }

  /**
   * Sign-In with Ethereum: a nonce, the account's signature of the message, an address
   * token, and its exchange for the 7-day unified token (kept for `recommendations`).
   */
  async signIn(account: MessageSigner, options: SignInOptions): Promise<Session> {
    const { nonce } = await this.request<{ nonce: string }>('GET', '/api/v1/auth/nonce');
    const message = createSiweMessage({
      domain: options.domain,
      address: account.address,
      statement: options.statement ?? 'Sign in to soulgraph',
      uri: options.uri,
      version: '1',
      chainId: options.chainId,
      nonce,
      issuedAt: new Date(),
    });
    const signature = await account.signMessage({ message });
    const { token: addressToken } = await this.request<{ token: string }>('POST', '/api/v1/auth/address-token', { message, signature });
    const { token: unifiedToken, expiresIn } = await this.request<{ token: string; expiresIn: number }>(
      'POST',
      '/api/v1/auth',
      options.inviteCode ? { inviteCode: options.inviteCode } : {},
      { 'I-Authorization': `Bearer ${addressToken}` },
    );
    this.session = { addressToken, unifiedToken, expiresAt: Date.now() + expiresIn * 1000 };
    return this.session;
  }

  /** Use a unified token obtained earlier (e.g. stored by the dapp). */
  useUnifiedToken(unifiedToken: string): void {
    this.session = { addressToken: '', unifiedToken, expiresAt: Number.POSITIVE_INFINITY };
  }

  /** The caller's recommendations, page by page, until the last page. */
  async *recommendations(options: { limit?: number } = {}): AsyncGenerator<RecommendUser[]> {
    if (!this.session) throw new Error('sign in first (signIn or useUnifiedToken)');
    let cursor = '';
    do {
      const query = new URLSearchParams({ limit: String(options.limit ?? 20), ...(cursor ? { cursor } : {}) });
      const page = await this.request<{ cursor: string; list: RecommendUser[] }>('GET', `/api/v1/recommend?${query}`, undefined, {
        Authorization: `Bearer ${this.session.unifiedToken}`,
      });
      if (page.list.length > 0) yield page.list;
      cursor = page.cursor;
    } while (cursor);
  }

  async sbts(user: UserIdentifier): Promise<Sbt[]> {
    return this.request<Sbt[]>('GET', `/api/v1/sbt/list?${new URLSearchParams(user as Record<string, string>)}`);
  }

  /** Has the account sign an "Access to User Tag." message (see TagAccessOptions). */
  authorizeTagAccess(account: MessageSigner, options: TagAccessOptions): Promise<TagAuthorization> {
    return signTagAccess(account, options);
  }

  /** The encrypted tags of `user`; the authorization must be signed by that user. */
  async fetchTags(user: UserIdentifier, authorization: Pick<TagAuthorization, 'message' | 'sig'>): Promise<EncryptedTags> {
    const query = new URLSearchParams({ ...(user as Record<string, string>), sig: authorization.sig, message: authorization.message });
    return this.request<EncryptedTags>('GET', `/api/v1/tag?${query}`);
  }

  /** The tags inside `encrypted`, through the custody network (or Lit) with the same authorization. */
  async decryptTags(encrypted: EncryptedTags, authorization: TagAuthorization, decryptor: KeyDecryptor): Promise<string[]> {
    const params = tagDecryptionParams(encrypted.encryptedString, audienceOf(authorization));
    const key = await decryptor.decryptKey({
      ciphertext: encrypted.encryptedSymmetricKey,
      accessControlConditions: params.accessControlConditions,
      encryptedDataHash: params.encryptedDataHash,
      dataToEncryptHash: params.dataToEncryptHash,
      chain: params.chain,
      identity: params.identity,
      authSig: authSigOf(authorization),
    });
    return decryptTagsWithKey(encrypted.encryptedString, key);
  }

  /** fetchTags then decryptTags. */
  async tags(user: UserIdentifier, authorization: TagAuthorization, decryptor: KeyDecryptor): Promise<string[]> {
    return this.decryptTags(await this.fetchTags(user, authorization), authorization, decryptor);
  }

  private async request<T>(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const response = await this.doFetch(`${this.baseUrl}${path}`, {
      method,
      headers: { ApiKey: this.options.apiKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let envelope: { code?: unknown; desc?: unknown; data?: unknown };
    try {
      envelope = JSON.parse(text);
    } catch {
      throw new SoulgraphApiError(response.status, '', `not an envelope: ${text.slice(0, 200)}`);
    }
    if (envelope.code !== '0') throw new SoulgraphApiError(response.status, String(envelope.code ?? ''), String(envelope.desc ?? ''));
    return envelope.data as T;
  }
}

/** Who the ciphertext was made for: the signer, chain and domain of the authorization. */
function audienceOf(authorization: TagAuthorization): TagAudience {
  const { chainId, domain } = parseSiweMessage(authorization.message);
  if (chainId === undefined || !domain) throw new TypeError('the authorization message lacks a chain id or a domain');
  return { signer: authorization.address, chainId, domain };
}

