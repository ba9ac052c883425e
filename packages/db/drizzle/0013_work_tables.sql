CREATE TABLE "work_tables" (
	"name" text PRIMARY KEY NOT NULL,
	"lease_until" timestamp (3) with time zone NOT NULL,
	"owner_host" text,
	"owner_pid" integer
);
