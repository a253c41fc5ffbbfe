/**
 * The tags themselves: AES-256-GCM under a fresh random key per ciphertext (WebCrypto,
 * so the same code runs in Node and in browsers). encryptedString = base64(12-byte IV ||
 * ciphertext || 16-byte tag); the key is 32 raw bytes, which lit-ibe.ts then encrypts to
 * the custody network.
 */
import { base64ToBytes, bytesToBase64 } from './base64.ts';

const IV_BYTES = 12;

export function randomSymmetricKey(): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(32));
}

export async function encryptWithSymmetricKey(key: Uint8Array, plaintext: Uint8Array): Promise<string> {
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const aes = await globalThis.crypto.subtle.importKey('raw', key, 'AES-GCM', false, ['encrypt']);
  const sealed = new Uint8Array(await globalThis.crypto.subtle.encrypt({ name: 'AES-GCM', iv }, aes, plaintext));
  const out = new Uint8Array(IV_BYTES + sealed.length);
  out.set(iv);
  out.set(sealed, IV_BYTES);
  return bytesToBase64(out);
}

/** Throws when the key is wrong or the ciphertext was altered (GCM authenticates both). */
export async function decryptWithSymmetricKey(key: Uint8Array, encryptedString: string): Promise<Uint8Array> {
  const bytes = base64ToBytes(encryptedString);
  if (bytes.length < IV_BYTES + 16) throw new TypeError('encryptedString is too short');
  const aes = await globalThis.crypto.subtle.importKey('raw', key, 'AES-GCM', false, ['decrypt']);
  return new Uint8Array(await globalThis.crypto.subtle.decrypt({ name: 'AES-GCM', iv: bytes.subarray(0, IV_BYTES) }, aes, bytes.subarray(IV_BYTES)));
}
