/**
 * `soulgraph demo`: a ready-to-paste shell walk through the API as one of the demo users of
 * the world `soulgraph start` loads (sign in, recommendations page by page, SBTs by each
 * identifier, tags fetched and decrypted), the same steps as docs/api.md. Refused in
 * production, where the demo users do not exist.
 */
import { Command } from 'commander';
import { loadConfig, type Config } from '../../shared/config.ts';
import { readNetworkFile } from '../../shared/custody/key-files.ts';
import { demoUsers, type DemoUser } from '../generate/demo-users.ts';
import { demoUsersAllowed } from '../demo-world.ts';
import { custodyKeyDir } from './custodian.command.ts';
import { UsageError } from './usage-error.ts';

export function demoCommand(): Command {
  const keys = demoUsers().map((u) => u.key);
  return new Command('demo')
    .description("Print a ready-to-paste walk through the API as a demo user of `soulgraph start`'s demo world")
    .option('--user <name>', `which demo user: ${keys.join(', ')}`, keys[0])
    .action(async (options: { user: string }) => {
      const config = loadConfig();
      process.stdout.write(await demoWalk(config, options.user));
    });
}

/** The walk as shell text; throws UsageError in production or for an unknown user. */
export async function demoWalk(config: Config, userKey: string): Promise<string> {
  if (!demoUsersAllowed(config)) throw new UsageError('the demo users exist only outside production (NODE_ENV=production has none)');
  const user = demoUsers().find((u) => u.key === userKey);
  if (!user) throw new UsageError(`--user: no demo user "${userKey}"; they are ${demoUsers().map((u) => u.key).join(', ')}`);
  return walkScript(config, user, await custodiansOf(config));
}

/** What `soulgraph start` prints about the demo users: demo-only, and nothing in production. */
export function demoWalletsSummary(config: Config): string {
  if (!demoUsersAllowed(config)) return '';
  const lines = demoUsers().map((u) => `  ${u.name.padEnd(11)} ${u.profileId.padEnd(13)} ${u.address}  key ${u.privateKey}`);
  return [
    'demo users (DEMO ONLY: these private keys are public; never use these wallets for anything real):',
    ...lines,
    '  npx soulgraph demo   prints a walk through the API as Ada (sign in, recommendations, SBTs, tags)',
  ].join('\n');
}

interface Custodians {
  urls: string[];
  threshold: number;
  publicKey: string;
}

/** The local custody network `soulgraph start` runs (its keys made on first start). */
async function custodiansOf(config: Config): Promise<Custodians | undefined> {
  const network = await readNetworkFile(custodyKeyDir(config)).catch(() => undefined);
  if (!network) return undefined;
  return {
    urls: network.custodians.map(({ index }) => `http://127.0.0.1:${config.CUSTODIAN_PORT + index - 1}`),
    threshold: network.threshold,
    publicKey: network.publicKey,
  };
}

/** A Sign-In with Ethereum message, built by the shell (heredoc) so that the times are now. */
function siweHeredoc(variable: string, statement: string, nonce: string, expiry: string): string[] {
  return [
    `${variable}=$(cat <<EOF`,
    'app.acme.xyz wants you to sign in with your Ethereum account:',
    '$ADDRESS',
    '',
    statement,
    '',
    'URI: https://app.acme.xyz/login',
    'Version: 1',
    'Chain ID: 1',
    `Nonce: ${nonce}`,
    'Issued At: $(date -u +%Y-%m-%dT%H:%M:%SZ)',
    `Expiration Time: $(date -u -d '${expiry}' +%Y-%m-%dT%H:%M:%SZ)`,
    'EOF',
    ')',
  ];
}

function signWith(variable: string, message: string): string[] {
  return [
    `${variable}=$(MESSAGE="$${message}" node --input-type=module -e '`,
    'import { privateKeyToAccount } from "viem/accounts";',
    'console.log(await privateKeyToAccount(process.env.PRIVATE_KEY).signMessage({ message: process.env.MESSAGE }));',
    "')",
  ];
}

function walkScript(config: Config, user: DemoUser, custodians: Custodians | undefined): string {
  const decrypt = custodians
    ? [
        '# ... and decrypt them with the SDK and the local custodians (any 3 of 5)',
        'ENCRYPTED="$ENCRYPTED" TAG_MESSAGE="$TAG_MESSAGE" TAG_SIGNATURE="$TAG_SIGNATURE" ADDRESS="$ADDRESS" \\',
        `  node --import tsx --input-type=module -e '`,
        'import { SoulgraphClient, custodianDecryptor } from "soulgraph/sdk";',
        'const client = new SoulgraphClient({ baseUrl: process.env.API, apiKey: process.env.KEY });',
        'const authorization = { message: process.env.TAG_MESSAGE, sig: process.env.TAG_SIGNATURE, address: process.env.ADDRESS };',
        `const custodians = custodianDecryptor({ custodians: ${JSON.stringify(custodians.urls)}, threshold: ${custodians.threshold}, publicKey: "${custodians.publicKey}" });`,
        'console.log(await client.decryptTags(JSON.parse(process.env.ENCRYPTED), authorization, custodians));',
        "'",
      ]
    : ['# (no local custodians: TAG_NETWORK_PUBLIC_KEY is set, or `soulgraph start` has not run yet; docs/sdk.md decrypts with Lit)'];
  return [
    `# A walk through the soulgraph API as ${user.name} (${user.profileId}), a demo user of the world \`npm start\` loads.`,
    '# DEMO ONLY: this private key is public knowledge. Run from the soulgraph checkout (viem and the SDK are there); needs curl and jq.',
    `export API=http://127.0.0.1:${config.API_PORT}`,
    'export KEY=$(npx soulgraph apikey create --name acme --domain app.acme.xyz)',
    `export PRIVATE_KEY=${user.privateKey}`,
    `export ADDRESS=${user.address}`,
    '# a new key is accepted within APIKEY_CACHE_SECONDS (30 s by default): wait for it',
    'until [ "$(curl -s "$API/api/v1/auth/nonce" -H "ApiKey: $KEY" | jq -r .code)" = 0 ]; do sleep 1; done',
    '',
    '# 1. sign in: nonce, Sign-In with Ethereum, address token, unified token',
    'NONCE=$(curl -s "$API/api/v1/auth/nonce" -H "ApiKey: $KEY" | jq -r .data.nonce)',
    ...siweHeredoc('MESSAGE', 'Sign in to Acme', '$NONCE', '+5 minutes'),
    ...signWith('SIGNATURE', 'MESSAGE'),
    "ADDRESS_TOKEN=$(jq -n --arg message \"$MESSAGE\" --arg signature \"$SIGNATURE\" '{message: $message, signature: $signature}' |",
    "  curl -s -X POST \"$API/api/v1/auth/address-token\" -H \"ApiKey: $KEY\" -H 'Content-Type: application/json' --data-binary @- | jq -r .data.token)",
    'TOKEN=$(curl -s -X POST "$API/api/v1/auth" -H "ApiKey: $KEY" -H "I-Authorization: Bearer $ADDRESS_TOKEN" \\',
    "  -H 'Content-Type: application/json' -d '{}' | jq -r .data.token)",
    '',
    `# 2. ${user.name}'s recommendations, 5 a page, until the cursor comes back ""`,
    'cursor=""',
    'while :; do',
    '  page=$(curl -s -G "$API/api/v1/recommend" -H "ApiKey: $KEY" -H "Authorization: Bearer $TOKEN" \\',
    '    --data-urlencode "limit=5" --data-urlencode "cursor=$cursor")',
    '  [ "$(jq -r .code <<<"$page")" = 0 ] || { echo "$page" >&2; break; }',
    "  jq -r '.data.list[] | [.profileId, .name, .recommendReason, .following] | @tsv' <<<\"$page\"",
    '  cursor=$(jq -r .data.cursor <<<"$page")',
    '  [ -z "$cursor" ] && break',
    'done',
    '',
    '# 3. the same SBTs, by each of the three identifiers',
    'curl -s "$API/api/v1/sbt/list?address=$ADDRESS" -H "ApiKey: $KEY" | jq -c \'.data[] | [.sbtName, .tokenId]\'',
    `curl -s "$API/api/v1/sbt/list?socialUsername=${user.socialUsername}" -H "ApiKey: $KEY" | jq -c '.data[] | [.sbtName, .tokenId]'`,
    `curl -s "$API/api/v1/sbt/list?gamePlatformId=${user.gamePlatformId}" -H "ApiKey: $KEY" | jq -c '.data[] | [.sbtName, .tokenId]'`,
    '',
    '# 4. tags: the user signs "Access to User Tag." (any nonce), the API answers them encrypted ...',
    ...siweHeredoc('TAG_MESSAGE', 'Access to User Tag.', 'tagaccess0001', '+1 hour'),
    ...signWith('TAG_SIGNATURE', 'TAG_MESSAGE'),
    'ENCRYPTED=$(curl -s -G "$API/api/v1/tag" -H "ApiKey: $KEY" \\',
    '  --data-urlencode "address=$ADDRESS" --data-urlencode "message=$TAG_MESSAGE" --data-urlencode "sig=$TAG_SIGNATURE" | jq -c .data)',
    'jq . <<<"$ENCRYPTED"',
    ...decrypt,
    '',
  ].join('\n');
}
