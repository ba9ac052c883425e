import * as contract from '@domain-index/contract';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import * as client from '../src';

// The client's types are generated from the contract at build time; these checks (run by tsc
// and by vitest) fail if the two ever drift apart.
describe('types generated from the contract', () => {
  it('match the contract exactly', () => {
    expectTypeOf<client.Domain>().toEqualTypeOf<contract.Domain>();
    expectTypeOf<client.ListEnvelope>().toEqualTypeOf<contract.ListEnvelope>();
    expectTypeOf<client.LookupEnvelope>().toEqualTypeOf<contract.LookupEnvelope>();
    expectTypeOf<client.StatsEnvelope>().toEqualTypeOf<contract.StatsEnvelope>();
    expectTypeOf<client.ErrorCode>().toEqualTypeOf<contract.ErrorCode>();
    expectTypeOf<Required<client.SearchParams>>().toEqualTypeOf<Required<NonNullable<contract.SearchParams>>>();
    expectTypeOf<client.Event>().toEqualTypeOf<contract.Event>();
    expectTypeOf<client.EventListEnvelope>().toEqualTypeOf<contract.EventListEnvelope>();
    expectTypeOf<client.EventType>().toEqualTypeOf<contract.EventType>();
    expectTypeOf<Required<client.EventParams>>().toEqualTypeOf<Required<NonNullable<contract.EventParams>>>();
    expectTypeOf<client.Alert>().toEqualTypeOf<contract.Alert>();
    expectTypeOf<client.AlertWithSecret>().toEqualTypeOf<z.infer<typeof contract.alertWithSecretSchema>>();
    expectTypeOf<client.DeletedAlert>().toEqualTypeOf<z.infer<typeof contract.deletedAlertSchema>>();
    expectTypeOf<client.DeliveryAttempt>().toEqualTypeOf<z.infer<typeof contract.deliveryAttemptSchema>>();
    expectTypeOf<client.DeliveryListEnvelope>().toEqualTypeOf<z.infer<typeof contract.deliveryListSchema>>();
    expectTypeOf<client.QueuedDelivery>().toEqualTypeOf<z.infer<typeof contract.queuedDeliverySchema>>();
    expectTypeOf<client.DigestPeriod>().toEqualTypeOf<contract.DigestPeriod>();
    // what a caller passes: the schemas' input types (Required: the generated ones leave out `| undefined`)
    expectTypeOf<Required<client.CreateAlert>>().toEqualTypeOf<Required<z.input<typeof contract.createAlertSchema>>>();
    expectTypeOf<Required<client.UpdateAlert>>().toEqualTypeOf<Required<z.input<typeof contract.updateAlertSchema>>>();
    expectTypeOf<Required<client.DeliveryParams>>().toEqualTypeOf<Required<z.input<typeof contract.deliveryQuerySchema>>>();
    // the webhook body: its events are the change feed's events
    expectTypeOf<client.WebhookPayload>().toEqualTypeOf<z.infer<typeof contract.webhookPayloadSchema>>();
    expectTypeOf<client.WebhookPayload['events']>().toEqualTypeOf<contract.Event[]>();
    expectTypeOf(client.verifyWebhook).returns.toEqualTypeOf<client.WebhookPayload>();
  });
  it('type the alerts methods by the generated types', () => {
    type Alerts = client.DomainIndex['alerts'];
    expectTypeOf<Alerts['create']>().parameter(0).toEqualTypeOf<client.CreateAlert>();
    expectTypeOf<Alerts['create']>().returns.resolves.toEqualTypeOf<client.AlertWithSecret>();
    expectTypeOf<Alerts['list']>().returns.toEqualTypeOf<client.PagePromise<client.AlertPage>>();
    expectTypeOf<client.ItemOf<client.AlertPage>>().toEqualTypeOf<client.Alert>();
    // awaited, still the array of the alerts it always was
    expectTypeOf<client.AlertPage>().toExtend<client.Alert[]>();
    expectTypeOf<Alerts['update']>().parameter(1).toEqualTypeOf<client.UpdateAlert>();
    expectTypeOf<Alerts['update']>().returns.resolves.toEqualTypeOf<client.AlertWithSecret>();
    expectTypeOf<Alerts['test']>().returns.resolves.toEqualTypeOf<client.QueuedDelivery>();
    expectTypeOf<Alerts['deliveries']>().returns.toEqualTypeOf<client.PagePromise<client.DeliveryPage>>();
    expectTypeOf<client.ItemOf<client.DeliveryPage>>().toEqualTypeOf<client.DeliveryAttempt>();
  });
  it('type error codes by the ErrorCode union, each family by its own codes', () => {
    expectTypeOf<client.DomainIndexError['code']>().toEqualTypeOf<contract.ErrorCode | undefined>();
    expectTypeOf<client.RateLimitError['code']>().toEqualTypeOf<'rate_limited' | 'refresh_limit_reached'>();
    expectTypeOf<client.AuthenticationError['code']>().toEqualTypeOf<'missing_api_key' | 'invalid_authorization_header' | 'invalid_api_key'>();
    expectTypeOf<client.AbortError['code']>().toEqualTypeOf<undefined>();
    expectTypeOf<client.CursorExpiredError['code']>().toEqualTypeOf<'cursor_expired'>();
    expectTypeOf<client.PermissionDeniedError['code']>().toEqualTypeOf<'alert_limit_reached' | 'watch_limit_reached' | 'export_too_large'>();
    expectTypeOf<client.ConflictError['code']>().toEqualTypeOf<'watchlist_in_use'>();
    expectTypeOf<client.NotFoundError['code']>().toEqualTypeOf<'domain_not_found' | 'alert_not_found' | 'delivery_not_found' | 'watchlist_not_found' | 'not_found'>();
    // instanceof narrows (through the classes' Symbol.hasInstance)
    const narrow = (error: unknown) => (error instanceof client.RateLimitError ? error.retryAfter : undefined);
    expectTypeOf(narrow).returns.toEqualTypeOf<number | undefined>();
  });
  it('carry the same error codes and enumerations', () => {
    expect(client.ERROR_STATUS).toEqual(contract.ERROR_STATUS);
    expect(client.SORT_FIELDS).toEqual(contract.SORT_FIELDS);
    expect(client.STATUS_FILTERS).toEqual(contract.STATUS_FILTERS);
    expect(client.EVENT_TYPES).toEqual(contract.EVENT_TYPES);
    expect(client.DIGEST_PERIODS).toEqual(contract.DIGEST_PERIODS);
  });
});
