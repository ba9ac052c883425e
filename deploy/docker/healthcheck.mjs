// The image's HEALTHCHECK: healthy while the admin listener's /readyz answers 200 (starting,
// draining and an unreachable database answer 503). Node's fetch: the image has no curl.
const port = process.env.ADMIN_PORT || '9464';
try {
  const response = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2500) });
  process.exit(response.status === 200 ? 0 : 1);
} catch {
  process.exit(1);
}
