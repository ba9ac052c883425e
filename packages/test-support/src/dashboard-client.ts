/**
 * A person in a browser without JavaScript, over HTTP: a cookie jar, forms that post as a
 * browser posts them (with its Origin), and redirects followed by hand so each step is seen.
 */
export class DashboardClient {
  private cookies = new Map<string, string>();

  /**
   * `address`: the client address a proxy in front reports in X-Forwarded-For (believed only
   * by an instance with `trustProxy`), so each simulated person can have an address of its own.
   */
  constructor(
    private baseUrl: string,
    readonly address?: string,
    /** The Origin its forms carry: the page's, which is PUBLIC_URL behind a proxy, else `baseUrl`. */
    private readonly origin = baseUrl,
  ) {}

  /** Continues the same browser session against another instance (same cookies, the same origin). */
  on(baseUrl: string): DashboardClient {
    const other = new DashboardClient(baseUrl, this.address, this.origin === this.baseUrl ? baseUrl : this.origin);
    other.cookies = this.cookies;
    return other;
  }

  /** The headers every request of this browser carries. */
  private base(): Record<string, string> {
    return { cookie: this.cookieHeader, ...(this.address === undefined ? {} : { 'x-forwarded-for': this.address }) };
  }

  get cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private remember(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    const response = await fetch(`${this.baseUrl}${path}`, { redirect: 'manual', headers: { ...this.base(), ...headers } });
    this.remember(response);
    return response;
  }

  /**
   * Posts a form as a browser on this origin does; `headers` may override Origin and
   * Sec-Fetch-Site, or leave one out (undefined), and `body` may replace the encoded form.
   */
  async post(path: string, form: Record<string, string>, headers: Record<string, string | undefined> = {}, body?: string): Promise<Response> {
    const all: Record<string, string | undefined> = {
      'content-type': 'application/x-www-form-urlencoded',
      ...this.base(),
      origin: this.origin,
      'sec-fetch-site': 'same-origin',
      ...headers,
    };
    const response = await fetch(`${this.baseUrl}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined)),
      body: body ?? new URLSearchParams(form).toString(),
    });
    this.remember(response);
    return response;
  }

  /**
   * Posts a form with a file as a browser does (multipart/form-data, its boundary chosen by
   * fetch): the form's fields, and the file under `file.field` with its name and type.
   */
  async upload(path: string, fields: Record<string, string>, file: { field: string; name: string; type: string; content: string | Uint8Array }, headers: Record<string, string> = {}): Promise<Response> {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append(file.field, new Blob([file.content], { type: file.type }), file.name);
    const response = await fetch(`${this.baseUrl}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...this.base(), origin: this.origin, 'sec-fetch-site': 'same-origin', ...headers },
      body: form,
    });
    this.remember(response);
    return response;
  }

  /** The page after following a redirect, as a browser would. */
  async follow(response: Response): Promise<Response> {
    const location = response.headers.get('location');
    if (response.status !== 303 && response.status !== 302) return response;
    if (location === null) throw new Error('redirect without Location');
    return this.get(location.startsWith('http') ? new URL(location).pathname : location);
  }
}

/** The key a "new key" page shows once. */
export function shownKey(page: string): string | undefined {
  return /id="new-key"\s+readonly\s+value="(dix_[a-z]+_[0-9A-Za-z]+)"/.exec(page)?.[1];
}

/** The one-time token of the form on a page (the keys page's create form, a rotate page's form). */
export function formTokenOf(page: string): string {
  const token = /name="form_token" value="([A-Za-z0-9_-]{43})"/.exec(page)?.[1];
  if (token === undefined) throw new Error('the page has no form token');
  return token;
}

/** Text of an HTML fragment: tags dropped, entities of ours decoded, spaces collapsed. */
export function textOf(fragment: string): string {
  return fragment
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The rows of a page's list (a table on a wide screen, cards on a phone): each cell's text by its column. */
export function listRows(page: string): Record<string, string>[] {
  const body = /<tbody role="rowgroup">([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? '';
  return [...body.matchAll(/<tr role="row">([\s\S]*?)<\/tr>/g)].map((row) =>
    Object.fromEntries([...row[1]!.matchAll(/<td role="cell" data-label="([^"]*)"[^>]*>([\s\S]*?)<\/td>/g)].map((cell) => [cell[1]!, textOf(cell[2]!)])),
  );
}

/**
 * Makes a key as a browser does: opens the keys page, posts its form, follows the redirect to
 * the page that shows the key once. Returns the post's answer and that page.
 */
export async function postNewKey(browser: DashboardClient, form: { name: string; expires?: string }): Promise<{ posted: Response; page: Response }> {
  const token = formTokenOf(await (await browser.get('/dashboard/keys')).text());
  const posted = await browser.post('/dashboard/keys', { form_token: token, name: form.name, expires: form.expires ?? 'never' });
  return { posted, page: await browser.follow(posted) };
}

/** Rotates a key as a browser does: its rotate page, then that page's form, then the redirect. */
export async function postRotation(browser: DashboardClient, keyId: string, overlap: string): Promise<{ posted: Response; page: Response }> {
  const token = formTokenOf(await (await browser.get(`/dashboard/keys/${keyId}/rotate`)).text());
  const posted = await browser.post(`/dashboard/keys/${keyId}/rotate`, { form_token: token, overlap });
  return { posted, page: await browser.follow(posted) };
}
