ALTER TABLE "alerts" ADD COLUMN "paused_reason" text;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "cancelled_reason" text;