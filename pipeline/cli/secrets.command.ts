/**
 * `soulgraph secrets generate`: fresh production secrets for the API, as .env lines.
 * To rotate the signing key, prepend the new JWK to the API_SIGNING_KEYS array and drop
 * the old one once the tokens it signed have expired (7 days).
 */
import { randomBytes } from 'node:crypto';
import { Command } from 'commander';
import { generateSigningKeyJwk } from '../../shared/signing-key-jwk.ts';

export function secretsCommand(): Command {
  const secrets = new Command('secrets').description('Generate the secrets the API needs in production');
  secrets
    .command('generate')
    .description('Print API_SIGNING_KEYS (a new ES256 key) and CURSOR_SECRET as .env lines; nothing is stored')
    .action(async () => {
      const jwk = await generateSigningKeyJwk('key');
      process.stdout.write(`API_SIGNING_KEYS='${JSON.stringify([jwk])}'\nCURSOR_SECRET=${randomBytes(32).toString('base64url')}\n`);
    });
  return secrets;
}
