/**
 * Token metadata is fetched from URLs that whoever deployed a contract chose: the fetcher
 * keeps to its rules against a real HTTP server playing good and hostile hosts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchMetadata, isForbiddenAddress, resolveMetadataUrl, type MetadataSettings } from '../../pipeline/chain/metadata-fetch.ts';
import { startMetadataServer, type MetadataServer } from '../support/metadata-server.ts';

let server: MetadataServer;
const settings: MetadataSettings = {
  METADATA_IPFS_GATEWAY: 'http://127.0.0.1:1/ipfs/',
  METADATA_TIMEOUT_MS: 1_000,
  METADATA_MAX_BYTES: 64 * 1024,
  METADATA_MAX_REDIRECTS: 3,
  METADATA_ALLOW_PRIVATE_NETWORKS: ['127.0.0.0/8'],
};

beforeAll(async () => {
  server = await startMetadataServer();
});
afterAll(async () => server?.close());

describe('fetching token metadata', () => {
  it('returns the JSON object of a good document', async () => {
    const outcome = await fetchMetadata(`${server.url}/good/1.json`, settings);
    expect(outcome).toEqual({ status: 'ok', url: `${server.url}/good/1.json`, document: { name: 'Badge 1', image: 'ipfs://QmImage1', description: 'a test badge' } });
  });

  it('stops reading a body over the size limit', async () => {
    const outcome = await fetchMetadata(`${server.url}/huge.json`, settings);
    expect(outcome).toEqual({ status: 'failed', reason: `the metadata document is over ${64 * 1024} bytes` });
  });

  it('gives up on a slow host at the timeout', async () => {
    server.setSlowMs(3_000);
    const started = Date.now();
    const outcome = await fetchMetadata(`${server.url}/slow/1.json`, settings);
    expect(outcome).toEqual({ status: 'failed', reason: 'no complete answer within 1000 ms' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('refuses a redirect to a private address, and one to the cloud metadata endpoint', async () => {
    expect(await fetchMetadata(`${server.url}/redirect-private`, settings)).toEqual({ status: 'refused', reason: '10.1.2.3 is a private or reserved address' });
    expect(await fetchMetadata(`${server.url}/redirect-cloud-metadata`, settings)).toEqual({ status: 'refused', reason: '169.254.169.254 is a private or reserved address' });
  });

  it('follows a redirect to an allowed host, but not endlessly', async () => {
    expect(await fetchMetadata(`${server.url}/redirect-good`, settings)).toMatchObject({ status: 'ok', document: { name: 'Badge 7' } });
    expect(await fetchMetadata(`${server.url}/redirect-loop`, settings)).toEqual({ status: 'refused', reason: 'more than 3 redirects' });
  });

  it('calls a document that is not JSON, or not an object, invalid', async () => {
    expect(await fetchMetadata(`${server.url}/not-json`, settings)).toEqual({ status: 'invalid', reason: 'the metadata document is not JSON' });
    expect(await fetchMetadata(`${server.url}/array.json`, settings)).toEqual({ status: 'invalid', reason: 'the metadata document is not a JSON object' });
  });

  it('refuses loopback unless its network is allowed, by IP and by a name that resolves to it', async () => {
    const strict = { ...settings, METADATA_ALLOW_PRIVATE_NETWORKS: [] };
    expect(await fetchMetadata(`${server.url}/good/1.json`, strict)).toEqual({ status: 'refused', reason: '127.0.0.1 is a private or reserved address' });
    const byName = await fetchMetadata(`${server.url.replace('127.0.0.1', 'localhost')}/good/1.json`, strict);
    expect(byName).toMatchObject({ status: 'refused' });
    expect((byName as { reason: string }).reason).toMatch(/^localhost resolves to the private or reserved address (127\.0\.0\.1|::1)$/);
  });

  it('refuses schemes other than http, https and ipfs', async () => {
    for (const uri of ['file:///etc/passwd', 'ftp://example.com/a.json', 'gopher://x', 'javascript:alert(1)']) {
      expect(await fetchMetadata(uri, settings)).toMatchObject({ status: 'refused' });
    }
  });

  it('fetches ipfs:// through the gateway only', () => {
    expect(resolveMetadataUrl('ipfs://QmAbc/1.json', 'https://gw.example/ipfs/').toString()).toBe('https://gw.example/ipfs/QmAbc/1.json');
    expect(resolveMetadataUrl('ipfs://ipfs/QmAbc', 'https://gw.example/ipfs/').toString()).toBe('https://gw.example/ipfs/QmAbc');
  });

  it('decodes a data:application/json token URI without fetching', async () => {
    const uri = `data:application/json;base64,${Buffer.from('{"name":"On-chain"}').toString('base64')}`;
    expect(await fetchMetadata(uri, settings)).toMatchObject({ status: 'ok', document: { name: 'On-chain' } });
  });

  it('knows the reserved ranges, IPv4-mapped IPv6 included', () => {
    for (const a of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:7f00:1']) {
      expect(isForbiddenAddress(a), a).toBe(true);
    }
    for (const a of ['1.1.1.1', '93.184.216.34', '2606:4700::1111']) expect(isForbiddenAddress(a), a).toBe(false);
  });
});
