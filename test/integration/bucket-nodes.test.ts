/**
 * Where the nightly run computes a bucket on a cluster with CLICKHOUSE_NODE_URLS
 * (pipeline/materialize/bucket-nodes.ts): bucket b on node b mod n, or the next node that
 * answers. The "nodes" here are the test ClickHouse under two names, and a port nothing
 * listens on.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { bucketNodes } from '../../pipeline/materialize/bucket-nodes.ts';
import { createClickHouse, type ClickHouse } from '../../shared/clickhouse/client.ts';
import { freePort } from '../../shared/local-stack/free-port.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
let main: ClickHouse | undefined;
afterAll(() => main?.close());

describe('the node a bucket runs on', () => {
  it('is node b mod n; a node that does not answer leaves its buckets to the next; with none, CLICKHOUSE_URL', async () => {
    const live = new URL(env.config.CLICKHOUSE_URL!);
    const [a, b] = [`127.0.0.1:${live.port}`, `localhost:${live.port}`];
    const dead = `127.0.0.1:${await freePort()}`;
    const config = { ...env.config, CLICKHOUSE_CLUSTER: 'soulgraph', CLICKHOUSE_NODE_URLS: [a, dead, b].map((host) => `http://${host}`) };
    main = createClickHouse(config);
    const nodes = bucketNodes(main);
    const addressOf = async (bucket: number) => (await nodes.forBucket(bucket)).address;
    expect(await Promise.all([0, 1, 2, 3, 4, 5].map(addressOf))).toEqual([a, b, b, a, b, b]);
    expect(await (await nodes.forBucket(2)).client.ping()).toBe(true);
    // A bucket's node still knows every node, so that its ALTERs reach each one (not ON CLUSTER).
    expect((await nodes.forBucket(0)).client.nodes).toBe(main.nodes);

    const none = bucketNodes(env.ch);
    expect(await none.forBucket(7)).toEqual({ client: env.ch });
  });
});
