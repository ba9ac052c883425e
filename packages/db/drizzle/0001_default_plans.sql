-- Plans are data: limits can change without a release. Free and pro as in decisions.md.
INSERT INTO "plans" ("id", "requests_per_window", "window_seconds", "description") VALUES
  ('free', 60, 3600, 'Free: 60 requests per hour'),
  ('pro', 1000, 3600, 'Pro: 1,000 requests per hour')
ON CONFLICT ("id") DO NOTHING;
