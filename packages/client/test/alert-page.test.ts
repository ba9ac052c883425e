import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertPage, DomainIndex, type Alert } from '../src';
import { startFakeApi } from './support/fake-api';

const alertNamed = (id: string, name: string) =>
  ({ object: 'alert', id, name, query: 'type=listing.added', webhook_url: null, email_digest: 'daily', webhook_state: 'active', paused: false, last_delivery: null }) as unknown as Alert;
const alerts = [alertNamed('alt_2', 'two'), alertNamed('alt_1', 'one')];

describe('client.alerts.list()', () => {
  let api: Awaited<ReturnType<typeof startFakeApi>>;
  let client: DomainIndex;
  beforeAll(async () => {
    api = await startFakeApi([{ status: 200, body: { object: 'list', data: alerts } }]);
    client = new DomainIndex({ apiKey: 'dix_test_0123456789abcdefghijklmnopqrstuvwxyzAB', baseUrl: api.baseUrl, maxRetries: 0 });
  });
  afterAll(async () => {
    await api.close();
  });

  it('walks every alert with for await on the call, in one request', async () => {
    const before = api.requests.length;
    const names: string[] = [];
    for await (const alert of client.alerts.list()) names.push(alert.name);
    expect(names).toEqual(['two', 'one']);
    expect(api.requests.slice(before).map((request) => `${request.method} ${request.url}`)).toEqual(['GET /api/v1/alerts']);
  });

  it('awaits to a page that is still the array of the alerts', async () => {
    const page = await client.alerts.list();
    expect(page).toBeInstanceOf(AlertPage);
    expect(Array.isArray(page)).toBe(true);
    expect(page).toEqual(alerts);
    expect(page.length).toBe(2);
    expect(page[0]!.id).toBe('alt_2');
    const ids = page.map((alert) => alert.id);
    expect(ids).toEqual(['alt_2', 'alt_1']);
    expect(ids).not.toBeInstanceOf(AlertPage);
    expect(JSON.stringify(page)).toBe(JSON.stringify(alerts));
    expect(page.data).toEqual(alerts);
    expect(page.hasNextPage()).toBe(false);
    await expect(page.getNextPage()).rejects.toThrow('there is no next page; check hasNextPage() first');
  });

  it('gives its one page to iterPages() and stops at maxItems', async () => {
    const pages: AlertPage[] = [];
    for await (const page of client.alerts.list().iterPages()) pages.push(page);
    expect(pages.map((page) => page.data)).toEqual([alerts]);
    const first: Alert[] = [];
    for await (const alert of client.alerts.list({ maxItems: 1 })) first.push(alert);
    expect(first.map((alert) => alert.id)).toEqual(['alt_2']);
  });
});
