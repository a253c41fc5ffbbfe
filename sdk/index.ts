/**
 * soulgraph's client SDK (docs/sdk.md): `import { SoulgraphClient, custodianDecryptor } from 'soulgraph/sdk'`.
 */
export { SoulgraphClient, type RecommendUser, type Sbt, type Session, type SignInOptions, type SoulgraphClientOptions, type UserIdentifier } from './client.ts';
export { custodianDecryptor, litDecryptor, type CustodianNetwork, type KeyDecryptor, type KeyDecryptionRequest, type LitNodeClientLike } from './decryptors.ts';
export { authSigOf, createTagAccessMessage, signTagAccess, type MessageSigner, type TagAccessOptions, type TagAuthorization } from './tag-access-message.ts';
export { SoulgraphApiError, TagDecryptionError } from './api-error.ts';
export type { EncryptedTags } from '../shared/tag-crypto/tag-ciphertext.ts';
export { TAG_ACCESS_STATEMENT, userAddressConditions } from '../shared/tag-crypto/access-conditions.ts';
