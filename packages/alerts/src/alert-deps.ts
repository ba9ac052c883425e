import type { Database } from '@domain-index/db';
import { EMPTY_ALLOW_LIST, type AllowList } from '@domain-index/webhooks/address-rules';
import type { Resolver } from '@domain-index/webhooks/safe-request';
import { loadWebhookSecretKey, type SecretBox } from '@domain-index/webhooks/secret-box';

/** What the alert endpoints need beyond the app's own dependencies. */
export interface AlertSettings {
  /** Seals and opens the signing secrets; loaded from the database when not given. */
  box?: SecretBox | undefined;
  /** WEBHOOK_ALLOWED_HOSTS: hosts and ranges a webhook may reach though the address rules refuse them. */
  allowList?: AllowList | undefined;
  /** Whether email digests can be sent (SMTP_URL is set); otherwise the option is refused. */
  digestsAvailable?: boolean | undefined;
  /** How host names are resolved for the address check (the system's resolver by default). */
  resolve?: Resolver | undefined;
}

/** The settings with their defaults, the secret box loaded once on first use. */
export class AlertContext {
  readonly allowList: AllowList;
  readonly digestsAvailable: boolean;
  readonly resolve: Resolver | undefined;
  private box: Promise<SecretBox> | undefined;

  constructor(
    private readonly database: Database,
    settings: AlertSettings = {},
  ) {
    this.allowList = settings.allowList ?? EMPTY_ALLOW_LIST;
    this.digestsAvailable = settings.digestsAvailable ?? false;
    this.resolve = settings.resolve;
    if (settings.box !== undefined) this.box = Promise.resolve(settings.box);
  }

  /** Loaded once, on `database` when given (a request's view, bounded by its deadline). */
  secretBox(database: Database = this.database): Promise<SecretBox> {
    this.box ??= loadWebhookSecretKey(database).catch((error: unknown) => {
      this.box = undefined;
      throw error;
    });
    return this.box;
  }
}
