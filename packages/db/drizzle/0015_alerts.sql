CREATE TABLE "alerts" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text,
	"key_id" text,
	"name" text NOT NULL,
	"query" jsonb NOT NULL,
	"query_string" text NOT NULL,
	"webhook_url" text,
	"webhook_secret" text,
	"previous_webhook_secret" text,
	"secret_rotated_at" timestamp (3) with time zone,
	"webhook_disabled_at" timestamp (3) with time zone,
	"webhook_disabled_reason" text,
	"failing_since" timestamp (3) with time zone,
	"email_digest" text,
	"email_to" text,
	"digest_due_at" timestamp (3) with time zone,
	"paused" boolean DEFAULT false NOT NULL,
	"webhook_position" bigint NOT NULL,
	"digest_position" bigint NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alerts_owner_check" CHECK (("alerts"."account_id" is not null) <> ("alerts"."key_id" is not null)),
	CONSTRAINT "alerts_email_digest_check" CHECK ("alerts"."email_digest" in ('hourly', 'daily'))
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "webhook_attempts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"delivery_id" text NOT NULL,
	"alert_id" text NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"http_status" integer,
	"error" text,
	"duration_ms" integer NOT NULL,
	"response" text
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"alert_id" text NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "webhook_deliveries_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"kind" text NOT NULL,
	"event_ids" bigint[] NOT NULL,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone NOT NULL,
	"claimed_until" timestamp (3) with time zone,
	"claimed_by" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"delivered_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "alerts_limit" integer DEFAULT 2 NOT NULL;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."webhook_deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alerts_account_id_idx" ON "alerts" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "alerts_key_id_idx" ON "alerts" USING btree ("key_id");--> statement-breakpoint
CREATE INDEX "webhook_attempts_alert_idx" ON "webhook_attempts" USING btree ("alert_id","at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_alert_idx" ON "webhook_deliveries" USING btree ("alert_id","seq");--> statement-breakpoint
UPDATE "plans" SET "alerts_limit" = 50 WHERE "id" = 'pro';
